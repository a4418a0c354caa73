package cache

import (
	"errors"
	"fmt"
	"sync"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// defaultBatchSize is the most deltas PopBatch hands over at once. With
// UnlockWhileProcessing, the lock is only released while fewer than twice as
// many deltas are queued, so that a slow consumer throttles producers.
const defaultBatchSize = 1000

// RealFIFOOptions configures [NewRealFIFOWithOptions].
//
// Two modes exist. With AtomicEvents, Replace and Resync each queue one delta
// ([ReplacedAll], [SyncAll]) that the consumer reconciles against its own
// store; KnownObjects is not used, and UnlockWhileProcessing and
// EmitDeltaTypeBookmark are available. Without AtomicEvents, Replace and
// Resync queue one delta per object and need KnownObjects to find deletions
// and objects to resync.
//
// client-go panics on inconsistent combinations. Here they are logged as
// errors and resolved as follows:
//   - KnownObjects with AtomicEvents: KnownObjects is ignored.
//   - UnlockWhileProcessing or EmitDeltaTypeBookmark without AtomicEvents:
//     the option is ignored (the lock is held while processing; Bookmark
//     queues nothing).
//   - no KnownObjects without AtomicEvents: the FIFO behaves as if the
//     consumer knew no objects. Replace then only detects deletions of keys
//     still queued, and Resync queues nothing.
type RealFIFOOptions struct {
	// Logger receives the FIFO's log output, under the FIFO's name. Default:
	// klog.Background().
	Logger *klog.Logger

	// Name names the FIFO in logs and in [DoneChecker] messages when
	// Identifier has no name. Default: "RealFIFO".
	Name string

	// KeyFunction computes object keys. Tombstones, [Delta] and [Deltas] are
	// unwrapped before it is called. Default: [MetaNamespaceKeyFunc].
	KeyFunction KeyFunc

	// KnownObjects lists what the consumer already knows, normally the store
	// the consumer writes popped deltas into. Required without AtomicEvents,
	// ignored with it.
	KnownObjects KeyListerGetter

	// Transformer, if set, rewrites every object before it is queued, except
	// tombstones and the known objects that Resync queues. See
	// [TransformFunc].
	Transformer TransformFunc

	// AtomicEvents makes Replace queue a single [ReplacedAll] delta and
	// Resync a single [SyncAll] delta.
	AtomicEvents bool

	// UnlockWhileProcessing releases the FIFO's lock while the process
	// function runs, as long as fewer than 2000 deltas are queued, so
	// producers are not blocked by a slow consumer. Only with AtomicEvents.
	UnlockWhileProcessing bool

	// Identifier names the FIFO for logs and metrics. Metrics are published
	// only for a reserved identifier ([InformerNameAndResource.Reserved]).
	// Its name, if any, takes precedence over Name.
	Identifier InformerNameAndResource

	// MetricsProvider creates the FIFO's metrics. Default: the provider set
	// with [SetInformerMetricsProvider], if any.
	MetricsProvider InformerMetricsProvider

	// EmitDeltaTypeBookmark makes Bookmark queue [Bookmark] deltas. Only with
	// AtomicEvents.
	EmitDeltaTypeBookmark bool
}

// RealFIFO is a [QueueWithBatch] that hands its consumer every change, one
// [Delta] at a time, in the order the changes were made. Unlike [DeltaFIFO]
// it neither merges changes per key nor drops deletions of objects it never
// saw. See [RealFIFOOptions] for its two modes.
//
// Pop and PopBatch call the process function while holding the FIFO's lock,
// unless UnlockWhileProcessing is set; then only one goroutine may consume.
//
// A RealFIFO is safe for concurrent use. A write that fails (a key error, a
// failing transformer) leaves it unchanged. Create one with
// [NewRealFIFOWithOptions]; the zero value is not usable.
type RealFIFO struct {
	logger     klog.Logger
	name       string
	identifier InformerNameAndResource
	metrics    *fifoMetrics
	clock      clock.PassiveClock

	mu   sync.Mutex
	cond sync.Cond // L is &mu; signalled when items grows or the FIFO closes

	// items holds the queued deltas, oldest first. guarded by mu.
	items []queuedDelta
	// appended counts the deltas queued so far, and applied those popped
	// whose process function has returned; deltas are processed in queue
	// order. guarded by mu.
	appended, applied uint64
	// batchKeys is PopBatch's scratch set of the keys in the batch, empty
	// between calls. guarded by mu.
	batchKeys map[string]struct{}

	sync   initialSync // guarded by mu
	closed bool        // guarded by mu

	keyFunc               KeyFunc
	knownObjects          KeyListerGetter // nil in atomic mode; never nil otherwise
	transformer           TransformFunc   // may be nil
	batchSize             int
	atomicEvents          bool
	unlockWhileProcessing bool // only with atomicEvents
	emitDeltaTypeBookmark bool // only with atomicEvents
}

var (
	_ QueueWithBatch         = (*RealFIFO)(nil)
	_ TransformingStore      = (*RealFIFO)(nil)
	_ ReflectorBookmarkStore = (*RealFIFO)(nil)
	_ DoneChecker            = (*RealFIFO)(nil)
	_ progressQueue          = (*RealFIFO)(nil)
)

// NewRealFIFO returns a RealFIFO without atomic events, keyed by keyFunc,
// consulting knownObjects and transforming with transformer (may be nil).
//
// Deprecated: Use NewRealFIFOWithOptions instead.
func NewRealFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter, transformer TransformFunc) *RealFIFO {
	return NewRealFIFOWithOptions(RealFIFOOptions{
		KeyFunction:  keyFunc,
		KnownObjects: knownObjects,
		Transformer:  transformer,
	})
}

