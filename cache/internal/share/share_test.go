package share

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/informer-go/informer/cache/internal/share/podtest"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// podKinds are the Pods of the tests, typed and unstructured, each decoded
// afresh.
var podKinds = []struct {
	name string
	pod  func(i int) any
}{
	{"typed", func(i int) any { return podtest.Typed(i) }},
	{"unstructured", func(i int) any { return podtest.Unstructured(i) }},
}

// samePod is the distance between two Pods of one Deployment.
const samePod = podtest.Namespaces * podtest.DeploymentsPerNamespace

// TestSharePods shares Pods through one table: each keeps its value, the
// values two Pods of one Deployment have in common end up in one copy, and
// sharing a Pod again writes and allocates nothing.
func TestSharePods(t *testing.T) {
	for _, kind := range podKinds {
		for _, bytes := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/bytes=%v", kind.name, bytes), func(t *testing.T) {
				tab := New(Options{Bytes: bytes})
				order := podtest.List(5, 3)
				pods := make([]any, 3*samePod)
				for _, i := range order {
					pods[i] = kind.pod(i)
					if got := tab.Share(pods[i]); got != pods[i] {
						t.Fatalf("Share returned %p, want its argument %p", got, pods[i])
					}
					if want := kind.pod(i); !reflect.DeepEqual(want, pods[i]) {
						t.Fatalf("sharing changed pod %d (-want +got):\n%s", i, cmp.Diff(want, pods[i]))
					}
				}
				// The three Pods of a Deployment are listed one after the other:
				// the first holds its own copies, the second and third share.
				k := slices.Index(order, 3)
				for k > 0 && order[k-1]%samePod == 3 {
					k--
				}
				a, b := stringsOf(pods[order[k+1]]), stringsOf(pods[order[k+2]])
				shared, equal := 0, 0
				for path, sa := range a {
					if sb := b[path]; sa == sb {
						equal++
						if unsafe.StringData(sa) == unsafe.StringData(sb) {
							shared++
						}
					}
				}
				if equal < 50 || shared != equal {
					t.Errorf("%d of the %d strings equal in two Pods of one Deployment are shared, want all (and more than 50)", shared, equal)
				}

				// A second Share admits the values seen once (the Pod's own;
				// a third one, those whose first sighting was forgotten since);
				// from then on the Pod is canonical.
				p := pods[order[k]]
				tab.Share(p)
				tab.Share(p)
				before := tab.Stats()
				if allocs := testing.AllocsPerRun(20, func() { tab.Share(p) }); allocs != 0 {
					t.Errorf("sharing a shared Pod again: %v allocations, want 0", allocs)
				}
				if after := tab.Stats(); after.Replaced != before.Replaced {
					t.Errorf("sharing a shared Pod again replaced %d values, want 0", after.Replaced-before.Replaced)
				}
				t.Logf("%+v", tab.Stats())
			})
		}
	}
}

