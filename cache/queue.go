package cache

import (
	"errors"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// PopProcessFunc processes what [Queue.Pop] removed from the queue: for a
// [DeltaFIFO] or a [RealFIFO] a [Deltas], for a [FIFO] the object itself.
// isInInitialList is true while the queue is still delivering the items of
// its first Replace (see [Queue.HasSynced]). The function owns obj.
type PopProcessFunc func(obj any, isInInitialList bool) error

// ProcessBatchFunc processes several deltas that [QueueWithBatch.PopBatch]
// removed from the queue at once. The deltas are in queue order and their
// objects have distinct keys. isInInitialList has the meaning it has for
// [PopProcessFunc]. The function owns the slice.
type ProcessBatchFunc func(deltas []Delta, isInInitialList bool) error

// keyedProcessFunc is a [PopProcessFunc] that is also handed the key the
// queue ([DeltaFIFO], [RealFIFO]) computed for the popped deltas when it
// queued them ("" for a delta
// that concerns no single object: ReplacedAll, SyncAll, Bookmark), so that
// the consumer need not compute it again.
type keyedProcessFunc func(key string, deltas Deltas, isInInitialList bool) error

// keyedBatchFunc is a [ProcessBatchFunc] that is also handed the keys the
// queue computed: keys[i] is the key of deltas[i].
type keyedBatchFunc func(keys []string, deltas []Delta, isInInitialList bool) error

// ErrFIFOClosed is returned by Pop and PopBatch once the queue is closed and
// empty. Its text is the one client-go uses for every queue type.
var ErrFIFOClosed = errors.New("DeltaFIFO: manipulating with closed queue")

// errNilProcessFunc is returned by Pop and PopBatch when they are given no
// function to call; nothing is popped.
var errNilProcessFunc = errors.New("pop: the process function is nil")

// Queue is the consumer side of an informer queue: a [ReflectorStore] that
// producers write into and that a single consumer drains with Pop. Every
// implementation in this package is safe for concurrent use and keeps its
// state unchanged when a write fails.
type Queue interface {
	ReflectorStore

	// Pop blocks until the queue holds something to process or is closed.
	// It removes the next item, calls process with it and returns the item
	// together with process's error. An item is never requeued: a caller
	// that wants to retry must add it again. After Close, Pop keeps
	// returning queued items and returns [ErrFIFOClosed] once the queue is
	// empty. Pop is meant for one consumer goroutine; concurrent Pops may run
	// their process functions concurrently.
	Pop(PopProcessFunc) (any, error)

	// HasSynced reports whether the first batch has been processed. The
	// first batch is the content of the first Replace, if no Add, Update or
	// Delete came before it; otherwise it is empty and the queue is synced
	// as soon as it has been written to.
	HasSynced() bool

	// HasSyncedChecker returns a [DoneChecker] that is done when HasSynced
	// becomes true.
	HasSyncedChecker() DoneChecker

	// Close wakes every blocked Pop. Writes are still accepted.
	Close()
}

// QueueWithBatch is a [Queue] that can hand several items to its consumer at
// once.
type QueueWithBatch interface {
	Queue

	// PopBatch is Pop for several items: it blocks like Pop, removes as many
	// items as the implementation can batch and calls processBatch with them,
	// or processSingle when only one item could be taken. Both functions must
	// process items the same way. It returns the function's error, or
	// [ErrFIFOClosed] once the queue is closed and empty.
	PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error
}

// KeyLister is anything that can list its keys.
type KeyLister interface {
	// ListKeys returns every key.
	ListKeys() []string
}

// KeyGetter is anything that can look an object up by key.
type KeyGetter interface {
	// GetByKey returns the value associated with the key, or sets
	// exists=false.
	GetByKey(key string) (value any, exists bool, err error)
}

// KeyListerGetter lists keys and looks objects up by key. Queues consult one,
// their "known objects" (normally the informer's indexer), to find out what
// their consumer already knows.
type KeyListerGetter interface {
	KeyLister
	KeyGetter
}

// queueState is what every queue of this package keeps besides its items:
// its lock, the condition Pop waits on, its name, its first batch and
// whether it is closed. The queues embed it; its exported methods are
// theirs. Call init before use.
type queueState struct {
	name string // for logs and DoneChecker; set at construction

	// mu guards the queue. In an informer it comes after the resource
	// version tracker's lock and before everything processing takes; the
	// whole order is at sharedIndexInformer.startedLock.
	mu   sync.Mutex
	cond sync.Cond // L is &mu; signalled when something is queued or the queue closes

	sync   initialSync // guarded by mu
	closed bool        // guarded by mu

	// beforeWait, when not nil, is called, without the lock, each time Pop
	// finds the queue empty, before it waits or returns [ErrFIFOClosed].
	// Set before use; see pipelineConfig.drained.
	beforeWait func()
}

// init readies q, named name.
func (q *queueState) init(name string) {
	q.name = name
	q.cond.L = &q.mu
	q.sync = newInitialSync()
}

// waitLocked blocks until queued reports something queued, or returns
// [ErrFIFOClosed] once the queue is closed and empty. It is called, and
// returns, with the lock held; it releases the lock while it waits, and while
// it calls beforeWait.
func (q *queueState) waitLocked(queued func() int) error {
	if q.beforeWait != nil && queued() == 0 {
		q.mu.Unlock()
		q.beforeWait()
		q.mu.Lock()
	}
	for queued() == 0 {
		if q.closed {
			return ErrFIFOClosed
		}
		q.cond.Wait()
	}
	return nil
}

// Close wakes every blocked Pop (and PopBatch); they return [ErrFIFOClosed]
// once the queue is empty. Writes are still accepted. Closing twice is
// harmless.
func (q *queueState) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (q *queueState) IsClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// HasSynced reports whether the first batch has been processed: true once an
// Add, Update or Delete came first, or once everything the first Replace
// queued has been popped and its process function has returned (see
// [Queue.HasSynced]).
func (q *queueState) HasSynced() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.sync.synced()
}

