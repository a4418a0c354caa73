package cache

import (
	"slices"
	"sync/atomic"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// DeltaFIFOOptions configures [NewDeltaFIFOWithOptions]. Every field is
// optional.
type DeltaFIFOOptions struct {
	// Logger receives the FIFO's log output, under the FIFO's name. Default:
	// klog.Background().
	Logger *klog.Logger

	// Name names the FIFO in logs and in [DoneChecker] messages. Default:
	// "DeltaFIFO".
	Name string

	// KeyFunction computes object keys; [DeltaFIFO.KeyOf] wraps it. Default:
	// [MetaNamespaceKeyFunc].
	KeyFunction KeyFunc

	// KnownObjects lists what the consumer already knows, normally the store
	// the consumer writes popped deltas into. With it, Delete also queues
	// deletions of known but unqueued keys, Replace queues tombstones for
	// known keys missing from the list, and Resync has something to resync.
	// Without it, deletions missed while the watch was down go unnoticed.
	KnownObjects KeyListerGetter

	// EmitDeltaTypeReplaced makes Replace queue [Replaced] deltas. When false
	// (the legacy behaviour) Replace queues [Sync] deltas, which the consumer
	// cannot tell apart from a periodic resync.
	EmitDeltaTypeReplaced bool

	// Transformer, if set, rewrites every object before it is queued, except
	// tombstones and the known objects that Resync queues (they went through
	// it already). See [TransformFunc].
	Transformer TransformFunc
}

// DeltaFIFO is a [Queue] that records, per key, every change since the key
// was last popped. Pop hands the consumer the key's whole [Deltas], oldest
// first, and keys come out in the order they were first queued. Two
// consecutive deletions of a key collapse into one, keeping the more
// informative (a real final state over a [DeletedFinalStateUnknown]).
//
// Use it when every change should be processed at most once, with everything
// that happened to the object since it was last processed, deletions
// included, and optionally with periodic resyncs.
//
// The known objects ([DeltaFIFOOptions.KnownObjects]) are what the consumer
// already processed. Pop calls the process function while holding the
// FIFO's lock, so a consumer that updates the known objects there keeps them
// consistent with the queue.
//
// A DeltaFIFO is safe for concurrent use, with one consumer calling Pop. A
// write that fails (a key error, a failing transformer) leaves it unchanged.
// Create one with [NewDeltaFIFOWithOptions]; the zero value is not usable.
type DeltaFIFO struct {
	deltaQueue

	// items holds the pending deltas of each queued key, never an empty
	// Deltas. guarded by mu; a key is in queue if and only if it is in items,
	// and queue has no duplicates.
	items map[string]Deltas
	queue []string // guarded by mu
	// firstDelta holds, for each key of queue at the same position, the
	// number of its oldest pending delta; numbers count every delta
	// appended, from one. Since keys are queued in the order of their
	// oldest delta, every delta numbered below firstDelta[0] has been
	// processed. guarded by mu.
	firstDelta []uint64
	// appended counts the deltas appended so far. guarded by mu.
	appended uint64
	// appendedSoFar is the highest appended, for queuedSoFar; written
	// under mu.
	appendedSoFar atomic.Uint64
	// itemsPresized is set while items is a map sized for a relist, to be
	// let go once the queue drains. guarded by mu.
	itemsPresized bool

	// bulk, when not nil, is all the FIFO holds: queue is then empty. See
	// deltaBulk. guarded by mu.
	bulk *deltaBulk
	// knownLen, when not nil, returns how many objects the known objects
	// hold, and makes a Replace or Resync of an empty FIFO queue a bulk:
	// the informers set it, with takeBulks, as their consumer pops with
	// popBatchKeyed, which takes a bulk in one go.
	knownLen func() int

	emitDeltaTypeReplaced bool
}

// deltaBulk is a Replace or a Resync of an empty FIFO, kept as one item
// instead of a key per object, so that the informer's consumer (see
// popBatchKeyed) can process it in one go: it writes a Replace's objects to
// its store in one step, and hands a Resync's objects to the handler from
// the store. A bulk stands for exactly the deltas the per-key path would
// have queued: a Replace's delta per listed object, in list order, then the
// tombstones of the known keys that were not listed; a Resync's Sync delta
// per known object. Anything else done to the FIFO while a bulk is pending
// (a write, a Pop, another Replace or Resync) first expands it into those
// per-key items (expandBulkLocked). A Resync's objects are read from the
// known objects when the bulk is processed or expanded, so these must not
// change meanwhile; an informer's store does not: only processing writes it.
type deltaBulk struct {
	// keys and deltas are a Replace's: deltas[i] is the delta of keys[i]. A
	// key the list repeats has a delta per occurrence.
	keys   []string
	deltas []Delta
	// resync marks a Resync, of every known object; keys and deltas are
	// empty.
	resync bool
	// first is the number of the bulk's first delta (see firstDelta).
	first uint64
}

var (
	_ Queue             = (*DeltaFIFO)(nil)
	_ TransformingStore = (*DeltaFIFO)(nil)
	_ DoneChecker       = (*DeltaFIFO)(nil)
	_ progressQueue     = (*DeltaFIFO)(nil)
)

// NewDeltaFIFO returns a DeltaFIFO keyed by keyFunc that consults
// knownObjects (which may be nil) and queues [Sync] deltas on Replace.
//
// Deprecated: Equivalent to NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: keyFunc, KnownObjects: knownObjects}).
// Prefer EmitDeltaTypeReplaced: true, so the consumer can tell a relist from
// a resync.
func NewDeltaFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter) *DeltaFIFO {
	return NewDeltaFIFOWithOptions(DeltaFIFOOptions{
		KeyFunction:  keyFunc,
		KnownObjects: knownObjects,
	})
}

