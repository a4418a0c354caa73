package cache

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
)

// errNotDeltas is returned when a queue hands the informer something other
// than a Deltas.
var errNotDeltas = errors.New("object given as Process argument is not Deltas")

// deltaProcessor applies what an informer's queue pops to the informer's
// store and tells the handler: its methods are the functions that process
// popped items in every informer of this package. The store must be keyed by
// [DeletionHandlingMetaNamespaceKeyFunc], as the informers' stores are.
//
// When the store is a keyedStore, the keys the queue computed for the popped
// objects are handed to it, so that no key is computed twice on the way from
// the reflector to the store; a key that no longer matches its object (a
// transformer renamed it after the queue keyed it) is computed again.
type deltaProcessor struct {
	logger  klog.Logger
	handler ResourceEventHandler
	store   Store
	keyed   keyedStore  // store, when it takes keys; else nil
	lock    sync.Locker // held while processing; nil: none
	// queueKeysMatch is set when the queue keys the very objects it hands
	// out (it has no transformer): its keys are then used without checking
	// them against their objects.
	queueKeysMatch bool
}

// keyedStore is a [Store] that writes under keys its caller computed: the
// stores of [NewStore] and [NewIndexer]. Every key must be the store's key
// of its object.
type keyedStore interface {
	Store
	swapKeyed(key string, obj any) (old any, existed bool, err error)
	deleteKeyed(key string, obj any)
	replaceKeyed(keys []string, objs []any, resourceVersion string) error
	transactionKeyed(txns []ThreadSafeStoreTransaction, priors []storedState) *TransactionError
	fillKeyed(keys []string, objs []any) error
	len() int
}

var _ keyedStore = (*cache)(nil)

// newDeltaProcessor returns the processing of an informer whose store is
// store; lock may be nil.
func newDeltaProcessor(logger klog.Logger, handler ResourceEventHandler, store Store, lock sync.Locker) *deltaProcessor {
	keyed, _ := store.(keyedStore)
	return &deltaProcessor{logger: logger, handler: handler, store: store, keyed: keyed, lock: lock}
}

