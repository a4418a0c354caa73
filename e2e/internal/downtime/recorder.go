package downtime

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// EventType is the handler method an [Event] records.
type EventType string

// The handler methods.
const (
	Add    EventType = "add"
	Update EventType = "update"
	Delete EventType = "delete"
)

// Event is one call of a [Recorder], by the name of its object.
type Event struct {
	Type EventType
	Name string
	// RV is the resourceVersion of the object (the new object of an
	// update, the final state of a delete).
	RV string
	// OldRV is the resourceVersion of an update's old object.
	OldRV string
	// Initial is an add's isInInitialList.
	Initial bool
	// Tombstone is true for a delete of a DeletedFinalStateUnknown (of
	// either library).
	Tombstone bool
}

func (e Event) String() string {
	switch {
	case e.Type == Add && e.Initial:
		return fmt.Sprintf("add %s@%s (initial)", e.Name, e.RV)
	case e.Type == Update:
		return fmt.Sprintf("update %s@%s→%s", e.Name, e.OldRV, e.RV)
	case e.Tombstone:
		return fmt.Sprintf("delete %s@%s (tombstone)", e.Name, e.RV)
	}
	return fmt.Sprintf("%s %s@%s", e.Type, e.Name, e.RV)
}

// Recorder is an event handler (its methods fit the
// ResourceEventHandler of client-go and of this library) that records
// every call and keeps its view of the objects, name to resourceVersion,
// as the calls say. Given a target view, it notes when its view first
// equals it, counting as it goes, without scanning.
//
// Its methods are safe for concurrent use.
type Recorder struct {
	mu        sync.Mutex
	events    []Event           // guarded by mu
	view      map[string]string // guarded by mu: name → resourceVersion
	target    map[string]string // not modified
	mismatch  int               // guarded by mu: names whose view differs from target
	reachedAt time.Time         // guarded by mu: when view first equalled target
	reached   chan struct{}     // closed, under mu, when view first equals target
	isReached bool              // guarded by mu: reached is closed
	// callsWanted is closed, and set to nil, once there are at least
	// wantCalls events.
	callsWanted chan struct{} // guarded by mu
	wantCalls   int           // guarded by mu
}

// NewRecorder returns a Recorder that has seen nothing and reports, through
// Reached, when its view equals target. target must not change afterwards.
func NewRecorder(target map[string]string) *Recorder {
	r := &Recorder{
		view:     make(map[string]string, len(target)),
		target:   target,
		mismatch: len(target),
		reached:  make(chan struct{}),
	}
	if r.mismatch == 0 {
		close(r.reached)
		r.reachedAt, r.isReached = time.Now(), true
	}
	return r
}

// OnAdd records an add.
func (r *Recorder) OnAdd(obj any, isInInitialList bool) {
	name, rv := nameAndVersion(obj)
	r.record(Event{Type: Add, Name: name, RV: rv, Initial: isInInitialList})
}

// OnUpdate records an update.
func (r *Recorder) OnUpdate(oldObj, newObj any) {
	_, oldRV := nameAndVersion(oldObj)
	name, rv := nameAndVersion(newObj)
	r.record(Event{Type: Update, Name: name, RV: rv, OldRV: oldRV})
}

// OnDelete records a delete, of the object or of the object a tombstone
// of either library holds.
func (r *Recorder) OnDelete(obj any) {
	e := Event{Type: Delete}
	switch t := obj.(type) {
	case cache.DeletedFinalStateUnknown:
		e.Tombstone, obj = true, t.Obj
	case clientgocache.DeletedFinalStateUnknown:
		e.Tombstone, obj = true, t.Obj
	}
	e.Name, e.RV = nameAndVersion(obj)
	r.record(e)
}

func (r *Recorder) record(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	if r.callsWanted != nil && len(r.events) >= r.wantCalls {
		close(r.callsWanted)
		r.callsWanted = nil
	}
	before := r.matchesLocked(e.Name)
	if e.Type == Delete {
		delete(r.view, e.Name)
	} else {
		r.view[e.Name] = e.RV
	}
	switch after := r.matchesLocked(e.Name); {
	case before && !after:
		r.mismatch++
	case !before && after:
		r.mismatch--
		if r.mismatch == 0 && !r.isReached {
			r.reachedAt, r.isReached = time.Now(), true
			close(r.reached)
		}
	}
}

// matchesLocked reports whether name is in the view as it is in the
// target: absent from both, or present in both at the same version.
func (r *Recorder) matchesLocked(name string) bool {
	have, inView := r.view[name]
	want, inTarget := r.target[name]
	return inView == inTarget && have == want
}

// Reached returns a channel closed once the view first equalled the
// target.
func (r *Recorder) Reached() <-chan struct{} { return r.reached }

// ReachedAt returns when the view first equalled the target, or the zero
// time if it has not.
func (r *Recorder) ReachedAt() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reachedAt
}

// CallsReached returns a channel closed once the handler was called at
// least n times. It replaces the channel of an earlier call.
func (r *Recorder) CallsReached(n int) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := make(chan struct{})
	if len(r.events) >= n {
		close(ch)
		r.callsWanted = nil
		return ch
	}
	r.callsWanted, r.wantCalls = ch, n
	return ch
}

// Events returns a copy of the calls recorded so far, in order.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// nameAndVersion returns the name and resourceVersion of obj, or for an
// object without metadata a name that says so, which no check expects.
func nameAndVersion(obj any) (name, rv string) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("<%T without metadata>", obj), ""
	}
	return m.GetName(), m.GetResourceVersion()
}
