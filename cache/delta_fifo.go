package cache

import (
	"slices"

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

	emitDeltaTypeReplaced bool
}

var (
	_ Queue             = (*DeltaFIFO)(nil)
	_ keyedQueue        = (*DeltaFIFO)(nil)
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
// Delete). It implements deltaLog.
func (f *DeltaFIFO) admitsLocked(t DeltaType, key string) bool {
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

// lenLocked returns the number of queued keys. It implements deltaLog.
func (f *DeltaFIFO) lenLocked() int {
	return len(f.queue)
}

// appendLocked appends d to key's deltas, queueing key if it had none, and
// collapses the last two deltas if both are deletions. It implements
// deltaLog.
func (f *DeltaFIFO) appendLocked(key string, d Delta) {
	f.appended++
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
	listed := make(map[string]struct{}, len(keys))
	for _, key := range keys {
		listed[key] = struct{}{}
	}

	if len(f.items) == 0 {
		f.items = make(map[string]Deltas, len(listed)) // spare a relist the rehashing
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

// Resync queues a [Sync] delta with the known object for every known key that
// has nothing queued; queued keys are skipped because their pending deltas are
// newer than the known object. Without known objects it does nothing. A key
// whose lookup fails or misses is logged and skipped; key errors are returned
// (joined) after every other key has been resynced.
func (f *DeltaFIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
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

// popLocked removes the oldest key and returns it with its deltas. It
// implements deltaLog.
func (f *DeltaFIFO) popLocked() (string, Deltas) {
	key := f.queue[0]
	f.queue = dropFront(f.queue, 1)
	f.firstDelta = dropFront(f.firstDelta, 1)
	deltas := f.items[key]
	delete(f.items, key)
	return key, deltas
}

// progress implements progressQueue. Pop processes with the lock held, so no
// delta is being processed while progress looks.
func (f *DeltaFIFO) progress() (queued, applied uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.firstDelta) == 0 {
		return f.appended, f.appended
	}
	return f.appended, f.firstDelta[0] - 1
}

// HasSyncedChecker returns the FIFO itself: its Done channel closes when
// HasSynced becomes true.
func (f *DeltaFIFO) HasSyncedChecker() DoneChecker {
	return f
}