// Name returns the queue's name. It implements [DoneChecker].
func (q *queueState) Name() string {
	return q.name
}

// Done returns a channel that is closed when HasSynced becomes true. It
// implements [DoneChecker].
func (q *queueState) Done() <-chan struct{} {
	return q.sync.done
}

// maxReusedQueueCap is the largest backing array a drained queue keeps for
// reuse (see dropFront).
const maxReusedQueueCap = 1024

// dropFront removes the first n elements of the queue s, zeroing them so that
// what they reference can be collected. A queue left empty starts over at
// the beginning of its backing array when that array is small: otherwise a
// consumer that keeps up would have every append reallocate. A large array
// (left by a big relist) is let go at once: the empty slice left in it would
// keep all of it until appends outgrew it.
func dropFront[T any](s []T, n int) []T {
	clear(s[:n])
	switch {
	case n < len(s):
		return s[n:]
	case cap(s) <= maxReusedQueueCap:
		return s[:0]
	default:
		return nil
	}
}

// initialSync tracks the first batch of a queue. It is not safe for
// concurrent use: the owning queue's lock guards it.
type initialSync struct {
	// populated is set by the first Add, Update, Delete or Replace.
	populated bool
	// remaining counts the items of the first Replace not yet processed.
	// They are always the ones at the head of the queue.
	remaining int
	// done is closed once populated && remaining == 0, by check.
	done       chan struct{}
	doneClosed bool
}

func newInitialSync() initialSync {
	return initialSync{done: make(chan struct{})}
}

// written records an Add, Update or Delete.
func (s *initialSync) written() {
	s.populated = true
	s.check()
}

// replaced records a Replace that left n items queued. Only the first write
// defines the first batch.
func (s *initialSync) replaced(n int) {
	if s.populated {
		return
	}
	s.populated = true
	s.remaining = n
	s.check()
}

// taking reports how many of the n items about to be popped from the head of
// the queue belong to the first batch. The caller passes the result to
// processed once it has processed them.
func (s *initialSync) taking(n int) int {
	return min(n, s.remaining)
}

// processed records that n items of the first batch have been processed.
func (s *initialSync) processed(n int) {
	if n <= 0 {
		return
	}
	s.remaining = max(s.remaining-n, 0)
	s.check()
}

// synced reports whether the first batch has been processed.
func (s *initialSync) synced() bool {
	return s.doneClosed
}

func (s *initialSync) check() {
	if s.populated && s.remaining == 0 && !s.doneClosed {
		s.doneClosed = true
		close(s.done)
	}
}

// progressQueue is implemented by the queues an informer builds ([DeltaFIFO]
// and [RealFIFO]): it tells how far the consumer got, so that an informer can
// tell when everything it queued up to some point is in its store (see
// [SharedIndexInformer] WaitForResourceVersion).
type progressQueue interface {
	// progress returns the number of deltas queued so far and the number
	// applied: every delta numbered up to applied (counting from one, in
	// the order they were queued) has been popped and its process function
	// has returned. applied never exceeds queued.
	progress() (queued, applied uint64)
	// queuedSoFar returns progress's queued without taking the queue's
	// lock (which a DeltaFIFO holds while it processes): at least the
	// count when the caller's last write returned.
	queuedSoFar() uint64
}

// Slow processing is logged when more than slowPopDepth items wait behind the
// one being processed and processing took longer than slowPopThreshold per
// item (at most slowBatchThreshold for a batch).
const (
	slowPopDepth       = 10
	slowPopThreshold   = 100 * time.Millisecond
	slowBatchThreshold = time.Second
)

// logSlowProcessing logs a processing step that blocked a deep queue.
func logSlowProcessing(logger klog.Logger, took time.Duration, items, depth int, key string, extra ...any) {
	limit := min(slowPopThreshold*time.Duration(max(items, 1)), slowBatchThreshold)
	if depth <= slowPopDepth || took <= limit {
		return
	}
	kv := append([]any{"key", key, "depth", depth, "items", items, "duration", took,
		"reason", "slow event handlers blocking the queue"}, extra...)
	logger.Info("Processing popped queue items took long", kv...)
}