// TestShareValues checks Share on the kinds of values it must handle: what
// it shares, what it must leave alone, and that it never panics nor
// changes a value.
func TestShareValues(t *testing.T) {
	type inner struct{ Name string }
	type hidden struct{ Name string } // unexported type, exported field
	type node struct {
		Name string
		Next *node
	}
	type odd struct {
		hidden                                // embedded: its Name is the object's
		secret string                         // unexported: left alone
		Ch     chan string                    // left alone
		Fn     func() string                  // left alone
		Ptr    unsafe.Pointer                 // left alone
		Boxed  any                            // a struct value in an interface: left alone
		ToPtr  any                            // a pointer in an interface: walked
		Obj    fmt.Stringer                   // a non-empty interface holding a pointer: walked
		Arr    [2]string                      // walked
		Named  map[schema.GroupVersion]string // non-string key: values walked
		Keys   map[podtest.ResourceName]resource.Quantity
		Int    intstr.IntOrString
		Time   metav1.Time
		Nil    *inner
		NilMap map[string]string
		NilAny any
	}
	value := "shared-value"
	fresh := func() string { return strings.Clone(value) }
	mk := func() *odd {
		return &odd{
			hidden: hidden{Name: fresh()},
			secret: fresh(),
			Boxed:  inner{Name: fresh()},
			ToPtr:  &inner{Name: fresh()},
			Obj:    &stringer{S: fresh()},
			Arr:    [2]string{fresh(), fresh()},
			Named:  map[schema.GroupVersion]string{{Group: "g"}: fresh()},
			Keys:   map[podtest.ResourceName]resource.Quantity{podtest.ResourceName(fresh()): resource.MustParse("500m")},
			Int:    intstr.FromString(fresh()),
			Time:   metav1.NewTime(time.Unix(1, 0)),
		}
	}
	tab := New(Options{})
	tab.String(value) // the first sighting
	canon := tab.String(value)
	for range 2 { // the second round finds everything canonical
		o := mk()
		tab.Share(o)
		if diff := cmp.Diff(mk(), o, cmp.AllowUnexported(odd{}, hidden{}), cmp.Comparer(func(a, b func() string) bool { return a == nil && b == nil }), cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
			t.Fatalf("Share changed the value (-want +got):\n%s", diff)
		}
		same := func(what, s string) {
			t.Helper()
			if unsafe.StringData(s) != unsafe.StringData(canon) {
				t.Errorf("%s not shared", what)
			}
		}
		differs := func(what, s string) {
			t.Helper()
			if unsafe.StringData(s) == unsafe.StringData(canon) {
				t.Errorf("%s shared, want it left alone", what)
			}
		}
		same("embedded field of an unexported type", o.Name)
		differs("unexported field", o.secret)
		differs("struct boxed in an interface", o.Boxed.(inner).Name)
		same("pointer in an interface", o.ToPtr.(*inner).Name)
		same("pointer in a non-empty interface", o.Obj.(*stringer).S)
		same("array element", o.Arr[1])
		same("map value under a struct key", o.Named[schema.GroupVersion{Group: "g"}])
		for k := range o.Keys {
			same("map key of a named string type", string(k))
		}
		same("IntOrString", o.Int.StrVal)
	}

	// Cycles and exponential sharing end, leaving values unchanged.
	cyc := &node{Name: fresh()}
	cyc.Next = cyc
	tab.Share(cyc)
	if cyc.Next != cyc || cyc.Name != value {
		t.Error("a pointer cycle changed")
	}
	self := map[string]any{"k": fresh()}
	self["self"] = self
	tab.Share(self)
	dag := map[string]any{"leaf": fresh()}
	for range 80 { // 2^80 paths to the leaf
		dag = map[string]any{"a": dag, "b": dag}
	}
	tab.Share(dag)
	list := []any{fresh()}
	list = append(list, list)
	tab.Share(&list)

	// Roots that cannot be written are returned untouched.
	for _, root := range []any{nil, "string", 42, inner{Name: fresh()}, (*inner)(nil), map[string]any(nil), []string{fresh()}} {
		if got := tab.Share(root); !reflect.DeepEqual(got, root) {
			t.Errorf("Share(%#v) = %#v, want its argument", root, got)
		}
	}
}

type stringer struct{ S string }

func (s *stringer) String() string { return s.S }

// TestShareQuantity checks that a Quantity's cached canonical form is
// shared and that the Quantity still behaves as before.
func TestShareQuantity(t *testing.T) {
	tab := New(Options{})
	mk := func() *podtest.Container {
		return &podtest.Container{Resources: podtest.ResourceRequirements{Requests: podtest.ResourceList{"cpu": resource.MustParse("250m"), "memory": resource.MustParse("1Gi")}}}
	}
	var cs []*podtest.Container
	for range 3 {
		c := mk()
		tab.Share(c)
		cs = append(cs, c)
	}
	// "1Gi" and "250m" are canonical: parsing keeps them as the cached form.
	q1, q2 := cs[1].Resources.Requests["memory"], cs[2].Resources.Requests["memory"]
	if s1, s2 := q1.String(), q2.String(); s1 != "1Gi" || unsafe.StringData(s1) != unsafe.StringData(s2) {
		t.Errorf("quantities %q and %q: want 1Gi, shared", s1, s2)
	}
	if !reflect.DeepEqual(mk(), cs[2]) {
		t.Errorf("sharing changed a quantity: %s", cmp.Diff(mk(), cs[2]))
	}
	if q2.Value() != 1<<30 || q2.Cmp(resource.MustParse("1024Mi")) != 0 {
		t.Errorf("quantity %v no longer 1Gi", &q2)
	}
}

