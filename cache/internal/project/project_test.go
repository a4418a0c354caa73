package project

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/informer-go/informer/cache/internal/share/podtest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestNewErrors checks that bad paths and examples are clear errors.
func TestNewErrors(t *testing.T) {
	type noMeta struct{ Name string }
	type withBytes struct {
		metav1.ObjectMeta `json:"metadata"`
		Data              []byte `json:"data"`
		Any               any    `json:"any"`
	}
	for _, tc := range []struct {
		name    string
		example any
		paths   []string
		want    string // a part of the error
	}{
		{"no paths", &podtest.Pod{}, nil, "no paths"},
		{"empty path", &podtest.Pod{}, []string{"metadata", ""}, "empty path"},
		{"empty segment", &podtest.Pod{}, []string{"spec..nodeName"}, `"spec..nodeName" has an empty segment`},
		{"trailing dot", &podtest.Pod{}, []string{"spec."}, "empty segment"},
		{"not a field name", &podtest.Pod{}, []string{"spec.containers[0]"}, "is not a field name"},
		{"unknown field", &podtest.Pod{}, []string{"spec.nodeNam"}, `spec (podtest.PodSpec) has no field "nodeNam"`},
		{"unknown top field", &podtest.Pod{}, []string{"specs"}, `the object (podtest.Pod) has no field "specs"`},
		{"go name, not JSON name", &podtest.Pod{}, []string{"spec.NodeName"}, `has no field "NodeName"`},
		{"inside a scalar", &podtest.Pod{}, []string{"spec.nodeName.x"}, "spec.nodeName is a string"},
		{"inside a map", &podtest.Pod{}, []string{"metadata.labels.app"}, "metadata.labels is a map"},
		{"inside a byte slice", &withBytes{}, []string{"data.x"}, "data is a byte slice"},
		{"inside an interface", &withBytes{}, []string{"any.x"}, "any is an interface"},
		{"a field JSON leaves out", &podtest.Pod{}, []string{"metadata.managedFields.fieldsV1.Raw"}, `has no field "Raw"`},
		{"unknown field in a list", &podtest.Pod{}, []string{"spec.containers.nam"}, `has no field "nam"`},
		{"nil example", nil, []string{"metadata"}, "want a pointer to a struct"},
		{"struct example", podtest.Pod{}, []string{"metadata"}, "want a pointer to a struct"},
		{"no metadata", &noMeta{}, []string{"Name"}, "has no object metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.example, tc.paths)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%T, %q) = %v, want an error containing %q", tc.example, tc.paths, err, tc.want)
			}
		})
	}
	if _, err := New(&unstructured.Unstructured{}, []string{"metadata.labels.app", "spec.anything"}); err != nil {
		t.Errorf("unstructured paths are map keys, any of them valid: %v", err)
	}
}

