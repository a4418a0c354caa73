//go:build ignore

// Shims for client-go's tools/cache tests: the test-only accessors and
// unexported helpers they use, written against this package's internals.
// Each does what its client-go namesake does, so that the tests check the
// same behaviour; none changes what the package does. The runner adds this
// file to ./cache (without the build constraint) when it runs them.

package cache

import (
	"fmt"
	"sync/atomic"

	"k8s.io/klog/v2"
)

// A RealFIFO's atomic-events switch.
//upstream:rename emitAtomicEvents=atomicEvents

// list returns the newest object of every queued item.
func (f *DeltaFIFO) list() []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.listLocked()
}

func (f *DeltaFIFO) listLocked() []any {
	list := make([]any, 0, len(f.items))
	for _, item := range f.items {
		list = append(list, item.Newest().Object)
	}
	return list
}

// listKeys returns the queued keys in queue order.
func (f *DeltaFIFO) listKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.queue...)
}

// get returns a copy of the deltas queued for obj's key.
func (f *DeltaFIFO) get(obj any) (item any, exists bool, err error) {
	key, err := f.KeyOf(obj)
	if err != nil {
		return nil, false, KeyError{obj, err}
	}
	return f.getByKey(key)
}

// getByKey returns a copy of the deltas queued under key.
func (f *DeltaFIFO) getByKey(key string) (item any, exists bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, exists := f.items[key]
	if exists {
		d = copyDeltas(d)
	}
	return d, exists, nil
}

func copyDeltas(d Deltas) Deltas {
	return append(Deltas(nil), d...)
}

// List returns the queued objects.
func (f *FIFO) List() []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := make([]any, 0, len(f.items))
	for _, item := range f.items {
		list = append(list, item)
	}
	return list
}

// LastStoreSyncResourceVersion is not implemented by a FIFO.
func (f *FIFO) LastStoreSyncResourceVersion() string { return "" }

// Bookmark is not implemented by a FIFO.
func (f *FIFO) Bookmark(string) {}

// ListKeys returns the queued keys.
func (f *FIFO) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := make([]string, 0, len(f.items))
	for key := range f.items {
		list = append(list, key)
	}
	return list
}

// Get returns the object queued under obj's key.
func (f *FIFO) Get(obj any) (item any, exists bool, err error) {
	key, err := f.keyFunc(obj)
	if err != nil {
		return nil, false, KeyError{obj, err}
	}
	return f.GetByKey(key)
}

// GetByKey returns the object queued under key.
func (f *FIFO) GetByKey(key string) (item any, exists bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	item, exists = f.items[key]
	return item, exists, nil
}

// getItems returns the queued deltas in order.
func (f *RealFIFO) getItems() []Delta {
	f.mu.Lock()
	defer f.mu.Unlock()
	ret := make([]Delta, len(f.items))
	for i, item := range f.items {
		ret[i] = item.Delta
	}
	return ret
}

// closedMsg is the text of the error a closed Heap returns.
var closedMsg = errHeapClosed.Error()

// isRegistered reports whether h is registered with i.
func isRegistered(i SharedInformer, h ResourceEventHandlerRegistration) bool {
	s := i.(*sharedIndexInformer)
	l, ok := h.(*processorListener)
	if !ok {
		return false
	}
	s.processor.mu.RLock()
	defer s.processor.mu.RUnlock()
	_, ok = s.processor.index[l]
	return ok
}

// processDeltas applies one item's deltas to clientState and tells handler,
// as an informer's processing does; keyFunc keys the objects, as the
// informer's queue would.
func processDeltas(logger klog.Logger, handler ResourceEventHandler, clientState Store, deltas Deltas, isInInitialList bool, keyFunc KeyFunc) error {
	p := newDeltaProcessor(logger, handler, storeOf(clientState), nil)
	p.queueKeysMatch = true
	key := ""
	keyed := make(Deltas, len(deltas))
	for i, d := range deltas {
		var err error
		if keyed[i], key, err = keyedDelta(d, keyFunc); err != nil {
			return err
		}
	}
	return p.processKeyed(key, keyed, isInInitialList)
}

// processDeltasInBatch applies a batch of deltas to clientState and tells
// handler, as an informer's batch processing does.
func processDeltasInBatch(logger klog.Logger, handler ResourceEventHandler, clientState Store, deltas []Delta, isInInitialList bool, keyFunc KeyFunc) error {
	p := newDeltaProcessor(logger, handler, storeOf(clientState), nil)
	p.queueKeysMatch = true
	keys := make([]string, len(deltas))
	keyed := make([]Delta, len(deltas))
	for i, d := range deltas {
		var err error
		if keyed[i], keys[i], err = keyedDelta(d, keyFunc); err != nil {
			return err
		}
	}
	return p.processBatchKeyed(keys, keyed, isInInitialList)
}