// NewRealFIFOWithOptions returns an empty RealFIFO configured by opts.
// Inconsistent options are logged and resolved as [RealFIFOOptions]
// describes; it never panics.
func NewRealFIFOWithOptions(opts RealFIFOOptions) *RealFIFO {
	return newRealFIFO(opts, clock.RealClock{})
}

// newRealFIFO is NewRealFIFOWithOptions with the clock that times processing.
func newRealFIFO(opts RealFIFOOptions, clk clock.PassiveClock) *RealFIFO {
	f := &RealFIFO{
		logger:                klog.Background(),
		name:                  "RealFIFO",
		identifier:            opts.Identifier,
		metrics:               newFIFOMetrics(opts.Identifier, opts.MetricsProvider),
		clock:                 clk,
		sync:                  newInitialSync(),
		keyFunc:               opts.KeyFunction,
		knownObjects:          opts.KnownObjects,
		transformer:           opts.Transformer,
		batchSize:             defaultBatchSize,
		batchKeys:             map[string]struct{}{},
		atomicEvents:          opts.AtomicEvents,
		unlockWhileProcessing: opts.UnlockWhileProcessing,
		emitDeltaTypeBookmark: opts.EmitDeltaTypeBookmark,
	}
	if f.keyFunc == nil {
		f.keyFunc = MetaNamespaceKeyFunc
	}
	if opts.Logger != nil {
		f.logger = *opts.Logger
	}
	if opts.Name != "" {
		f.name = opts.Name
	}
	if name := opts.Identifier.Name(); name != "" {
		f.name = name
	}
	f.logger = klog.LoggerWithName(f.logger, f.name)
	f.cond.L = &f.mu

	if f.atomicEvents {
		if f.knownObjects != nil {
			f.logger.Error(nil, "Inconsistent RealFIFOOptions: KnownObjects is not used with AtomicEvents, ignoring it")
			f.knownObjects = nil
		}
		return f
	}
	if f.unlockWhileProcessing {
		f.logger.Error(nil, "Inconsistent RealFIFOOptions: UnlockWhileProcessing requires AtomicEvents, keeping the lock while processing")
		f.unlockWhileProcessing = false
	}
	if f.emitDeltaTypeBookmark {
		f.logger.Error(nil, "Inconsistent RealFIFOOptions: EmitDeltaTypeBookmark requires AtomicEvents, not queueing bookmarks")
		f.emitDeltaTypeBookmark = false
	}
	if f.knownObjects == nil {
		f.logger.Error(nil, "Inconsistent RealFIFOOptions: KnownObjects is required without AtomicEvents, assuming the consumer knows no objects")
		f.knownObjects = noKnownObjects{}
	}
	return f
}

// queuedDelta is a queued delta with the key of its object, computed once
// when it was queued. The deltas of a whole Replace or resync and bookmarks
// have no key ("").
type queuedDelta struct {
	key string
	Delta
}

// noKnownObjects is the empty KeyListerGetter a RealFIFO without atomic
// events falls back to when it was given none.
type noKnownObjects struct{}

func (noKnownObjects) ListKeys() []string                 { return nil }
func (noKnownObjects) GetByKey(string) (any, bool, error) { return nil, false, nil }

