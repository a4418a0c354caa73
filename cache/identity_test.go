package cache

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestInformerName(t *testing.T) {
	t.Cleanup(ResetInformerNamesForTesting)
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

	if _, err := NewInformerName(""); err == nil {
		t.Fatal("empty name: want an error")
	}
	n, err := NewInformerName("ctrl")
	if err != nil {
		t.Fatal(err)
	}
	if n.Name() != "ctrl" {
		t.Fatalf("Name() = %q", n.Name())
	}
	if _, err := NewInformerName("ctrl"); err == nil {
		t.Fatal("duplicate name: want an error")
	}

	id := n.WithResource(pods)
	if !id.Reserved() || id.Name() != "ctrl" || id.GroupVersionResource() != pods {
		t.Fatalf("first identity = %+v, reserved %v", id, id.Reserved())
	}
	if dup := n.WithResource(pods); dup.Reserved() {
		t.Fatal("duplicate resource must not be reserved")
	}
	other := n.WithResource(nodes)
	if !other.Reserved() {
		t.Fatal("second resource must be reserved")
	}

	n.Release()
	if id.Reserved() || other.Reserved() {
		t.Fatal("identities stay reserved after Release")
	}
	if n.WithResource(pods).Reserved() {
		t.Fatal("a released name hands out reserved identities")
	}
	n.Release() // twice is harmless

	again, err := NewInformerName("ctrl")
	if err != nil {
		t.Fatalf("re-registering a released name: %v", err)
	}
	if !again.WithResource(pods).Reserved() {
		t.Fatal("re-registered name does not reserve")
	}
}

func TestInformerNameNil(t *testing.T) {
	var n *InformerName
	if n.Name() != "" {
		t.Fatal("nil Name() not empty")
	}
	gvr := schema.GroupVersionResource{Resource: "x"}
	id := n.WithResource(gvr)
	if id.Reserved() || id.GroupVersionResource() != gvr {
		t.Fatalf("nil WithResource() = %+v", id)
	}
	n.Release()
	var zero InformerNameAndResource
	if zero.Reserved() || zero.Name() != "" {
		t.Fatal("zero identity is reserved or named")
	}
}

func TestResetInformerNamesForTesting(t *testing.T) {
	a, _ := NewInformerName("a")
	id := a.WithResource(schema.GroupVersionResource{Resource: "r"})
	ResetInformerNamesForTesting()
	if id.Reserved() {
		t.Fatal("identity reserved after reset")
	}
	if _, err := NewInformerName("a"); err != nil {
		t.Fatalf("name not free after reset: %v", err)
	}
	ResetInformerNamesForTesting()
}
