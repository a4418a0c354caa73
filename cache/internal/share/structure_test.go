package share

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informer-go/informer/cache/internal/share/podtest"
)

// TestShareStructures shares typed Pods with Options.Structures: each
// keeps its value, and two Pods of one Deployment (the third and later of
// it: the first keeps its own values, the second's become canonical) hold
// their equal maps, slices and pointer targets in one copy.
func TestShareStructures(t *testing.T) {
	pods, deployment := shareDeployment(t, 4, func(i int) any { return podtest.Typed(i) })
	equal, shared := sharedContainers(reflect.ValueOf(pods[deployment[2]]).Elem(), reflect.ValueOf(pods[deployment[3]]).Elem())
	if equal < 20 || shared != equal {
		t.Errorf("%d of the %d maximal equal maps, slices and pointers of two Pods of one Deployment are shared, want all (and at least 20)", shared, equal)
	}
	// Shared slices have their capacity cut to their length: an append
	// copies.
	p := pods[deployment[3]].(*podtest.Pod)
	if l := p.OwnerReferences; cap(l) != len(l) {
		t.Errorf("a shared slice has capacity %d, length %d: an append would write into the canonical array", cap(l), len(l))
	}
	t.Logf("%d of %d shared", shared, equal)
}

// shareDeployment shares, through one table with Options.Structures, the
// Pods of 5 namespaces with replicas Pods per Deployment, made by pod, in
// list order; checks that none changes, also after later ones were
// shared; and returns them by number with the numbers of the Pods of
// Deployment 3, in list order.
func shareDeployment(t *testing.T, replicas int, pod func(i int) any) (pods []any, deployment []int) {
	t.Helper()
	tab := New(Options{Bytes: true, Structures: true})
	order := podtest.List(5, replicas)
	pods = make([]any, replicas*samePod)
	for _, i := range order {
		pods[i] = pod(i)
		tab.Share(pods[i])
	}
	for _, i := range order {
		if want := pod(i); !reflect.DeepEqual(want, pods[i]) {
			t.Fatalf("pod %d changed (-want +got):\n%s", i, cmp.Diff(want, pods[i]))
		}
	}
	for _, i := range order {
		if i%samePod == 3 {
			deployment = append(deployment, i)
		}
	}
	t.Logf("%+v", tab.Stats())
	return pods, deployment
}

// sharedContainers counts the maps, slices and pointers of a and b (of one
// type) that are deeply equal and not inside an equal one (equal), and how
// many of those are the same memory (shared).
func sharedContainers(a, b reflect.Value) (equal, shared int) {
	switch a.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if a.IsNil() || b.IsNil() || a.Kind() != reflect.Pointer && a.Len() == 0 {
			return 0, 0
		}
		if a.Kind() != reflect.Map && holdsCache(a.Type().Elem()) {
			return 0, 0 // never shared: see holdsCache
		}
		if reflect.DeepEqual(a.Interface(), b.Interface()) && !reachesCache(a.Type(), map[reflect.Type]bool{}) {
			if a.UnsafePointer() == b.UnsafePointer() {
				return 1, 1
			}
			return 1, 0
		}
		switch a.Kind() {
		case reflect.Pointer:
			return sharedContainers(a.Elem(), b.Elem())
		case reflect.Slice:
			if a.Len() != b.Len() {
				return 0, 0
			}
			for i := range a.Len() {
				e, s := sharedContainers(a.Index(i), b.Index(i))
				equal, shared = equal+e, shared+s
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			e, s := sharedContainers(a.Field(i), b.Field(i))
			equal, shared = equal+e, shared+s
		}
	}
	return equal, shared
}

