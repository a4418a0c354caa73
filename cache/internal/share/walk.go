package share

import (
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Bounds of one walk, so that a cyclic structure (a pointer cycle, a map
// holding itself) or an exponentially shared one (a map holding the same
// map twice, over and over) ends. Real objects are far inside them: a Pod
// is about 10 levels deep, and an object of the largest size etcd stores
// holds fewer than maxVisits values.
const (
	maxDepth  = 1000
	maxVisits = 1 << 20
)

// walker canonicalises the values of one object. Its fields are reset by
// root; the scratch values of generic maps are reused across walks.
type walker struct {
	t       *Table
	visits  int // left in this walk
	scratch map[reflect.Type]reflect.Value
	q       resource.Quantity // mapQuantity's scratch value
}

// root walks obj, a pointer or a map.
func (w *walker) root(obj any) {
	w.visits = maxVisits
	switch x := obj.(type) {
	case nil:
	case *unstructured.Unstructured:
		if x != nil {
			w.mapAny(x.Object, 0, rootObject)
		}
	case map[string]any:
		w.mapAny(x, 0, plainMap)
	case map[string]string:
		w.mapString(x)
	default:
		v := reflect.ValueOf(obj)
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				w.walk(v.UnsafePointer(), planOf(v.Type().Elem()), 0)
				if w.t.structures {
					w.visits = maxVisits
					w.structures(v.UnsafePointer(), splanOf(v.Type().Elem()), 0)
				}
			}
		case reflect.Map:
			w.mapValue(v, 0)
		}
	}
}

// walk canonicalises the value of plan p at ptr.
func (w *walker) walk(ptr unsafe.Pointer, p *plan, depth int) {
	if p == nil || ptr == nil || depth >= maxDepth || w.visits <= 0 {
		return
	}
	w.visits--
	for i := range p.ops {
		o := &p.ops[i]
		fp := unsafe.Add(ptr, o.off)
		switch o.kind {
		case opString:
			w.string((*string)(fp))
		case opBytes:
			w.byteSlice((*[]byte)(fp))
		case opPtr:
			w.walk(*(*unsafe.Pointer)(fp), o.elem, depth+1)
		case opSlice:
			s := (*[]byte)(fp) // any slice header; only its data and length are read
			w.elems(unsafe.Pointer(unsafe.SliceData(*s)), len(*s), o.elem, depth+1)
		case opArray:
			w.elems(fp, o.n, o.elem, depth+1)
		case opMapString:
			w.mapString(*(*map[string]string)(fp))
		case opMapAny:
			w.mapAny(*(*map[string]any)(fp), depth+1, plainMap)
		case opMapBytes:
			w.mapBytes(*(*map[string][]byte)(fp))
		case opMapQuantity:
			// A map whose key type is a string type has the layout and
			// the hash function of a map[string]V.
			w.mapQuantity(*(*map[string]resource.Quantity)(fp), depth+1)
		case opMap:
			w.mapValue(reflect.NewAt(o.typ, fp).Elem(), depth+1)
		case opAny:
			a := (*any)(fp)
			if v, ok := w.anyValue(a, depth+1); ok {
				*a = v
			}
		case opIface:
			if v := reflect.NewAt(o.typ, fp).Elem(); !v.IsNil() {
				w.inPlace(v.Elem(), depth+1)
			}
		}
	}
}

// elems walks n consecutive values of plan p from data.
func (w *walker) elems(data unsafe.Pointer, n int, p *plan, depth int) {
	if p == nil || data == nil || depth >= maxDepth {
		return
	}
	switch {
	case p.str:
		ss := unsafe.Slice((*string)(data), n)
		for i := range ss {
			w.string(&ss[i])
		}
		w.visits -= n
	case p.bytes:
		bs := unsafe.Slice((*[]byte)(data), n)
		for i := range bs {
			w.byteSlice(&bs[i])
		}
		w.visits -= n
	default:
		for i := range n {
			if w.visits <= 0 {
				return
			}
			w.walk(unsafe.Add(data, uintptr(i)*p.size), p, depth)
		}
	}
}

// string replaces *s with its canonical copy, if it has one and *s is not
// it already.
func (w *walker) string(s *string) {
	if c, ok := w.t.canonString(*s); ok && unsafe.StringData(c) != unsafe.StringData(*s) {
		*s = c
		w.t.stats.Replaced++
	} else if ok {
		w.t.stats.Canonical++
	}
}

