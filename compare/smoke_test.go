package compare

import (
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/internal/benchkit"
)

// stateHandler mirrors the objects it is told about: name → resource
// version. It is safe for concurrent use.
type stateHandler struct {
	mu      sync.Mutex
	objects map[string]string // guarded by mu
	changed chan struct{}     // signalled (without blocking) after every call
}

func newStateHandler() *stateHandler {
	return &stateHandler{objects: map[string]string{}, changed: make(chan struct{}, 1)}
}

func (h *stateHandler) set(obj any, present bool) {
	m := obj.(*metav1.PartialObjectMetadata)
	h.mu.Lock()
	if present {
		h.objects[m.Name] = m.ResourceVersion
	} else {
		delete(h.objects, m.Name)
	}
	h.mu.Unlock()
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

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

// TestSmoke runs every variant on a small script (an initial list of 1,000
// objects, then 2,000 updates, 50 deletes and 50 adds over watch, to 2
// handlers) and checks that every handler ends with the final state of
// every object.
func TestSmoke(t *testing.T) {
	const (
		listed   = 1000
		updated  = 2000
		deleted  = 50
		added    = 50
		handlers = 2
	)
	objs := benchkit.Objects(listed)
	var events []watch.Event
	want := map[string]string{}
	for _, obj := range objs {
		want[obj.Name] = obj.ResourceVersion
	}
	rv := listed
	for _, obj := range benchkit.Updates(listed, updated) {
		events = append(events, watch.Event{Type: watch.Modified, Object: obj})
		want[obj.Name] = obj.ResourceVersion
		rv++
	}
	for i := range deleted {
		rv++
		obj := pom(fmt.Sprintf("o%d", i), fmt.Sprint(rv))
		events = append(events, watch.Event{Type: watch.Deleted, Object: obj})
		delete(want, obj.Name)
	}
	for i := range added {
		rv++
		obj := pom(fmt.Sprintf("new%d", i), fmt.Sprint(rv))
		events = append(events, watch.Event{Type: watch.Added, Object: obj})
		want[obj.Name] = obj.ResourceVersion
	}

	for _, v := range variants {
		t.Run("lib="+v.name, func(t *testing.T) {
			src := newSource(objs)
			hs := make([]*stateHandler, handlers)
			ehs := make([]eventHandler, handlers)
			for i := range hs {
				hs[i] = newStateHandler()
				ehs[i] = hs[i]
			}
			ctx, cancel := quietContext()
			r, err := v.start(ctx, src, ehs)
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			defer func() {
				cancel()
				<-r.done
			}()
			r.waitSynced()
			for _, e := range events {
				src.events <- e
			}
			deadline := time.After(time.Minute)
			for i, h := range hs {
				if diff := h.waitFor(want, deadline); diff != "" {
					t.Errorf("handler %d: objects (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}