// reachesCache reports whether a value of t may hold a pointer to or a
// slice of values that holdsCache: such a value is never shared whole.
func reachesCache(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		return holdsCache(t.Elem()) || reachesCache(t.Elem(), seen)
	case reflect.Array:
		return reachesCache(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if reachesCache(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

type sliceOfInts struct{ X []int64 }
type sliceOfUints struct{ X []uint64 }

type withPtr struct {
	N     *int64
	S     []string
	M     map[string]string
	Inner *withPtr
}

// TestShareStructuresExact checks that only equal values of one type share.
func TestShareStructuresExact(t *testing.T) {
	tab := New(Options{Structures: true})
	// Equal bytes, different types: never shared.
	for range 3 {
		a, b := &sliceOfInts{X: []int64{1, 2, 3}}, &sliceOfUints{X: []uint64{1, 2, 3}}
		tab.Share(a)
		tab.Share(b)
		if unsafe.Pointer(unsafe.SliceData(a.X)) == unsafe.Pointer(unsafe.SliceData(b.X)) {
			t.Fatal("a []int64 and a []uint64 share their array")
		}
	}
	n := func(v int64) *int64 { return &v }
	mk := func(v int64, label string) *withPtr {
		return &withPtr{N: n(v), S: []string{"a", label}, M: map[string]string{"k": label}, Inner: &withPtr{N: n(v + 1)}}
	}
	var objs []*withPtr
	for i := range 12 {
		o := mk(int64(i%2), fmt.Sprint("label-", i%3))
		tab.Share(o)
		objs = append(objs, o)
	}
	for i, o := range objs {
		if want := mk(int64(i%2), fmt.Sprint("label-", i%3)); !reflect.DeepEqual(want, o) {
			t.Fatalf("object %d changed (-want +got):\n%s", i, cmp.Diff(want, o))
		}
	}
	// Objects 6 and 12 apart are equal; the later ones share.
	for i := 6; i+6 < len(objs); i++ {
		a, b := objs[i], objs[i+6]
		if a.N != b.N || a.Inner != b.Inner || unsafe.SliceData(a.S) != unsafe.SliceData(b.S) {
			t.Errorf("objects %d and %d are equal but do not share their pointers and slices", i, i+6)
		}
		if reflect.ValueOf(a.M).UnsafePointer() != reflect.ValueOf(b.M).UnsafePointer() {
			t.Errorf("objects %d and %d are equal but do not share their maps", i, i+6)
		}
	}
	// Unequal values never share.
	for i := range objs {
		for j := range objs {
			if *objs[i].N != *objs[j].N && objs[i].N == objs[j].N {
				t.Fatalf("objects %d and %d share unequal pointer targets", i, j)
			}
			if objs[i].M["k"] != objs[j].M["k"] && reflect.ValueOf(objs[i].M).UnsafePointer() == reflect.ValueOf(objs[j].M).UnsafePointer() {
				t.Fatalf("objects %d and %d share unequal maps", i, j)
			}
		}
	}
}

// TestStructuresForgotten checks that a canonical structure no object uses
// is dropped by the garbage collector and a sweep.
func TestStructuresForgotten(t *testing.T) {
	tab := New(Options{Structures: true})
	for i := range 100 {
		for range 3 { // the string is admitted on the second sighting, the slice on the third
			tab.Share(&withPtr{S: []string{fmt.Sprint("value-", i)}})
		}
	}
	if st := tab.Stats(); st.Structures < 100 {
		t.Fatalf("%d structures, want at least 100", st.Structures)
	}
	runtime.GC()
	tab.Sweep()
	if st := tab.Stats(); st.Structures > 10 {
		t.Errorf("%d structures after the objects died, want (nearly) none", st.Structures)
	}
}

// fuzzInner and fuzzObj hold the kinds of fields structural sharing
// handles (pointers to scalars and structs, slices of strings and structs,
// string maps, other maps) and those it leaves alone (an interface).
type fuzzInner struct {
	B *bool
	S string
	M map[string]string
}

type fuzzObj struct {
	N     *int64
	L     []string
	M     map[string]string
	Items []fuzzInner
	P     *fuzzInner
	Q     map[string]int32
	A     [2]string
	I     any
}

// fuzzObjOf builds an object from b, with values from small pools so that
// they repeat across objects.
func fuzzObjOf(b []byte) *fuzzObj {
	r := &randomValue{b: b}
	str := func() string { return stringPool[int(r.byte())%len(stringPool)] }
	strMap := func() map[string]string {
		if r.byte()%3 == 0 {
			return nil
		}
		m := map[string]string{}
		for range int(r.byte() % 3) {
			m[str()] = str()
		}
		return m
	}
	inner := func() fuzzInner {
		in := fuzzInner{S: str(), M: strMap()}
		if c := r.byte(); c%3 != 0 {
			v := c%2 == 0
			in.B = &v
		}
		return in
	}
	o := &fuzzObj{M: strMap(), A: [2]string{str(), str()}, I: str()}
	if c := r.byte(); c%2 == 0 {
		v := int64(c % 4)
		o.N = &v
	}
	for range int(r.byte() % 3) {
		o.L = append(o.L, str())
	}
	for range int(r.byte() % 3) {
		o.Items = append(o.Items, inner())
	}
	if r.byte()%2 == 0 {
		in := inner()
		o.P = &in
	}
	if r.byte()%2 == 0 {
		o.Q = map[string]int32{str(): int32(r.byte() % 3)}
	}
	return o
}

// FuzzShareStructures shares objects built from the input through one
// table with Options.Structures: no object's value ever changes, whatever
// was shared after it.
func FuzzShareStructures(f *testing.F) {
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, b []byte) {
		tab := New(Options{Bytes: true, Structures: true})
		var objs []*fuzzObj
		for k := 0; k < len(b); k += 5 { // overlapping windows: objects repeat parts of each other
			o := fuzzObjOf(b[k:])
			tab.Share(o)
			objs = append(objs, o)
		}
		for i, o := range objs {
			if want := fuzzObjOf(b[5*i:]); !reflect.DeepEqual(want, o) {
				t.Fatalf("object %d changed (-want +got):\n%s", i, cmp.Diff(want, o))
			}
		}
	})
}

// TestShareStructuresUnstructured is TestShareStructures for unstructured
// Pods: their equal maps and lists are shared too, numbers included.
func TestShareStructuresUnstructured(t *testing.T) {
	pods, deployment := shareDeployment(t, 10, func(i int) any { return podtest.Unstructured(i) })
	// A value nested d maps or lists deep is shared from the (d+2)th Pod
	// of a Deployment on (see the package documentation): compare the
	// last two.
	equal, shared := sharedUnstructured(pods[deployment[8]].(*unstructured.Unstructured).Object, pods[deployment[9]].(*unstructured.Unstructured).Object, true)
	if equal < 10 || shared != equal {
		t.Errorf("%d of the %d maximal equal maps and lists of two Pods of one Deployment are shared, want all (and at least 10)", shared, equal)
	}
	t.Logf("%d of %d shared", shared, equal)
}

// sharedUnstructured counts the maps and lists of a and b, values of
// unstructured objects, that are deeply equal and not inside an equal one
// (equal), and how many of those are the same memory (shared). The root
// object itself is never shared.
func sharedUnstructured(a, b any, root bool) (equal, shared int) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return 0, 0
		}
		if !root && reflect.DeepEqual(x, y) {
			if reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() {
				return 1, 1
			}
			return 1, 0
		}
		for key, v := range x {
			e, s := sharedUnstructured(v, y[key], false)
			equal, shared = equal+e, shared+s
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) == 0 || len(x) != len(y) {
			return 0, 0
		}
		if reflect.DeepEqual(x, y) {
			if unsafe.SliceData(x) == unsafe.SliceData(y) {
				return 1, 1
			}
			return 1, 0
		}
		for i := range x {
			e, s := sharedUnstructured(x[i], y[i], false)
			equal, shared = equal+e, shared+s
		}
	}
	return equal, shared
}
