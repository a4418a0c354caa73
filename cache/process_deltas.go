package cache

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
)

// errNotDeltas is returned when a queue hands the informer something other
// than a Deltas.
var errNotDeltas = errors.New("object given as Process argument is not Deltas")

// deltaProcessor applies what an informer's queue pops to the informer's
// store and tells the handler: its methods are the Process and ProcessBatch
// functions of every informer of this package.
type deltaProcessor struct {
	logger  klog.Logger
	handler ResourceEventHandler
	store   Store
	keyFunc KeyFunc     // the store's
	lock    sync.Locker // held while processing; nil: none
}

// process is a [ProcessFunc]: it applies one popped [Deltas] with
// processDeltas.
func (p *deltaProcessor) process(obj any, isInInitialList bool) error {
	deltas, ok := obj.(Deltas)
	if !ok {
		return fmt.Errorf("%w: %T", errNotDeltas, obj)
	}
	if p.lock != nil {
		p.lock.Lock()
		defer p.lock.Unlock()
	}
	return processDeltas(p.logger, p.handler, p.store, deltas, isInInitialList, p.keyFunc)
}

// processBatch is a [ProcessBatchFunc]: it applies popped deltas with
// processDeltasInBatch.
func (p *deltaProcessor) processBatch(deltas []Delta, isInInitialList bool) error {
	if p.lock != nil {
		p.lock.Lock()
		defer p.lock.Unlock()
	}
	return processDeltasInBatch(p.logger, p.handler, p.store, deltas, isInInitialList, p.keyFunc)
}

// processDeltas applies the deltas of one popped item to clientState, oldest
// first, and tells handler about each change once the store reflects it:
//
//   - Added, Updated, Replaced and Sync store the object: an update
//     (OnUpdate(old, new)) when the store already had its key, an add
//     (OnAdd(new, isInInitialList)) otherwise.
//   - Deleted deletes the object (which may be a [DeletedFinalStateUnknown])
//     and calls OnDelete, even when the store did not have the key.
//   - Bookmark records the resource version in the store.
//   - ReplacedAll reconciles the store with a complete list, see
//     processReplacedAll.
//   - SyncAll calls OnUpdate(obj, obj) for every stored object and ends the
//     processing of this item: later deltas of the same item are skipped.
//
// A store error, a malformed ReplacedAll, SyncAll or Bookmark delta, or an
// unknown delta type stops the processing and is returned; the handler is not
// told about the failed change. processDeltas is shared by the low-level
// controller and the shared informers, whose handler fans out to listeners.
func processDeltas(logger klog.Logger, handler ResourceEventHandler, clientState Store, deltas Deltas, isInInitialList bool, keyFunc KeyFunc) error {
	for _, d := range deltas {
		obj := d.Object
		switch d.Type {
		case Added, Updated, Replaced, Sync:
			if err := storeAndNotify(handler, clientState, obj, isInInitialList); err != nil {
				return err
			}
		case Deleted:
			if err := clientState.Delete(obj); err != nil {
				return fmt.Errorf("delete from the store: %w", err)
			}
			handler.OnDelete(obj)
		case Bookmark:
			info, ok := obj.(BookmarkInfo)
			if !ok {
				return fmt.Errorf("bookmark delta did not contain BookmarkInfo: %T", obj)
			}
			clientState.Bookmark(info.ResourceVersion)
		case ReplacedAll:
			info, ok := obj.(ReplacedAllInfo)
			if !ok {
				return fmt.Errorf("ReplacedAll did not contain ReplacedAllInfo: %T", obj)
			}
			if err := processReplacedAll(logger, handler, clientState, info, isInInitialList, keyFunc); err != nil {
				return err
			}
		case SyncAll:
			if _, ok := obj.(SyncAllInfo); !ok {
				return fmt.Errorf("SyncAll did not contain SyncAllInfo: %T", obj)
			}
			for _, stored := range clientState.List() {
				handler.OnUpdate(stored, stored)
			}
			return nil
		default:
			return fmt.Errorf("unknown delta type %q", d.Type)
		}
	}
	return nil
}

// swapStore is implemented by this package's stores: a write that returns
// what it replaced, in one step instead of a Get and an Update.
type swapStore interface {
	swap(obj any) (old any, existed bool, err error)
}

var _ swapStore = (*cache)(nil)

// storeAndNotify stores obj and reports it as an update of what the store
// held under its key, or as an add.
func storeAndNotify(handler ResourceEventHandler, clientState Store, obj any, isInInitialList bool) error {
	if s, ok := clientState.(swapStore); ok {
		old, existed, err := s.swap(obj)
		switch {
		case err != nil:
			return fmt.Errorf("write to the store: %w", err)
		case existed:
			handler.OnUpdate(old, obj)
		default:
			handler.OnAdd(obj, isInInitialList)
		}
		return nil
	}
	if old, exists, err := clientState.Get(obj); err == nil && exists {
		if err := clientState.Update(obj); err != nil {
			return fmt.Errorf("update the store: %w", err)
		}
		handler.OnUpdate(old, obj)
		return nil
	}
	if err := clientState.Add(obj); err != nil {
		return fmt.Errorf("add to the store: %w", err)
	}
	handler.OnAdd(obj, isInInitialList)
	return nil
}