// NewDeltaFIFOWithOptions returns an empty DeltaFIFO configured by opts.
func NewDeltaFIFOWithOptions(opts DeltaFIFOOptions) *DeltaFIFO {
	return newDeltaFIFO(opts, realClock)
}

// newDeltaFIFO is NewDeltaFIFOWithOptions with the clock that times
// processing.
func newDeltaFIFO(opts DeltaFIFOOptions, clk clock.PassiveClock) *DeltaFIFO {
	f := &DeltaFIFO{
		items:                 map[string]Deltas{},
		emitDeltaTypeReplaced: opts.EmitDeltaTypeReplaced,
	}
	name := opts.Name
	if name == "" {
		name = "DeltaFIFO"
	}
	f.init(deltaQueueConfig{
		log:          f,
		logger:       opts.Logger,
		name:         name,
		clock:        clk,
		keyFunc:      opts.KeyFunction,
		transformer:  opts.Transformer,
		knownObjects: opts.KnownObjects,
	})
	return f
}

// takeBulks makes a Replace or Resync of an empty FIFO queue a bulk, for a
// consumer that pops with popBatchKeyed; knownLen returns how many objects
// the known objects hold. Call it before use.
func (f *DeltaFIFO) takeBulks(knownLen func() int) {
	f.knownLen = knownLen
}

// KeyOf is the FIFO's key function extended to queue contents: for a [Deltas]
// it returns the key of the newest delta's object, and for a
// [DeletedFinalStateUnknown] the key it carries. An empty Deltas yields a
// [KeyError] wrapping [ErrZeroLengthDeltasObject].
func (f *DeltaFIFO) KeyOf(obj any) (string, error) {
	return f.keyOf(obj)
}

// Add queues an [Added] delta for obj. Errors from the key function (as a
// [KeyError]) and the transformer are returned and leave the FIFO unchanged.
func (f *DeltaFIFO) Add(obj any) error {
	return f.write(Added, obj)
}

// Update queues an [Updated] delta for obj. Errors are handled as by Add.
func (f *DeltaFIFO) Update(obj any) error {
	return f.write(Updated, obj)
}

