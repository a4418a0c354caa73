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

// keyedBatchSize is the most entries a listener takes from its coalescing
// backlog at once: few, so that the handler gets states as recent as
// possible.
const keyedBatchSize = 16

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

// takeKeyedLocked moves up to keyedBatchSize entries that are not stale from
// the front of the coalescing backlog into batch, and reports false, taking
// nothing, if the front entry is stale.
func (l *processorListener) takeKeyedLocked(batch []notification) ([]notification, bool) {
	for range keyedBatchSize {
		e := l.keyed.front()
		if e == nil || e.stale {
			break
		}
		l.keyed.popFront()
		var finished int
		batch, finished = e.emit(batch)
		l.finishInitial(finished)
	}
	return batch, len(batch) > 0 || l.keyed.front() == nil
}

// resolveStale moves up to keyedBatchSize stale entries from the front of the
// coalescing backlog into batch, as the notifications that take the handler
// from its view to the store's current state. It reads the store while the
// informer distributes nothing, so no notification about these objects is
// pending once they are taken. It takes l.mu itself; it returns false if the
// listener stopped.
func (l *processorListener) resolveStale(batch []notification) ([]notification, bool) {
	ok := true
	l.source.whileQuiet(func(get func(key string) (any, bool)) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.stopped {
			ok = false
			return
		}
		for range keyedBatchSize {
			e := l.keyed.front()
			if e == nil || !e.stale {
				break
			}
			l.keyed.popFront()
			current, exists := get(e.key)
			var finished int
			batch, finished = e.resolve(batch, current, exists)
			l.finishInitial(finished)
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
