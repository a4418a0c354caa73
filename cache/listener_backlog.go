package cache

import (
	"sync/atomic"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// backlogBounds are the limits a registration chose for its backlog (see
// [HandlerOptions.Coalesce] and [HandlerOptions.MaxBacklog]). The zero value
// is client-go's unbounded buffer.
type backlogBounds struct {
	// coalesce merges pending notifications per key once more than
	// coalesceAfter are pending.
	coalesce      bool
	coalesceAfter int
	// max, when positive, is the most notifications held; past it the
	// backlog goes stale.
	max int
}

// bounded reports whether b differs from client-go's unbounded buffer.
func (b backlogBounds) bounded() bool { return b.coalesce || b.max > 0 }

// backlogSource is what a listener with a capped backlog needs from its
// informer: the current state of the objects its stale entries stand for,
// read consistently with the notifications the listener has been given.
type backlogSource interface {
	// whileQuiet calls fn while no change is stored or distributed to the
	// listeners; get returns the stored object of a key.
	whileQuiet(fn func(get func(key string) (any, bool)))
}

// staleRefreshSize is the most stale entries a listener refreshes from the
// store while its informer waits (see takeStale).
const staleRefreshSize = 16

// setBacklog gives l bounds; keyFunc keys the notifications and source
// resolves stale entries (it is needed when bounds.max is positive). It must
// be called before l is shared.
func (l *processorListener) setBacklog(bounds backlogBounds, keyFunc KeyFunc, source backlogSource) {
	if !bounds.bounded() {
		return
	}
	l.bounds = bounds
	l.keyFunc = keyFunc
	l.source = source
	l.keyed = &coalescingBacklog{}
}

// enqueueLocked appends n to the backlog, merging it per key where the bounds
// say so. l.mu must be held.
func (l *processorListener) enqueueLocked(n notification) {
	if l.keyed == nil {
		l.pending.WriteOne(n)
		return
	}
	unhanded := l.flight.unhandedLocked()
	switch {
	case l.keyed.len() > 0 || l.bounds.coalesce && l.pending.Len()+unhanded >= l.bounds.coalesceAfter:
		l.addKeyedLocked(n)
	default:
		l.pending.WriteOne(n)
	}
	if l.bounds.max > 0 && !l.keyed.stale && l.pending.Len()+l.keyed.len()+unhanded > l.bounds.max {
		l.overflowLocked()
	}
}

// addKeyedLocked merges n into the coalescing backlog.
func (l *processorListener) addKeyedLocked(n notification) {
	key, ok := l.keyOf(n)
	if !ok {
		l.keyed.addUnkeyed(n)
		return
	}
	l.finishInitial(l.keyed.add(key, n))
}

// keyOf returns the key of n's object, reporting a failure.
func (l *processorListener) keyOf(n notification) (string, bool) {
	obj := n.newObj
	if n.kind == deleteNotification {
		obj = n.oldObj
	}
	key, err := l.keyFunc(obj)
	if err != nil {
		utilruntime.HandleErrorWithLogger(l.logger, err, "Cannot merge a notification for a handler: its object has no key; it is kept as it is", "kind", n.kind)
		return "", false
	}
	return key, true
}

// overflowLocked replaces the backlog, past its cap, by stale entries: per
// key, the handler's view before its pending notifications, those in
// flight first. The buffer's memory is given back.
func (l *processorListener) overflowLocked() {
	flight := l.flight.takeLocked()
	older := make([]keyedNotification, 0, len(flight)+l.pending.Len())
	for _, n := range flight {
		key, ok := l.keyOf(n)
		older = append(older, keyedNotification{key: key, ok: ok, n: n})
	}
	for {
		n, ok := l.pending.ReadOne()
		if !ok {
			break
		}
		key, ok := l.keyOf(n)
		older = append(older, keyedNotification{key: key, ok: ok, n: n})
	}
	l.keyed.markStale(older)
	l.pending = notificationQueue{}
	l.logger.V(2).Info("Event handler backlog passed its cap: pending notifications replaced by the changed objects' keys; the handler gets their current state when it catches up", "maxBacklog", l.bounds.max, "changedObjects", l.keyed.len())
}

// backlogLocked returns the number of notifications waiting for the
// handler, those in flight included.
func (l *processorListener) backlogLocked() int {
	n := l.pending.Len()
	if l.keyed != nil {
		n += l.keyed.len() + l.flight.unhandedLocked()
	}
	return n
}

// takeBoundedLocked moves into batch, for a listener whose backlog is
// bounded, either the notifications of its buffer (up to cap(batch)): one
// per event, which the bounds do not merge, and which still count towards
// them until handed (see flightBatch); or else the first notification of
// the oldest entry of the coalescing backlog, so that what the handler has
// not been handed stays there, merged. It reports false, taking nothing,
// when that entry is stale (see takeStale). l.mu must be held.
func (l *processorListener) takeBoundedLocked(batch []notification) ([]notification, bool) {
	if l.pending.Len() > 0 {
		for len(batch) < cap(batch) {
			n, ok := l.pending.ReadOne()
			if !ok {
				break
			}
			batch = append(batch, n)
		}
		return batch, true
	}
	n, finished, ok := l.keyed.takeFront()
	if !ok {
		return batch, false
	}
	l.finishInitial(finished)
	return append(batch, n), true
}

// flightBatch is the batch that the delivery goroutine of a listener with a
// bounded backlog took and has not handed to the handler yet. Those
// notifications still count towards the bounds, and a backlog that passes
// its cap takes them back: run claims each notification before handing it
// over, and overflowLocked takes the unclaimed rest at once.
type flightBatch struct {
	// items is the batch, set by next under the listener's mu. Only run
	// writes to it, clearing each notification it claimed once handed;
	// the unclaimed rest is read under mu and cleared by next.
	items []notification
	// next is the index in items of the first notification not claimed,
	// or -1 once overflowLocked took them.
	next atomic.Int64
}

// startLocked makes batch the one in flight. mu must be held.
func (f *flightBatch) startLocked(batch []notification) {
	f.items = batch
	f.next.Store(0)
}

// claim reports whether run may hand over notification i; it must claim
// them in order.
func (f *flightBatch) claim(i int) bool {
	return f.next.CompareAndSwap(int64(i), int64(i+1))
}

// unhandedLocked returns how many notifications in flight are not claimed.
// mu must be held.
func (f *flightBatch) unhandedLocked() int {
	if n := f.next.Load(); n >= 0 && int(n) < len(f.items) {
		return len(f.items) - int(n)
	}
	return 0
}

// takeLocked takes the notifications in flight that are not claimed, and
// returns them: run will not hand them over. mu must be held.
func (f *flightBatch) takeLocked() []notification {
	if n := f.next.Swap(-1); n >= 0 && int(n) < len(f.items) {
		return f.items[n:]
	}
	return nil
}

// takeStale refreshes the stale entries at the front of the coalescing
// backlog from the store, one by one, until one has something to tell the
// handler, and moves that entry's first notification into batch; the rest
// of the entry stays in the backlog. It reads the store while the informer
// distributes nothing, so that the refreshed entries miss no change, and
// gives up after staleRefreshSize entries, so that the informer does not
// wait long: batch may then be empty. It takes l.mu itself; it returns
// false if the listener stopped.
func (l *processorListener) takeStale(batch []notification) ([]notification, bool) {
	ok := true
	l.source.whileQuiet(func(get func(key string) (any, bool)) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.stopped {
			ok = false
			return
		}
		for range staleRefreshSize {
			l.finishInitial(l.keyed.refresh(get, 1))
			if n, finished, taken := l.keyed.takeFront(); taken {
				l.finishInitial(finished)
				batch = append(batch, n)
				l.flight.startLocked(batch)
				return
			}
			if l.keyed.front() == nil {
				return
			}
		}
	})
	return batch, ok
}

// finishInitial records n initial-list adds as handled without a call.
func (l *processorListener) finishInitial(n int) {
	for range n {
		l.syncTracker.Finished()
	}
}
