package cache

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/informer-go/informer/cache/internal/store"
)

// ThreadSafeStore is a map from caller-supplied keys to objects, with
// secondary indexes, safe for concurrent use. Unlike [Indexer] it does not
// compute keys itself.
//
// Objects are stored and returned as they are, without copying: a pointer
// given to Add is what Get returns to every caller. Treat stored and returned
// objects as read-only. Mutating one races with other readers, and the
// indexes are not updated to match.
//
// The implementation returned by [NewThreadSafeStore] refuses a write when an
// index function fails on the new object or the object is nil: the store is
// left unchanged and the error is reported to
// [k8s.io/apimachinery/pkg/util/runtime.HandleError] (client-go panics).
type ThreadSafeStore interface {
	// Add stores obj under key, replacing what was there, and records the
	// object's resource version as the store's. It is the same as Update.
	Add(key string, obj any)
	// Update stores obj under key, replacing what was there, and records the
	// object's resource version as the store's.
	Update(key string, obj any)
	// Delete removes key. Unlike DeleteWithObject it leaves the store's
	// resource version as it is, which may leave it out of date.
	Delete(key string)
	// DeleteWithObject removes key and records the resource version of obj,
	// the deleted object's last state, as the store's. A nil obj, or one
	// without metadata, leaves the resource version unchanged.
	DeleteWithObject(key string, obj any)
	// Get returns the object stored under key.
	Get(key string) (item any, exists bool)
	// List returns every stored object, in no particular order.
	List() []any
	// ListKeys returns every key, in no particular order.
	ListKeys() []string
	// Replace discards the contents and stores items instead, taking
	// ownership of the map, and records resourceVersion as the store's.
	Replace(map[string]any, string)
	// Index returns the stored objects that share at least one indexed
	// value of the named index with obj, each once, in no particular order.
	Index(indexName string, obj any) ([]any, error)
	// IndexKeys returns, sorted, the keys of the objects indexed under
	// indexedValue in the named index.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// Bookmark records rv as the store's resource version.
	Bookmark(rv string)
	// LastStoreSyncResourceVersion returns the store's resource version: the
	// last one recorded by Add, Update, DeleteWithObject, Replace or
	// Bookmark, whichever came last (it is not compared, an older version
	// recorded later wins).
	LastStoreSyncResourceVersion() string
	// ListIndexFuncValues returns the values present in the named index, in
	// no particular order; none for an unknown index.
	ListIndexFuncValues(name string) []string
	// ByIndex returns the objects indexed under indexedValue in the named
	// index, in no particular order.
	ByIndex(indexName, indexedValue string) ([]any, error)
	// GetIndexers returns the index functions by name.
	GetIndexers() Indexers

	// AddIndexers adds index functions and indexes the stored objects with
	// them. It fails, changing nothing, when a name is already in use.
	AddIndexers(newIndexers Indexers) error
	// Resync does nothing.
	//
	// Deprecated: it has no effect and is kept for compatibility.
	Resync() error
}

// ThreadSafeStoreWithTransaction is a [ThreadSafeStore] that can apply several
// writes while holding its lock once.
type ThreadSafeStoreWithTransaction interface {
	ThreadSafeStore
	// Transaction applies the writes in order while holding the lock. See
	// [TransactionStore].
	Transaction(fns ...ThreadSafeStoreTransaction)
}

// ThreadSafeStoreOption configures a store built by [NewThreadSafeStore].
type ThreadSafeStoreOption = func(*threadSafeMap)

// WithThreadSafeStoreMetrics publishes the store's resource version as a gauge
// of the given identity, created by metricsProvider (nil: the process-wide
// provider of [SetInformerMetricsProvider]). Nothing is published for an
// identity that is not reserved.
func WithThreadSafeStoreMetrics(identifier InformerNameAndResource, metricsProvider InformerMetricsProvider) ThreadSafeStoreOption {
	return func(c *threadSafeMap) {
		c.metrics = newStoreMetrics(identifier, metricsProvider)
	}
}

