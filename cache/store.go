package cache

import (
	"errors"
	"fmt"
	"slices"
)

// Store is keyed object storage. Keys come from a [KeyFunc]. Implementations
// in this package are safe for concurrent use. Objects returned by reads are
// the stored objects themselves, shared with every other reader: treat them as
// read-only.
type Store interface {
	// Add stores obj under its key, replacing what was there.
	Add(obj any) error
	// Update stores obj under its key, replacing what was there.
	Update(obj any) error
	// Delete removes the object with obj's key.
	Delete(obj any) error
	// List returns every stored object, in no particular order.
	List() []any
	// ListKeys returns every key, in no particular order.
	ListKeys() []string
	// Get returns the object stored under obj's key.
	Get(obj any) (item any, exists bool, err error)
	// GetByKey returns the object stored under key.
	GetByKey(key string) (item any, exists bool, err error)
	// Replace discards the contents of the store and stores the given
	// objects instead. resourceVersion is the version of the list. The
	// store takes ownership of the slice.
	Replace([]any, string) error
	// Resync is a no-op for plain stores; queues use it to requeue what they
	// know.
	Resync() error
	// Bookmark records rv as the newest resource version the store has seen.
	Bookmark(rv string)
	// LastStoreSyncResourceVersion returns the newest resource version the
	// store has seen through Replace, Bookmark and stored objects.
	LastStoreSyncResourceVersion() string
}

// Indexer is a [Store] with named secondary indexes: each [IndexFunc] maps an
// object to a set of indexed values, and the store answers which objects have
// a given value.
type Indexer interface {
	Store
	// Index returns the stored objects that share at least one indexed value
	// of the named index with obj.
	Index(indexName string, obj any) ([]any, error)
	// IndexKeys returns the keys of the stored objects whose indexed values
	// of the named index include indexedValue.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// ListIndexFuncValues returns every value currently present in the named
	// index.
	ListIndexFuncValues(indexName string) []string
	// ByIndex returns the stored objects whose indexed values of the named
	// index include indexedValue.
	ByIndex(indexName, indexedValue string) ([]any, error)
	// GetIndexers returns the index functions by name.
	GetIndexers() Indexers
	// AddIndexers adds index functions and indexes the stored objects with
	// them. It fails, changing nothing, when a name is already in use.
	AddIndexers(newIndexers Indexers) error
}

// StoreOption configures a store built by [NewStore] or [NewIndexer].
type StoreOption = func(*cache)

// WithTransformer makes the store pass every object given to Add, Update and
// Replace through transformer before storing it. The key is computed from
// the object as given. Delete and Transaction do not transform.
func WithTransformer(transformer TransformFunc) StoreOption {
	return func(c *cache) {
		c.transformer = transformer
	}
}

// WithStoreMetrics publishes the store's resource version as a gauge of the
// given identity, created by metrics (nil: the process-wide provider of
// [SetInformerMetricsProvider]). Nothing is published for an identity that is
// not reserved.
func WithStoreMetrics(identifier InformerNameAndResource, metrics InformerMetricsProvider) StoreOption {
	return func(c *cache) {
		c.identifier = identifier
		c.metrics = metrics
		c.withMetrics = true
	}
}

// NewStore returns an empty [Store] keyed by keyFunc: a map guarded by a
// read-write lock. It also implements [TransactionStore]. GetByKey does not
// allocate, and neither does Get when keyFunc is [MetaNamespaceKeyFunc] or
// [DeletionHandlingMetaNamespaceKeyFunc] itself (not a function that calls
// it). A nil keyFunc makes every keyed operation fail with a [KeyError]; nil
// options are ignored.
func NewStore(keyFunc KeyFunc, opts ...StoreOption) Store {
	return newCache(keyFunc, nil, opts)
}

// NewIndexer returns an empty [Indexer] keyed by keyFunc, with the given
// indexes. It also implements [TransactionStore]. The indexer keeps its own
// copy of indexers; nil index functions are reported to HandleError and left
// out. See [NewStore].
//
// Unlike client-go, which panics, a write that an index function fails on is
// refused: the store is left unchanged and the method returns the error.
func NewIndexer(keyFunc KeyFunc, indexers Indexers, opts ...StoreOption) Indexer {
	return newCache(keyFunc, indexers, opts)
}

func newCache(keyFunc KeyFunc, indexers Indexers, opts []StoreOption) *cache {
	c := &cache{keyFunc: keyFunc, keys: metaKeysOf(keyFunc)}
	if keyFunc == nil {
		c.keyFunc = noKeyFunc
	}
	for _, opt := range opts {
		if opt != nil {
			opt(c)
		}
	}
	var tsOpts []ThreadSafeStoreOption
	if c.withMetrics {
		tsOpts = append(tsOpts, WithThreadSafeStoreMetrics(c.identifier, c.metrics))
	}
	c.cacheStorage = newThreadSafeMap(indexers, tsOpts...)
	return c
}

// errNoKeyFunc is the key error of a store built without a key function.
var errNoKeyFunc = errors.New("the store has no key function")

