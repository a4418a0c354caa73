package cache

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

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

// keyOfferee is a store that can reuse key strings computed by someone else.
// A [DeltaFIFO] offers each key it pops to its known objects when they
// implement it (the stores of [NewStore] and [NewIndexer] do), because the
// consumer is about to write the popped objects there: the store can then
// keep the FIFO's key string rather than allocate an equal one.
type keyOfferee interface {
	// offerKey tells the store the key of the objects about to be
	// written. It must be cheap and must not call back into the FIFO.
	offerKey(key string)
}

// ErrZeroLengthDeltasObject is the cause inside the [KeyError] that
// [DeltaFIFO.KeyOf] returns for an empty [Deltas].
var ErrZeroLengthDeltasObject = errors.New("0 length Deltas object; can't get key")

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
	// A store made by [NewStore] or [NewIndexer] with a metadata key
	// function also reuses the FIFO's key strings for the popped objects
	// written into it, rather than allocating equal ones.
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
	logger klog.Logger
	name   string
	clock  clock.PassiveClock

	mu   sync.Mutex
	cond sync.Cond // L is &mu; signalled when queue grows or the FIFO closes

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

	sync   initialSync // guarded by mu
	closed bool        // guarded by mu

	keyFunc               KeyFunc
	knownObjects          KeyListerGetter // may be nil
	keyOfferee            keyOfferee      // knownObjects, if it reuses offered keys; may be nil
	emitDeltaTypeReplaced bool
	transformer           TransformFunc // may be nil
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
	return newDeltaFIFO(opts, clock.RealClock{})
}

// newDeltaFIFO is NewDeltaFIFOWithOptions with the clock that times
// processing.
func newDeltaFIFO(opts DeltaFIFOOptions, clk clock.PassiveClock) *DeltaFIFO {
	f := &DeltaFIFO{
		logger:                klog.Background(),
		name:                  "DeltaFIFO",
		clock:                 clk,
		items:                 map[string]Deltas{},
		sync:                  newInitialSync(),
		keyFunc:               opts.KeyFunction,
		knownObjects:          opts.KnownObjects,
		emitDeltaTypeReplaced: opts.EmitDeltaTypeReplaced,
		transformer:           opts.Transformer,
	}
	if f.keyFunc == nil {
		f.keyFunc = MetaNamespaceKeyFunc
	}
	f.keyOfferee, _ = opts.KnownObjects.(keyOfferee)
	if opts.Logger != nil {
		f.logger = *opts.Logger
	}
	if opts.Name != "" {
		f.name = opts.Name
	}
	f.logger = klog.LoggerWithName(f.logger, f.name)
	f.cond.L = &f.mu
	return f
}

// KeyOf is the FIFO's key function extended to queue contents: for a [Deltas]
// it returns the key of the newest delta's object, and for a
// [DeletedFinalStateUnknown] the key it carries. An empty Deltas yields a
// [KeyError] wrapping [ErrZeroLengthDeltasObject].
func (f *DeltaFIFO) KeyOf(obj any) (string, error) {
	if d, ok := obj.(Deltas); ok {
		if len(d) == 0 {
			return "", KeyError{obj, ErrZeroLengthDeltasObject}
		}
		obj = d.Newest().Object
	}
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	return f.keyFunc(obj)
}

// Transformer returns the transform function, or nil. It implements
// [TransformingStore].
func (f *DeltaFIFO) Transformer() TransformFunc {
	return f.transformer
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

func (f *DeltaFIFO) write(t DeltaType, obj any) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	obj, err = f.transform(t, key, obj)
	if err != nil {
		return err
	}
	f.sync.written()
	f.appendLocked(key, Delta{Type: t, Object: obj})
	return nil
}

