package cache

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
)

// deltaProcessor applies what an informer's queue pops to the informer's
// store and tells the handler: its methods are the functions that process
// popped items in every informer of this package (see newInformerPipeline).
//
// The keys the queue computed for the popped objects are handed on to the
// store, so that no key is computed twice on the way from the reflector to
// the store; a key that no longer matches its object (a transformer renamed
// it after the queue keyed it) is computed again, with
// [DeletionHandlingMetaNamespaceKeyFunc], the store's key function.
type deltaProcessor struct {
	logger  klog.Logger
	handler ResourceEventHandler
	store   deltaStore
	lock    sync.Locker // held while processing; nil: none
	// queueKeysMatch is set when the queue keys the very objects it hands
	// out (it has no transformer): its keys are then used without checking
	// them against their objects.
	queueKeysMatch bool
}

// deltaStore is the store of an informer as its processing writes it: under
// keys the processing computed, each the store's key of its object. The
// stores of [NewStore] and [NewIndexer] keyed by
// [DeletionHandlingMetaNamespaceKeyFunc] are the informers' stores.
type deltaStore interface {
	KeyListerGetter
	List() []any
	Bookmark(resourceVersion string)
	// len returns the number of stored objects.
	len() int
	// swapKeyed stores obj under key and returns what key held before.
	swapKeyed(key string, obj any) (old any, existed bool, err error)
	// deleteKeyed removes key; obj is the deleted object.
	deleteKeyed(key string, obj any)
	// replaceKeyed replaces the contents with objs, objs[i] under keys[i].
	replaceKeyed(keys []string, objs []any, resourceVersion string) error
	// transactionKeyed applies txns at once; priors[i] receives what the
	// key of txns[i] held just before it, if it was applied.
	transactionKeyed(txns []ThreadSafeStoreTransaction, priors []storedState) *TransactionError
	// fillKeyed stores objs under keys in a store that holds nothing; it
	// fails, storing nothing, otherwise or if an object cannot be stored.
	fillKeyed(keys []string, objs []any) error
}

var _ deltaStore = (*cache)(nil)

// newDeltaProcessor returns the processing of an informer whose store is
// store; lock may be nil.
func newDeltaProcessor(logger klog.Logger, handler ResourceEventHandler, store deltaStore, lock sync.Locker) *deltaProcessor {
	return &deltaProcessor{logger: logger, handler: handler, store: store, lock: lock}
}

// processKeyed is a keyedProcessFunc: it applies one popped item, whose
// objects have the key the queue computed ("" if it did not).
func (p *deltaProcessor) processKeyed(key string, deltas Deltas, isInInitialList bool) error {
	if p.lock != nil {
		p.lock.Lock()
		defer p.lock.Unlock()
	}
	return p.processDeltas(key, deltas, isInInitialList)
}

// processBatchKeyed is a keyedBatchFunc: it applies popped deltas, keys[i]
// being the key the queue computed for deltas[i] (keys is nil if it did
// not).
func (p *deltaProcessor) processBatchKeyed(keys []string, deltas []Delta, isInInitialList bool) error {
	if p.lock != nil {
		p.lock.Lock()
		defer p.lock.Unlock()
	}
	return p.processDeltasInBatch(keys, deltas, isInInitialList)
}

// keyFor returns the key under which obj goes into the keyed store:
// queueKey, when it is obj's key, else obj's key computed now.
func (p *deltaProcessor) keyFor(queueKey string, obj any) (string, error) {
	if queueKey != "" && (p.queueKeysMatch || isMetaKeyOf(queueKey, obj)) {
		return queueKey, nil
	}
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return "", KeyError{obj, err}
	}
	return key, nil
}

// processDeltas applies the deltas of one popped item to the store, oldest
// first, and tells the handler about each change once the store reflects
// it; key is the key of the item's objects, or "":
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
// told about the failed change.
func (p *deltaProcessor) processDeltas(key string, deltas Deltas, isInInitialList bool) error {
	for _, d := range deltas {
		obj := d.Object
		switch d.Type {
		case Added, Updated, Replaced, Sync:
			if err := p.storeAndNotify(key, obj, isInInitialList); err != nil {
				return err
			}
		case Deleted:
			if err := p.delete(key, obj); err != nil {
				return fmt.Errorf("delete from the store: %w", err)
			}
			p.handler.OnDelete(obj)
		case Bookmark:
			info, ok := obj.(BookmarkInfo)
			if !ok {
				return fmt.Errorf("bookmark delta did not contain BookmarkInfo: %T", obj)
			}
			p.store.Bookmark(info.ResourceVersion)
		case ReplacedAll:
			var info ReplacedAllInfo
			var listKeys []string
			switch o := obj.(type) {
			case ReplacedAllInfo:
				info = o
			case keyedReplacedAll:
				info, listKeys = o.ReplacedAllInfo, o.keys
			default:
				return fmt.Errorf("ReplacedAll did not contain ReplacedAllInfo: %T", obj)
			}
			if err := p.processReplacedAll(info, listKeys, isInInitialList); err != nil {
				return err
			}
		case SyncAll:
			if _, ok := obj.(SyncAllInfo); !ok {
				return fmt.Errorf("SyncAll did not contain SyncAllInfo: %T", obj)
			}
			for _, stored := range p.store.List() {
				p.handler.OnUpdate(stored, stored)
			}
			return nil
		default:
			return fmt.Errorf("unknown delta type %q", d.Type)
		}
	}
	return nil
}

