package cache

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestObjectName(t *testing.T) {
	n := NewObjectName("ns", "a")
	if n.String() != "ns/a" {
		t.Fatalf("String() = %q", n.String())
	}
	if ns, name := n.Parts(); ns != "ns" || name != "a" {
		t.Fatalf("Parts() = %q, %q", ns, name)
	}
	nn := n.AsNamespacedName()
	if nn != (types.NamespacedName{Namespace: "ns", Name: "a"}) {
		t.Fatalf("AsNamespacedName() = %v", nn)
	}
	if NamespacedNameAsObjectName(nn) != n {
		t.Fatal("NamespacedNameAsObjectName does not round-trip")
	}
	if NewObjectName("", "a").String() != "a" {
		t.Fatal("cluster-scoped name has a separator")
	}
}

func TestObjectToName(t *testing.T) {
	got, err := ObjectToName(newMeta("ns", "a"))
	if err != nil || got != NewObjectName("ns", "a") {
		t.Fatalf("ObjectToName() = %v, %v", got, err)
	}
	if _, err := ObjectToName(nil); err == nil {
		t.Fatal("nil object: want an error")
	}
	if _, err := ObjectToName((*metav1.PartialObjectMetadata)(nil)); err == nil {
		t.Fatal("typed nil object: want an error")
	}
	if got := MetaObjectToName(newMeta("", "c")); got != NewObjectName("", "c") {
		t.Fatalf("MetaObjectToName() = %v", got)
	}
}

func TestDeletionHandlingObjectToName(t *testing.T) {
	got, err := DeletionHandlingObjectToName(DeletedFinalStateUnknown{Key: "ns/a"})
	if err != nil || got != NewObjectName("ns", "a") {
		t.Fatalf("tombstone: %v, %v", got, err)
	}
	if _, err := DeletionHandlingObjectToName(DeletedFinalStateUnknown{Key: "a/b/c"}); err == nil {
		t.Fatal("malformed tombstone key: want an error")
	}
	got, err = DeletionHandlingObjectToName(newMeta("ns", "b"))
	if err != nil || got != NewObjectName("ns", "b") {
		t.Fatalf("object: %v, %v", got, err)
	}
}

func TestParseObjectName(t *testing.T) {
	if _, err := ParseObjectName("a/b/c"); err == nil {
		t.Fatal("want an error for three parts")
	}
	got, err := ParseObjectName("x")
	if err != nil || got != NewObjectName("", "x") {
		t.Fatalf("ParseObjectName(x) = %v, %v", got, err)
	}
}
