package cache

import (
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sync/atomic"
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
	deltaQueue

	identifier InformerNameAndResource

	// items holds the queued deltas, oldest first. guarded by mu.
	items []queuedDelta
	// listKeys holds, for each ReplacedAll delta of items in order, the
	// keys of its objects, which popBatchKeyed hands on (see
	// keyedReplacedAll). guarded by mu.
	listKeys [][]string
	// appended counts the deltas queued so far; deltas are processed in
	// queue order (see progress). guarded by mu.
	appended uint64
	// appendedSoFar is appended, for queuedSoFar; written under mu.
	appendedSoFar atomic.Uint64
	// batchKeys is PopBatch's scratch set of the keys in the batch, empty
	// between calls. guarded by mu.
	batchKeys map[string]struct{}

	batchSize             int
	atomicEvents          bool
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
	return newRealFIFO(opts, realClock)
}

// newRealFIFO is NewRealFIFOWithOptions with the clock that times processing.
func newRealFIFO(opts RealFIFOOptions, clk clock.PassiveClock) *RealFIFO {
	f := &RealFIFO{
		identifier:            opts.Identifier,
		batchSize:             defaultBatchSize,
		batchKeys:             map[string]struct{}{},
		atomicEvents:          opts.AtomicEvents,
		emitDeltaTypeBookmark: opts.EmitDeltaTypeBookmark,
	}
	name := "RealFIFO"
	if opts.Name != "" {
		name = opts.Name
	}
	if idName := opts.Identifier.Name(); idName != "" {
		name = idName
	}
	f.init(deltaQueueConfig{
		log:          f,
		logger:       opts.Logger,
		name:         name,
		clock:        clk,
		metrics:      newFIFOMetrics(opts.Identifier, opts.MetricsProvider),
		keyFunc:      opts.KeyFunction,
		transformer:  opts.Transformer,
		knownObjects: opts.KnownObjects,
		unwrapDelta:  true,
	})
	if idName := opts.Identifier.Name(); idName != "" {
		f.slowLogValues = append(f.slowLogValues, "name", idName)
	}
	if gvr := opts.Identifier.GroupVersionResource(); !gvr.Empty() {
		f.slowLogValues = append(f.slowLogValues, "resource", gvr)
	}

	if f.atomicEvents {
		if f.knownObjects != nil {
			f.logger.Error(nil, "Inconsistent RealFIFOOptions: KnownObjects is not used with AtomicEvents, ignoring it")
			f.knownObjects = nil
		}
		if opts.UnlockWhileProcessing {
			f.unlockBelow = 2 * f.batchSize
		}
		return f
	}
	if opts.UnlockWhileProcessing {
		f.logger.Error(nil, "Inconsistent RealFIFOOptions: UnlockWhileProcessing requires AtomicEvents, keeping the lock while processing")
	}
	if f.emitDeltaTypeBookmark {
		f.logger.Error(nil, "Inconsistent RealFIFOOptions: EmitDeltaTypeBookmark requires AtomicEvents, not queueing bookmarks")
		f.emitDeltaTypeBookmark = false
	}
	if f.knownObjects == nil {
		f.logger.Error(nil, "Inconsistent RealFIFOOptions: KnownObjects is required without AtomicEvents, assuming the consumer knows no objects")
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

// keyedReplacedAll is the object of a [ReplacedAll] delta as popBatchKeyed
// hands it to the informer's processing: the [ReplacedAllInfo] and the keys
// the FIFO computed for its objects, keys[i] for Objects[i], so that the
// processing need not compute them again.
type keyedReplacedAll struct {
	ReplacedAllInfo
	keys []string
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

// admitsLocked admits every delta. It implements deltaLog.
func (f *RealFIFO) admitsLocked(DeltaType, string) bool {
	return true
}

// lenLocked returns the number of queued deltas. It implements deltaLog.
func (f *RealFIFO) lenLocked() int {
	return len(f.items)
}

// appendLocked queues d. It implements deltaLog.
func (f *RealFIFO) appendLocked(key string, d Delta) {
	f.appendAllLocked(queuedDelta{key, d})
}

// appendAllLocked queues deltas, in order.
func (f *RealFIFO) appendAllLocked(deltas ...queuedDelta) {
	if len(deltas) == 0 {
		return
	}
	f.items = append(f.items, deltas...)
	f.appended += uint64(len(deltas))
	f.appendedSoFar.Store(f.appended)
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
	f.appendAllLocked(queuedDelta{Delta: Delta{Type: Bookmark, Object: BookmarkInfo{ResourceVersion: resourceVersion}}})
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

	keys, objs, err := f.prepareListLocked(list)
	if err != nil {
		return err
	}

	if f.atomicEvents {
		f.appendAllLocked(queuedDelta{Delta: Delta{Type: ReplacedAll, Object: ReplacedAllInfo{ResourceVersion: resourceVersion, Objects: objs}}})
		f.listKeys = append(f.listKeys, keys)
	} else {
		f.appendAllLocked(f.reconcileReplacementLocked(keys, objs)...)
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
	if f.knownObjects != nil {
		kept := func(key string) bool {
			_, isListed := listed[key]
			_, queued := last[key]
			return isListed || queued
		}
		for tomb := range vanishedTombstones(f.logger, f.knownObjects, kept) {
			deltas = append(deltas, queuedDelta{tomb.Key, Delta{Type: Deleted, Object: tomb}})
		}
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
		f.appendAllLocked(queuedDelta{Delta: Delta{Type: SyncAll, Object: SyncAllInfo{}}})
		return nil
	}

	queued := make(map[string]struct{}, len(f.items))
	for _, d := range f.items {
		queued[d.key] = struct{}{}
	}
	return f.resyncLocked(func(key string) bool {
		_, ok := queued[key]
		return ok
	})
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
	return f.pop(process)
}

// popLocked removes the oldest delta and returns it, with its key. It
// implements deltaLog.
func (f *RealFIFO) popLocked() (string, Deltas, bool) {
	head := f.items[0]
	f.popListKeysLocked(head.Delta)
	f.items = dropFront(f.items, 1)
	f.metrics.queuedItems.Set(float64(len(f.items)))
	return head.key, Deltas{head.Delta}, true
}

// popListKeysLocked returns the keys of d's objects when d, being popped,
// is a ReplacedAll, and forgets them; otherwise nil.
func (f *RealFIFO) popListKeysLocked(d Delta) []string {
	if d.Type != ReplacedAll || len(f.listKeys) == 0 {
		return nil
	}
	keys := f.listKeys[0]
	f.listKeys = dropFront(f.listKeys, 1)
	return keys
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
	return f.popBatch(batchConsumer{batch: processBatch, single: processSingle})
}

// popBatchKeyed is PopBatch handing the consumer the keys of the deltas too.
// It is how the informers pop (see newInformerPipeline).
func (f *RealFIFO) popBatchKeyed(processBatch keyedBatchFunc, processSingle keyedProcessFunc) error {
	return f.popBatch(batchConsumer{keyedBatch: processBatch, keyedSingle: processSingle})
}

// batchConsumer is what popBatch hands a batch to: the functions given to
// PopBatch, or the keyed ones given to popBatchKeyed.
type batchConsumer struct {
	batch       ProcessBatchFunc
	single      PopProcessFunc
	keyedBatch  keyedBatchFunc
	keyedSingle keyedProcessFunc
}

// popBatch implements PopBatch and popBatchKeyed.
func (f *RealFIFO) popBatch(c batchConsumer) error {
	hasBatch := c.batch != nil || c.keyedBatch != nil
	hasSingle := c.single != nil || c.keyedSingle != nil
	if !hasBatch && !hasSingle {
		return errNilProcessFunc
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.waitLocked(f.lenLocked); err != nil {
		return err
	}
	isInInitialList := !f.sync.synced()

	limit := min(len(f.items), f.batchSize)
	if !hasBatch {
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
	single := n == 1 && hasSingle
	first := f.items[0].key
	deltas := make(Deltas, n)
	var keys []string
	if !single && c.keyedBatch != nil {
		keys = make([]string, n)
	}
	for i := range n {
		deltas[i] = f.items[i].Delta
		if keys != nil {
			keys[i] = f.items[i].key
		}
	}
	listKeys := f.popListKeysLocked(deltas[0])
	f.items = dropFront(f.items, n)
	defer f.processedLocked(f.sync.taking(n), n) // arguments evaluated now, counted after process
	f.metrics.queuedItems.Set(float64(len(f.items)))

	switch {
	case single && c.keyedSingle != nil:
		if listKeys != nil {
			deltas[0].Object = keyedReplacedAll{ReplacedAllInfo: deltas[0].Object.(ReplacedAllInfo), keys: listKeys}
		}
		return f.processLocked(1, first, func() error {
			return c.keyedSingle(first, deltas, isInInitialList)
		})
	case single:
		var item any = deltas // boxed once
		return f.processLocked(1, first, func() error {
			return c.single(item, isInInitialList)
		})
	case c.keyedBatch != nil:
		return f.processLocked(n, first, func() error {
			return c.keyedBatch(keys, deltas, isInInitialList)
		})
	default:
		return f.processLocked(n, first, func() error {
			return c.batch(deltas, isInInitialList)
		})
	}
}

// progress implements progressQueue: RealFIFO pops deltas in queue order, one
// item each.
func (f *RealFIFO) progress() (queued, applied uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.appended, f.processed
}

// queuedSoFar implements progressQueue.
func (f *RealFIFO) queuedSoFar() uint64 {
	return f.appendedSoFar.Load()
}

// HasSyncedChecker returns the FIFO itself: its Done channel closes when
// HasSynced becomes true.
func (f *RealFIFO) HasSyncedChecker() DoneChecker {
	return f
}
