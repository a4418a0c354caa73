package synctrack

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/util/sets"
)

// AsyncTracker tracks the sync of a consumer that handles keyed items
// concurrently, possibly out of order. Start marks a key of the initial list
// as pending and Finished marks it handled; the tracker is done when the
// upstream has synced and no key is pending. Starting a key twice before it
// finishes counts once.
//
// Create it with [NewAsyncTracker]; the zero value is not usable. All methods
// are safe for concurrent use.
type AsyncTracker[T comparable] struct {
	name              string
	upstreamHasSynced atomic.Bool
	done              doneSignal

	mu      sync.Mutex
	pending sets.Set[T] // guarded by mu
}

// NewAsyncTracker returns a tracker that describes itself as name.
func NewAsyncTracker[T comparable](name string) *AsyncTracker[T] {
	return &AsyncTracker[T]{name: name, done: newDoneSignal(), pending: sets.New[T]()}
}

// Start marks key as pending.
func (t *AsyncTracker[T]) Start(key T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending.Insert(key)
}

// Finished marks key as handled, and completes the tracker when nothing else
// is pending and the upstream has synced. Finishing a key that is not pending
// is harmless.
func (t *AsyncTracker[T]) Finished(key T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending.Delete(key)
	if t.upstreamHasSynced.Load() && t.pending.Len() == 0 {
		t.done.close()
	}
}

// UpstreamHasSynced records that the upstream informer has synced, and
// completes the tracker when nothing is pending.
func (t *AsyncTracker[T]) UpstreamHasSynced() {
	t.upstreamHasSynced.Store(true)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending.Len() == 0 {
		t.done.close()
	}
}

// HasSynced reports whether the tracker is done. Once true it stays true.
func (t *AsyncTracker[T]) HasSynced() bool {
	return t.done.isClosed()
}

// Done returns a channel that is closed when the tracker is done.
func (t *AsyncTracker[T]) Done() <-chan struct{} {
	return t.done.ch
}

// Name returns the name given to [NewAsyncTracker].
func (t *AsyncTracker[T]) Name() string {
	return t.name
}
