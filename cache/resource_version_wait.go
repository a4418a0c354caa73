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
// the informer stops before its store reached the resource version.
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
	// returns nil at once when the store is fresh enough already;
	// ctx.Err() when ctx ends first; [ErrStoppedBeforeResourceVersion]
	// when the informer stops first (it may be called before Run, and
	// then waits for it); and an error for a resourceVersion that is not
	// a decimal number, the form kube-apiserver uses (only such versions
	// can be compared). A resource version the informer receives that is
	// not decimal satisfies no wait. It is safe for concurrent use.
	WaitForResourceVersion(ctx context.Context, resourceVersion string) error
}

// WaitForResourceVersion calls informer's WaitForResourceVersion (see
// [ResourceVersionWaiter]); it returns an error if informer has none. It is
// not part of client-go's API.
func WaitForResourceVersion(ctx context.Context, informer SharedInformer, resourceVersion string) error {
	w, ok := informer.(ResourceVersionWaiter)
	if !ok || isNilObject(informer) {
		return fmt.Errorf("wait for resource version %q: %T cannot wait for a resource version", resourceVersion, informer)
	}
	return w.WaitForResourceVersion(ctx, resourceVersion)
}

// resourceVersionTracker releases the waiters of WaitForResourceVersion. The
// reflector tells it every resource version it handed to the queue
// (reached); the consumer tells it after every pop (popped). A waiter for
// version V whose target the reflector has reached waits for the queue
// position the queue had then: once the queue has applied everything up to
// it, the store reflects V. The queue numbers the deltas it takes in, so
// this holds for the DeltaFIFO too, which processes changes out of
// resource-version order.
//
// It is safe for concurrent use. Lock order: its mutex, then the queue's.
type resourceVersionTracker struct {
	mu sync.Mutex
	// queue is the informer's queue; nil before Run. guarded by mu.
	queue progressQueue
	// reached is the newest resource version handed to the queue, "" if
	// none. guarded by mu.
	reached string
	// waiters are the pending waits. guarded by mu.
	waiters []*resourceVersionWaiter
	// stopped is set when the informer stops. guarded by mu.
	stopped bool
	// pending mirrors len(waiters), for a lock-free check on every pop.
	pending atomic.Int32
}

// resourceVersionWaiter is one pending WaitForResourceVersion.
type resourceVersionWaiter struct {
	target string
	// position is the queue position to wait for, once positioned: the
	// reflector reached target.
	position   uint64
	positioned bool
	// done is closed when the wait ends, with err set before.
	done chan struct{}
	err  error
}

// start records the informer's queue as it starts running.
func (t *resourceVersionTracker) start(queue Queue) {
	q, ok := queue.(progressQueue)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.queue = q
}

// wait implements [ResourceVersionWaiter.WaitForResourceVersion].
func (t *resourceVersionTracker) wait(ctx context.Context, target string) error {
	if _, err := resourceversion.CompareResourceVersion(target, target); err != nil {
		return fmt.Errorf("wait for resource version %q: %w", target, err)
	}
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		return ErrStoppedBeforeResourceVersion
	}
	w := &resourceVersionWaiter{target: target}
	if t.queue != nil && atLeast(t.reached, target) {
		queued, applied := t.queue.progress()
		if applied >= queued {
			t.mu.Unlock()
			return nil
		}
		w.position, w.positioned = queued, true
	}
	w.done = make(chan struct{})
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
// up to rv.
func (t *resourceVersionTracker) resourceVersionReached(rv string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !atLeast(t.reached, rv) {
		t.reached = rv
	}
	if len(t.waiters) == 0 || t.queue == nil {
		return
	}
	queued, applied := t.queue.progress()
	for i := 0; i < len(t.waiters); {
		w := t.waiters[i]
		if !w.positioned && atLeast(rv, w.target) {
			w.position, w.positioned = queued, true
		}
		if w.positioned && applied >= w.position {
			t.releaseLocked(i, nil)
			continue
		}
		i++
	}
}

// popped releases the waiters whose queue position has been applied. It is
// called after every Pop.
func (t *resourceVersionTracker) popped() {
	if t.pending.Load() == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.queue == nil {
		return
	}
	_, applied := t.queue.progress()
	for i := 0; i < len(t.waiters); {
		if w := t.waiters[i]; w.positioned && applied >= w.position {
			t.releaseLocked(i, nil)
			continue
		}
		i++
	}
}

// stop ends every wait with ErrStoppedBeforeResourceVersion, and every later
// one.
func (t *resourceVersionTracker) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
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