// keyOf computes the key of obj, unwrapping [Deltas] (newest), [Delta] and
// [DeletedFinalStateUnknown] first.
func (f *RealFIFO) keyOf(obj any) (string, error) {
	if d, ok := obj.(Deltas); ok {
		if len(d) == 0 {
			return "", KeyError{obj, ErrZeroLengthDeltasObject}
		}
		obj = d.Newest().Object
	}
	if d, ok := obj.(Delta); ok {
		obj = d.Object
	}
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	return f.keyFunc(obj)
}

// transform applies the transformer to obj unless there is none or obj is a
// tombstone.
func (f *RealFIFO) transform(obj any) (any, error) {
	if f.transformer == nil {
		return obj, nil
	}
	if _, tombstone := obj.(DeletedFinalStateUnknown); tombstone {
		return obj, nil
	}
	transformed, err := f.transformer(obj)
	if err != nil {
		return nil, fmt.Errorf("transform object: %w", err)
	}
	return transformed, nil
}

// Transformer returns the transform function, or nil. It implements
// [TransformingStore].
func (f *RealFIFO) Transformer() TransformFunc {
	return f.transformer
}

// Add queues an [Added] delta for obj. Errors from the key function (as a
// [KeyError]) and the transformer are returned and leave the FIFO unchanged.
func (f *RealFIFO) Add(obj any) error {
	return f.write(Added, obj)
}

// Update queues an [Updated] delta for obj. Errors are handled as by Add.
func (f *RealFIFO) Update(obj any) error {
	return f.write(Updated, obj)
}

// Delete queues a [Deleted] delta for obj, whether or not the FIFO or the
// known objects ever saw it. Errors are handled as by Add.
func (f *RealFIFO) Delete(obj any) error {
	return f.write(Deleted, obj)
}

func (f *RealFIFO) write(t DeltaType, obj any) error {
	key, err := f.keyOf(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	obj, err = f.transform(obj)
	if err != nil {
		return err
	}
	f.sync.written()
	f.appendLocked(queuedDelta{key, Delta{Type: t, Object: obj}})
	return nil
}

func (f *RealFIFO) appendLocked(deltas ...queuedDelta) {
	if len(deltas) == 0 {
		return
	}
	f.items = append(f.items, deltas...)
	f.appended += uint64(len(deltas))
	f.metrics.queuedItems.Set(float64(len(f.items)))
	f.cond.Broadcast()
}

// Bookmark queues a [Bookmark] delta carrying resourceVersion if the FIFO
// emits bookmarks, and does nothing otherwise. It does not count as a write
// for HasSynced. It implements [ReflectorBookmarkStore].
func (f *RealFIFO) Bookmark(resourceVersion string) error {
	if !f.emitDeltaTypeBookmark {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appendLocked(queuedDelta{Delta: Delta{Type: Bookmark, Object: BookmarkInfo{ResourceVersion: resourceVersion}}})
	return nil
}

// Replace records a complete list of the objects at resourceVersion.
//
// With atomic events it queues one [ReplacedAll] delta whose
// [ReplacedAllInfo] holds the transformed objects and resourceVersion.
//
// Without, it first queues a [Deleted] delta with a [DeletedFinalStateUnknown]
// for every key that is not listed and either is queued with a last delta
// that is not a deletion (the tombstone holds that delta's object) or is
// known and not queued at all (the tombstone holds the known object, nil if
// the lookup fails); then a [Replaced] delta for every listed object, in list
// order. resourceVersion is not used.
//
// The first Replace before any other write defines the first batch: every
// delta queued at its end. A key or transformer error on a listed object is
// returned and leaves the FIFO unchanged. (In atomic mode client-go does not
// check keys here; the consumer's store then rejects the whole list.)
func (f *RealFIFO) Replace(list []any, resourceVersion string) error {
	f.mu.Lock()
	defer f.mu.Unlock()

	objs := make([]any, len(list))
	keys := make([]string, len(list))
	for i, obj := range list {
		key, err := f.keyOf(obj)
		if err != nil {
			return KeyError{obj, err}
		}
		if objs[i], err = f.transform(obj); err != nil {
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
		keys[i] = key
	}

	if f.atomicEvents {
		f.appendLocked(queuedDelta{Delta: Delta{Type: ReplacedAll, Object: ReplacedAllInfo{ResourceVersion: resourceVersion, Objects: objs}}})
	} else {
		f.appendLocked(f.reconcileReplacementLocked(keys, objs)...)
	}
	f.sync.replaced(len(f.items))
	return nil
}

// reconcileReplacementLocked returns the deltas a non-atomic Replace of the
// listed objects (with keys) queues. It changes nothing.
func (f *RealFIFO) reconcileReplacementLocked(keys []string, objs []any) []queuedDelta {
	listed := make(map[string]struct{}, len(keys))
	for _, key := range keys {
		listed[key] = struct{}{}
	}

	// The last queued delta of every queued key, keys in first-queued order.
	var queuedKeys []string
	last := map[string]Delta{}
	for _, d := range f.items {
		if _, seen := last[d.key]; !seen {
			queuedKeys = append(queuedKeys, d.key)
		}
		last[d.key] = d.Delta
	}

	deltas := make([]queuedDelta, 0, len(objs))
	tombstone := func(key string, obj any) {
		deltas = append(deltas, queuedDelta{key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: obj}}})
	}
	for _, key := range queuedKeys {
		if _, ok := listed[key]; ok {
			continue
		}
		if d := last[key]; d.Type != Deleted { // else its deletion is queued already
			tombstone(key, d.Object)
		}
	}
	for _, key := range f.knownObjects.ListKeys() {
		if _, ok := listed[key]; ok {
			continue
		}
		if _, queued := last[key]; queued {
			continue
		}
		obj, known, err := f.knownObjects.GetByKey(key)
		switch {
		case err != nil:
			obj = nil
			f.logger.Error(err, "Error during lookup, placing DeletedFinalStateUnknown marker without object", "key", key)
		case !known:
			obj = nil
			f.logger.Error(nil, "Key does not exist in known objects store, placing DeletedFinalStateUnknown marker without object", "key", key)
		}
		tombstone(key, obj)
	}
	for i, obj := range objs {
		deltas = append(deltas, queuedDelta{keys[i], Delta{Type: Replaced, Object: obj}})
	}
	return deltas
}

// Resync asks the consumer to reprocess what it knows.
//
// With atomic events it queues one [SyncAll] delta, whatever is queued.
// Without, it queues a [Sync] delta with the known object for every known key
// that has no delta queued (queued deltas are newer than the known object).
// Lookups that fail or miss are logged and skipped; key errors are returned
// (joined) after every other key has been resynced.
func (f *RealFIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()

	if f.atomicEvents {
		f.appendLocked(queuedDelta{Delta: Delta{Type: SyncAll, Object: SyncAllInfo{}}})
		return nil
	}

	queued := make(map[string]struct{}, len(f.items))
	for _, d := range f.items {
		queued[d.key] = struct{}{}
	}
	var errs []error
	for _, key := range f.knownObjects.ListKeys() {
		if _, ok := queued[key]; ok {
			continue
		}
		obj, exists, err := f.knownObjects.GetByKey(key)
		switch {
		case err != nil:
			f.logger.Error(err, "Unable to queue object for sync", "key", key)
			continue
		case !exists:
			f.logger.Error(nil, "Key does not exist in known objects store, unable to queue object for sync", "key", key)
			continue
		}
		objKey, err := f.keyOf(obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("couldn't queue object: %w", KeyError{obj, err}))
			continue
		}
		f.appendLocked(queuedDelta{objKey, Delta{Type: Sync, Object: obj}})
	}
	return errors.Join(errs...)
}