// byteSlice replaces *b with its canonical copy, when the table shares
// byte slices.
func (w *walker) byteSlice(b *[]byte) {
	if !w.t.bytes {
		return
	}
	if c, ok := w.t.canonBytes(*b); ok && unsafe.SliceData(c) != unsafe.SliceData(*b) {
		*b = c
		w.t.stats.Replaced++
	} else if ok {
		w.t.stats.Canonical++
	}
}

// mapString canonicalises the keys and values of m. Assigning to an
// existing key stores the key given, so m[ck] = cv replaces both.
func (w *walker) mapString(m map[string]string) {
	w.visits -= len(m)
	for k, v := range m {
		ck, kok := w.t.canonString(k)
		cv, vok := w.t.canonString(v)
		kNew := kok && unsafe.StringData(ck) != unsafe.StringData(k)
		vNew := vok && unsafe.StringData(cv) != unsafe.StringData(v)
		w.count(kok, kNew)
		w.count(vok, vNew)
		if kNew || vNew {
			m[ck] = cv
		}
	}
}

// mapBytes canonicalises the keys of m, and its values when the table
// shares byte slices.
func (w *walker) mapBytes(m map[string][]byte) {
	w.visits -= len(m)
	for k, v := range m {
		ck, kok := w.t.canonString(k)
		kNew := kok && unsafe.StringData(ck) != unsafe.StringData(k)
		w.count(kok, kNew)
		cv, vNew := v, false
		if w.t.bytes {
			var vok bool
			cv, vok = w.t.canonBytes(v)
			vNew = vok && unsafe.SliceData(cv) != unsafe.SliceData(v)
			w.count(vok, vNew)
		}
		if kNew || vNew {
			m[ck] = cv
		}
	}
}

// mapQuantity canonicalises the keys of m and the cached strings of its
// values, without reflection; the value is walked in the walker's scratch
// Quantity and stored back when it changed.
func (w *walker) mapQuantity(m map[string]resource.Quantity, depth int) {
	qp := planOf(quantityT)
	w.visits -= len(m)
	for k, v := range m {
		ck, kok := w.t.canonString(k)
		kNew := kok && unsafe.StringData(ck) != unsafe.StringData(k)
		w.count(kok, kNew)
		w.q = v
		before := w.t.stats.Replaced
		w.walk(unsafe.Pointer(&w.q), qp, depth)
		if kNew || w.t.stats.Replaced != before {
			m[ck] = w.q
		}
	}
	w.q = resource.Quantity{}
}

// mapRole says which map of an unstructured object mapAny walks.
type mapRole uint8

const (
	plainMap    mapRole = iota
	rootObject          // the object itself: its "metadata" is metadataMap
	metadataMap         // the values of uniqueMetadata are skipped
)

// uniqueMetadata are the keys of uniqueFields in an unstructured object's
// metadata.
var uniqueMetadata = []string{"uid", "resourceVersion", "selfLink"}

// mapAny canonicalises m, an object of an unstructured object: its keys,
// and its values as anyValue does.
func (w *walker) mapAny(m map[string]any, depth int, role mapRole) {
	if depth >= maxDepth {
		return
	}
	for k, v := range m {
		if w.visits <= 0 {
			return
		}
		w.visits--
		ck, kok := w.t.canonString(k)
		kNew := kok && unsafe.StringData(ck) != unsafe.StringData(k)
		w.count(kok, kNew)
		var cv any
		vNew := false
		switch {
		case role == rootObject && k == "metadata":
			if meta, ok := v.(map[string]any); ok {
				w.mapAny(meta, depth+1, metadataMap)
			}
		case role == metadataMap && contains(uniqueMetadata, k):
		default:
			cv, vNew = w.anyValue(&v, depth+1)
		}
		if kNew || vNew {
			if !vNew {
				cv = v
			}
			m[ck] = cv
		}
	}
}

