package benchkit

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestObjectDeepCopy checks that a deep copy equals its original and shares
// nothing mutable with it.
func TestObjectDeepCopy(t *testing.T) {
	obj := NewObject(7, 42)
	want := NewObject(7, 42)
	c := obj.DeepCopyObject().(*Object)
	if diff := cmp.Diff(obj, c); diff != "" {
		t.Fatalf("copy differs (-original +copy):\n%s", diff)
	}
	c.Labels["app"] = "changed"
	c.Annotations["example.com/owner"] = "changed"
	c.Data["README"] = "changed"
	*c.OwnerReferences[0].Controller = false
	c.OwnerReferences[0].Name = "changed"
	if diff := cmp.Diff(want, obj); diff != "" {
		t.Errorf("changing the copy changed the original (-want +got):\n%s", diff)
	}
	if (*Object)(nil).DeepCopy() != nil {
		t.Error("DeepCopy of a nil *Object is not nil")
	}

	list := Realistic.List(3).(*ObjectList)
	lc := list.DeepCopyObject().(*ObjectList)
	if diff := cmp.Diff(list, lc); diff != "" {
		t.Fatalf("list copy differs (-original +copy):\n%s", diff)
	}
	lc.Items[0].Data["README"] = "changed"
	if list.Items[0].Data["README"] == "changed" {
		t.Error("changing the list's copy changed the original")
	}
}

// TestObjectShape checks what the realistic objects promise: five labels,
// two annotations, a controller owner reference and DataBytes of data.
func TestObjectShape(t *testing.T) {
	obj := NewObject(123, 4)
	if len(obj.Labels) != 5 || len(obj.Annotations) != 2 || len(obj.OwnerReferences) != 1 {
		t.Errorf("%d labels, %d annotations, %d owner references; want 5, 2, 1", len(obj.Labels), len(obj.Annotations), len(obj.OwnerReferences))
	}
	if ref := metav1.GetControllerOf(obj); ref == nil || ref.Name != obj.Labels["app"] {
		t.Errorf("controller %v, want the Deployment named after the app label %q", ref, obj.Labels["app"])
	}
	size := 0
	for _, v := range obj.Data {
		size += len(v)
	}
	if size != DataBytes || len(obj.Data) != DataKeys {
		t.Errorf("data of %d bytes in %d values, want %d in %d", size, len(obj.Data), DataBytes, DataKeys)
	}
	if obj.UID == NewObject(124, 4).UID || len(obj.UID) != 36 {
		t.Errorf("uid %q: want 36 characters, unique per object", obj.UID)
	}
}

// TestKinds checks the names, namespaces and resource versions that every
// kind's builders promise.
func TestKinds(t *testing.T) {
	for _, kind := range Kinds {
		t.Run(kind.Name, func(t *testing.T) {
			list := kind.List(250)
			lm, err := metaList(list)
			if err != nil {
				t.Fatal(err)
			}
			if lm != "250" {
				t.Errorf("list at resource version %q, want 250", lm)
			}
			items := kind.Items(list)
			if len(items) != 250 {
				t.Fatalf("%d items, want 250", len(items))
			}
			order := KeyOrder(250)
			last := ""
			for j, item := range items {
				m := item.(metav1.Object)
				i := order[j]
				if m.GetName() != NameOf(i) || m.GetNamespace() != NamespaceOf(i) || m.GetResourceVersion() != itoa(i+1) {
					t.Errorf("item %d is %s/%s at %s, want object %d", j, m.GetNamespace(), m.GetName(), m.GetResourceVersion(), i)
				}
				key := m.GetNamespace() + "/" + m.GetName()
				if key <= last {
					t.Errorf("item %d, %s, is not after %s: not in kube-apiserver's order", j, key, last)
				}
				last = key
			}
			for s, up := range kind.Updates(10, 25) {
				m := up.(metav1.Object)
				if m.GetName() != NameOf(s%10) || m.GetResourceVersion() != itoa(10+s+1) || m.GetGeneration() != int64(s) {
					t.Errorf("update %d is %s at %s, generation %d", s, m.GetName(), m.GetResourceVersion(), m.GetGeneration())
				}
			}
			if ex := kind.Example(); ex == nil {
				t.Error("no example object")
			}
		})
	}
}

func metaList(list runtime.Object) (string, error) {
	m, err := meta.ListAccessor(list)
	if err != nil {
		return "", err
	}
	return m.GetResourceVersion(), nil
}

func itoa(i int) string { return strconv.Itoa(i) }