func noKeyFunc(any) (string, error) { return "", errNoKeyFunc }

// cache implements Indexer and TransactionStore with a threadSafeMap and a
// KeyFunc.
type cache struct {
	// cacheStorage holds the objects; it is safe for concurrent use. A
	// threadSafeMap, or the encodedStore of the Encode memory mode.
	cacheStorage cacheEngine
	// keyFunc computes keys; never nil.
	keyFunc KeyFunc
	// keys tells whether keyFunc is a metadata key function, for Get.
	keys metaKeys
	// transformer, when set, rewrites objects before Add, Update, Replace.
	transformer TransformFunc

	// Metrics options, read once by newCache.
	identifier  InformerNameAndResource
	metrics     InformerMetricsProvider
	withMetrics bool
}

var (
	_ Indexer          = (*cache)(nil)
	_ TransactionStore = (*cache)(nil)
)

// cacheEngine is what a cache calls on the store that holds its objects:
// the exported ThreadSafeStore and the keyed, batched writes and reads the
// informers' processing uses. A threadSafeMap has it, and so does the
// encodedStore, which keeps the objects serialized in a threadSafeMap.
type cacheEngine interface {
	ThreadSafeStoreWithTransaction
	swap(key string, obj any) (old any, existed bool, err error)
	transaction(txns []ThreadSafeStoreTransaction) []error
	transact(txns []ThreadSafeStoreTransaction, priors []storedState) []error
	fill(keys []string, objs []any) error
	replaceList(keys []string, objs []any, resourceVersion string) error
	len() int
}

var (
	_ cacheEngine = (*threadSafeMap)(nil)
	_ cacheEngine = (*encodedStore)(nil)
)

// keyOf computes the key of obj; errors are [KeyError]s.
func (c *cache) keyOf(obj any) (string, error) {
	key, err := c.keyFunc(obj)
	if err != nil {
		return "", KeyError{obj, err}
	}
	return key, nil
}

// transform applies the store's transformer, if any, to obj.
func (c *cache) transform(obj any) (any, error) {
	if c.transformer == nil {
		return obj, nil
	}
	obj, err := c.transformer(obj)
	if err != nil {
		return nil, fmt.Errorf("transforming: %w", err)
	}
	return obj, nil
}

// Add stores obj, transformed, under the key of obj as given. It fails,
// changing nothing, when the key function, the transformer or an index
// function fails, or the object to store is nil.
func (c *cache) Add(obj any) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	_, _, err = c.swapKeyed(key, obj)
	return err
}

// Update is Add.
func (c *cache) Update(obj any) error {
	return c.Add(obj)
}

// swapKeyed is Add of obj under key, which the caller computed with the
// store's key function, and also returns the object key held before, read
// under the same lock as the write.
func (c *cache) swapKeyed(key string, obj any) (old any, existed bool, err error) {
	obj, err = c.transform(obj)
	if err != nil {
		return nil, false, err
	}
	return c.cacheStorage.swap(key, obj)
}

// Delete removes the key of obj and records obj's resource version, when it
// has one, as the store's. It fails, changing nothing, when the key function
// fails.
func (c *cache) Delete(obj any) error {
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	c.deleteKeyed(key, obj)
	return nil
}

// deleteKeyed is Delete of obj under key, which the caller computed with the
// store's key function.
func (c *cache) deleteKeyed(key string, obj any) {
	c.cacheStorage.DeleteWithObject(key, obj)
}

// Transaction implements [TransactionStore].
func (c *cache) Transaction(txns ...Transaction) *TransactionError {
	if len(txns) == 0 {
		return nil
	}
	keyed := make([]ThreadSafeStoreTransaction, 0, len(txns))
	positions := make([]int, 0, len(txns)) // positions[i]: index in txns of keyed[i]
	errs := make([]error, len(txns))
	for i, txn := range txns {
		key, err := c.keyOf(txn.Object)
		if err != nil {
			errs[i] = err
			continue
		}
		keyed = append(keyed, ThreadSafeStoreTransaction{Transaction: txn, Key: key})
		positions = append(positions, i)
	}
	for i, err := range c.cacheStorage.transaction(keyed) {
		if err != nil {
			errs[positions[i]] = err
		}
	}
	return newTransactionError(errs)
}

// transactionKeyed is Transaction of writes whose keys the caller computed
// with the store's key function. When priors is not nil (one entry per
// write), it receives what each applied write's key held just before it.
func (c *cache) transactionKeyed(txns []ThreadSafeStoreTransaction, priors []storedState) *TransactionError {
	errs := c.cacheStorage.transact(txns, priors)
	if errs == nil {
		return nil
	}
	return newTransactionError(errs)
}

// fillKeyed stores objs under keys, which the caller computed with the
// store's key function, in a store that holds nothing, as a transaction of
// these writes would; see threadSafeMap.fill. It fails, storing nothing, if
// the store holds something or an object cannot be stored.
func (c *cache) fillKeyed(keys []string, objs []any) error {
	return c.cacheStorage.fill(keys, objs)
}

