package synctrack

import (
	"errors"
	"sync/atomic"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// SingleFileTracker tracks the sync of a consumer that handles the items of an
// informer one at a time, in order. Every item of the initial list is counted
// with Start when it is queued for the consumer and with Finished once the
// consumer has handled it; the tracker is done when the upstream has synced
// and the count is back to zero.
//
// Create it with [NewSingleFileTracker]; the zero value is not usable. All
// methods are safe for concurrent use.
type SingleFileTracker struct {
	name              string
	pending           atomic.Int64 // items started and not yet finished
	upstreamHasSynced atomic.Bool
	done              doneSignal
}

// NewSingleFileTracker returns a tracker that describes itself as name.
func NewSingleFileTracker(name string) *SingleFileTracker {
	return &SingleFileTracker{name: name, done: newDoneSignal()}
}

// Start counts one more pending item.
func (t *SingleFileTracker) Start() {
	t.pending.Add(1)
}

// Finished counts one pending item as handled, and completes the tracker when
// it was the last one and the upstream has synced. A Finished without a
// matching Start is a caller bug: it is reported through
// [utilruntime.HandleError] and ignored (client-go panics instead).
func (t *SingleFileTracker) Finished() {
	n := t.pending.Add(-1)
	if n < 0 {
		t.pending.Add(1)
		utilruntime.HandleError(errors.New("synctrack: Finished called more often than Start; ignoring the extra call"))
		return
	}
	if n == 0 && t.upstreamHasSynced.Load() {
		t.done.close()
	}
}

// UpstreamHasSynced records that the upstream informer has synced, and
// completes the tracker when nothing is pending.
func (t *SingleFileTracker) UpstreamHasSynced() {
	t.upstreamHasSynced.Store(true)
	if t.pending.Load() == 0 {
		t.done.close()
	}
}

// HasSynced reports whether the tracker is done. Once true it stays true.
func (t *SingleFileTracker) HasSynced() bool {
	return t.done.isClosed()
}

// Done returns a channel that is closed when the tracker is done.
func (t *SingleFileTracker) Done() <-chan struct{} {
	return t.done.ch
}

// Name returns the name given to [NewSingleFileTracker].
func (t *SingleFileTracker) Name() string {
	return t.name
}
