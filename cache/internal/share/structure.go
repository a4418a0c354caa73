package share

import (
	"hash/maphash"
	"reflect"
	"sync"
	"unsafe"
	"weak"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Structural sharing ([Options.Structures]) is hash-consing, bottom up:
// once the strings of an object are canonical, each pointer, slice and map
// of it, its own children done first, is replaced by a canonical copy of
// an equal value of its type. A pointer's target and a slice's elements
// are compared byte for byte: their strings are then equal exactly when
// they point to the same canonical bytes, and their pointers, slices and
// maps when they are the same canonical copy. The comparison is thus
// exact (a value with a string that was not shared, or an unexported
// pointer, compares unequal and is left alone), and costs one hash and one
// memory comparison per value. Maps are compared entry by entry.

// sopKind says what a structural op finds at its offset.
type sopKind uint8

const (
	sopPtr         sopKind = iota // a pointer to a value of type elemType
	sopSmallPtr                   // a pointer to a small pointer-free value (*bool, *int64, *int32)
	sopSlice                      // a slice of values of type elemType
	sopMapString                  // a map whose underlying type is map[string]string
	sopMapQuantity                // a map with string keys and resource.Quantity values (a ResourceList)
	sopMap                        // any other map
)

// sop is one step of a structural plan.
type sop struct {
	kind sopKind
	off  uintptr
	typ  reflect.Type // the field's type: the key of its canonical copies
	elem *splan       // sopPtr, sopSlice: the plan of the target or the elements; nil for none
	size uintptr      // sopPtr, sopSlice: the size of the target or of one element
}

// splan is how to share the pointers, slices and maps of a value of one
// type, the fields of nested structs flattened into it. Immutable once
// published.
type splan struct {
	ops []sop
}

// splans caches the structural plan of every type seen: reflect.Type →
// *splan, nil for a type with nothing to share.
var splans sync.Map

// splanOf returns the structural plan of t, nil when t holds no exported
// pointer, slice or map.
func splanOf(t reflect.Type) *splan {
	return loadPlan(&splans, t, func(b *builder[splan]) *splan {
		return (&splanBuilder{b}).plan(t)
	})
}

// splanBuilder builds structural plans.
type splanBuilder struct{ *builder[splan] }

func (b *splanBuilder) plan(t reflect.Type) *splan {
	return b.builder.plan(t, func(p *splan) bool {
		p.ops = b.ops(t, 0, nil)
		return len(p.ops) > 0
	})
}

// ops appends the structural ops of a value of type t at offset off. Only
// struct types have ops: the value itself is shared by its container.
func (b *splanBuilder) ops(t reflect.Type, off uintptr, ops []sop) []sop {
	if t.Kind() != reflect.Struct {
		return ops
	}
	unique := uniqueFields[t]
	for i := range t.NumField() {
		f := t.Field(i)
		if contains(unique, f.Name) || !f.IsExported() && !(f.Anonymous && f.Type.Kind() == reflect.Struct) {
			continue
		}
		if op, ok := b.fieldOp(f.Type, off+f.Offset); ok {
			ops = append(ops, op)
		} else if f.Type.Kind() == reflect.Struct {
			ops = b.ops(f.Type, off+f.Offset, ops)
		}
	}
	return ops
}

// fieldOp returns the op of a field of type t at offset off, if it is a
// pointer, slice or map that can be shared.
func (b *splanBuilder) fieldOp(t reflect.Type, off uintptr) (sop, bool) {
	switch t.Kind() {
	case reflect.Pointer:
		e := t.Elem()
		if e.Size() == 0 || !plainType(e) || holdsCache(e) {
			return sop{}, false
		}
		if e.Size() <= smallSize && pointerFree(e) {
			return sop{kind: sopSmallPtr, off: off, typ: t, size: e.Size()}, true
		}
		return sop{kind: sopPtr, off: off, typ: t, elem: b.plan(e), size: e.Size()}, true
	case reflect.Slice:
		e := t.Elem()
		if e.Kind() == reflect.Uint8 || e.Size() == 0 || !plainType(e) || holdsCache(e) {
			return sop{}, false // byte slices are Options.Bytes'
		}
		return sop{kind: sopSlice, off: off, typ: t, elem: b.plan(e), size: e.Size()}, true
	case reflect.Map:
		if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String {
			return sop{kind: sopMapString, off: off, typ: t}, true
		}
		if t.Key().Kind() == reflect.String && t.Elem() == quantityT {
			return sop{kind: sopMapQuantity, off: off, typ: t}, true
		}
		if plainType(t.Key()) && plainType(t.Elem()) {
			return sop{kind: sopMap, off: off, typ: t}, true
		}
	}
	return sop{}, false
}

// plainType reports whether values of t can be compared byte for byte:
// no interface, channel, function or unsafe pointer anywhere in the value
// itself (pointers and slices compare by identity, which is exact, if
// strict). A byte comparison of an interface would compare the identity
// of its box, which is exact too, but interfaces hold values the walk
// leaves alone, so sharing their containers would rarely succeed.
func plainType(t reflect.Type) bool {
	return allInline(t, func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			return false
		}
		return true
	})
}