// newTransactionError returns the result of a transaction in which write i
// failed with errs[i], or nil if every write was applied.
func newTransactionError(errs []error) *TransactionError {
	if !slices.ContainsFunc(errs, func(err error) bool { return err != nil }) {
		return nil
	}
	// Never nil, as in client-go, even when every write failed.
	te := &TransactionError{TotalTransactions: len(errs), SuccessfulIndices: []int{}}
	for i, err := range errs {
		if err != nil {
			te.Errors = append(te.Errors, err)
		} else {
			te.SuccessfulIndices = append(te.SuccessfulIndices, i)
		}
	}
	return te
}

// List returns every stored object.
func (c *cache) List() []any {
	return c.cacheStorage.List()
}

// ListKeys returns every key.
func (c *cache) ListKeys() []string {
	return c.cacheStorage.ListKeys()
}

// len returns the number of stored objects.
func (c *cache) len() int {
	return c.cacheStorage.len()
}

// LastStoreSyncResourceVersion returns the store's resource version.
func (c *cache) LastStoreSyncResourceVersion() string {
	return c.cacheStorage.LastStoreSyncResourceVersion()
}

// Bookmark records rv as the store's resource version.
func (c *cache) Bookmark(rv string) {
	c.cacheStorage.Bookmark(rv)
}

// GetIndexers returns a copy of the index functions.
func (c *cache) GetIndexers() Indexers {
	return c.cacheStorage.GetIndexers()
}

// Index returns the objects sharing an indexed value with obj.
func (c *cache) Index(indexName string, obj any) ([]any, error) {
	return c.cacheStorage.Index(indexName, obj)
}

// IndexKeys returns the sorted keys indexed under indexedValue; they can be
// given to GetByKey.
func (c *cache) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return c.cacheStorage.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues returns the values present in the named index.
func (c *cache) ListIndexFuncValues(indexName string) []string {
	return c.cacheStorage.ListIndexFuncValues(indexName)
}

// ByIndex returns the objects indexed under indexedValue.
func (c *cache) ByIndex(indexName, indexedValue string) ([]any, error) {
	return c.cacheStorage.ByIndex(indexName, indexedValue)
}

// AddIndexers adds indexes and indexes the stored objects with them.
func (c *cache) AddIndexers(newIndexers Indexers) error {
	return c.cacheStorage.AddIndexers(newIndexers)
}

// Get returns the object stored under the key of obj. With
// [MetaNamespaceKeyFunc] or [DeletionHandlingMetaNamespaceKeyFunc] it does
// not allocate.
func (c *cache) Get(obj any) (item any, exists bool, err error) {
	var buf [metaKeyBufSize]byte
	key, built, ok := c.keys.appendKey(obj, buf[:0])
	switch {
	case !ok:
		// Not a metadata key function, or one that fails on obj: call it.
		if key, err = c.keyOf(obj); err != nil {
			return nil, false, err
		}
	case built != nil:
		// On the concrete map, so that the key's buffer stays on the
		// stack (passed through the interface, it would escape).
		if m, plain := c.cacheStorage.(*threadSafeMap); plain {
			item, exists = m.getBytes(built)
			return item, exists, nil
		}
		key = string(built)
	}
	item, exists = c.cacheStorage.Get(key)
	return item, exists, nil
}

// GetByKey returns the object stored under key. It does not allocate and
// never fails.
func (c *cache) GetByKey(key string) (item any, exists bool, err error) {
	item, exists = c.cacheStorage.Get(key)
	return item, exists, nil
}

// Replace replaces the contents with list, each object transformed and
// keyed as given, and records resourceVersion. It fails, changing nothing,
// when the key function, the transformer or an index function fails on any
// object, or an object to store is nil.
func (c *cache) Replace(list []any, resourceVersion string) error {
	return c.replace(nil, list, resourceVersion)
}

// replaceKeyed is Replace of objs, whose keys (keys[i] for objs[i]) the
// caller computed with the store's key function.
func (c *cache) replaceKeyed(keys []string, objs []any, resourceVersion string) error {
	return c.replace(keys, objs, resourceVersion)
}

// replace implements Replace and replaceKeyed: keys, when not nil, are the
// keys of list. Of a key listed twice, the last object is kept.
func (c *cache) replace(keys []string, list []any, resourceVersion string) error {
	computeKeys := keys == nil
	if computeKeys {
		keys = make([]string, len(list))
	}
	objs := list
	if c.transformer != nil {
		objs = make([]any, len(list))
	}
	for i, obj := range list {
		if computeKeys {
			key, err := c.keyOf(obj)
			if err != nil {
				return err
			}
			keys[i] = key
		}
		if c.transformer != nil {
			var err error
			if objs[i], err = c.transform(obj); err != nil {
				return err
			}
		}
	}
	return c.cacheStorage.replaceList(keys, objs, resourceVersion)
}

// Resync does nothing.
func (c *cache) Resync() error {
	return nil
}
