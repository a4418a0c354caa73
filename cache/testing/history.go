package framework

import (
	"maps"
	"sort"

	"k8s.io/apimachinery/pkg/watch"
)

// change is one write as recorded in the history: the state of one key
// before and after it.
type change struct {
	typ watch.EventType // Added, Modified or Deleted
	rv  uint64
	key string
	// obj is the state after the write; for Deleted, the last state stamped
	// with the deletion's resourceVersion.
	obj *stored
	// prev is the state before the write; nil for Added.
	prev *stored
}

// history is the bounded, ordered log of changes that serves watches from a
// resourceVersion and exact reads of an older state. It is not safe for
// concurrent use; the server guards it with its mutex.
type history struct {
	limit int
	// changes holds every change with rv > compacted, oldest first.
	changes []change
	// compacted is the oldest resourceVersion whose successors are all
	// retained: reads and watches from an older one fail with 410 Gone.
	compacted uint64
}

// add appends c, dropping the oldest changes beyond the limit.
func (h *history) add(c change) {
	h.changes = append(h.changes, c)
	if over := len(h.changes) - h.limit; over > 0 {
		h.compacted = h.changes[over-1].rv
		clear(h.changes[:over])
		h.changes = h.changes[over:]
	}
}

// compact forgets every change up to and including rv.
func (h *history) compact(rv uint64) {
	if rv <= h.compacted {
		return
	}
	n := sort.Search(len(h.changes), func(i int) bool { return h.changes[i].rv > rv })
	clear(h.changes[:n])
	h.changes = h.changes[n:]
	h.compacted = rv
}

// since returns the changes after rv, oldest first, or false if some of them
// were compacted away. The result aliases the history: do not modify it.
func (h *history) since(rv uint64) ([]change, bool) {
	if rv < h.compacted {
		return nil, false
	}
	n := sort.Search(len(h.changes), func(i int) bool { return h.changes[i].rv > rv })
	return h.changes[n:], true
}

// stateAt rebuilds the state at rv from current (the state at the newest
// change) by undoing every later change, or returns false if rv is
// compacted. current is not modified; the result may alias it when nothing
// needs undoing.
func (h *history) stateAt(current map[string]*stored, rv uint64) (map[string]*stored, bool) {
	later, ok := h.since(rv)
	if !ok {
		return nil, false
	}
	if len(later) == 0 {
		return current, true
	}
	state := maps.Clone(current)
	for i := len(later) - 1; i >= 0; i-- {
		c := later[i]
		if c.prev == nil {
			delete(state, c.key)
		} else {
			state[c.key] = c.prev
		}
	}
	return state, true
}

// cachedStateLocked returns the state, and its resourceVersion, that a read
// the apiserver may serve from its watch cache sees:
// [Options.WatchCacheLag] changes behind the newest, but not older than
// notOlderThan (at most the current resourceVersion), than the state of an
// earlier such read, or than the retained history.
func (s *Server[T]) cachedStateLocked(notOlderThan uint64) (uint64, map[string]*stored) {
	rv := s.rv
	if lag := s.cfg.cacheLag; lag > 0 {
		rv = s.hist.compacted
		if n := len(s.hist.changes); n > lag {
			rv = s.hist.changes[n-1-lag].rv
		}
	}
	rv = min(max(rv, notOlderThan, s.cacheRV, s.hist.compacted), s.rv)
	state, ok := s.hist.stateAt(s.items, rv)
	if !ok {
		// Unreachable: rv is not older than the retained history.
		return s.rv, s.items
	}
	s.cacheRV = rv
	return rv, state
}