// delete deletes obj, whose key the queue computed as queueKey (or "").
func (p *deltaProcessor) delete(queueKey string, obj any) error {
	key, err := p.keyFor(queueKey, obj)
	if err != nil {
		return err
	}
	p.store.deleteKeyed(key, obj)
	return nil
}

// storeAndNotify stores obj, whose key the queue computed as queueKey (or
// ""), and reports it as an update of what the store held under its key, or
// as an add.
func (p *deltaProcessor) storeAndNotify(queueKey string, obj any, isInInitialList bool) error {
	key, err := p.keyFor(queueKey, obj)
	if err != nil {
		return fmt.Errorf("write to the store: %w", err)
	}
	old, existed, err := p.store.swapKeyed(key, obj)
	switch {
	case err != nil:
		return fmt.Errorf("write to the store: %w", err)
	case existed:
		p.handler.OnUpdate(old, obj)
	default:
		p.handler.OnAdd(obj, isInInitialList)
	}
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

// processDeltasInBatch applies a batch of deltas (with distinct keys, as
// [QueueWithBatch.PopBatch] hands them out; a key given twice sees its first
// write, as if the deltas had been processed one after the other) to the
// store in one transaction and then tells the handler about each applied
// write, in delta order: OnDelete for a deletion, OnUpdate(old, new) when
// the key held an object, OnAdd otherwise. keys[i], when keys is not nil, is
// the key the queue computed for deltas[i]. A delta whose key cannot be
// computed is not written. When some are not, the error returned wraps a
// [TransactionError] over the whole batch. Only the per-object delta types
// may be batched; any other type fails the batch before anything is written.
func (p *deltaProcessor) processDeltasInBatch(keys []string, deltas []Delta, isInInitialList bool) error {
	for _, d := range deltas {
		switch d.Type {
		case Added, Updated, Replaced, Sync, Deleted:
		default:
			return fmt.Errorf("delta type %s is not supported in batch processing", d.Type)
		}
	}
	storeKeys, keyErrs := p.storeKeys(keys, deltas)
	if keyErrs == nil && p.fillEmptyStore(storeKeys, deltas, isInInitialList) {
		return nil
	}
	// txns[j] writes deltas[written[j]]: every delta whose key is known,
	// in order. written is nil when that is every delta.
	txns := make([]ThreadSafeStoreTransaction, 0, len(deltas))
	var written []int
	for i, d := range deltas {
		if keyErrs != nil {
			if keyErrs[i] != nil {
				continue
			}
			written = append(written, i)
		}
		typ := TransactionTypeUpdate // stores the object, whether or not the key is there
		if d.Type == Deleted {
			typ = TransactionTypeDelete
		}
		txns = append(txns, ThreadSafeStoreTransaction{Transaction: Transaction{Object: d.Object, Type: typ}, Key: storeKeys[i]})
	}
	priors := make([]storedState, len(txns))
	txnErr := p.store.transactionKeyed(txns, priors)
	clear(txns) // let the objects go once written
	deltaOf := func(j int) int {
		if written == nil {
			return j
		}
		return written[j]
	}
	notify := func(j int) {
		d, prior := deltas[deltaOf(j)], priors[j]
		switch {
		case d.Type == Deleted:
			p.handler.OnDelete(d.Object)
		case prior.existed:
			p.handler.OnUpdate(prior.obj, d.Object)
		default:
			p.handler.OnAdd(d.Object, isInInitialList)
		}
	}
	if txnErr == nil && keyErrs == nil {
		for j := range txns {
			notify(j)
		}
		return nil
	}
	// Report the applied writes, and fail the others with their errors.
	errs := keyErrs
	if errs == nil {
		errs = make([]error, len(deltas))
	}
	applied := make([]bool, len(txns))
	if txnErr == nil {
		for j := range applied {
			applied[j] = true
		}
	} else {
		for _, j := range txnErr.SuccessfulIndices {
			applied[j] = true
		}
	}
	failed := 0
	for j := range txns {
		if applied[j] {
			notify(j)
			continue
		}
		errs[deltaOf(j)] = txnErr.Errors[failed]
		failed++
	}
	return fmt.Errorf("not all items in the batch successfully processed: %w", newTransactionError(errs))
}

// fillEmptyStore writes a batch of adds and updates into an empty store at
// once (a DeltaFIFO's first list, as a bulk) and tells the handler, as
// processDeltasInBatch would: an add per object, and for a key the batch
// repeats, an update from its previous copy. It reports false, having done
// nothing, when the batch holds a deletion, the store is not empty, or an
// object cannot be stored.
func (p *deltaProcessor) fillEmptyStore(storeKeys []string, deltas []Delta, isInInitialList bool) bool {
	if len(deltas) < 2 || p.store.len() != 0 {
		return false
	}
	objs := make([]any, len(deltas))
	for i, d := range deltas {
		if d.Type == Deleted {
			return false
		}
		objs[i] = d.Object
	}
	if err := p.store.fillKeyed(storeKeys, objs); err != nil {
		return false
	}
	if p.store.len() == len(objs) { // no key repeated
		for _, obj := range objs {
			p.handler.OnAdd(obj, isInInitialList)
		}
		return true
	}
	previous := make(map[string]any, len(objs))
	for i, obj := range objs {
		if old, seen := previous[storeKeys[i]]; seen {
			p.handler.OnUpdate(old, obj)
		} else {
			p.handler.OnAdd(obj, isInInitialList)
		}
		previous[storeKeys[i]] = obj
	}
	return true
}

// storeKeys returns the keys under which deltas go into the store, reusing
// keys (the queue's, overwritten) when it is not nil. errs is nil when every
// key is known; otherwise errs[i] is the error of deltas[i] whose key could
// not be computed.
func (p *deltaProcessor) storeKeys(keys []string, deltas []Delta) (storeKeys []string, errs []error) {
	storeKeys = keys
	if storeKeys == nil {
		storeKeys = make([]string, len(deltas))
	}
	for i, d := range deltas {
		queueKey := ""
		if keys != nil {
			queueKey = keys[i]
		}
		key, err := p.keyFor(queueKey, d.Object)
		if err != nil {
			if errs == nil {
				errs = make([]error, len(deltas))
			}
			errs[i] = err
		}
		storeKeys[i] = key
	}
	return storeKeys, errs
}

// processReplacedAll reconciles the store with a complete list, as a
// [RealFIFO] with atomic events delivers it. It works out which stored keys
// are missing from the list (each becomes a [DeletedFinalStateUnknown]
// carrying the stored object) and which listed objects replace a stored one,
// then replaces the store's contents first, so that handlers see a store that
// already reflects the list, and then calls OnDelete for the missing keys (in
// key order) followed by OnUpdate(old, new) or OnAdd(new, isInInitialList) for
// every listed object, in list order. queueKeys, when not nil, are the keys
// the queue computed for the listed objects; they are used as they are when
// the queue's keys match the store's (queueKeysMatch). A listed object whose
// key cannot be computed, or that the store fails to look up, fails the
// whole reconciliation before anything changes.
func (p *deltaProcessor) processReplacedAll(info ReplacedAllInfo, queueKeys []string, isInInitialList bool) error {
	keys := queueKeys
	if !p.queueKeysMatch || len(keys) != len(info.Objects) {
		keys = make([]string, len(info.Objects))
		for i, obj := range info.Objects {
			key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
			if err != nil {
				return KeyError{Obj: obj, Err: err}
			}
			keys[i] = key
		}
	}
	var listed sets.Set[string] // made when the first stored key is looked up
	isListed := func(key string) bool {
		if listed == nil {
			listed = sets.New(keys...)
		}
		return listed.Has(key)
	}
	tombstones := slices.SortedFunc(vanishedTombstones(p.logger, p.store, isListed), func(a, b DeletedFinalStateUnknown) int {
		return strings.Compare(a.Key, b.Key)
	})

	// Every listed object is an add when the store is empty (the first
	// list): no need to look them up.
	allAdds := p.store.len() == 0
	var notes []handlerCall
	if !allAdds {
		notes = make([]handlerCall, 0, len(info.Objects))
		for i, obj := range info.Objects {
			old, exists, err := p.store.GetByKey(keys[i])
			if err != nil {
				return fmt.Errorf("read the store: %w", err)
			}
			if exists {
				notes = append(notes, handlerCall{kind: Updated, old: old, obj: obj})
			} else {
				notes = append(notes, handlerCall{kind: Added, obj: obj})
			}
		}
	}

	if err := p.store.replaceKeyed(keys, info.Objects, info.ResourceVersion); err != nil {
		return fmt.Errorf("replace the store's contents: %w", err)
	}
	for _, tomb := range tombstones {
		p.handler.OnDelete(tomb)
	}
	if allAdds {
		for _, obj := range info.Objects {
			p.handler.OnAdd(obj, isInInitialList)
		}
		return nil
	}
	for _, n := range notes {
		n.deliver(p.handler, isInInitialList)
	}
	return nil
}