// pointerFree reports whether a value of t holds no pointer.
func pointerFree(t reflect.Type) bool {
	return allInline(t, func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.String,
			reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			return false
		}
		return true
	})
}

// holdsCache reports whether a value of t holds, not behind a pointer, a
// value of a type of cachedFields: one that a method with a pointer
// receiver may write to while reading (resource.Quantity's String caches
// its canonical form when it has none). Such a value must not be shared
// through a pointer or a slice, where a reader could call that method on
// the shared memory; in a map it can be shared, a map's values not being
// addressable.
func holdsCache(t reflect.Type) bool {
	return !allInline(t, func(t reflect.Type) bool {
		_, cached := cachedFields[t]
		return !cached
	})
}

// allInline reports whether ok holds for t and for every type a value of t
// holds inline: its array elements and struct fields, recursively, not
// what its pointers, slices and maps refer to.
func allInline(t reflect.Type, ok func(reflect.Type) bool) bool {
	if !ok(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Array:
		return allInline(t.Elem(), ok)
	case reflect.Struct:
		for i := range t.NumField() {
			if !allInline(t.Field(i).Type, ok) {
				return false
			}
		}
	}
	return true
}

// structures shares the pointers, slices and maps reachable from the
// value of plan p at ptr, children first. It writes only into memory that
// the object being shared owns: it descends into a child before replacing
// it, never into the canonical copy that replaces it.
func (w *walker) structures(ptr unsafe.Pointer, p *splan, depth int) {
	if p == nil || ptr == nil || depth >= maxDepth || w.visits <= 0 {
		return
	}
	w.visits--
	t := w.t
	for i := range p.ops {
		o := &p.ops[i]
		fp := unsafe.Add(ptr, o.off)
		switch o.kind {
		case sopPtr:
			q := *(*unsafe.Pointer)(fp)
			if q == nil {
				continue
			}
			w.structures(q, o.elem, depth+1)
			if c := t.canonBlock(o.typ, q, o.size); c != q {
				*(*unsafe.Pointer)(fp) = c
			}
		case sopSmallPtr:
			if q := *(*unsafe.Pointer)(fp); q != nil {
				if c := t.small.canon((*eface)(unsafe.Pointer(&o.typ)).data, q, o.size); c != q {
					*(*unsafe.Pointer)(fp) = c
					t.stats.Replaced++
				}
			}
		case sopSlice:
			s := (*sliceHeader)(fp)
			if s.len == 0 {
				continue
			}
			if o.elem != nil {
				for j := range s.len {
					w.structures(unsafe.Add(s.data, uintptr(j)*o.size), o.elem, depth+1)
				}
			}
			if c := t.canonBlock(o.typ, s.data, uintptr(s.len)*o.size); c != s.data {
				s.data, s.cap = c, s.len
			}
		case sopMapString:
			m := *(*map[string]string)(fp)
			if c, ok := canonStringKeyed(t, o.typ, m); ok {
				*(*map[string]string)(fp) = c
			}
		case sopMapQuantity:
			// A map whose key type is a string type has the layout and the
			// hash function of a map[string]V.
			m := *(*map[string]resource.Quantity)(fp)
			if c, ok := canonStringKeyed(t, o.typ, m); ok {
				*(*map[string]resource.Quantity)(fp) = c
			}
		case sopMap:
			mp := (*unsafe.Pointer)(fp)
			if c, ok := t.canonMap(o.typ, reflect.NewAt(o.typ, fp).Elem()); ok {
				*mp = c
			}
		}
	}
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// structDomain keeps the doorkeeper's tags of structures apart from those
// of strings and byte slices.
const structDomain = 0x6a09e667f3bcc909

// typeHash returns a hash of the identity of t.
func typeHash(t reflect.Type) uint64 { return typeHashOf((*eface)(unsafe.Pointer(&t)).data) }

// typeHashOf returns a hash of a type descriptor's address.
func typeHashOf(p unsafe.Pointer) uint64 { return uint64(uintptr(p)) * 0x9e3779b97f4a7c15 }

// canonBlock returns the canonical copy of the n bytes at p, values of the
// pointer or slice type typ, or p itself when it is canonical, not
// admitted yet, or collides with another live value.
func (t *Table) canonBlock(typ reflect.Type, p unsafe.Pointer, n uintptr) unsafe.Pointer {
	b := unsafe.Slice((*byte)(p), n)
	h := maphash.Bytes(t.seed, b) ^ typeHash(typ) ^ structDomain
	t.stats.Seen++
	if c, ok := t.structs.get(h, typ, int(n)); ok {
		if c == p {
			t.stats.Canonical++
			return p
		}
		if string(unsafe.Slice((*byte)(c), n)) == string(b) {
			t.stats.Replaced++
			return c
		}
		return p
	}
	if t.admit(h) {
		t.structs.put(h, typ, int(n), weak.Make((*byte)(p)))
	}
	return p
}

// canonStringKeyed returns the canonical copy of m, a map of type typ
// with string keys (a map[string]string, a ResourceList), and true; or
// false when m is nil, canonical already, not admitted yet, or collides
// with another live value. Keys and values are hashed and compared byte
// for byte: a string by its header, so by the identity of its bytes,
// which are canonical when they are shared.
func canonStringKeyed[V any](t *Table, typ reflect.Type, m map[string]V) (map[string]V, bool) {
	if m == nil {
		return nil, false
	}
	var h uint64
	for k, v := range m {
		h += maphash.Comparable(t.seed, [2]uint64{maphash.Bytes(t.seed, rawBytes(&k)), valueHash(t.seed, &v)})
	}
	h = maphash.Comparable(t.seed, h) ^ typeHash(typ) ^ structDomain
	mp := *(*unsafe.Pointer)(unsafe.Pointer(&m))
	t.stats.Seen++
	if c, ok := t.structs.get(h, typ, len(m)); ok {
		if c == mp {
			t.stats.Canonical++
			return nil, false
		}
		cm := *(*map[string]V)(unsafe.Pointer(&c))
		if len(cm) != len(m) {
			return nil, false
		}
		for k, v := range m {
			cv, ok := cm[k]
			if !ok || !sameValue(&cv, &v) {
				return nil, false
			}
		}
		t.stats.Replaced++
		return cm, true
	}
	if t.admit(h) {
		t.structs.put(h, typ, len(m), weak.Make((*byte)(mp)))
	}
	return nil, false
}

// valueID returns what identifies the value *v for canonStringKeyed when
// its memory does not: an any holding a slice, whose box is allocated anew
// each time the slice is stored in a map, is identified by its type, data
// pointer and length.
func valueID[V any](v *V) ([3]uintptr, bool) {
	if a, ok := any(v).(*any); ok {
		if l, ok := (*a).([]any); ok {
			return [3]uintptr{uintptr((*eface)(unsafe.Pointer(a)).typ), uintptr(unsafe.Pointer(unsafe.SliceData(l))), uintptr(len(l))}, true
		}
	}
	return [3]uintptr{}, false
}

// valueHash hashes *v by its identity: valueID, or its memory.
func valueHash[V any](seed maphash.Seed, v *V) uint64 {
	if id, ok := valueID(v); ok {
		return maphash.Comparable(seed, id)
	}
	return maphash.Bytes(seed, rawBytes(v))
}

// sameValue reports whether *a and *b have the same identity.
func sameValue[V any](a, b *V) bool {
	ida, oka := valueID(a)
	idb, okb := valueID(b)
	if oka || okb {
		return oka && okb && ida == idb
	}
	return string(rawBytes(a)) == string(rawBytes(b))
}

// rawBytes returns the memory of *v.
func rawBytes[V any](v *V) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))
}