// Pop blocks until a delta is queued or the FIFO is closed, removes the
// oldest delta and calls process with it, wrapped in a one-element [Deltas].
// process runs with the FIFO's lock held unless UnlockWhileProcessing is set
// and fewer than 2000 deltas are queued. Pop returns the Deltas and process's
// error; the delta is not requeued. On a closed FIFO Pop drains what is
// queued, then returns [ErrFIFOClosed]. A nil process is an error and pops
// nothing.
//
// A delta of the first batch counts as processed only after process returns.
func (f *RealFIFO) Pop(process PopProcessFunc) (any, error) {
	if process == nil {
		return nil, errNilProcessFunc
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.waitLocked(); err != nil {
		return nil, err
	}
	isInInitialList := !f.sync.synced()
	head := f.items[0]
	var item any = Deltas{head.Delta} // boxed once
	f.items = dropFront(f.items, 1)
	defer f.sync.processed(f.sync.taking(1)) // argument evaluated now, decrement after process
	defer f.markApplied(1)
	f.metrics.queuedItems.Set(float64(len(f.items)))

	err := f.processLocked(1, head.key, func() error {
		return process(item, isInInitialList)
	})
	return item, err
}

// batchable reports whether PopBatch may put a delta of type t in a batch.
func batchable(t DeltaType) bool {
	switch t {
	case Added, Updated, Deleted, Replaced, Sync:
		return true
	}
	return false
}

// PopBatch blocks like Pop, then removes a batch of deltas from the head of
// the queue: at most 1000, with distinct keys, of the per-object types
// (Added, Updated, Deleted, Replaced, Sync), and never mixing deltas of the
// first batch with later ones. A delta of another type is popped alone. A
// batch of one goes to processSingle (as a one-element [Deltas]), a larger
// one to processBatch. Locking is as for Pop. PopBatch returns the function's
// error, or [ErrFIFOClosed] once the FIFO is closed and empty.
//
// A nil processBatch makes every batch a single delta; a nil processSingle
// hands single deltas to processBatch. If both are nil, PopBatch returns an
// error and pops nothing.
func (f *RealFIFO) PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error {
	if processBatch == nil && processSingle == nil {
		return errNilProcessFunc
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.waitLocked(); err != nil {
		return err
	}
	isInInitialList := !f.sync.synced()

	limit := min(len(f.items), f.batchSize)
	if processBatch == nil {
		limit = 1
	}
	if f.sync.remaining > 0 {
		limit = min(limit, f.sync.remaining) // do not cross the end of the first batch
	}
	n := 0
	for ; n < limit; n++ {
		d := f.items[n]
		if !batchable(d.Type) {
			if n == 0 {
				n = 1 // popped alone
			}
			break
		}
		if _, dup := f.batchKeys[d.key]; dup {
			break
		}
		f.batchKeys[d.key] = struct{}{}
	}
	clear(f.batchKeys)
	first := f.items[0].key
	deltas := make(Deltas, n)
	for i := range n {
		deltas[i] = f.items[i].Delta
	}
	f.items = dropFront(f.items, n)
	defer f.sync.processed(f.sync.taking(n)) // argument evaluated now, decrement after process
	defer f.markApplied(n)
	f.metrics.queuedItems.Set(float64(len(f.items)))

	if n == 1 && processSingle != nil {
		var single any = deltas // boxed once
		return f.processLocked(1, first, func() error {
			return processSingle(single, isInInitialList)
		})
	}
	return f.processLocked(n, first, func() error {
		return processBatch(deltas, isInInitialList)
	})
}

// markApplied records that the n deltas popped last have been processed. It
// is called with the lock held, after processLocked took it back.
func (f *RealFIFO) markApplied(n int) {
	f.applied += uint64(n)
}

// progress implements progressQueue.
func (f *RealFIFO) progress() (queued, applied uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.appended, f.applied
}

// waitLocked blocks until a delta is queued, or returns ErrFIFOClosed once the
// FIFO is closed and empty.
func (f *RealFIFO) waitLocked() error {
	for len(f.items) == 0 {
		if f.closed {
			return ErrFIFOClosed
		}
		f.cond.Wait()
	}
	return nil
}

// processLocked runs process for n popped deltas and records how long it
// took. It is called and returns with the lock held, and releases it during
// process when UnlockWhileProcessing is set and the queue is short. key is
// the first delta's, for the slow-processing log.
func (f *RealFIFO) processLocked(n int, key string, process func() error) error {
	depth := len(f.items)
	if f.unlockWhileProcessing && depth < 2*f.batchSize {
		f.mu.Unlock()
		defer f.mu.Lock()
	}
	start := f.clock.Now()
	err := process()
	took := f.clock.Since(start)
	f.metrics.processingLatency.Observe(took.Seconds())
	if depth > slowPopDepth {
		var extra []any
		if name := f.identifier.Name(); name != "" {
			extra = append(extra, "name", name)
		}
		if gvr := f.identifier.GroupVersionResource(); !gvr.Empty() {
			extra = append(extra, "resource", gvr)
		}
		logSlowProcessing(f.logger, took, n, depth, key, extra...)
	}
	return err
}

// Close wakes every blocked Pop and PopBatch; they return [ErrFIFOClosed] once
// the FIFO is empty. Writes are still accepted. Closing twice is harmless.
func (f *RealFIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *RealFIFO) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// HasSynced reports whether the first batch has been processed: true once an
// Add, Update or Delete came first, or once every delta queued up to the end
// of the first Replace has been popped and its process function has returned.
func (f *RealFIFO) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sync.synced()
}

// HasSyncedChecker returns the FIFO itself: its Done channel closes when
// HasSynced becomes true.
func (f *RealFIFO) HasSyncedChecker() DoneChecker {
	return f
}

// Name returns the FIFO's name: the identifier's name, else the configured
// name, else "RealFIFO". It implements [DoneChecker].
func (f *RealFIFO) Name() string {
	return f.name
}

// Done returns a channel that is closed when HasSynced becomes true. It
// implements [DoneChecker].
func (f *RealFIFO) Done() <-chan struct{} {
	return f.sync.done
}