// NewThreadSafeStore returns an empty [ThreadSafeStore] (which is also a
// [ThreadSafeStoreWithTransaction]) with the given index functions. indices
// exists for compatibility with client-go: pass Indices{} or nil, its
// contents are ignored. The store keeps its own copy of indexers; nil index
// functions are reported to HandleError and left out.
func NewThreadSafeStore(indexers Indexers, indices Indices, opts ...ThreadSafeStoreOption) ThreadSafeStore {
	return newThreadSafeMap(indexers, opts...)
}

func newThreadSafeMap(indexers Indexers, opts ...ThreadSafeStoreOption) *threadSafeMap {
	usable := make(map[string]store.IndexFunc, len(indexers))
	for name, fn := range indexers {
		if fn == nil {
			utilruntime.HandleError(errors.New("index function " + strconv.Quote(name) + " is nil, the index is left out"))
			continue
		}
		usable[name] = fn
	}
	set, _ := store.NewIndexSet(usable) // cannot fail: no nil function
	c := &threadSafeMap{contents: store.New(set, 0)}
	c.indexSet.Store(set)
	for _, opt := range opts {
		if opt != nil {
			opt(c)
		}
	}
	if c.metrics == nil {
		c.metrics = &storeMetrics{resourceVersion: noopMetric{}}
	}
	return c
}

var _ ThreadSafeStoreWithTransaction = (*threadSafeMap)(nil)

// threadSafeMap implements ThreadSafeStoreWithTransaction: one RWMutex around
// the objects with their indexes ([store.Contents], which does the
// bookkeeping) and the resource version.
//
// Writers compute the indexed values of an object before taking the lock,
// from the current index set; under the lock they recompute only if
// AddIndexers changed the set meanwhile. A failing index function therefore
// refuses the write before anything is modified.
type threadSafeMap struct {
	lock sync.RWMutex
	// contents is guarded by lock. Replace swaps in new contents.
	contents *store.Contents
	// indexSet is contents.IndexSet(), readable without the lock; stored
	// under lock.
	indexSet atomic.Pointer[store.IndexSet]
	// rv is guarded by lock: the store's resource version.
	rv string

	metrics *storeMetrics // set at construction, never nil
}

// keyedValues is one prepared write: the indexed values of an object computed
// with a given index set.
type keyedValues struct {
	set    *store.IndexSet
	values [][]string
}

// prepare computes the indexed values of obj with the current index set. buf
// is scratch space for the result.
func (c *threadSafeMap) prepare(key string, obj any, buf [][]string) (keyedValues, error) {
	if obj == nil {
		return keyedValues{}, &store.NilItemError{Key: key}
	}
	set := c.indexSet.Load()
	values, err := set.Compute(key, obj, 0, buf[:0])
	return keyedValues{set: set, values: values}, err
}

// refreshLocked returns p, recomputed if the index set changed since it was
// prepared.
func (c *threadSafeMap) refreshLocked(key string, obj any, p keyedValues) (keyedValues, error) {
	set := c.contents.IndexSet()
	if p.set == set {
		return p, nil
	}
	values, err := set.Compute(key, obj, p.set.Len(), p.values)
	if err != nil {
		return p, err
	}
	return keyedValues{set: set, values: values}, nil
}

// Add is Update.
func (c *threadSafeMap) Add(key string, obj any) {
	c.Update(key, obj)
}

// Update stores obj under key. A refused write is reported to HandleError.
func (c *threadSafeMap) Update(key string, obj any) {
	if err := c.update(key, obj); err != nil {
		utilruntime.HandleError(err)
	}
}

// update stores obj under key and records its resource version. It fails,
// changing nothing, when obj is nil or an index function fails on it.
func (c *threadSafeMap) update(key string, obj any) error {
	_, _, err := c.swap(key, obj)
	return err
}