// TestShareBytes checks that byte slices are shared only with the option,
// with their capacity clipped, and that nil and empty slices stay as they
// are.
func TestShareBytes(t *testing.T) {
	raw := `{"f:metadata":{"f:labels":{}}}`
	empty := &metav1.FieldsV1{}
	empty.SetRawBytes([]byte{})
	mk := func() *metav1.ObjectMeta {
		return &metav1.ObjectMeta{
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "m", FieldsV1: metav1.NewFieldsV1(raw)},
				{Manager: "n", FieldsV1: empty},
				{Manager: "o", FieldsV1: &metav1.FieldsV1{}},
			},
		}
	}
	for _, bytes := range []bool{false, true} {
		tab := New(Options{Bytes: bytes})
		var objs []*metav1.ObjectMeta
		for range 3 {
			o := mk()
			tab.Share(o)
			objs = append(objs, o)
		}
		a, b := objs[1].ManagedFields, objs[2].ManagedFields
		if got := &a[0].FieldsV1.GetRawBytes()[0] == &b[0].FieldsV1.GetRawBytes()[0]; got != bytes {
			t.Errorf("bytes=%v: raw shared %v", bytes, got)
		}
		if got := cap(b[0].FieldsV1.GetRawBytes()); bytes && got != len(raw) {
			t.Errorf("shared slice has capacity %d, want its length %d", got, len(raw))
		}
		if b[1].FieldsV1.GetRawBytes() == nil || b[2].FieldsV1.GetRawBytes() != nil {
			t.Errorf("empty slice became nil or nil became empty: %#v, %#v", b[1].FieldsV1.GetRawBytes(), b[2].FieldsV1.GetRawBytes())
		}
		if !reflect.DeepEqual(mk(), objs[2]) {
			t.Errorf("bytes=%v: sharing changed the object", bytes)
		}
	}

	// Secret-shaped data: map[string][]byte.
	tab := New(Options{Bytes: true})
	var data []map[string][]byte
	for range 3 {
		d := map[string][]byte{strings.Clone("ca.crt"): []byte("-----BEGIN CERTIFICATE-----")}
		tab.Share(d)
		data = append(data, d)
	}
	if &data[1]["ca.crt"][0] != &data[2]["ca.crt"][0] {
		t.Error("equal data values not shared")
	}
}

// TestTableForgets checks that a value no object uses is forgotten, and
// that a table under churn stays bounded by the values alive.
func TestTableForgets(t *testing.T) {
	tab := New(Options{})
	kept := internTwice(tab, "kept-"+strings.Repeat("k", 20))
	internTwice(tab, "gone-"+strings.Repeat("g", 20))
	runtime.GC()
	tab.Sweep()
	if st := tab.Stats(); st.Strings != 1 {
		t.Errorf("%d strings after the collection, want 1 (the kept one)", st.Strings)
	}
	if again := tab.String(strings.Clone(kept)); unsafe.StringData(again) != unsafe.StringData(kept) {
		t.Error("a value still used was forgotten")
	}
	runtime.KeepAlive(kept)

	const rounds, live = 30, 3000
	churn := New(Options{})
	for r := range rounds {
		objs := make([]map[string]string, live)
		for i := range objs {
			v := fmt.Sprintf("round-%d-value-%d", r, i)
			objs[i] = map[string]string{"k": v}
			churn.Share(map[string]string{"k": strings.Clone(v)}) // first sighting
			churn.Share(objs[i])
		}
		runtime.GC()
	}
	if st := churn.Stats(); st.Strings > 4*live+minSlots {
		t.Errorf("%d strings after %d rounds of %d live values, want at most %d", st.Strings, rounds, live, 4*live+minSlots)
	}
}

// internTwice admits s into tab and returns its canonical copy. It is not
// inlined, so that no copy of s outlives it on the caller's stack.
//
//go:noinline
func internTwice(tab *Table, s string) string {
	tab.String(strings.Clone(s))
	return tab.String(strings.Clone(s))
}

// TestBoxLayout checks the layout of an any that boxOf and dataOf rely on.
func TestBoxLayout(t *testing.T) {
	s := new(string)
	*s = "boxed"
	v := boxOf(s)
	if got, ok := v.(string); !ok || got != "boxed" {
		t.Fatalf("boxOf holds %#v, want the string \"boxed\"", v)
	}
	if dataOf(&v) != unsafe.Pointer(s) {
		t.Error("the data word is not the box")
	}
}

// FuzzShareUnstructured shares random unstructured objects, three decodes
// of each, through one table: none changes value, and a second Share of a
// shared object replaces nothing.
func FuzzShareUnstructured(f *testing.F) {
	for i := range 8 {
		f.Add(fuzzSeed(uint64(i), 64+32*i))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mk := func() *unstructured.Unstructured {
			r := &randomValue{b: data}
			return &unstructured.Unstructured{Object: r.object(6)}
		}
		tab := New(Options{Bytes: true})
		var objs []*unstructured.Unstructured
		for range 3 {
			o := mk()
			tab.Share(o)
			if want := mk(); !reflect.DeepEqual(want, o) {
				t.Fatalf("Share changed the object (-want +got):\n%s", cmp.Diff(want, o))
			}
			objs = append(objs, o)
		}
		before := tab.Stats().Replaced
		tab.Share(objs[2])
		if after := tab.Stats().Replaced; after != before {
			t.Errorf("a second Share replaced %d values", after-before)
		}

		// With structures, five equal objects end up sharing their maps
		// and lists; none changes, also after the later ones are shared.
		tab = New(Options{Bytes: true, Structures: true})
		objs = objs[:0]
		for range 5 {
			o := mk()
			tab.Share(o)
			objs = append(objs, o)
		}
		for i, o := range objs {
			if want := mk(); !reflect.DeepEqual(want, o) {
				t.Fatalf("structures: object %d changed (-want +got):\n%s", i, cmp.Diff(want, o))
			}
		}
	})
}