// Delete queues a [Deleted] delta for obj, unless nothing is known about its
// key: the key has no queued deltas and, if there are known objects, they do
// not hold it either (a failed lookup counts as holding it). A dropped
// deletion was presumably already reported by a Replace. Errors are handled
// as by Add.
func (f *DeltaFIFO) Delete(obj any) error {
	return f.write(Deleted, obj)
}

// admitsLocked drops the deletion of a key the FIFO knows nothing about (see
// Delete). It implements deltaLog; as every write asks it first, it first
// expands a pending bulk, to which the write comes after.
func (f *DeltaFIFO) admitsLocked(t DeltaType, key string) bool {
	f.expandBulkLocked()
	if t != Deleted {
		return true
	}
	if _, queued := f.items[key]; queued {
		return true
	}
	if f.knownObjects == nil {
		return false
	}
	_, known, err := f.knownObjects.GetByKey(key)
	return known || err != nil
}

// lenLocked returns the number of queued keys, a pending bulk counting as
// one. It implements deltaLog.
func (f *DeltaFIFO) lenLocked() int {
	if f.bulk != nil {
		return 1
	}
	return len(f.queue)
}

// appendLocked appends d to key's deltas, queueing key if it had none, and
// collapses the last two deltas if both are deletions. It implements
// deltaLog.
func (f *DeltaFIFO) appendLocked(key string, d Delta) {
	f.appended++
	if f.appended > f.appendedSoFar.Load() { // not while a bulk is renumbered
		f.appendedSoFar.Store(f.appended)
	}
	deltas, queued := f.items[key]
	deltas = append(deltas, d)
	if n := len(deltas); n >= 2 && deltas[n-1].Type == Deleted && deltas[n-2].Type == Deleted {
		// Keep the older deletion unless it is only a tombstone.
		if _, tombstone := deltas[n-2].Object.(DeletedFinalStateUnknown); tombstone {
			deltas[n-2] = deltas[n-1]
		}
		deltas[n-1] = Delta{}
		deltas = deltas[:n-1]
	}
	if !queued {
		f.queue = append(f.queue, key)
		f.firstDelta = append(f.firstDelta, f.appended)
	}
	f.items[key] = deltas
	f.cond.Broadcast()
}

// Replace records a complete list of the objects. It queues a [Replaced]
// delta ([Sync] without EmitDeltaTypeReplaced) for every listed object, in
// list order, then a [Deleted] delta with a [DeletedFinalStateUnknown] for
// every key that is not listed but has queued deltas (the tombstone holds the
// newest queued object) or, if there are known objects, is known (the
// tombstone holds the known object, or nil if the lookup fails). The first
// Replace before any other write defines the first batch: every key it
// queues. resourceVersion is ignored.
//
// A key error or transformer error on any listed object is returned and
// leaves the FIFO unchanged.
func (f *DeltaFIFO) Replace(list []any, resourceVersion string) error {
	f.mu.Lock()
	defer f.mu.Unlock()

	action := Sync
	if f.emitDeltaTypeReplaced {
		action = Replaced
	}
	// Validate and transform everything before changing anything. The
	// transformer runs for Replaced deltas even when they are emitted as Sync.
	keys, objs, err := f.prepareListLocked(list)
	if err != nil {
		return err
	}
	f.expandBulkLocked()
	if f.knownLen != nil && len(f.queue) == 0 {
		f.replaceBulkLocked(action, keys, objs)
		return nil
	}
	listed := make(map[string]struct{}, len(keys))
	for _, key := range keys {
		listed[key] = struct{}{}
	}

	if len(f.items) == 0 && len(listed) > maxReusedQueueCap {
		f.items = make(map[string]Deltas, len(listed)) // spare a relist the rehashing
		f.itemsPresized = true
	}
	f.queue = slices.Grow(f.queue, len(listed))
	f.firstDelta = slices.Grow(f.firstDelta, len(listed))
	for i, key := range keys {
		f.appendLocked(key, Delta{Type: action, Object: objs[i]})
	}

	deletions := 0
	// Queued keys that vanished. Iterating queue rather than items keeps the
	// order deterministic; appending to a queued key does not change queue.
	for _, key := range f.queue {
		if _, ok := listed[key]; ok {
			continue
		}
		var last any
		if newest := f.items[key].Newest(); newest != nil {
			last = newest.Object
			if tomb, ok := last.(DeletedFinalStateUnknown); ok {
				last = tomb.Obj
			}
		}
		deletions++
		f.appendLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: last}})
	}

	// Known keys that vanished and have nothing queued.
	if f.knownObjects != nil {
		kept := func(key string) bool {
			_, isListed := listed[key]
			_, queued := f.items[key]
			return isListed || queued
		}
		for tomb := range vanishedTombstones(f.logger, f.knownObjects, kept) {
			deletions++
			f.appendLocked(tomb.Key, Delta{Type: Deleted, Object: tomb})
		}
	}

	f.sync.replaced(len(listed) + deletions)
	return nil
}

