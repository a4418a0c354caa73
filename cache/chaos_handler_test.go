package cache

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// chaosPanic is the value a chaos handler panics with, so that a panic with
// any other value is known to come from the library.
type chaosPanic struct{ handler int }

// removal says how far a chaos handler has been removed from its informer.
type removal int

const (
	registered removal = iota
	// removedSoft: RemoveEventHandler returned, called from outside the
	// handler. It does not wait, so one call that was being dispatched may
	// still begin.
	removedSoft
	// removedHard: ShutDownEventHandler returned, or the handler removed
	// itself from inside a call, or the informer stopped. No call may
	// begin.
	removedHard
)

// chaosHandler is a ResourceEventHandler that checks every notification
// against what it saw before, keeps its own view of the cache, and misbehaves
// (panics, stalls, adds and removes handlers) when the schedule says so.
// Violations are collected, not reported at once, so that the run can print
// them with its seed.
type chaosHandler struct {
	id    int
	rules handlerRules
	// sleep stalls the calling goroutine on the run's clock.
	sleep func(time.Duration)

	mu sync.Mutex
	// keys holds what the handler saw of every key it was ever told about;
	// the keys it has make up its view of the cache.
	keys map[string]*keyState
	// calls counts the calls; late counts those begun after a soft
	// removal; panicked counts the panics; lossyDeletes the deletes of
	// keys the handler lacked that rules.lossy allowed.
	calls, late, panicked, lossyDeletes int
	removal                             removal
	violations                          []string
	// What the next calls do besides checking, armed by the schedule.
	panics  int
	stall   time.Duration
	actions []func(*chaosHandler)
	// inCall is set while a call runs; a handler's calls never overlap.
	inCall bool
	// shutdownsInCall counts the handlers the call in progress (or the
	// last one) shut down, itself included.
	shutdownsInCall int
}

// handlerRules are the exceptions to the checks that a run's schedule
// makes legitimate.
type handlerRules struct {
	// lossy allows deletes of keys the handler lacks: in the InOrder
	// pipeline a watch event whose ADDED was lost in transit is delivered
	// as it is, as in client-go.
	lossy bool
	// reshards allows an object that left the informer's shard (a delete
	// stamped with the resource version of the move) to come back
	// unchanged, with the older resource version it has.
	reshards bool
}

// keyState is what a chaos handler saw of one key.
type keyState struct {
	// has says that the handler has the key, in state.
	has   bool
	state objectState
	// lastRV is the highest resource version seen, deletes included;
	// lastState the highest of an added or updated object; deletedUID the
	// uid of the last deleted object.
	lastRV, lastState uint64
	deletedUID        types.UID
}

func newChaosHandler(id int, rules handlerRules, sleep func(time.Duration)) *chaosHandler {
	return &chaosHandler{
		id: id, rules: rules, sleep: sleep,
		keys: map[string]*keyState{},
	}
}

func (h *chaosHandler) OnAdd(obj any, _ bool) {
	h.call("add", nil, obj)
}

func (h *chaosHandler) OnUpdate(oldObj, newObj any) {
	h.call("update", oldObj, newObj)
}

func (h *chaosHandler) OnDelete(obj any) {
	h.call("delete", nil, obj)
}

// call checks and records one notification, then misbehaves as armed.
func (h *chaosHandler) call(kind string, oldObj, obj any) {
	h.mu.Lock()
	if h.inCall {
		h.violateLocked("%s while another call of the same handler runs", kind)
	}
	h.inCall = true
	h.shutdownsInCall = 0
	h.calls++
	switch h.removal {
	case removedSoft:
		if h.late++; h.late > 1 {
			h.violateLocked("%s: call %d after RemoveEventHandler returned", kind, h.late)
		}
	case removedHard:
		h.violateLocked("%s after the handler was shut down or removed itself", kind)
	}
	h.checkLocked(kind, oldObj, obj)
	actions := h.actions
	h.actions = nil
	stall := h.stall
	h.stall = 0
	panics := h.panics > 0
	if panics {
		h.panics--
		h.panicked++
	}
	h.mu.Unlock()

	defer func() {
		h.mu.Lock()
		h.inCall = false
		h.mu.Unlock()
	}()
	for _, act := range actions {
		act(h)
	}
	if stall > 0 {
		h.sleep(stall)
	}
	if panics {
		panic(chaosPanic{handler: h.id})
	}
}

