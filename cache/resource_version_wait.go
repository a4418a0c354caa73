package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// ErrStoppedBeforeResourceVersion is returned by WaitForResourceVersion when
// the informer stops, or has stopped, before its store reached the resource
// version.
var ErrStoppedBeforeResourceVersion = errors.New("informer stopped before its store reached the resource version")

// ResourceVersionWaiter is implemented by the informers of this package (see
// [SyncStatusReporter] for which). It is not part of client-go's API.
type ResourceVersionWaiter interface {
	// WaitForResourceVersion blocks until the informer's store reflects
	// resourceVersion: the informer received a list, an event or a
	// bookmark at resourceVersion or newer, and everything it received up
	// to that point has been applied to the store. After a write that
	// returned resourceVersion, a read of the store (GetByKey, List, an
	// index) then sees the write or a newer state: read-your-writes. It
	// says nothing about handlers, which may lag behind the store.
	//
	// It waits on channels, without polling, and starts no goroutine. It
	// returns nil at once when the store is fresh enough already, also
	// once the informer has stopped (a stopped informer's store keeps what
	// it had applied); ctx.Err() when ctx ends first;
	// [ErrStoppedBeforeResourceVersion] when the informer stops, or has
	// stopped, before its store reached resourceVersion (it may be called
	// before Run, and then waits for it); and an error for a
	// resourceVersion that is not a decimal number, the form
	// kube-apiserver uses (only such versions can be compared). A
	// resource version the informer receives that is not decimal
	// satisfies no wait. It is safe for concurrent use.
	WaitForResourceVersion(ctx context.Context, resourceVersion string) error
}

// resourceVersionTracker releases the waiters of WaitForResourceVersion. The
// reflector tells it every resource version it handed to the queue
// (resourceVersionReached), and it notes the queue position each version was
// reached at; the consumer tells it after every pop (popped). Once the queue
// has applied everything up to the position of a version, the store reflects
// that version, and every wait for it or an older one ends. The queue
// numbers the deltas it takes in, so this holds for the DeltaFIFO too, which
// processes changes out of resource-version order.
//
// It is safe for concurrent use. Lock order: its mutex, then the queue's (see
// sharedIndexInformer.startedLock).
type resourceVersionTracker struct {
	mu sync.Mutex
	// queue is the informer's queue; nil before Run. guarded by mu.
	queue progressQueue
	// reached is the newest resource version handed to the queue, "" if
	// none. guarded by mu.
	reached string
	// applied is the newest resource version the store reflects: the
	// queue has applied everything it was handed up to it. "" if none.
	// guarded by mu.
	applied string
	// unapplied are the versions reached after applied, oldest first,
	// with the queue positions they were reached at (some of them may have
	// been applied since: catchUpLocked drops those). guarded by mu.
	unapplied reachedVersions
	// catchUpAt is the number of unapplied versions at which the next pop
	// catches up (see tidy). guarded by mu.
	catchUpAt int
	// tidy is set when unapplied has grown to catchUpAt: the next pop
	// drops the applied versions, even with no wait pending.
	tidy atomic.Bool
	// waiters are the pending waits. guarded by mu.
	waiters []*resourceVersionWaiter
	// stopped is set when the informer stops. guarded by mu.
	stopped bool
	// pending mirrors len(waiters), for a lock-free check on every pop.
	pending atomic.Int32
}

// reachedVersion is a resource version the reflector reached, with the
// number of deltas queued by then: the store reflects it once the queue has
// applied position.
type reachedVersion struct {
	rv       string
	position uint64
}

// reachedVersions is a queue of reachedVersion, oldest first: items[head:].
// It reuses its backing array, so that following a busy queue allocates
// nothing once it has grown.
type reachedVersions struct {
	items []reachedVersion
	head  int
}

func (r *reachedVersions) len() int { return len(r.items) - r.head }

// push appends v; a v at the position of the newest version (nothing was
// queued in between: a bookmark) replaces it.
func (r *reachedVersions) push(v reachedVersion) {
	if last := len(r.items) - 1; last >= r.head && r.items[last].position == v.position {
		r.items[last] = v
		return
	}
	r.items = append(r.items, v)
}

// dropApplied removes the versions whose positions are at most applied and
// returns the newest of them; ok is false when there was none. The remaining
// versions move to the front of the array once as many were removed as
// remain, which keeps both removal and appending amortized O(1).
func (r *reachedVersions) dropApplied(applied uint64) (rv string, ok bool) {
	n := r.head
	for n < len(r.items) && r.items[n].position <= applied {
		n++
	}
	if n == r.head {
		return "", false
	}
	rv = r.items[n-1].rv
	clear(r.items[r.head:n])
	r.head = n
	switch remaining := len(r.items) - n; {
	case remaining == 0:
		r.items, r.head = r.items[:0], 0
	case n >= remaining:
		copy(r.items, r.items[n:])
		clear(r.items[remaining:])
		r.items, r.head = r.items[:remaining], 0
	}
	return rv, true
}

// resourceVersionWaiter is one pending WaitForResourceVersion.
type resourceVersionWaiter struct {
	target string
	// done is closed when the wait ends, with err set before.
	done chan struct{}
	err  error
}

// start records the progress of the informer's queue as it starts running;
// nil (a queue that does not tell, see queueProgress) ends no wait before
// the informer stops.
func (t *resourceVersionTracker) start(queue progressQueue) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.queue = queue
}