// replaceBulkLocked queues, as a bulk, what Replace of keys and objs queues
// in an empty FIFO: a delta of type action per object, then the tombstones of
// the known keys that are not listed.
func (f *DeltaFIFO) replaceBulkLocked(action DeltaType, keys []string, objs []any) {
	deltas := make([]Delta, len(keys))
	for i, obj := range objs {
		deltas[i] = Delta{Type: action, Object: obj}
	}
	if f.knownObjects != nil {
		var listed map[string]struct{} // made on the first known key
		kept := func(key string) bool {
			if listed == nil {
				listed = make(map[string]struct{}, len(keys))
				for _, key := range keys {
					listed[key] = struct{}{}
				}
			}
			_, ok := listed[key]
			return ok
		}
		for tomb := range vanishedTombstones(f.logger, f.knownObjects, kept) {
			keys = append(keys, tomb.Key)
			deltas = append(deltas, Delta{Type: Deleted, Object: tomb})
		}
	}
	if len(keys) > 0 {
		f.bulk = &deltaBulk{keys: keys, deltas: deltas, first: f.appended + 1}
		f.appended += uint64(len(keys))
		f.appendedSoFar.Store(f.appended)
		f.cond.Broadcast()
	}
	f.sync.replaced(len(keys))
}

// expandBulkLocked turns a pending bulk into the per-key items it stands
// for.
func (f *DeltaFIFO) expandBulkLocked() {
	b := f.bulk
	if b == nil {
		return
	}
	f.bulk = nil
	if b.resync {
		f.resyncKnownLocked()
		return
	}
	if len(b.keys) > maxReusedQueueCap {
		f.items = make(map[string]Deltas, len(b.keys))
		f.itemsPresized = true
	}
	f.queue = slices.Grow(f.queue, len(b.keys))
	f.firstDelta = slices.Grow(f.firstDelta, len(b.keys))
	appended := f.appended
	f.appended = b.first - 1 // appendLocked numbers the deltas again
	for i, key := range b.keys {
		f.appendLocked(key, b.deltas[i])
	}
	f.appended = appended
	if repeated := len(b.keys) - len(f.queue); repeated > 0 && f.sync.remaining > 0 {
		// A key the list repeated is one item, not one per delta.
		f.sync.remaining -= repeated
		f.sync.check()
	}
}

// Resync queues a [Sync] delta with the known object for every known key that
// has nothing queued; queued keys are skipped because their pending deltas are
// newer than the known object. Without known objects it does nothing. A key
// whose lookup fails or misses is logged and skipped; key errors are returned
// (joined) after every other key has been resynced. (A Resync of an empty
// FIFO whose consumer takes bulks queues a bulk instead: it syncs every
// known object.)
func (f *DeltaFIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.knownLen != nil && f.bulk == nil && len(f.queue) == 0 && f.knownLen() > 0 {
		f.bulk = &deltaBulk{resync: true, first: f.appended + 1}
		f.cond.Broadcast()
		return nil
	}
	f.expandBulkLocked()
	return f.resyncKnownLocked()
}