// anyValue canonicalises the value *a holds: a string is replaced by its
// canonical box (the returned value, true), and maps, slices and pointers
// are walked in place (false). Values boxed in an interface are never
// written: a box may be shared or read-only.
func (w *walker) anyValue(a *any, depth int) (any, bool) {
	switch x := (*a).(type) {
	case int64, float64, bool:
		if w.t.structures {
			return w.t.small.box(a)
		}
		return nil, false
	case nil, int, int32, float32, uint64:
		return nil, false
	case string:
		b, ok := w.t.canonBox(x)
		if !ok {
			return nil, false
		}
		if dataOf(&b) == dataOf(a) {
			w.t.stats.Canonical++
			return nil, false
		}
		w.t.stats.Replaced++
		return b, true
	case map[string]any:
		w.mapAny(x, depth, plainMap)
		if w.t.structures {
			if c, ok := canonStringKeyed(w.t, mapAnyT, x); ok {
				return c, true
			}
		}
	case []any:
		w.sliceAny(x, depth)
		if w.t.structures && len(x) > 0 {
			p := unsafe.Pointer(unsafe.SliceData(x))
			if c := w.t.canonBlock(sliceAnyT, p, uintptr(len(x))*unsafe.Sizeof(*a)); c != p {
				return unsafe.Slice((*any)(c), len(x)), true
			}
		}
	default:
		w.inPlace(reflect.ValueOf(x), depth)
	}
	return nil, false
}

// sliceAny canonicalises the elements of s, a list of an unstructured
// object.
func (w *walker) sliceAny(s []any, depth int) {
	if depth >= maxDepth {
		return
	}
	for i := range s {
		if w.visits <= 0 {
			return
		}
		w.visits--
		if v, ok := w.anyValue(&s[i], depth+1); ok {
			s[i] = v
		}
	}
}

// inPlace walks what v, a value held by an interface, refers to: the value
// a pointer points to, a map's entries, a slice's elements. Other values
// are left alone.
func (w *walker) inPlace(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			w.walk(v.UnsafePointer(), planOf(v.Type().Elem()), depth)
		}
	case reflect.Map:
		w.mapValue(v, depth)
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 { // a []byte's array may be shared: leave it
			w.elems(v.UnsafePointer(), v.Len(), planOf(v.Type().Elem()), depth)
		}
	}
}

// mapValue canonicalises the map m of any type through reflection: string
// keys, and values walked in a scratch copy, stored back when they
// changed.
func (w *walker) mapValue(m reflect.Value, depth int) {
	if m.IsNil() || m.Len() == 0 || depth >= maxDepth {
		return
	}
	if m.CanInterface() {
		switch x := m.Interface().(type) {
		case map[string]any:
			w.mapAny(x, depth, plainMap)
			return
		case map[string]string:
			w.mapString(x)
			return
		}
	}
	t := m.Type()
	ep := planOf(t.Elem())
	strKey := t.Key().Kind() == reflect.String
	if !strKey && ep == nil {
		return
	}
	k, v := w.scratchOf(t.Key()), w.scratchOf(t.Elem())
	defer k.SetZero()
	defer v.SetZero()
	var it reflect.MapIter
	it.Reset(m)
	for it.Next() {
		if w.visits <= 0 {
			return
		}
		w.visits--
		k.SetIterKey(&it)
		v.SetIterValue(&it)
		changed := false
		if strKey {
			s := k.String()
			c, ok := w.t.canonString(s)
			kNew := ok && unsafe.StringData(c) != unsafe.StringData(s)
			w.count(ok, kNew)
			if kNew {
				k.SetString(c)
				changed = true
			}
		}
		if ep != nil {
			before := w.t.stats.Replaced
			w.walk(v.Addr().UnsafePointer(), ep, depth+1)
			changed = changed || w.t.stats.Replaced != before
		}
		if changed {
			m.SetMapIndex(k, v)
		}
	}
}

// scratchOf returns an addressable value of type t owned by the walker.
func (w *walker) scratchOf(t reflect.Type) reflect.Value {
	if v, ok := w.scratch[t]; ok {
		return v
	}
	if w.scratch == nil {
		w.scratch = map[reflect.Type]reflect.Value{}
	}
	v := reflect.New(t).Elem()
	w.scratch[t] = v
	return v
}

// count records a value found canonical (ok) or replaced (ok and replaced).
func (w *walker) count(ok, replaced bool) {
	switch {
	case replaced:
		w.t.stats.Replaced++
	case ok:
		w.t.stats.Canonical++
	}
}
