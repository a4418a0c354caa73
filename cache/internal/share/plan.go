package share

import (
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// opKind says what an op finds at its offset.
type opKind uint8

const (
	opString      opKind = iota // a string (of any named string type)
	opBytes                     // a []byte (of any named byte-slice type)
	opPtr                       // a pointer to a value of plan elem
	opSlice                     // a slice of values of plan elem
	opArray                     // an array of n values of plan elem
	opMapString                 // a map whose underlying type is map[string]string
	opMapAny                    // a map whose underlying type is map[string]any
	opMapBytes                  // a map whose underlying type is map[string][]byte
	opMapQuantity               // a map with string keys and resource.Quantity values (a ResourceList)
	opMap                       // any other map with a string key or values to walk
	opAny                       // an empty interface
	opIface                     // a non-empty interface
)

// op is one step of a plan: what to canonicalise at offset off of the
// value the plan walks.
type op struct {
	kind opKind
	off  uintptr
	elem *plan        // opPtr, opSlice, opArray, opMap: the plan of the elements, nil if they need none
	typ  reflect.Type // opMap, opIface: the field's type
	n    int          // opArray: the length
}

// plan is how to walk a value of one type: the ops of its strings and of
// what it points to, with the fields of nested structs flattened into it.
// Plans are immutable once published.
type plan struct {
	size  uintptr
	ops   []op
	str   bool // the plan is one opString at offset 0: the type is a string
	bytes bool // the plan is one opBytes at offset 0: the type is a []byte
}

// plans caches the plan of every type walked so far: reflect.Type → *plan,
// or a nil *plan for a type with nothing to canonicalise.
var plans sync.Map

// cachedFields are the unexported fields that plans walk: caches of a value
// that the type itself fills with a string equal to one it could compute,
// so that replacing it with an equal string changes nothing.
var cachedFields = map[reflect.Type][]string{
	reflect.TypeFor[resource.Quantity](): {"s"}, // the canonical form, from parsing or String
}

// uniqueFields are the fields whose values are unique to an object (and to
// one version of it): walking them would only cost time, and, once an
// update shows the value a second time, a table entry that saves nothing.
// A Pod's name is not among them: the names of many objects repeat across
// namespaces ("default", "kube-root-ca.crt").
var uniqueFields = map[reflect.Type][]string{
	reflect.TypeFor[metav1.ObjectMeta](): {"UID", "ResourceVersion", "SelfLink"},
}

var (
	stringT   = reflect.TypeFor[string]()
	anyT      = reflect.TypeFor[any]()
	bytesT    = reflect.TypeFor[[]byte]()
	quantityT = reflect.TypeFor[resource.Quantity]()
	mapAnyT   = reflect.TypeFor[map[string]any]()
	sliceAnyT = reflect.TypeFor[[]any]()
)

// planOf returns the plan of t, or nil when a value of t holds nothing to
// canonicalise.
func planOf(t reflect.Type) *plan {
	return loadPlan(&plans, t, func(b *builder[plan]) *plan {
		return (&planBuilder{b}).plan(t)
	})
}

// loadPlan returns the plan of t in cache, building it with build (which
// records in its builder the plans of every type it reached) when it is
// not there.
func loadPlan[P any](cache *sync.Map, t reflect.Type, build func(*builder[P]) *P) *P {
	if p, ok := cache.Load(t); ok {
		return p.(*P)
	}
	b := &builder[P]{cache: cache, building: map[reflect.Type]*P{}, done: map[reflect.Type]*P{}}
	p := build(b)
	for typ, q := range b.done {
		cache.LoadOrStore(typ, q)
	}
	if p2, ok := cache.Load(t); ok {
		return p2.(*P)
	}
	return p
}

// builder builds the plans of a type and of the types it reaches. A type
// reached again while its plan is being built (a recursive type) gets the
// unfinished plan, assumed to have work: a walk of a recursive type that
// holds nothing to share only costs time.
type builder[P any] struct {
	cache    *sync.Map
	building map[reflect.Type]*P
	done     map[reflect.Type]*P
}

// plan returns the plan of t: a cached or finished one, the unfinished one
// of a recursive type, or a new one filled by fill, which reports whether
// it has work (nil otherwise).
func (b *builder[P]) plan(t reflect.Type, fill func(*P) bool) *P {
	if p, ok := b.cache.Load(t); ok {
		return p.(*P)
	}
	if p, ok := b.done[t]; ok {
		return p
	}
	if p, ok := b.building[t]; ok {
		return p
	}
	p := new(P)
	b.building[t] = p
	work := fill(p)
	delete(b.building, t)
	if !work {
		p = nil
	}
	b.done[t] = p
	return p
}

// planBuilder builds string plans.
type planBuilder struct{ *builder[plan] }

func (b *planBuilder) plan(t reflect.Type) *plan {
	return b.builder.plan(t, func(p *plan) bool {
		p.size = t.Size()
		p.ops = b.ops(t, 0, nil)
		if len(p.ops) == 0 {
			return false
		}
		p.str = len(p.ops) == 1 && p.ops[0].kind == opString && p.ops[0].off == 0 && t.Kind() == reflect.String
		p.bytes = len(p.ops) == 1 && p.ops[0].kind == opBytes && p.ops[0].off == 0 && t.Kind() == reflect.Slice
		return true
	})
}

// ops appends to ops those of a value of type t at offset off.
func (b *planBuilder) ops(t reflect.Type, off uintptr, ops []op) []op {
	switch t.Kind() {
	case reflect.String:
		return append(ops, op{kind: opString, off: off})
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return append(ops, op{kind: opBytes, off: off})
		}
		if e := b.plan(t.Elem()); e != nil {
			return append(ops, op{kind: opSlice, off: off, elem: e})
		}
	case reflect.Array:
		if e := b.plan(t.Elem()); e != nil && t.Len() > 0 {
			return append(ops, op{kind: opArray, off: off, elem: e, n: t.Len()})
		}
	case reflect.Pointer:
		if e := b.plan(t.Elem()); e != nil {
			return append(ops, op{kind: opPtr, off: off, elem: e})
		}
	case reflect.Map:
		return b.mapOps(t, off, ops)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return append(ops, op{kind: opAny, off: off})
		}
		return append(ops, op{kind: opIface, off: off, typ: t})
	case reflect.Struct:
		cached, unique := cachedFields[t], uniqueFields[t]
		for i := range t.NumField() {
			f := t.Field(i)
			switch {
			case contains(unique, f.Name):
				continue
			case f.IsExported():
			case f.Anonymous && f.Type.Kind() == reflect.Struct:
				// An embedded struct of an unexported type: its exported
				// fields are the object's, as encoding/json sees them.
			case contains(cached, f.Name):
			default:
				continue
			}
			ops = b.ops(f.Type, off+f.Offset, ops)
		}
	}
	return ops
}

func (b *planBuilder) mapOps(t reflect.Type, off uintptr, ops []op) []op {
	k, e := t.Key(), t.Elem()
	switch {
	case k == stringT && e == stringT:
		return append(ops, op{kind: opMapString, off: off})
	case k == stringT && e == anyT:
		return append(ops, op{kind: opMapAny, off: off})
	case k == stringT && e == bytesT:
		return append(ops, op{kind: opMapBytes, off: off})
	case k.Kind() == reflect.String && e == quantityT:
		return append(ops, op{kind: opMapQuantity, off: off})
	}
	ep := b.plan(e)
	if k.Kind() != reflect.String && ep == nil {
		return ops
	}
	return append(ops, op{kind: opMap, off: off, elem: ep, typ: t})
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
