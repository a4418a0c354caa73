package compare

import (
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/internal/benchkit"
)

// stateHandler mirrors the objects it is told about: namespace/name →
// resource version. It is safe for concurrent use.
type stateHandler struct {
	mu      sync.Mutex
	objects map[string]string // guarded by mu
	changed chan struct{}     // signalled (without blocking) after every call
}

func newStateHandler() *stateHandler {
	return &stateHandler{objects: map[string]string{}, changed: make(chan struct{}, 1)}
}

func (h *stateHandler) set(obj any, present bool) {
	m := obj.(metav1.Object)
	key := keyOf(m)
	h.mu.Lock()
	if present {
		h.objects[key] = m.GetResourceVersion()
	} else {
		delete(h.objects, key)
	}
	h.mu.Unlock()
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

func keyOf(m metav1.Object) string { return m.GetNamespace() + "/" + m.GetName() }

func (h *stateHandler) OnAdd(obj any, _ bool)  { h.set(obj, true) }
func (h *stateHandler) OnUpdate(_, newObj any) { h.set(newObj, true) }
func (h *stateHandler) OnDelete(obj any)       { h.set(obj, false) }
func (h *stateHandler) snapshot() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.objects)
}

// waitFor blocks until the handler's objects equal want or the deadline
// passes, and returns the difference left (empty on success).
func (h *stateHandler) waitFor(want map[string]string, deadline <-chan time.Time) string {
	for {
		got := h.snapshot()
		if maps.Equal(want, got) {
			return ""
		}
		select {
		case <-h.changed:
		case <-deadline:
			return cmp.Diff(want, got)
		}
	}
}

// TestSmoke runs every library on a small script of realistic objects, of
// Pods served as protobuf and of Secrets served as JSON (an initial list of
// 1,000 objects, then 2,000
// updates, 50 deletes and 50 adds over watch, to 2 handlers) and checks
// that every handler ends with the final state of every object: the
// libraries compared do the same work, and a source that decodes hands
// them every object.
func TestSmoke(t *testing.T) {
	const (
		listed   = 1000
		updated  = 2000
		deleted  = 50
		added    = 50
		handlers = 2
	)
	pb, err := newWire(WireProtobuf)
	if err != nil {
		t.Fatal(err)
	}
	js, err := newWire(WireJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []input{memoryInput(benchkit.Realistic, updatesCache{}), wireInput(Pods, pb), wireInput(Secrets, js)} {
		name := "kind=" + in.kind.Name
		if in.wire != nil {
			name += "/wire=" + in.wire.mediaType
		}
		t.Run(name, func(t *testing.T) {
			want := map[string]string{}
			for _, obj := range in.kind.Items(in.kind.List(listed)) {
				m := obj.(metav1.Object)
				want[keyOf(m)] = m.GetResourceVersion()
			}
			// Updates cycle over the listed objects; those past listed+updated
			// over more objects are the deletes (of objects 0 to deleted-1) and
			// the adds (of objects listed to listed+added-1).
			var events []watch.Event
			for _, e := range []struct {
				typ     watch.EventType
				objects []runtime.Object
			}{
				{watch.Modified, in.kind.Updates(listed, updated)},
				{watch.Deleted, in.kind.Updates(listed, updated+deleted)[updated:]},
				{watch.Added, in.kind.Updates(listed+added, listed+added)[listed:]},
			} {
				for _, obj := range e.objects {
					m := obj.(metav1.Object)
					if e.typ == watch.Deleted {
						delete(want, keyOf(m))
					} else {
						want[keyOf(m)] = m.GetResourceVersion()
					}
					if in.wire != nil {
						if obj, err = in.wire.encoded(obj); err != nil {
							t.Fatal(err)
						}
					}
					events = append(events, watch.Event{Type: e.typ, Object: obj})
				}
			}
			if len(want) != listed-deleted+added {
				t.Fatalf("the script ends with %d objects, want %d", len(want), listed-deleted+added)
			}

			for _, lib := range Libraries {
				t.Run("lib="+lib.Name, func(t *testing.T) {
					f, err := in.newFeed(listed)
					if err != nil {
						t.Fatal(err)
					}
					hs := make([]*stateHandler, handlers)
					opts := startOptions{}
					for i := range hs {
						hs[i] = newStateHandler()
						opts.handlers = append(opts.handlers, hs[i])
					}
					r, err := lib.start(f.lw, in.kind.Example(), opts)
					if err != nil {
						t.Fatal(err)
					}
					defer r.stop()
					<-r.synced
					for _, e := range events {
						f.src.Events <- e
					}
					deadline := time.After(time.Minute)
					for i, h := range hs {
						if diff := h.waitFor(want, deadline); diff != "" {
							t.Errorf("handler %d: objects (-want +got):\n%s", i, diff)
						}
					}
				})
			}
		})
	}
}