// queueProgress returns queue's progress when it is one of the queues of this
// package, which number the deltas they take in, else nil.
func queueProgress(queue Queue) progressQueue {
	switch queue := queue.(type) {
	case *DeltaFIFO:
		return queue
	case *RealFIFO:
		return queue
	}
	return nil
}

// wait implements [ResourceVersionWaiter.WaitForResourceVersion].
func (t *resourceVersionTracker) wait(ctx context.Context, target string) error {
	if _, err := resourceversion.CompareResourceVersion(target, target); err != nil {
		return fmt.Errorf("wait for resource version %q: %w", target, err)
	}
	t.mu.Lock()
	t.catchUpLocked()
	// Fresh enough comes first: a stopped informer's store keeps what it
	// had applied.
	if atLeast(t.applied, target) {
		t.mu.Unlock()
		return nil
	}
	if t.stopped {
		t.mu.Unlock()
		return ErrStoppedBeforeResourceVersion
	}
	w := &resourceVersionWaiter{target: target, done: make(chan struct{})}
	t.waiters = append(t.waiters, w)
	t.pending.Store(int32(len(t.waiters)))
	t.mu.Unlock()

	select {
	case <-w.done:
		return w.err
	case <-ctx.Done():
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := slices.Index(t.waiters, w); i >= 0 {
		t.removeLocked(i)
		return ctx.Err()
	}
	return w.err // released meanwhile
}

// atLeast reports whether resource version a is at least b; false when
// either is not a decimal number.
func atLeast(a, b string) bool {
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c >= 0
}

// resourceVersionReached records that the queue has been handed everything
// up to rv. A version that is not decimal, or not newer than one reached
// before, adds nothing.
//
// It runs for every event on the reflector's goroutine, so it reads the
// queue's count without the queue's lock, and looks at what the queue has
// applied (under the queue's lock, which a DeltaFIFO holds while it
// processes) only when a wait is pending. When the versions kept have
// doubled since they were last tidied, it leaves it to the next pop to drop
// the applied ones: the reflector never waits for the consumer for that.
func (t *resourceVersionTracker) resourceVersionReached(rv string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.queue == nil || !newer(rv, t.reached) {
		return
	}
	t.reached = rv
	t.unapplied.push(reachedVersion{rv: rv, position: t.queue.queuedSoFar()})
	switch {
	case len(t.waiters) > 0:
		t.catchUpLocked()
	case t.unapplied.len() >= t.catchUpAt:
		t.tidy.Store(true)
	}
}

// minCatchUpAt is the fewest versions the tracker keeps before a pop drops
// the applied ones.
const minCatchUpAt = 64

// newer reports whether resource version a is decimal and newer than b (or b
// is "").
func newer(a, b string) bool {
	if b == "" {
		_, err := resourceversion.CompareResourceVersion(a, a)
		return err == nil
	}
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c > 0
}

// popped releases the waiters whose versions the store now reflects. It is
// called after every Pop.
func (t *resourceVersionTracker) popped() {
	if t.pending.Load() == 0 && !t.tidy.Load() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.catchUpLocked()
	if t.tidy.Load() {
		t.tidy.Store(false)
		t.catchUpAt = max(minCatchUpAt, 2*t.unapplied.len())
	}
}

// catchUpLocked moves applied forward to the newest version whose queue
// position the queue has applied, and releases the waits that ends.
func (t *resourceVersionTracker) catchUpLocked() {
	if t.queue == nil || t.unapplied.len() == 0 {
		return
	}
	_, applied := t.queue.progress()
	if rv, ok := t.unapplied.dropApplied(applied); ok {
		t.applied = rv
		t.releaseAppliedLocked()
	}
}

// settledVersion returns the resource version the store reflects exactly,
// when the queue has applied every delta it took in: the newest version
// reached. ok is false while deltas wait, or when no decimal version was
// reached. With the reflector stopped (or paused between events, having
// recorded the version of the last), the store then holds exactly the state
// at that version.
func (t *resourceVersionTracker) settledVersion() (rv string, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.queue == nil {
		return "", false
	}
	if queued, applied := t.queue.progress(); queued != applied {
		return "", false
	}
	t.catchUpLocked()
	return t.applied, t.applied != "" && t.applied == t.reached
}

// releaseAppliedLocked ends the waits for versions up to applied.
func (t *resourceVersionTracker) releaseAppliedLocked() {
	for i := 0; i < len(t.waiters); {
		if atLeast(t.applied, t.waiters[i].target) {
			t.releaseLocked(i, nil)
			continue
		}
		i++
	}
}

// stop ends every wait: with nil for a version the store reflects as the
// queue left it, else with ErrStoppedBeforeResourceVersion. Later waits get
// the same answers.
func (t *resourceVersionTracker) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.catchUpLocked()
	t.stopped = true
	for len(t.waiters) > 0 {
		t.releaseLocked(len(t.waiters)-1, ErrStoppedBeforeResourceVersion)
	}
}

// releaseLocked ends the wait at index i with err.
func (t *resourceVersionTracker) releaseLocked(i int, err error) {
	w := t.waiters[i]
	t.removeLocked(i)
	w.err = err
	close(w.done)
}

// removeLocked forgets the waiter at index i.
func (t *resourceVersionTracker) removeLocked(i int) {
	last := len(t.waiters) - 1
	t.waiters[i] = t.waiters[last]
	t.waiters[last] = nil
	t.waiters = t.waiters[:last]
	t.pending.Store(int32(len(t.waiters)))
}
