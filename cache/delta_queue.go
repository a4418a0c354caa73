package cache

import (
	"errors"
	"fmt"
	"iter"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// ErrZeroLengthDeltasObject is the cause inside the [KeyError] that
// [DeltaFIFO.KeyOf] returns for an empty [Deltas].
var ErrZeroLengthDeltasObject = errors.New("0 length Deltas object; can't get key")

// deltaLog is how a queue that embeds a deltaQueue keeps its deltas: the one
// part of the pipeline where [DeltaFIFO] (deltas merged per key) and
// [RealFIFO] (one log of every delta) differ. Its methods are called with
// the queue's lock held.
type deltaLog interface {
	// admitsLocked reports whether a delta of type t for key is to be
	// queued. A delta it refuses still counts as a write for HasSynced.
	admitsLocked(t DeltaType, key string) bool
	// appendLocked queues d, a delta of the object with key, and wakes Pop.
	appendLocked(key string, d Delta)
	// lenLocked returns how many items Pop can take.
	lenLocked() int
	// popLocked removes the next item: the deltas of one key, oldest
	// first, and that key. Only called when lenLocked is positive; ok is
	// false if there turned out to be nothing to pop.
	popLocked() (key string, deltas Deltas, ok bool)
}

// deltaQueue is the pipeline that [DeltaFIFO] and [RealFIFO] share, in one
// place: computing an object's key, transforming it, the write path, resync,
// processing what is popped, and the tombstones of a relist. The queues
// embed it and provide its deltaLog. The fields are set at construction and
// not changed afterwards, except queueState's.
type deltaQueue struct {
	queueState

	log     deltaLog // the queue that embeds this deltaQueue
	logger  klog.Logger
	clock   clock.PassiveClock // times processing
	metrics *fifoMetrics       // never nil

	keyFunc      KeyFunc         // never nil
	transformer  TransformFunc   // may be nil
	knownObjects KeyListerGetter // may be nil

	// unwrapDelta makes keyOf key a [Delta] by its object.
	unwrapDelta bool
	// unlockBelow releases the lock while processing when fewer items than
	// this are queued; 0 never does.
	unlockBelow int
	// slowLogValues are extra key/value pairs of the slow-processing log.
	slowLogValues []any

	// processed counts the popped items whose processing has returned.
	// guarded by mu.
	processed uint64
}

// deltaQueueConfig is what a queue tells deltaQueue.init.
type deltaQueueConfig struct {
	log          deltaLog
	logger       *klog.Logger // nil: klog.Background()
	name         string
	clock        clock.PassiveClock
	metrics      *fifoMetrics // nil: none
	keyFunc      KeyFunc      // nil: MetaNamespaceKeyFunc
	transformer  TransformFunc
	knownObjects KeyListerGetter
	unwrapDelta  bool
}

// init readies q as cfg says. The logger is named after the queue.
func (q *deltaQueue) init(cfg deltaQueueConfig) {
	q.queueState.init(cfg.name)
	q.log = cfg.log
	q.logger = klog.Background()
	if cfg.logger != nil {
		q.logger = *cfg.logger
	}
	q.logger = klog.LoggerWithName(q.logger, cfg.name)
	q.clock = cfg.clock
	q.metrics = cfg.metrics
	if q.metrics == nil {
		q.metrics = newFIFOMetrics(InformerNameAndResource{}, nil)
	}
	q.keyFunc = cfg.keyFunc
	if q.keyFunc == nil {
		q.keyFunc = MetaNamespaceKeyFunc
	}
	q.transformer = cfg.transformer
	q.knownObjects = cfg.knownObjects
	q.unwrapDelta = cfg.unwrapDelta
}

// Transformer returns the transform function, or nil. It implements
// [TransformingStore].
func (q *deltaQueue) Transformer() TransformFunc {
	return q.transformer
}

// keyOf is the key function extended to queue contents: for a [Deltas] it
// returns the key of the newest delta's object, for a [Delta] (with
// unwrapDelta) the key of its object, and for a [DeletedFinalStateUnknown]
// the key it carries. An empty Deltas yields a [KeyError] wrapping
// [ErrZeroLengthDeltasObject].
func (q *deltaQueue) keyOf(obj any) (string, error) {
	if d, ok := obj.(Deltas); ok {
		if len(d) == 0 {
			return "", KeyError{obj, ErrZeroLengthDeltasObject}
		}
		obj = d.Newest().Object
	}
	if d, ok := obj.(Delta); ok && q.unwrapDelta {
		obj = d.Object
	}
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	return q.keyFunc(obj)
}

// transform applies the transformer to obj, the object of a delta of type t,
// unless there is none, t is [Sync] (a known object, transformed already) or
// obj is a tombstone. Callers hold the lock, so that objects are transformed
// in queue order.
func (q *deltaQueue) transform(t DeltaType, key string, obj any) (any, error) {
	if q.transformer == nil || t == Sync {
		return obj, nil
	}
	if _, tombstone := obj.(DeletedFinalStateUnknown); tombstone {
		return obj, nil
	}
	transformed, err := q.transformer(obj)
	if err != nil {
		return nil, fmt.Errorf("transform object with key %q: %w", key, err)
	}
	return transformed, nil
}

// write queues a delta of type t for obj, transformed, unless the deltaLog
// refuses it. A key error (as a [KeyError]) or a transformer error is
// returned and leaves the queue unchanged.
func (q *deltaQueue) write(t DeltaType, obj any) error {
	key, err := q.keyOf(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.log.admitsLocked(t, key) {
		q.sync.written()
		return nil
	}
	obj, err = q.transform(t, key, obj)
	if err != nil {
		return err
	}
	q.sync.written()
	q.log.appendLocked(key, Delta{Type: t, Object: obj})
	return nil
}

// prepareListLocked computes the key of every listed object and transforms
// it, as Replace does before it changes anything. The first key or
// transformer error is returned.
func (q *deltaQueue) prepareListLocked(list []any) (keys []string, objs []any, err error) {
	keys = make([]string, len(list))
	objs = make([]any, len(list))
	for i, obj := range list {
		key, err := q.keyOf(obj)
		if err != nil {
			return nil, nil, KeyError{obj, err}
		}
		transformed, err := q.transform(Replaced, key, obj)
		if err != nil {
			return nil, nil, fmt.Errorf("couldn't enqueue object: %w", err)
		}
		keys[i], objs[i] = key, transformed
	}
	return keys, objs, nil
}

// resyncLocked queues a [Sync] delta with the known object for every known
// key whose object has nothing queued (queued reports it): queued deltas are
// newer than the known object. Without known objects it does nothing. A
// lookup that fails or misses is logged and skipped; key errors are returned
// (joined) after every other key has been resynced.
func (q *deltaQueue) resyncLocked(queued func(key string) bool) error {
	if q.knownObjects == nil {
		return nil
	}
	var errs []error
	for _, known := range q.knownObjects.ListKeys() {
		obj, exists, err := q.knownObjects.GetByKey(known)
		switch {
		case err != nil:
			q.logger.Error(err, "Unexpected error during lookup, unable to queue object for sync", "key", known)
			continue
		case !exists:
			q.logger.Info("Warning: key does not exist in known objects, unable to queue object for sync", "key", known)
			continue
		}
		key, err := q.keyOf(obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("couldn't queue object: %w", KeyError{obj, err}))
			continue
		}
		if queued(key) {
			continue
		}
		q.log.appendLocked(key, Delta{Type: Sync, Object: obj})
	}
	return errors.Join(errs...)
}

// popKeyed is the Pop of both queues: it blocks until an item is queued or
// the queue is closed, removes the next item and calls process with its key
// and deltas, under the lock as processLocked says. An item of the first
// batch counts as processed only after process returns. It returns
// process's error, or [ErrFIFOClosed] once the queue is closed and empty. A
// nil process is an error and pops nothing.
func (q *deltaQueue) popKeyed(process keyedProcessFunc) error {
	if process == nil {
		return errNilProcessFunc
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if err := q.waitLocked(q.log.lenLocked); err != nil {
			return err
		}
		if popped, err := q.popOneLocked(process); popped {
			return err
		}
	}
}

// popOneLocked pops the next item, as popKeyed does once it is there, and
// reports whether there was one.
func (q *deltaQueue) popOneLocked(process keyedProcessFunc) (popped bool, err error) {
	isInInitialList := !q.sync.synced()
	key, deltas, ok := q.log.popLocked()
	if !ok {
		return false, nil
	}
	defer q.processedLocked(q.sync.taking(1), 1) // arguments evaluated now, counted after process

	return true, q.processLocked(1, key, func() error {
		return process(key, deltas, isInInitialList)
	})
}

// processedLocked records that n popped items, initial of them of the first
// batch, have been processed.
func (q *deltaQueue) processedLocked(initial, n int) {
	q.sync.processed(initial)
	q.processed += uint64(n)
}

// pop is popKeyed for a [PopProcessFunc]: it hands process the deltas as a
// [Deltas] and returns them too.
func (q *deltaQueue) pop(process PopProcessFunc) (any, error) {
	if process == nil {
		return nil, errNilProcessFunc
	}
	var item any
	err := q.popKeyed(func(_ string, deltas Deltas, isInInitialList bool) error {
		item = deltas // boxed once: handed to process and returned
		return process(item, isInInitialList)
	})
	return item, err
}

// processLocked runs process for n popped items and records how long it
// took; key is the first item's, for the slow-processing log. It is called,
// and returns, with the lock held, and releases it during process when fewer
// than unlockBelow items are queued.
func (q *deltaQueue) processLocked(n int, key string, process func() error) error {
	depth := q.log.lenLocked()
	if depth < q.unlockBelow {
		q.mu.Unlock()
		defer q.mu.Lock()
	}
	start := q.clock.Now()
	err := process()
	took := q.clock.Since(start)
	q.metrics.processingLatency.Observe(took.Seconds())
	logSlowProcessing(q.logger, took, n, depth, key, q.slowLogValues...)
	return err
}

// vanishedTombstones yields a [DeletedFinalStateUnknown] for every key of
// known that kept does not claim: the keys a relist no longer lists, in the
// order known lists them. Each tombstone carries the known object, or nil
// when the lookup fails (logged as an error) or misses (logged as a warning
// at level 0). DeltaFIFO, RealFIFO and the ReplacedAll processing all use it.
func vanishedTombstones(logger klog.Logger, known KeyListerGetter, kept func(key string) bool) iter.Seq[DeletedFinalStateUnknown] {
	return func(yield func(DeletedFinalStateUnknown) bool) {
		for _, key := range known.ListKeys() {
			if kept(key) {
				continue
			}
			obj, exists, err := known.GetByKey(key)
			switch {
			case err != nil:
				obj = nil
				logger.Error(err, "Unexpected error during lookup, placing DeletedFinalStateUnknown marker without object", "key", key)
			case !exists:
				obj = nil
				logger.Info("Warning: key does not exist in known objects, placing DeletedFinalStateUnknown marker without object", "key", key)
			}
			if !yield(DeletedFinalStateUnknown{Key: key, Obj: obj}) {
				return
			}
		}
	}
}