// storeOf returns clientState as an informer's processing writes it: itself
// when it is a store of this package (the informers' stores are), else an
// exportedStore.
func storeOf(clientState Store) deltaStore {
	if c, ok := clientState.(*cache); ok {
		return c
	}
	return exportedStore{clientState}
}

// exportedStore writes a Store of the tests (a TransactionStore that fails
// chosen objects, say) through its exported methods, as client-go's
// processing does: an object is added unless Get finds it, then updated,
// and a batch is one Transaction when the store has it. The keys the
// processing hands it are not used.
type exportedStore struct{ Store }

func (s exportedStore) len() int { return len(s.ListKeys()) }

func (s exportedStore) swapKeyed(_ string, obj any) (any, bool, error) {
	if old, exists, err := s.Get(obj); err == nil && exists {
		return old, true, s.Update(obj)
	}
	return nil, false, s.Add(obj)
}

func (s exportedStore) deleteKeyed(_ string, obj any) { _ = s.Delete(obj) }

func (s exportedStore) replaceKeyed(_ []string, objs []any, resourceVersion string) error {
	return s.Replace(objs, resourceVersion)
}

// fillKeyed refuses: the processing then writes the batch as a transaction.
func (s exportedStore) fillKeyed([]string, []any) error {
	return fmt.Errorf("%T is not a store of this package", s.Store)
}

func (s exportedStore) transactionKeyed(txns []ThreadSafeStoreTransaction, priors []storedState) *TransactionError {
	plain := make([]Transaction, len(txns))
	for i, txn := range txns {
		plain[i] = txn.Transaction
		if txn.Type == TransactionTypeDelete {
			continue
		}
		old, exists, err := s.Get(txn.Object)
		if err == nil && exists {
			priors[i], plain[i].Type = storedState{obj: old, existed: true}, TransactionTypeUpdate
		} else {
			plain[i].Type = TransactionTypeAdd
		}
	}
	if ts, ok := s.Store.(TransactionStore); ok {
		return ts.Transaction(plain...)
	}
	errs := make([]error, len(plain))
	for i, txn := range plain {
		switch txn.Type {
		case TransactionTypeAdd:
			errs[i] = s.Add(txn.Object)
		case TransactionTypeUpdate:
			errs[i] = s.Update(txn.Object)
		case TransactionTypeDelete:
			errs[i] = s.Delete(txn.Object)
		}
	}
	return newTransactionError(errs)
}

// keyedDelta returns d as a queue keyed with keyFunc hands it to the
// processing, and its key ("" for the deltas about the whole store).
func keyedDelta(d Delta, keyFunc KeyFunc) (Delta, string, error) {
	switch obj := d.Object.(type) {
	case ReplacedAllInfo:
		keys := make([]string, len(obj.Objects))
		for i, o := range obj.Objects {
			k, err := keyFunc(o)
			if err != nil {
				return d, "", KeyError{o, err}
			}
			keys[i] = k
		}
		d.Object = keyedReplacedAll{ReplacedAllInfo: obj, keys: keys}
		return d, "", nil
	case SyncAllInfo:
		return d, "", nil
	}
	if d.Type == Bookmark {
		return d, "", nil
	}
	k, err := keyFunc(d.Object)
	if err != nil {
		return d, "", KeyError{d.Object, err}
	}
	return d, k, nil
}

// newQueueFIFO returns the queue client-go's informers use with their
// default feature gates: a RealFIFO with atomic events.
func newQueueFIFO(logger klog.Logger, objectType any, clientState Store, transform TransformFunc, identifier InformerNameAndResource, metricsProvider InformerMetricsProvider) (klog.Logger, Queue) {
	f := NewRealFIFOWithOptions(RealFIFOOptions{
		Logger:                &logger,
		Name:                  fmt.Sprintf("RealFIFO %T", objectType),
		KeyFunction:           MetaNamespaceKeyFunc,
		Transformer:           transform,
		Identifier:            identifier,
		MetricsProvider:       metricsProvider,
		AtomicEvents:          true,
		UnlockWhileProcessing: true,
		EmitDeltaTypeBookmark: true,
	})
	return logger, f
}

// sharedProcessorRunHook delays client-go's processor start; nothing reads
// it here. Only testListenerResyncPeriods mentions it, and only with a
// startup delay, which TestListenerResyncPeriodsDelayed (left out) asks for.
var sharedProcessorRunHook atomic.Pointer[func()]