// resyncKnownLocked is Resync of the per-key items.
func (f *DeltaFIFO) resyncKnownLocked() error {
	return f.resyncLocked(func(key string) bool {
		_, queued := f.items[key]
		return queued
	})
}

// Pop blocks until a key is queued or the FIFO is closed, removes the oldest
// key with all its deltas and calls process with them (a [Deltas], oldest
// first) while holding the FIFO's lock: process may update the known objects
// but must not call the FIFO, and should be quick because writers wait for
// it. Pop returns the Deltas and process's error; the deltas are not
// requeued, the caller owns them. On a closed FIFO Pop drains what is queued,
// then returns [ErrFIFOClosed]. A nil process is an error and pops nothing.
//
// When the popped key belongs to the first batch, the FIFO counts it as
// processed only after process returns, so HasSynced and Done never report a
// sync before the last initial item was processed. (client-go's DeltaFIFO
// closes Done just before processing the last initial item.)
func (f *DeltaFIFO) Pop(process PopProcessFunc) (any, error) {
	return f.pop(process)
}

// popLocked removes the oldest key and returns it with its deltas, after
// expanding a pending bulk; ok is false if that left nothing (a resync bulk
// whose known objects all failed to be looked up). It implements deltaLog.
func (f *DeltaFIFO) popLocked() (key string, deltas Deltas, ok bool) {
	f.expandBulkLocked()
	if len(f.queue) == 0 {
		return "", nil, false
	}
	key = f.queue[0]
	f.queue = dropFront(f.queue, 1)
	f.firstDelta = dropFront(f.firstDelta, 1)
	deltas = f.items[key]
	delete(f.items, key)
	if len(f.queue) == 0 && f.itemsPresized {
		// Go maps do not shrink: let a map sized for a relist go.
		f.items = map[string]Deltas{}
		f.itemsPresized = false
	}
	return key, deltas, true
}

// popBatchKeyed is popKeyed, except that a pending bulk goes to the consumer
// in one go: a Replace's deltas to processBatch (with their keys, distinct
// unless the list repeated one), a Resync to processSingle as one [SyncAll]
// delta, with no key. The bulk of the first Replace counts as processed, for
// HasSynced, once processBatch returns. It is how the informers pop (see
// newInformerPipeline).
func (f *DeltaFIFO) popBatchKeyed(processBatch keyedBatchFunc, processSingle keyedProcessFunc) error {
	if processBatch == nil || processSingle == nil {
		return errNilProcessFunc
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		if err := f.waitLocked(f.lenLocked); err != nil {
			return err
		}
		b := f.bulk
		if b == nil {
			if popped, err := f.popOneLocked(processSingle); popped {
				return err
			}
			continue
		}
		f.bulk = nil
		isInInitialList := !f.sync.synced()
		if b.resync {
			return f.processLocked(1, "", func() error {
				return processSingle("", Deltas{{Type: SyncAll, Object: SyncAllInfo{}}}, isInInitialList)
			})
		}
		n := len(b.keys)
		defer f.processedLocked(f.sync.taking(n), n) // arguments evaluated now, counted after processBatch
		return f.processLocked(n, b.keys[0], func() error {
			return processBatch(b.keys, b.deltas, isInInitialList)
		})
	}
}

// progress implements progressQueue. Pop processes with the lock held, so no
// delta is being processed while progress looks.
func (f *DeltaFIFO) progress() (queued, applied uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.bulk != nil:
		return f.appended, f.bulk.first - 1
	case len(f.firstDelta) == 0:
		return f.appended, f.appended
	}
	return f.appended, f.firstDelta[0] - 1
}

// queuedSoFar implements progressQueue.
func (f *DeltaFIFO) queuedSoFar() uint64 {
	return f.appendedSoFar.Load()
}

// HasSyncedChecker returns the FIFO itself: its Done channel closes when
// HasSynced becomes true.
func (f *DeltaFIFO) HasSyncedChecker() DoneChecker {
	return f
}