// swap is update that also returns what key held before, read under the
// same lock as the write.
func (c *threadSafeMap) swap(key string, obj any) (old any, existed bool, err error) {
	var buf [4][]string
	p, err := c.prepare(key, obj, buf[:])
	if err != nil {
		return nil, false, err
	}
	return c.commit(key, obj, p)
}

// commit stores obj under key with the indexed values prepared for it,
// records its resource version, and returns what key held before.
func (c *threadSafeMap) commit(key string, obj any, p keyedValues) (old any, existed bool, err error) {
	rv, hasRV := rvFromObject(obj)
	c.lock.Lock()
	defer c.lock.Unlock()
	p, err = c.refreshLocked(key, obj, p)
	if err != nil {
		return nil, false, err
	}
	old, existed = c.contents.Put(key, obj, p.values)
	if hasRV {
		c.setRVLocked(rv)
	}
	return old, existed, nil
}

// Delete removes key without touching the resource version.
func (c *threadSafeMap) Delete(key string) {
	c.DeleteWithObject(key, nil)
}

// DeleteWithObject removes key and records the resource version of obj.
func (c *threadSafeMap) DeleteWithObject(key string, obj any) {
	rv, hasRV := "", false
	if obj != nil {
		rv, hasRV = rvFromObject(obj)
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	c.contents.Delete(key)
	if hasRV {
		c.setRVLocked(rv)
	}
}

// Transaction applies txns in order under one lock. Writes that cannot be
// applied are reported to HandleError; see transaction.
func (c *threadSafeMap) Transaction(txns ...ThreadSafeStoreTransaction) {
	for _, err := range c.transaction(txns) {
		if err != nil {
			utilruntime.HandleError(err)
		}
	}
}

// transaction applies txns in order while holding the lock once, and then
// records the resource version of the object of the last applied write. A
// write is not applied, and its error is returned at its position, when its
// type is unknown, or it is an add or update of a nil object or of an object
// an index function fails on. The result is nil when every write applied.
func (c *threadSafeMap) transaction(txns []ThreadSafeStoreTransaction) []error {
	return c.transact(txns, nil)
}

// storedState is what a key held just before a write of a transaction.
type storedState struct {
	obj     any
	existed bool
}

// transact is transaction that, when priors is not nil (it then has one
// entry per write), also records there what each applied write's key held
// just before it: a key written twice sees its first write. Adds and updates
// are the same write. The index values of the objects are computed before
// the lock is taken, and the table is sized once for a batch that would
// otherwise grow it.
func (c *threadSafeMap) transact(txns []ThreadSafeStoreTransaction, priors []storedState) []error {
	if len(txns) == 0 {
		return nil
	}
	var errs []error
	fail := func(i int, err error) {
		if errs == nil {
			errs = make([]error, len(txns))
		}
		errs[i] = err
	}
	set := c.indexSet.Load()
	k := set.Len()
	prepared := make([][][]string, len(txns)) // the index values of each write
	var flat [][]string                       // their storage, k per write
	if k > 0 {
		flat = make([][]string, 0, len(txns)*k)
	}
	puts := 0
	for i, txn := range txns {
		switch txn.Type {
		case TransactionTypeAdd, TransactionTypeUpdate:
			puts++
			if txn.Object == nil {
				fail(i, &store.NilItemError{Key: txn.Key})
				continue
			}
			values, err := set.Compute(txn.Key, txn.Object, 0, flat[len(flat):len(flat):len(flat)+k])
			if err != nil {
				fail(i, err)
				continue
			}
			prepared[i] = values
			flat = flat[:len(flat)+k]
		case TransactionTypeDelete:
		default:
			fail(i, &unknownTransactionTypeError{txn.Type})
		}
	}

	c.lock.Lock()
	defer c.lock.Unlock()
	if puts > c.contents.Len() {
		// Mostly new keys (a first list): size the table once.
		c.contents.Reserve(puts)
	}
	last := -1
	for i, txn := range txns {
		if errs != nil && errs[i] != nil {
			continue
		}
		var prior storedState
		if txn.Type == TransactionTypeDelete {
			prior.obj, prior.existed = c.contents.Delete(txn.Key)
		} else {
			p, err := c.refreshLocked(txn.Key, txn.Object, keyedValues{set: set, values: prepared[i]})
			if err != nil {
				fail(i, err)
				continue
			}
			prior.obj, prior.existed = c.contents.Put(txn.Key, txn.Object, p.values)
		}
		if priors != nil {
			priors[i] = prior
		}
		last = i
	}
	if last >= 0 {
		if rv, ok := rvFromObject(txns[last].Object); ok {
			c.setRVLocked(rv)
		}
	}
	return errs
}

// Get returns the object stored under key. It does not allocate.
func (c *threadSafeMap) Get(key string) (item any, exists bool) {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.contents.Get(key)
}

// getBytes is Get with the key given as bytes; the lookup does not allocate.
func (c *threadSafeMap) getBytes(key []byte) (item any, exists bool) {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.contents.GetBytes(key)
}

// List returns every object.
func (c *threadSafeMap) List() []any {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.contents.List()
}

// len returns the number of stored objects.
func (c *threadSafeMap) len() int {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.contents.Len()
}

// ListKeys returns every key.
func (c *threadSafeMap) ListKeys() []string {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.contents.Keys()
}

// Replace swaps in items. A refused replace is reported to HandleError.
func (c *threadSafeMap) Replace(items map[string]any, resourceVersion string) {
	if err := c.replace(items, resourceVersion); err != nil {
		utilruntime.HandleError(err)
	}
}

// replace swaps in items and records resourceVersion. It fails, changing
// nothing, when items holds a nil object or an index function fails on one
// of them.
func (c *threadSafeMap) replace(items map[string]any, resourceVersion string) error {
	return c.replaceWith(len(items), func(yield func(string, any) bool) {
		for key, obj := range items {
			if !yield(key, obj) {
				return
			}
		}
	}, resourceVersion)
}

// replaceList is replace with the items given as keys and the objects at
// the same positions; of a key given twice, the last object is kept.
func (c *threadSafeMap) replaceList(keys []string, objs []any, resourceVersion string) error {
	return c.replaceWith(len(keys), func(yield func(string, any) bool) {
		for i, key := range keys {
			if !yield(key, objs[i]) {
				return
			}
		}
	}, resourceVersion)
}

// replaceWith swaps in the n items that items yields. The new table and
// indexes are built before the lock is taken, sized for n, so readers are
// not blocked while that runs.
func (c *threadSafeMap) replaceWith(n int, items func(yield func(string, any) bool), resourceVersion string) error {
	set := c.indexSet.Load()
	contents, err := store.Build(set, n, items)
	if err != nil {
		return err
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	if set != c.contents.IndexSet() {
		if contents, err = store.Build(c.contents.IndexSet(), n, items); err != nil {
			return err
		}
	}
	c.contents = contents
	c.setRVLocked(resourceVersion)
	return nil
}

// errStoreNotEmpty is why fill refuses to write.
var errStoreNotEmpty = errors.New("the store is not empty")

// fill stores objs under keys (the last object of a key given twice) in a
// store that holds nothing, and records the resource version of the last
// object, as a transaction of these writes would. The table and indexes are
// built before the lock is taken, sized for the list, with none of a
// transaction's per-write bookkeeping. It fails, changing nothing, when the
// store is not empty or an object cannot be stored: the caller then writes
// them in a transaction, which applies what it can.
func (c *threadSafeMap) fill(keys []string, objs []any) error {
	if c.len() != 0 {
		return errStoreNotEmpty
	}
	items := func(yield func(string, any) bool) {
		for i, key := range keys {
			if !yield(key, objs[i]) {
				return
			}
		}
	}
	set := c.indexSet.Load()
	contents, err := store.Build(set, len(keys), items)
	if err != nil {
		return err
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	if c.contents.Len() != 0 {
		return errStoreNotEmpty
	}
	if set != c.contents.IndexSet() {
		if contents, err = store.Build(c.contents.IndexSet(), len(keys), items); err != nil {
			return err
		}
	}
	c.contents = contents
	if len(objs) > 0 {
		if rv, ok := rvFromObject(objs[len(objs)-1]); ok {
			c.setRVLocked(rv)
		}
	}
	return nil
}

// Index returns the objects sharing an indexed value with obj.
func (c *threadSafeMap) Index(indexName string, obj any) ([]any, error) {
	values, err := c.indexSet.Load().Values(indexName, obj)
	if err != nil {
		return nil, err
	}
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.contents.ByValues(indexName, values)
}

// ByIndex returns the objects indexed under indexedValue.
func (c *threadSafeMap) ByIndex(indexName, indexedValue string) ([]any, error) {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.contents.ByIndex(indexName, indexedValue)
}

// IndexKeys returns the sorted keys indexed under indexedValue.
func (c *threadSafeMap) IndexKeys(indexName, indexedValue string) ([]string, error) {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.contents.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues returns the values present in the named index.
func (c *threadSafeMap) ListIndexFuncValues(indexName string) []string {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.contents.IndexValues(indexName)
}

// GetIndexers returns a copy of the index functions. Unlike client-go, which
// hands out its live map, the result is the caller's to modify.
func (c *threadSafeMap) GetIndexers() Indexers {
	set := c.indexSet.Load()
	out := make(Indexers, set.Len())
	for name, fn := range set.All {
		out[name] = fn
	}
	return out
}

// AddIndexers adds indexes and indexes the stored objects with them. It
// fails, changing nothing, on a name conflict, a nil function, or an index
// function failing on a stored object.
func (c *threadSafeMap) AddIndexers(newIndexers Indexers) error {
	added := make(map[string]store.IndexFunc, len(newIndexers))
	for name, fn := range newIndexers {
		added[name] = fn
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	set, err := c.contents.IndexSet().With(added)
	if err != nil {
		return err
	}
	if err := c.contents.AddIndexes(set); err != nil {
		return err
	}
	c.indexSet.Store(set)
	return nil
}

// Resync does nothing.
func (c *threadSafeMap) Resync() error {
	return nil
}

// Bookmark records rv as the store's resource version.
func (c *threadSafeMap) Bookmark(rv string) {
	c.lock.Lock()
	defer c.lock.Unlock()
	c.setRVLocked(rv)
}

// LastStoreSyncResourceVersion returns the store's resource version.
func (c *threadSafeMap) LastStoreSyncResourceVersion() string {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return c.rv
}

// setRVLocked records rv and publishes it when it parses as a number.
func (c *threadSafeMap) setRVLocked(rv string) {
	c.rv = rv
	if n, err := parseRVForMetricsWithTruncation(rv); err == nil {
		c.metrics.resourceVersion.Set(float64(n))
	}
}

// rvFromObject returns the resource version of an object with metadata.
func rvFromObject(obj any) (string, bool) {
	m, err := objectMeta(obj)
	if err != nil {
		return "", false
	}
	return m.GetResourceVersion(), true
}

// parseRVForMetricsWithTruncation parses the last 15 digits of rv, so that
// the float64 of a metric holds it exactly. "" is 0.
func parseRVForMetricsWithTruncation(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	if len(rv) > 15 {
		rv = rv[len(rv)-15:]
	}
	return strconv.ParseInt(rv, 10, 64)
}

// unknownTransactionTypeError refuses a transaction of an unknown type.
type unknownTransactionTypeError struct{ typ TransactionType }

// Error names the type.
func (e *unknownTransactionTypeError) Error() string {
	return "unknown transaction type " + strconv.Quote(string(e.typ))
}