// smallSize bounds the pointer-free values that smallCache shares: the
// allocator batches pointer-free values smaller than 16 bytes into shared
// blocks, so that a weak pointer would not say when one dies.
const smallSize = 16

// smallCache shares small pointer-free values behind pointers (*bool,
// *int64, *int32...) and the boxed numbers of unstructured objects, which
// are many in an object and few in value: each value has two slots (from
// two halves of its hash), takes the first if it is free and the second
// otherwise, and is held strongly there. It keeps at most smallSlots
// values of at most smallSize bytes alive.
type smallCache struct {
	slots [smallSlots]eface // the type's identity and the value's address
}

const smallSlots = 512

// canon returns the cached address of a value of type typ (a type
// descriptor's address: the pointer type's, or the boxed value's) equal to
// the n bytes at p, or p itself, which it caches then.
func (c *smallCache) canon(typ, p unsafe.Pointer, n uintptr) unsafe.Pointer {
	var v [smallSize]byte
	copy(v[:], unsafe.Slice((*byte)(p), n))
	h := maphash.Comparable(smallSeed, v) ^ typeHashOf(typ)
	i1, i2 := h%smallSlots, h>>32%smallSlots
	for _, i := range [2]uint64{i1, i2} {
		if sl := &c.slots[i]; sl.typ == typ && sl.data != nil && string(unsafe.Slice((*byte)(sl.data), n)) == string(v[:n]) {
			return sl.data
		}
	}
	i := i2
	if c.slots[i1].data == nil {
		i = i1
	}
	c.slots[i] = eface{typ: typ, data: p}
	return p
}