// TestPaths checks the normalisation of the kept paths.
func TestPaths(t *testing.T) {
	p, err := New(&podtest.Pod{}, []string{"status.phase", "metadata.name", "metadata", "spec.nodeName", "status.phase"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"metadata", "spec.nodeName", "status.phase"}, p.Paths()); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

// projections are the path sets of the model tests.
var projections = [][]string{
	{"metadata", "spec.nodeName", "status.phase"},
	{"spec.nodeName"},
	{"metadata.labels", "metadata.ownerReferences.name", "status.containerStatuses.ready", "status.containerStatuses.name"},
	{"spec.containers.name", "spec.containers.resources", "spec.volumes.configMap.name", "spec.volumes.name"},
	{"metadata.annotations", "spec.containers.env.valueFrom.fieldRef.fieldPath", "status.conditions"},
	{"kind", "status"},
}

// TestApplyModel projects Pods, typed and unstructured, and compares them
// with the model's projection of their JSON.
func TestApplyModel(t *testing.T) {
	for _, paths := range projections {
		t.Run(strings.Join(paths, ","), func(t *testing.T) {
			typed, err := New(&podtest.Pod{}, paths)
			if err != nil {
				t.Fatal(err)
			}
			unstr, err := New(&unstructured.Unstructured{}, paths)
			if err != nil {
				t.Fatal(err)
			}
			marker := strings.Join(typed.Paths(), ",")
			for _, i := range []int{0, 1234} {
				full := podtest.Unstructured(i).Object
				want := model(full, paths, marker)

				u := podtest.Unstructured(i)
				if got, err := unstr.Apply(u); err != nil || got != any(u) {
					t.Fatalf("Apply = %v, %v; want its argument", got, err)
				}
				if diff := cmp.Diff(want, u.Object); diff != "" {
					t.Errorf("unstructured pod %d (-model +projected):\n%s", i, diff)
				}

				p := podtest.Typed(i)
				if _, err := typed.Apply(p); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(toMap(want), toMap(p)); diff != "" {
					t.Errorf("typed pod %d (-model +projected):\n%s", i, diff)
				}
				if got, ok := ProjectedPaths(p); !ok || !reflect.DeepEqual(got, typed.Paths()) {
					t.Errorf("ProjectedPaths = %q, %v; want %q", got, ok, typed.Paths())
				}
				if !IsProjected(p.DeepCopyObject()) || !IsProjected(u.DeepCopy()) {
					t.Error("a copy of a projected object is not marked")
				}
			}
		})
	}
}

// TestMarker checks how the marker is added: beside kept annotations, or
// in a map of its own, and that a full object is not marked.
func TestMarker(t *testing.T) {
	full := podtest.Typed(3)
	if IsProjected(full) || IsProjected(podtest.Unstructured(3)) || IsProjected(nil) || IsProjected((*podtest.Pod)(nil)) || IsProjected("x") {
		t.Error("an object that was not projected is marked")
	}
	keep, _ := New(&podtest.Pod{}, []string{"metadata.annotations"})
	p := podtest.Typed(3)
	keep.Apply(p)
	if len(p.Annotations) != len(full.Annotations)+1 || p.Annotations[Annotation] != "metadata.annotations" {
		t.Errorf("annotations %v, want the Pod's and the marker", p.Annotations)
	}
	drop, _ := New(&podtest.Pod{}, []string{"spec.nodeName"})
	p = podtest.Typed(3)
	drop.Apply(p)
	if diff := cmp.Diff(map[string]string{Annotation: "spec.nodeName"}, p.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if p.Name != full.Name || p.Namespace != full.Namespace || p.UID != full.UID || p.ResourceVersion != full.ResourceVersion || p.Kind != "Pod" || p.APIVersion != "v1" {
		t.Errorf("identity not kept: %+v %+v", p.TypeMeta, p.ObjectMeta)
	}
	if p.Labels != nil || p.Spec.Containers != nil || p.Spec.NodeName != full.Spec.NodeName || p.Status.Phase != "" {
		t.Errorf("projection kept too much or too little: %+v", p)
	}

	// Unstructured objects without metadata, or with metadata that is not
	// an object, get one.
	for _, obj := range []map[string]any{nil, {}, {"metadata": "x"}, {"metadata": map[string]any{"annotations": 3}}} {
		u := &unstructured.Unstructured{Object: obj}
		up, _ := New(&unstructured.Unstructured{}, []string{"spec"})
		if _, err := up.Apply(u); err != nil {
			t.Fatal(err)
		}
		if !IsProjected(u) {
			t.Errorf("%v not marked: %v", obj, u.Object)
		}
	}
}

// TestApplyErrors checks that objects of another type are errors, left
// untouched.
func TestApplyErrors(t *testing.T) {
	typed, _ := New(&podtest.Pod{}, []string{"spec"})
	unstr, _ := New(&unstructured.Unstructured{}, []string{"spec"})
	for _, tc := range []struct {
		p   *Projection
		obj any
	}{
		{typed, &metav1.PartialObjectMetadata{}},
		{typed, podtest.Unstructured(0)},
		{typed, (*podtest.Pod)(nil)},
		{typed, nil},
		{typed, "x"},
		{unstr, podtest.Typed(0)},
		{unstr, (*unstructured.Unstructured)(nil)},
	} {
		before := fmt.Sprintf("%#v", tc.obj)
		got, err := tc.p.Apply(tc.obj)
		if err == nil || !strings.HasPrefix(err.Error(), "project: ") {
			t.Errorf("Apply(%T) error %v, want a project: error", tc.obj, err)
		}
		if !reflect.DeepEqual(got, tc.obj) || fmt.Sprintf("%#v", tc.obj) != before {
			t.Errorf("Apply(%T) changed or replaced the object", tc.obj)
		}
	}
}

// TestDropManagedFields drops managedFields of typed and unstructured
// objects and leaves objects without them alone.
func TestDropManagedFields(t *testing.T) {
	p := podtest.Typed(1)
	want := podtest.Typed(1)
	want.ManagedFields = nil
	if got, err := DropManagedFields(p); err != nil || got != any(p) {
		t.Fatalf("DropManagedFields = %v, %v", got, err)
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	u := podtest.Unstructured(1)
	DropManagedFields(u)
	if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "managedFields"); found || u.GetName() != want.Name {
		t.Errorf("unstructured: managedFields still there, or more removed: %v", u.Object["metadata"])
	}
	if IsProjected(p) || IsProjected(u) {
		t.Error("dropping managedFields marked the object")
	}
	for _, obj := range []any{nil, "x", (*podtest.Pod)(nil), (*unstructured.Unstructured)(nil), &unstructured.Unstructured{}, &unstructured.Unstructured{Object: map[string]any{"metadata": "x"}}} {
		if got, err := DropManagedFields(obj); err != nil || !reflect.DeepEqual(got, obj) {
			t.Errorf("DropManagedFields(%#v) = %v, %v; want it untouched", obj, got, err)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { DropManagedFields(p) }); allocs != 0 {
		t.Errorf("DropManagedFields: %v allocations, want 0", allocs)
	}
}

// TestApplyAllocs bounds the allocations of a projection: the typed walk
// allocates nothing; the marker costs the annotation map when the
// projection drops the object's annotations.
func TestApplyAllocs(t *testing.T) {
	p, _ := New(&podtest.Pod{}, []string{"metadata", "spec.nodeName", "status.phase"})
	pods := make([]*podtest.Pod, 101)
	for i := range pods {
		pods[i] = podtest.Typed(i)
	}
	k := 0
	if allocs := testing.AllocsPerRun(100, func() { p.Apply(pods[k]); k++ }); allocs > 0 {
		t.Errorf("Apply keeping annotations: %v allocations, want 0", allocs)
	}
}

// TestApplyAgainOnlyReads applies projections and DropManagedFields to
// objects they were applied to already, from several goroutines at once
// while others read the objects: a queue may hand a projected object to
// the transform again (a streaming list's objects are transformed as they
// arrive and again by Replace), and by then its maps may be shared with
// cached objects, so a second application must not write. The race
// detector (-race) reports any write.
func TestApplyAgainOnlyReads(t *testing.T) {
	typed, err := New(&podtest.Pod{}, []string{"metadata", "spec.nodeName", "status.phase"})
	if err != nil {
		t.Fatal(err)
	}
	untyped, err := New(&unstructured.Unstructured{}, []string{"metadata", "spec.nodeName", "status.phase"})
	if err != nil {
		t.Fatal(err)
	}
	pod := podtest.Typed(1)
	u := podtest.Unstructured(1)
	for _, step := range []func(){
		func() { typed.Apply(pod) },
		func() { untyped.Apply(u) },
		func() { DropManagedFields(pod) },
		func() { DropManagedFields(u) },
	} {
		step() // the first application writes, as the object is fresh
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			typed.Apply(pod)
			untyped.Apply(u)
			DropManagedFields(pod)
			DropManagedFields(u)
		})
		wg.Go(func() {
			_ = fmt.Sprint(*pod)
			_ = fmt.Sprint(u.Object)
		})
	}
	wg.Wait()
	if !IsProjected(pod) || !IsProjected(u) {
		t.Error("the objects lost their marker")
	}
}
