package cache

import (
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
	switch {
	case l.keyed.len() > 0 || l.bounds.coalesce && l.pending.Len() >= l.bounds.coalesceAfter:
		l.addKeyedLocked(n)
	default:
		l.pending.WriteOne(n)
	}
	if l.bounds.max > 0 && !l.keyed.stale && l.pending.Len()+l.keyed.len() > l.bounds.max {
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
// key, the handler's view before its pending notifications. The buffer's
// memory is given back.
func (l *processorListener) overflowLocked() {
	older := make([]keyedNotification, 0, l.pending.Len())
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

// backlogLocked returns the number of notifications waiting for the handler.
func (l *processorListener) backlogLocked() int {
	n := l.pending.Len()
	if l.keyed != nil {
		n += l.keyed.len()
	}
	return n
}

// takeOneLocked moves the oldest pending notification into batch, for a
// listener whose backlog is bounded: what is not handed to the handler stays
// in the backlog, where it is merged, capped and counted. It reports false,
// taking nothing, when that notification is a stale entry's (see
// takeStale). l.mu must be held.
func (l *processorListener) takeOneLocked(batch []notification) ([]notification, bool) {
	if n, ok := l.pending.ReadOne(); ok {
		return append(batch, n), true
	}
	n, finished, ok := l.keyed.takeFront()
	if !ok {
		return batch, false
	}
	l.finishInitial(finished)
	return append(batch, n), true
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
