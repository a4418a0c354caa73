package cache

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func newListerTestIndexer(t *testing.T, indexers Indexers) Indexer {
	t.Helper()
	s := NewIndexer(MetaNamespaceKeyFunc, indexers)
	for _, o := range []any{
		storeObj("ns1", "a", "1", "app", "x"),
		storeObj("ns1", "b", "1", "app", "y"),
		storeObj("ns2", "c", "1", "app", "x"),
		storeObj("", "d", "1", "app", "x"),
	} {
		if err := s.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestListAll(t *testing.T) {
	s := newListerTestIndexer(t, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	tests := []struct {
		name     string
		selector labels.Selector
		want     []string
	}{
		{"everything", labels.Everything(), []string{"d", "ns1/a", "ns1/b", "ns2/c"}},
		{"nil selector", nil, []string{"d", "ns1/a", "ns1/b", "ns2/c"}},
		{"nothing", labels.Nothing(), []string{}},
		{"app=x", labels.SelectorFromSet(labels.Set{"app": "x"}), []string{"d", "ns1/a", "ns2/c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []any
			if err := ListAll(s, tc.selector, func(o any) { got = append(got, o) }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, storeKeysOf(t, got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if err := ListAll(s, labels.Everything(), nil); err == nil {
		t.Error("ListAll with a nil AppendFunc did not fail")
	}
}

func TestListAllWithoutMetadata(t *testing.T) {
	// A store keyed by something else can hold objects without metadata:
	// listing everything passes them on, filtering by label fails.
	s := NewStore(func(obj any) (string, error) { return "k", nil })
	if err := s.Add("no metadata"); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := ListAll(s, labels.Everything(), func(any) { n++ }); err != nil || n != 1 {
		t.Errorf("ListAll(Everything) = %d objects, %v", n, err)
	}
	if err := ListAll(s, labels.SelectorFromSet(labels.Set{"a": "b"}), func(any) {}); err == nil {
		t.Error("ListAll with a selector over an object without metadata did not fail")
	}
}

func TestListAllByNamespace(t *testing.T) {
	for _, indexed := range []bool{true, false} {
		indexers := Indexers{}
		if indexed {
			indexers[NamespaceIndex] = MetaNamespaceIndexFunc
		}
		s := newListerTestIndexer(t, indexers)
		tests := []struct {
			name      string
			namespace string
			selector  labels.Selector
			want      []string
		}{
			{"one namespace", "ns1", labels.Everything(), []string{"ns1/a", "ns1/b"}},
			{"one namespace, app=x", "ns1", labels.SelectorFromSet(labels.Set{"app": "x"}), []string{"ns1/a"}},
			{"all namespaces", metav1.NamespaceAll, labels.SelectorFromSet(labels.Set{"app": "x"}), []string{"d", "ns1/a", "ns2/c"}},
			{"nothing", "ns1", labels.Nothing(), []string{}},
			{"empty namespace", "absent", nil, []string{}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				var got []any
				if err := ListAllByNamespace(s, tc.namespace, tc.selector, func(o any) { got = append(got, o) }); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, storeKeysOf(t, got)); diff != "" {
					t.Errorf("indexed=%v (-want +got):\n%s", indexed, diff)
				}
			})
		}
	}
}

func TestGenericLister(t *testing.T) {
	gr := schema.GroupResource{Group: "example.com", Resource: "things"}
	l := NewGenericLister(newListerTestIndexer(t, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}), gr)

	all, err := l.List(labels.SelectorFromSet(labels.Set{"app": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"d", "ns1/a", "ns2/c"}, storeKeysOf(t, runtimeObjectsToAny(all))); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	inNS, err := l.ByNamespace("ns1").List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ns1/a", "ns1/b"}, storeKeysOf(t, runtimeObjectsToAny(inNS))); diff != "" {
		t.Errorf("ByNamespace.List (-want +got):\n%s", diff)
	}
	if o, err := l.Get("d"); err != nil || o.(*metav1.PartialObjectMetadata).Name != "d" {
		t.Errorf("Get(d) = %v, %v", o, err)
	}
	if o, err := l.ByNamespace("ns2").Get("c"); err != nil || o.(*metav1.PartialObjectMetadata).Name != "c" {
		t.Errorf("ByNamespace(ns2).Get(c) = %v, %v", o, err)
	}
	for _, get := range []func() error{
		func() error { _, err := l.Get("a"); return err },
		func() error { _, err := l.ByNamespace("ns2").Get("a"); return err },
	} {
		err := get()
		if !apierrors.IsNotFound(err) {
			t.Errorf("error %v, want NotFound", err)
		}
		if status, ok := err.(apierrors.APIStatus); !ok || status.Status().Details.Group != "example.com" {
			t.Errorf("NotFound does not name the group resource: %v", err)
		}
	}
}

func TestGenericListerNonRuntimeObjects(t *testing.T) {
	s := NewIndexer(func(obj any) (string, error) { return "ns/k", nil }, Indexers{})
	if err := s.Add(&metav1.ObjectMeta{Namespace: "ns", Name: "k"}); err != nil { // has metadata, not a runtime.Object
		t.Fatal(err)
	}
	l := NewGenericLister(s, schema.GroupResource{Resource: "things"})
	if _, err := l.List(labels.Everything()); err == nil {
		t.Error("List of a non-runtime.Object did not fail")
	}
	if _, err := l.ByNamespace("ns").List(labels.Everything()); err == nil {
		t.Error("ByNamespace.List of a non-runtime.Object did not fail")
	}
	if _, err := l.ByNamespace("ns").Get("k"); err == nil {
		t.Error("Get of a non-runtime.Object did not fail")
	}
}

func runtimeObjectsToAny(objs []runtime.Object) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}