// Delete queues a [Deleted] delta for obj, unless nothing is known about its
// key: the key has no queued deltas and, if there are known objects, they do
// not hold it either (a failed lookup counts as holding it). A dropped
// deletion was presumably already reported by a Replace. Errors are handled
// as by Add.
func (f *DeltaFIFO) Delete(obj any) error {
	key, err := f.KeyOf(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.knowsLocked(key) {
		f.sync.written()
		return nil
	}
	obj, err = f.transform(Deleted, key, obj)
	if err != nil {
		return err
	}
	f.sync.written()
	f.appendLocked(key, Delta{Type: Deleted, Object: obj})
	return nil
}

// knowsLocked reports whether key has queued deltas or is a known object. A
// failed lookup counts as known.
func (f *DeltaFIFO) knowsLocked(key string) bool {
	if _, queued := f.items[key]; queued {
		return true
	}
	if f.knownObjects == nil {
		return false
	}
	_, known, err := f.knownObjects.GetByKey(key)
	return known || err != nil
}

// transform applies the transformer to obj, the object of a delta of type t,
// unless there is none, t is [Sync] (a known object, transformed already) or
// obj is a tombstone. It is called with the lock held, so that objects are
// transformed in queue order.
func (f *DeltaFIFO) transform(t DeltaType, key string, obj any) (any, error) {
	if f.transformer == nil || t == Sync {
		return obj, nil
	}
	if _, tombstone := obj.(DeletedFinalStateUnknown); tombstone {
		return obj, nil
	}
	transformed, err := f.transformer(obj)
	if err != nil {
		return nil, fmt.Errorf("transform object with key %q: %w", key, err)
	}
	return transformed, nil
}

// appendLocked appends d to key's deltas, queueing key if it had none, and
// collapses the last two deltas if both are deletions.
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
	keys := make([]string, len(list))
	objs := make([]any, len(list))
	listed := make(map[string]struct{}, len(list))
	for i, obj := range list {
		key, err := f.KeyOf(obj)
		if err != nil {
			return KeyError{obj, err}
		}
		transformed, err := f.transform(Replaced, key, obj)
		if err != nil {
			return fmt.Errorf("couldn't enqueue object: %w", err)
		}
		keys[i], objs[i] = key, transformed
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
		for _, key := range f.knownObjects.ListKeys() {
			if _, ok := listed[key]; ok {
				continue
			}
			if _, queued := f.items[key]; queued {
				continue
			}
			last, known, err := f.knownObjects.GetByKey(key)
			switch {
			case err != nil:
				last = nil
				f.logger.Error(err, "Unexpected error during lookup, placing DeletedFinalStateUnknown marker without object", "key", key)
			case !known:
				last = nil
				f.logger.Info("Key does not exist in known objects store, placing DeletedFinalStateUnknown marker without object", "key", key)
			}
			deletions++
			f.appendLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: last}})
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
	if f.knownObjects == nil {
		return nil
	}
	var errs []error
	for _, known := range f.knownObjects.ListKeys() {
		obj, exists, err := f.knownObjects.GetByKey(known)
		if err != nil {
			f.logger.Error(err, "Unexpected error during lookup, unable to queue object for sync", "key", known)
			continue
		}
		if !exists {
			f.logger.Info("Key does not exist in known objects store, unable to queue object for sync", "key", known)
			continue
		}
		key, err := f.KeyOf(obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("couldn't queue object: %w", KeyError{obj, err}))
			continue
		}
		if _, queued := f.items[key]; queued {
			continue
		}
		f.appendLocked(key, Delta{Type: Sync, Object: obj})
	}
	return errors.Join(errs...)
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
	if process == nil {
		return nil, errNilProcessFunc
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.queue) == 0 {
		if f.closed {
			return nil, ErrFIFOClosed
		}
		f.cond.Wait()
	}
	isInInitialList := !f.sync.synced()
	key := f.queue[0]
	f.queue = dropFront(f.queue, 1)
	f.firstDelta = dropFront(f.firstDelta, 1)
	var deltas any = f.items[key] // boxed once
	delete(f.items, key)
	if f.keyOfferee != nil {
		f.keyOfferee.offerKey(key) // process will likely write key's objects there
	}
	defer f.sync.processed(f.sync.taking(1)) // argument evaluated now, decrement after process

	depth := len(f.queue)
	start := f.clock.Now()
	err := process(deltas, isInInitialList)
	logSlowProcessing(f.logger, f.clock.Since(start), 1, depth, key)
	return deltas, err
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

// maxReusedQueueCap is the largest backing array a drained queue keeps for
// reuse (see dropFront).
const maxReusedQueueCap = 1024

// dropFront removes the first n elements of the queue s, zeroing them so that
// what they reference can be collected. A queue left empty starts over at
// the beginning of its backing array when that array is small: otherwise a
// consumer that keeps up would have every append reallocate. A large array
// (left by a big relist) is not kept, and goes once appends outgrow it.
func dropFront[T any](s []T, n int) []T {
	clear(s[:n])
	if n == len(s) && cap(s) <= maxReusedQueueCap {
		return s[:0]
	}
	return s[n:]
}

// Close wakes every blocked Pop; Pop returns [ErrFIFOClosed] once the FIFO is
// empty. Writes are still accepted. Closing twice is harmless.
func (f *DeltaFIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (f *DeltaFIFO) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// HasSynced reports whether the first batch has been processed: true once an
// Add, Update or Delete came first, or once every key queued by the first
// Replace has been popped and its process function has returned.
func (f *DeltaFIFO) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sync.synced()
}

// HasSyncedChecker returns the FIFO itself: its Done channel closes when
// HasSynced becomes true.
func (f *DeltaFIFO) HasSyncedChecker() DoneChecker {
	return f
}

// Name returns the FIFO's name (default "DeltaFIFO"). It implements
// [DoneChecker].
func (f *DeltaFIFO) Name() string {
	return f.name
}

// Done returns a channel that is closed when HasSynced becomes true. It
// implements [DoneChecker].
func (f *DeltaFIFO) Done() <-chan struct{} {
	return f.sync.done
}