var smallSeed = maphash.MakeSeed()

// box returns the cached box of an int64, float64 or bool equal to the one *a
// holds, and true; or false when *a is that box or the cache takes it. So
// the numbers of unstructured objects (ports, replica counts) compare by
// identity, as their strings do, and the maps and lists holding them can
// be shared.
func (c *smallCache) box(a *any) (any, bool) {
	e := (*eface)(unsafe.Pointer(a))
	n := uintptr(8)
	if _, ok := (*a).(bool); ok {
		n = 1
	}
	d := c.canon(e.typ, e.data, n)
	if d == e.data {
		return nil, false
	}
	var v any
	*(*eface)(unsafe.Pointer(&v)) = eface{typ: e.typ, data: d}
	return v, true
}

// canonMap is canonStringKeyed for a map m of any other type typ, whose keys
// and values compare byte for byte, through reflection.
func (t *Table) canonMap(typ reflect.Type, m reflect.Value) (unsafe.Pointer, bool) {
	if m.Len() == 0 {
		return nil, false
	}
	ksize, vsize := typ.Key().Size(), typ.Elem().Size()
	k, v := reflect.New(typ.Key()).Elem(), reflect.New(typ.Elem()).Elem()
	var h uint64
	it := m.MapRange()
	for it.Next() {
		k.SetIterKey(it)
		v.SetIterValue(it)
		h += maphash.Comparable(t.seed, [2]uint64{
			maphash.Bytes(t.seed, unsafe.Slice((*byte)(k.Addr().UnsafePointer()), ksize)),
			maphash.Bytes(t.seed, unsafe.Slice((*byte)(v.Addr().UnsafePointer()), vsize)),
		})
	}
	h = maphash.Comparable(t.seed, h) ^ typeHash(typ) ^ structDomain
	mp := m.UnsafePointer()
	t.stats.Seen++
	if c, ok := t.structs.get(h, typ, m.Len()); ok {
		if c == mp {
			t.stats.Canonical++
			return nil, false
		}
		cm := reflect.NewAt(typ, unsafe.Pointer(&c)).Elem()
		if cm.Len() != m.Len() {
			return nil, false
		}
		it.Reset(m)
		for it.Next() {
			cv := cm.MapIndex(it.Key())
			if !cv.IsValid() {
				return nil, false
			}
			v.SetIterValue(it)
			cvc := reflect.New(typ.Elem()).Elem()
			cvc.Set(cv)
			if string(unsafe.Slice((*byte)(v.Addr().UnsafePointer()), vsize)) != string(unsafe.Slice((*byte)(cvc.Addr().UnsafePointer()), vsize)) {
				return nil, false
			}
		}
		t.stats.Replaced++
		return c, true
	}
	if t.admit(h) {
		t.structs.put(h, typ, m.Len(), weak.Make((*byte)(mp)))
	}
	return nil, false
}

// typedSet is a weakSet whose entries also carry the type of the value
// their weak pointer points to: a canonical copy replaces only values of
// its own type, so that its memory is never read with another layout.
type typedSet struct {
	slots []typedSlot
	used  int
}

type typedSlot struct {
	key uint64
	typ reflect.Type
	p   weak.Pointer[byte]
}

func (s *typedSet) init() { s.slots = make([]typedSlot, minSlots) }

func (s *typedSet) len() int { return s.used }

func (s *typedSet) find(key uint64, typ reflect.Type) *typedSlot {
	mask := uint64(len(s.slots) - 1)
	for i := key >> 32 & mask; ; i = (i + 1) & mask {
		if sl := &s.slots[i]; sl.key == key && sl.typ == typ || sl.key == 0 {
			return sl
		}
	}
}

func (s *typedSet) get(h uint64, typ reflect.Type, n int) (unsafe.Pointer, bool) {
	sl := s.find(keyOf(h, n), typ)
	if sl.key == 0 {
		return nil, false
	}
	p := sl.p.Value()
	return unsafe.Pointer(p), p != nil
}

func (s *typedSet) put(h uint64, typ reflect.Type, n int, p weak.Pointer[byte]) {
	if 2*(s.used+1) > len(s.slots) { // at most half full: most look-ups miss
		s.sweep()
	}
	key := keyOf(h, n)
	sl := s.find(key, typ)
	if sl.key == 0 {
		s.used++
	}
	*sl = typedSlot{key: key, typ: typ, p: p}
}

func (s *typedSet) sweep() {
	old := s.slots
	s.slots, s.used = make([]typedSlot, slotsFor(old, (*typedSlot).live, 4)), 0
	for i := range old {
		if old[i].live() {
			*s.find(old[i].key, old[i].typ) = old[i]
			s.used++
		}
	}
}

func (sl *typedSlot) live() bool { return sl.key != 0 && sl.p.Value() != nil }