// process is a [ProcessFunc]: it applies one popped [Deltas].
func (p *deltaProcessor) process(obj any, isInInitialList bool) error {
	deltas, ok := obj.(Deltas)
	if !ok {
		return fmt.Errorf("%w: %T", errNotDeltas, obj)
	}
	return p.processKeyed("", deltas, isInInitialList)
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

// processBatch is a [ProcessBatchFunc]: it applies popped deltas.
func (p *deltaProcessor) processBatch(deltas []Delta, isInInitialList bool) error {
	return p.processBatchKeyed(nil, deltas, isInInitialList)
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
	if p.keyed == nil {
		return p.store.Delete(obj)
	}
	key, err := p.keyFor(queueKey, obj)
	if err != nil {
		return err
	}
	p.keyed.deleteKeyed(key, obj)
	return nil
}

// storeAndNotify stores obj, whose key the queue computed as queueKey (or
// ""), and reports it as an update of what the store held under its key, or
// as an add.
func (p *deltaProcessor) storeAndNotify(queueKey string, obj any, isInInitialList bool) error {
	if p.keyed != nil {
		key, err := p.keyFor(queueKey, obj)
		if err != nil {
			return fmt.Errorf("write to the store: %w", err)
		}
		old, existed, err := p.keyed.swapKeyed(key, obj)
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
	old, exists, err := p.store.Get(obj)
	if err != nil {
		return fmt.Errorf("read the store: %w", err)
	}
	if exists {
		if err := p.store.Update(obj); err != nil {
			return fmt.Errorf("update the store: %w", err)
		}
		p.handler.OnUpdate(old, obj)
		return nil
	}
	if err := p.store.Add(obj); err != nil {
		return fmt.Errorf("add to the store: %w", err)
	}
	p.handler.OnAdd(obj, isInInitialList)
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
// [QueueWithBatch.PopBatch] hands them out, except for the keyed store, see
// processKeyedBatch) to the store and then tells the handler, in delta order; keys[i], when keys is not nil, is the key the
// queue computed for deltas[i]. When the store is a [TransactionStore] every
// write happens in one transaction before any handler call, and only the
// writes the transaction applied are reported; a partial failure is returned
// as an error that wraps the [TransactionError] (and the errors of the
// deltas whose old state the store failed to read, which are not written).
// Otherwise each delta goes through processDeltas on its own, and the
// errors are joined. Only the per-object delta types may be batched; any
// other type fails the batch before anything is written.
func (p *deltaProcessor) processDeltasInBatch(keys []string, deltas []Delta, isInInitialList bool) error {
	txnStore, ok := p.store.(TransactionStore)
	if !ok {
		var errs []error
		for i, d := range deltas {
			if err := p.processDeltas(keyAt(keys, i), Deltas{d}, isInInitialList); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("unexpected error when handling deltas: %w", errors.Join(errs...))
		}
		return nil
	}
	for _, d := range deltas {
		switch d.Type {
		case Added, Updated, Replaced, Sync, Deleted:
		default:
			return fmt.Errorf("delta type %s is not supported in batch processing", d.Type)
		}
	}

	if storeKeys, ok := p.storeKeys(keys, deltas); ok {
		return p.processKeyedBatch(storeKeys, deltas, isInInitialList)
	}

	// notes[i] reports the write of txns[i]; a delta whose old state cannot
	// be read is not written, and its error is returned with the
	// transaction's.
	notes := make([]handlerCall, 0, len(deltas))
	var readErrs []error
	txns := make([]Transaction, 0, len(deltas))
	for _, d := range deltas {
		var old any
		var exists bool
		if d.Type != Deleted {
			var readErr error
			if old, exists, readErr = p.store.Get(d.Object); readErr != nil {
				readErrs = append(readErrs, fmt.Errorf("read the store: %w", readErr))
				continue
			}
		}
		txn, note := batchWrite(d, old, exists)
		txns = append(txns, txn)
		notes = append(notes, note)
	}
	err := txnStore.Transaction(txns...)

	if err != nil {
		for _, i := range err.SuccessfulIndices {
			if i >= 0 && i < len(notes) {
				notes[i].deliver(p.handler, isInInitialList)
			}
		}
		return errors.Join(append(readErrs, fmt.Errorf("not all items in the batch successfully processed: %w", err))...)
	}
	for _, n := range notes {
		n.deliver(p.handler, isInInitialList)
	}
	if len(readErrs) > 0 {
		return fmt.Errorf("not all items in the batch successfully processed: %w", errors.Join(readErrs...))
	}
	return nil
}

// processKeyedBatch is processDeltasInBatch for a keyed store, deltas[i]
// going under storeKeys[i]: one transaction writes them all, reporting what
// each key held just before its write, and the handler is then told about
// each applied write, in delta order. A key given twice sees its first write
// (an add, then an update), as if its deltas had been processed one after
// the other.
func (p *deltaProcessor) processKeyedBatch(storeKeys []string, deltas []Delta, isInInitialList bool) error {
	if p.fillEmptyStore(storeKeys, deltas, isInInitialList) {
		return nil
	}
	txns := make([]ThreadSafeStoreTransaction, len(deltas))
	for i, d := range deltas {
		typ := TransactionTypeUpdate // stores the object, whether or not the key is there
		if d.Type == Deleted {
			typ = TransactionTypeDelete
		}
		txns[i] = ThreadSafeStoreTransaction{Transaction: Transaction{Object: d.Object, Type: typ}, Key: storeKeys[i]}
	}
	priors := make([]storedState, len(deltas))
	err := p.keyed.transactionKeyed(txns, priors)
	clear(txns) // let the objects go once written
	notify := func(i int) {
		d, prior := deltas[i], priors[i]
		switch {
		case d.Type == Deleted:
			p.handler.OnDelete(d.Object)
		case prior.existed:
			p.handler.OnUpdate(prior.obj, d.Object)
		default:
			p.handler.OnAdd(d.Object, isInInitialList)
		}
	}
	if err != nil {
		for _, i := range err.SuccessfulIndices {
			notify(i)
		}
		return fmt.Errorf("not all items in the batch successfully processed: %w", err)
	}
	for i := range deltas {
		notify(i)
	}
	return nil
}

// fillEmptyStore writes a batch of adds and updates into an empty store at
// once (a DeltaFIFO's first list, as a bulk) and tells the handler, as
// processKeyedBatch would: an add per object, and for a key the batch
// repeats, an update from its previous copy. It reports false, having done
// nothing, when the batch holds a deletion, the store is not empty, or an
// object cannot be stored.
func (p *deltaProcessor) fillEmptyStore(storeKeys []string, deltas []Delta, isInInitialList bool) bool {
	if len(deltas) < 2 || p.keyed.len() != 0 {
		return false
	}
	objs := make([]any, len(deltas))
	for i, d := range deltas {
		if d.Type == Deleted {
			return false
		}
		objs[i] = d.Object
	}
	if err := p.keyed.fillKeyed(storeKeys, objs); err != nil {
		return false
	}
	if p.keyed.len() == len(objs) { // no key repeated
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

// keyAt returns keys[i], or "" when keys is nil.
func keyAt(keys []string, i int) string {
	if keys == nil {
		return ""
	}
	return keys[i]
}

// storeKeys returns the keys under which deltas go into the keyed store,
// reusing keys (the queue's) when it is not nil. ok is false when the store
// does not take keys, or a key cannot be computed: the caller then leaves
// the keys to the store.
func (p *deltaProcessor) storeKeys(keys []string, deltas []Delta) (storeKeys []string, ok bool) {
	if p.keyed == nil {
		return nil, false
	}
	storeKeys = keys
	if storeKeys == nil {
		storeKeys = make([]string, len(deltas))
	}
	for i, d := range deltas {
		key, err := p.keyFor(keyAt(keys, i), d.Object)
		if err != nil {
			return nil, false
		}
		storeKeys[i] = key
	}
	return storeKeys, true
}

// batchWrite returns the write of a batched delta d and the handler call that
// reports it, given what the store holds under d's key (old, if exists): the
// keys of a batch are distinct, so that is the old state of exactly this
// delta.
func batchWrite(d Delta, old any, exists bool) (Transaction, handlerCall) {
	switch {
	case d.Type == Deleted:
		return Transaction{Type: TransactionTypeDelete, Object: d.Object}, handlerCall{kind: Deleted, obj: d.Object}
	case exists:
		return Transaction{Type: TransactionTypeUpdate, Object: d.Object}, handlerCall{kind: Updated, old: old, obj: d.Object}
	default:
		return Transaction{Type: TransactionTypeAdd, Object: d.Object}, handlerCall{kind: Added, obj: d.Object}
	}
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
	counted, ok := p.store.(interface{ len() int })
	allAdds := ok && counted.len() == 0
	var notes []handlerCall
	if !allAdds {
		notes = make([]handlerCall, 0, len(info.Objects))
		for i, obj := range info.Objects {
			var old any
			var exists bool
			var err error
			if p.keyed != nil {
				old, exists, err = p.keyed.GetByKey(keys[i])
			} else {
				old, exists, err = p.store.Get(obj)
			}
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

	var err error
	if p.keyed != nil {
		err = p.keyed.replaceKeyed(keys, info.Objects, info.ResourceVersion)
	} else {
		err = p.store.Replace(info.Objects, info.ResourceVersion)
	}
	if err != nil {
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
