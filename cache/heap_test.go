package cache

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// byRV orders objects by their resource version as a number.
func byRV(a, b any) bool {
	rv := func(o any) int {
		n, _ := strconv.Atoi(o.(*metav1.PartialObjectMetadata).ResourceVersion)
		return n
	}
	return rv(a) < rv(b)
}

// popAll pops every object of h and returns "name@rv".
func popAll(t testing.TB, h *Heap) []string {
	t.Helper()
	var out []string
	for len(h.ListKeys()) > 0 {
		obj, err := h.Pop()
		if err != nil {
			t.Fatal(err)
		}
		o := obj.(*metav1.PartialObjectMetadata)
		out = append(out, o.Name+"@"+o.ResourceVersion)
	}
	return out
}

func TestHeap(t *testing.T) {
	tests := []struct {
		name string
		less LessFunc
		ops  func(h *Heap) error
		want []string
	}{
		{
			name: "pops in LessFunc order",
			less: byRV,
			ops: func(h *Heap) error {
				return errors.Join(h.Add(qobj("a", "5")), h.Add(qobj("b", "1")), h.Add(qobj("c", "3")))
			},
			want: []string{"b@1", "c@3", "a@5"},
		},
		{
			name: "Add and Update replace by key and reorder",
			less: byRV,
			ops: func(h *Heap) error {
				return errors.Join(h.Add(qobj("a", "5")), h.Add(qobj("b", "1")), h.Update(qobj("a", "0")), h.Add(qobj("b", "9")))
			},
			want: []string{"a@0", "b@9"},
		},
		{
			name: "AddIfNotPresent keeps the present object",
			less: byRV,
			ops: func(h *Heap) error {
				return errors.Join(h.Add(qobj("a", "5")), h.AddIfNotPresent(qobj("a", "1")), h.AddIfNotPresent(qobj("b", "2")))
			},
			want: []string{"b@2", "a@5"},
		},
		{
			name: "BulkAdd adds everything, later objects win",
			less: byRV,
			ops: func(h *Heap) error {
				return h.BulkAdd([]any{qobj("a", "5"), qobj("b", "4"), qobj("a", "3")})
			},
			want: []string{"a@3", "b@4"},
		},
		{
			name: "BulkAdd with a key error adds nothing",
			less: byRV,
			ops: func(h *Heap) error {
				var keyErr KeyError
				if err := h.BulkAdd([]any{qobj("a", "5"), "junk"}); !errors.As(err, &keyErr) {
					return errors.New("no KeyError")
				}
				return h.Add(qobj("b", "1"))
			},
			want: []string{"b@1"},
		},
		{
			name: "Delete removes by key",
			less: byRV,
			ops: func(h *Heap) error {
				if err := errors.Join(h.Add(qobj("a", "5")), h.Add(qobj("b", "1")), h.Add(qobj("c", "3")), h.Delete(qobj("b", ""))); err != nil {
					return err
				}
				if err := h.Delete(qobj("b", "")); err == nil || err.Error() != "object not found" {
					return errors.New("deleting a missing object did not fail with object not found")
				}
				return nil
			},
			want: []string{"c@3", "a@5"},
		},
		{
			name: "a nil LessFunc orders by key",
			ops: func(h *Heap) error {
				return errors.Join(h.Add(qobj("b", "1")), h.Add(qobj("c", "1")), h.Add(qobj("a", "1")))
			},
			want: []string{"a@1", "b@1", "c@1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHeap(MetaNamespaceKeyFunc, tc.less)
			if err := tc.ops(h); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, popAll(t, h)); diff != "" {
				t.Errorf("popped (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeapReads(t *testing.T) {
	h := NewHeap(nil, byRV)
	if err := errors.Join(h.Add(qobj("a", "2")), h.Add(qobj("b", "1"))); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ns/a", "ns/b"}, slices.Sorted(slices.Values(h.ListKeys()))); diff != "" {
		t.Errorf("ListKeys (-want +got):\n%s", diff)
	}
	if got := len(h.List()); got != 2 {
		t.Errorf("List has %d objects", got)
	}
	obj, exists, err := h.Get(qobj("a", ""))
	if err != nil || !exists || obj.(*metav1.PartialObjectMetadata).ResourceVersion != "2" {
		t.Errorf("Get(a) = %v, %v, %v", obj, exists, err)
	}
	if _, exists, err := h.GetByKey("ns/zzz"); exists || err != nil {
		t.Errorf("GetByKey(missing) = %v, %v", exists, err)
	}
	var keyErr KeyError
	if _, _, err := h.Get(nil); !errors.As(err, &keyErr) {
		t.Errorf("Get(nil) = %v", err)
	}
	for _, write := range []func(any) error{h.Add, h.Update, h.AddIfNotPresent, h.Delete} {
		if err := write(42); !errors.As(err, &keyErr) {
			t.Errorf("write(42) = %v", err)
		}
	}
}

func TestHeapClose(t *testing.T) {
	h := NewHeap(MetaNamespaceKeyFunc, byRV)
	if err := h.Add(qobj("a", "1")); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if !h.IsClosed() {
		t.Error("IsClosed false after Close")
	}
	for name, write := range map[string]func() error{
		"Add":             func() error { return h.Add(qobj("b", "1")) },
		"Update":          func() error { return h.Update(qobj("b", "1")) },
		"AddIfNotPresent": func() error { return h.AddIfNotPresent(qobj("b", "1")) },
		"BulkAdd":         func() error { return h.BulkAdd([]any{qobj("b", "1")}) },
	} {
		if err := write(); err == nil || err.Error() != "heap is closed" {
			t.Errorf("%s on a closed heap = %v", name, err)
		}
	}
	if obj, err := h.Pop(); err != nil || obj.(*metav1.PartialObjectMetadata).Name != "a" {
		t.Errorf("Pop drained %v, %v", obj, err)
	}
	if _, err := h.Pop(); err == nil || err.Error() != "heap is closed" {
		t.Errorf("Pop on a closed empty heap = %v", err)
	}
	if err := h.Delete(qobj("a", "")); err == nil {
		t.Error("Delete of a popped object succeeded")
	}
}

func TestHeapPopBlocks(t *testing.T) {
	h := NewHeap(MetaNamespaceKeyFunc, byRV)
	got := make(chan any, 1)
	go func() {
		obj, err := h.Pop()
		if err != nil {
			got <- err
			return
		}
		got <- obj
	}()
	if err := h.Add(qobj("a", "1")); err != nil {
		t.Fatal(err)
	}
	select {
	case obj := <-got:
		if o, ok := obj.(*metav1.PartialObjectMetadata); !ok || o.Name != "a" {
			t.Errorf("Pop = %v", obj)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("Pop not woken by Add")
	}

	closed := make(chan error, 1)
	go func() {
		_, err := h.Pop()
		closed <- err
	}()
	h.Close()
	select {
	case err := <-closed:
		if err == nil {
			t.Error("Pop on a closed heap succeeded")
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("Pop not woken by Close")
	}
}

// TestHeapModel checks random operations against a sorted slice.
func TestHeapModel(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		h := NewHeap(MetaNamespaceKeyFunc, byRV)
		model := map[string]int{} // name -> rv
		for range 300 {
			name := strconv.Itoa(r.IntN(20))
			switch op := r.IntN(4); op {
			case 0, 1:
				rv := r.IntN(1000)
				if err := h.Add(qobj(name, strconv.Itoa(rv))); err != nil {
					t.Fatal(err)
				}
				model[name] = rv
			case 2:
				err := h.Delete(qobj(name, ""))
				if _, ok := model[name]; ok != (err == nil) {
					t.Fatalf("seed %d: Delete(%s) = %v, present %v", seed, name, err, ok)
				}
				delete(model, name)
			case 3:
				if len(model) == 0 {
					continue
				}
				obj, err := h.Pop()
				if err != nil {
					t.Fatal(err)
				}
				o := obj.(*metav1.PartialObjectMetadata)
				got, _ := strconv.Atoi(o.ResourceVersion)
				for n, rv := range model {
					if rv < got {
						t.Fatalf("seed %d: popped %s@%d while %s@%d is queued", seed, o.Name, got, n, rv)
					}
				}
				if model[o.Name] != got {
					t.Fatalf("seed %d: popped %s@%d, model has %d", seed, o.Name, got, model[o.Name])
				}
				delete(model, o.Name)
			}
			if len(h.ListKeys()) != len(model) {
				t.Fatalf("seed %d: heap has %d keys, model %d", seed, len(h.ListKeys()), len(model))
			}
		}
	}
}