// handlerCall is one handler call of a batch, run after the batch's
// transaction.
type handlerCall struct {
	kind     DeltaType // Added, Updated or Deleted
	old, obj any
}

func (n handlerCall) deliver(handler ResourceEventHandler, isInInitialList bool) {
	switch n.kind {
	case Added:
		handler.OnAdd(n.obj, isInInitialList)
	case Updated:
		handler.OnUpdate(n.old, n.obj)
	case Deleted:
		handler.OnDelete(n.obj)
	}
}

// processDeltasInBatch applies a batch of deltas with distinct keys (as
// [QueueWithBatch.PopBatch] hands them out) to clientState and then tells
// handler, in delta order. When the store is a [TransactionStore] every write
// happens in one transaction before any handler call, and only the writes the
// transaction applied are reported; a partial failure is returned as an
// error. Otherwise each delta goes through processDeltas on its own, and the
// errors are collected. Only the per-object delta types may be batched; any
// other type fails the batch before anything is written.
func processDeltasInBatch(logger klog.Logger, handler ResourceEventHandler, clientState Store, deltas []Delta, isInInitialList bool, keyFunc KeyFunc) error {
	txnStore, ok := clientState.(TransactionStore)
	if !ok {
		var errs []error
		for _, d := range deltas {
			if err := processDeltas(logger, handler, clientState, Deltas{d}, isInInitialList, keyFunc); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("unexpected error when handling deltas: %v", errs)
		}
		return nil
	}

	txns := make([]Transaction, 0, len(deltas))
	notes := make([]handlerCall, 0, len(deltas))
	for _, d := range deltas {
		switch d.Type {
		case Added, Updated, Replaced, Sync:
			// The keys are distinct, so the store's current object is
			// the old state of exactly this delta.
			if old, exists, err := clientState.Get(d.Object); err == nil && exists {
				txns = append(txns, Transaction{Type: TransactionTypeUpdate, Object: d.Object})
				notes = append(notes, handlerCall{kind: Updated, old: old, obj: d.Object})
			} else {
				txns = append(txns, Transaction{Type: TransactionTypeAdd, Object: d.Object})
				notes = append(notes, handlerCall{kind: Added, obj: d.Object})
			}
		case Deleted:
			txns = append(txns, Transaction{Type: TransactionTypeDelete, Object: d.Object})
			notes = append(notes, handlerCall{kind: Deleted, obj: d.Object})
		default:
			return fmt.Errorf("delta type %s is not supported in batch processing", d.Type)
		}
	}

	if err := txnStore.Transaction(txns...); err != nil {
		for _, i := range err.SuccessfulIndices {
			if i >= 0 && i < len(notes) {
				notes[i].deliver(handler, isInInitialList)
			}
		}
		return fmt.Errorf("not all items in the batch successfully processed: %s", err.Error())
	}
	for _, n := range notes {
		n.deliver(handler, isInInitialList)
	}
	return nil
}

// processReplacedAll reconciles clientState with a complete list, as a
// [RealFIFO] with atomic events delivers it. It works out which stored keys
// are missing from the list (each becomes a [DeletedFinalStateUnknown]
// carrying the stored object) and which listed objects replace a stored one,
// then replaces the store's contents first, so that handlers see a store that
// already reflects the list, and then calls OnDelete for the missing keys (in
// key order) followed by OnUpdate(old, new) or OnAdd(new, isInInitialList) for
// every listed object, in list order. A listed object whose key cannot be
// computed fails the whole reconciliation before anything changes.
func processReplacedAll(logger klog.Logger, handler ResourceEventHandler, clientState Store, info ReplacedAllInfo, isInInitialList bool, keyFunc KeyFunc) error {
	listed := make(sets.Set[string], len(info.Objects))
	for _, obj := range info.Objects {
		key, err := keyFunc(obj)
		if err != nil {
			return KeyError{Obj: obj, Err: err}
		}
		listed.Insert(key)
	}

	tombstones := slices.Collect(vanishedTombstones(logger, clientState, listed.Has))

	notes := make([]handlerCall, 0, len(info.Objects))
	for _, obj := range info.Objects {
		if old, exists, err := clientState.Get(obj); err == nil && exists {
			notes = append(notes, handlerCall{kind: Updated, old: old, obj: obj})
		} else {
			notes = append(notes, handlerCall{kind: Added, obj: obj})
		}
	}

	if err := clientState.Replace(info.Objects, info.ResourceVersion); err != nil {
		return fmt.Errorf("replace the store's contents: %w", err)
	}
	for _, tomb := range tombstones {
		handler.OnDelete(tomb)
	}
	for _, n := range notes {
		n.deliver(handler, isInInitialList)
	}
	return nil
}