// checkLocked checks one notification against the handler's view and
// applies it to the view.
func (h *chaosHandler) checkLocked(kind string, oldObj, obj any) {
	tomb, isTomb := obj.(DeletedFinalStateUnknown)
	var key string
	var cur *metav1.PartialObjectMetadata
	if isTomb {
		if kind != "delete" {
			h.violateLocked("%s of a tombstone %q", kind, tomb.Key)
			return
		}
		key = tomb.Key
		if tomb.Obj != nil {
			p, ok := tomb.Obj.(*metav1.PartialObjectMetadata)
			if !ok {
				h.violateLocked("delete of a tombstone %q holding a %T", key, tomb.Obj)
				return
			}
			cur = p
		}
	} else {
		p, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok || p == nil {
			h.violateLocked("%s of a %T", kind, obj)
			return
		}
		cur = p
		key = p.Namespace + "/" + p.Name
	}
	k, known := h.keys[key]
	if !known {
		k = &keyState{}
		h.keys[key] = k
	}
	seen, has := k.state, k.has
	if cur != nil {
		rv, err := strconv.ParseUint(cur.ResourceVersion, 10, 64)
		if err != nil {
			h.violateLocked("%s %s: resource version %q", kind, key, cur.ResourceVersion)
			return
		}
		floor := k.lastRV
		if kind == "add" && h.rules.reshards && k.deletedUID == cur.UID {
			// Back in the shard, unchanged: as new as its last state.
			floor, k.lastRV = k.lastState, rv
		}
		if rv < floor {
			h.violateLocked("%s %s: resource version down from %d to %d", kind, key, floor, rv)
		}
		k.lastRV = max(k.lastRV, rv)
		if kind == "delete" {
			k.deletedUID = cur.UID
		} else {
			k.lastState = max(k.lastState, rv)
		}
	}
	switch kind {
	case "add":
		if has {
			h.violateLocked("add %s@%s: the handler has it at %s", key, cur.ResourceVersion, seen.rv)
		}
		k.has, k.state = true, stateOf(cur)
	case "update":
		old, ok := oldObj.(*metav1.PartialObjectMetadata)
		switch {
		case !has:
			h.violateLocked("update %s@%s: the handler lacks it", key, cur.ResourceVersion)
		case !ok:
			h.violateLocked("update %s: old object is a %T", key, oldObj)
		case stateOf(old) != seen:
			h.violateLocked("update %s@%s: old object %s is not the last state seen, %s", key, cur.ResourceVersion, describeMeta(old), seen)
		}
		k.has, k.state = true, stateOf(cur)
	case "delete":
		switch {
		case has:
		case h.rules.lossy:
			h.lossyDeletes++
		default:
			h.violateLocked("delete %s: the handler lacks it", key)
		}
		k.has = false
	}
}

// objectState is what a handler remembers of the last state it saw of an
// object: enough to recognise that state, without keeping the object, so
// that the soak test's heap is the library's.
type objectState struct {
	rv  string
	uid types.UID
	// fingerprint hashes the rest of the metadata the writer changes:
	// labels, finalizers and the deletion timestamp.
	fingerprint uint64
}

func stateOf(m *metav1.PartialObjectMetadata) objectState {
	f := fnv.New64a()
	for _, k := range slices.Sorted(maps.Keys(m.Labels)) {
		fmt.Fprintf(f, "%q=%q,", k, m.Labels[k])
	}
	fmt.Fprintf(f, "%q %v", m.Finalizers, m.DeletionTimestamp != nil)
	return objectState{rv: m.ResourceVersion, uid: m.UID, fingerprint: f.Sum64()}
}

func (s objectState) String() string {
	return fmt.Sprintf("@%s uid=%s metadata hash %x", s.rv, s.uid, s.fingerprint)
}

// describeMeta is a short description of an object's state for messages.
func describeMeta(m *metav1.PartialObjectMetadata) string {
	return fmt.Sprintf("%s/%s@%s uid=%s labels=%v finalizers=%v deleting=%v",
		m.Namespace, m.Name, m.ResourceVersion, m.UID, m.Labels, m.Finalizers, m.DeletionTimestamp != nil)
}

func (h *chaosHandler) violateLocked(format string, args ...any) {
	if len(h.violations) < 20 {
		h.violations = append(h.violations, fmt.Sprintf("handler %d: ", h.id)+fmt.Sprintf(format, args...))
	}
}

// arm makes the next call run act inside the handler.
func (h *chaosHandler) arm(act func(*chaosHandler)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.actions = append(h.actions, act)
}

// armPanics makes the next n calls panic once they have been checked.
func (h *chaosHandler) armPanics(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.panics += n
}

// armStall makes the next call stall for d once it has been checked.
func (h *chaosHandler) armStall(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stall = d
}

// disarm cancels the misbehaviour not yet carried out: the run is healing.
func (h *chaosHandler) disarm() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.panics, h.stall, h.actions = 0, 0, nil
}

// markRemoved records a removal once the call that made it returned; a
// weaker removal never replaces a stronger one.
func (h *chaosHandler) markRemoved(r removal) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.removal = max(h.removal, r)
}

// isRegistered reports whether the handler has not been removed.
func (h *chaosHandler) isRegistered() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.removal == registered
}

// viewContents describes the handler's view like describeStore describes a
// store.
func (h *chaosHandler) viewContents() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.keys))
	for key, k := range h.keys {
		if k.has {
			out = append(out, key+"@"+k.state.rv+" "+string(k.state.uid))
		}
	}
	slices.Sort(out)
	return out
}

// handlerResults is what a handler counted and found.
type handlerResults struct {
	calls, panicked, lossyDeletes int
	violations                    []string
}

// results returns what the handler counted and found so far.
func (h *chaosHandler) results() handlerResults {
	h.mu.Lock()
	defer h.mu.Unlock()
	return handlerResults{calls: h.calls, panicked: h.panicked, lossyDeletes: h.lossyDeletes, violations: slices.Clone(h.violations)}
}

// describeObjectState is what the final checks compare of an object: key,
// resource version and uid.
func describeObjectState(obj any) string {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return fmt.Sprintf("<%T>", obj)
	}
	return m.Namespace + "/" + m.Name + "@" + m.ResourceVersion + " " + string(m.UID)
}
