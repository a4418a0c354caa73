package cache

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWatchListAccumulator(t *testing.T) {
	acc := newWatchListAccumulator(nil)
	steps := []struct {
		op  string
		obj any
	}{
		{"add", pom("a", "1")}, {"add", pom("b", "2")}, {"update", pom("a", "3")},
		{"delete", pom("b", "4")}, {"add", pom("c", "5")}, {"add", pom("b", "6")},
		{"delete", DeletedFinalStateUnknown{Key: "ns/c"}}, {"delete", pom("zz", "7")},
	}
	for _, s := range steps {
		var err error
		switch s.op {
		case "add":
			err = acc.Add(s.obj)
		case "update":
			err = acc.Update(s.obj)
		case "delete":
			err = acc.Delete(s.obj)
		}
		if err != nil {
			t.Fatalf("%s %v: %v", s.op, s.obj, err)
		}
	}
	var got []string
	for _, obj := range acc.List() {
		got = append(got, testObjString(obj))
	}
	if diff := cmp.Diff([]string{"ns/a@3", "ns/b@6"}, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if acc.Len() != 2 {
		t.Errorf("Len = %d, want 2", acc.Len())
	}
	// Only the update of a replaced a live object; b came back after its
	// deletion.
	if acc.replaced != 1 {
		t.Errorf("replaced = %d, want 1", acc.replaced)
	}
	if err := acc.Add(&metav1.Status{}); err == nil {
		t.Errorf("Add of an object without metadata succeeded")
	}
}

func TestWatchListAccumulatorTransforms(t *testing.T) {
	calls := 0
	acc := newWatchListAccumulator(func(obj any) (any, error) {
		calls++
		p := obj.(*metav1.PartialObjectMetadata).DeepCopy()
		p.Labels = map[string]string{"transformed": "true"}
		return p, nil
	})
	in := pom("a", "1")
	if err := acc.Add(in); err != nil {
		t.Fatal(err)
	}
	if err := acc.Update(pom("a", "2")); err != nil {
		t.Fatal(err)
	}
	if err := acc.Delete(pom("b", "3")); err != nil {
		t.Fatal(err)
	}
	list := acc.List()
	if len(list) != 1 || list[0].(*metav1.PartialObjectMetadata).Labels["transformed"] != "true" {
		t.Errorf("List = %v, want one transformed object", list)
	}
	if calls != 2 {
		t.Errorf("transform ran %d times, want 2 (not on delete)", calls)
	}
	if in.Labels != nil {
		t.Errorf("the input was modified")
	}

	failing := newWatchListAccumulator(func(any) (any, error) { return nil, errors.New("no") })
	if err := failing.Add(pom("a", "1")); err == nil || failing.Len() != 0 {
		t.Errorf("a failed transform was stored")
	}
}

// TestWatchListAccumulatorKeysUntransformed checks that objects are keyed
// before the transform, as a store with a transformer keys them: a transform
// may return objects the key function does not understand, and deletes
// (which are not transformed) must find what adds stored.
func TestWatchListAccumulatorKeysUntransformed(t *testing.T) {
	type slim struct{ Name string }
	acc := newWatchListAccumulator(func(obj any) (any, error) {
		if s, ok := obj.(slim); ok {
			return s, nil
		}
		return slim{Name: obj.(*metav1.PartialObjectMetadata).Name}, nil
	})
	for _, obj := range []any{pom("a", "1"), pom("b", "2")} {
		if err := acc.Add(obj); err != nil {
			t.Fatalf("Add(%v): %v", testObjString(obj), err)
		}
	}
	if err := acc.Delete(pom("a", "3")); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if diff := cmp.Diff([]any{slim{Name: "b"}}, acc.List()); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}
