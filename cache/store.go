package cache

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
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
// [DeletionHandlingMetaNamespaceKeyFunc]. A nil keyFunc makes every keyed
// operation fail with a [KeyError]; nil options are ignored.
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
	c := &cache{keyFunc: keyFunc, keys: keyShapeOf(keyFunc)}
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

// keyShape tells which key function a store uses, when it is one of this
// package's metadata key functions: the store then computes keys in a stack
// buffer instead of calling the function, which would allocate them (see
// metaKey).
type keyShape int

const (
	otherKeys                keyShape = iota // any other KeyFunc
	metaNamespaceKeys                        // MetaNamespaceKeyFunc
	deletionHandlingMetaKeys                 // DeletionHandlingMetaNamespaceKeyFunc
)

func keyShapeOf(keyFunc KeyFunc) keyShape {
	if keyFunc == nil {
		return otherKeys
	}
	switch reflect.ValueOf(keyFunc).Pointer() {
	case reflect.ValueOf(MetaNamespaceKeyFunc).Pointer():
		return metaNamespaceKeys
	case reflect.ValueOf(DeletionHandlingMetaNamespaceKeyFunc).Pointer():
		return deletionHandlingMetaKeys
	}
	return otherKeys
}

// cache implements Indexer and TransactionStore with a threadSafeMap and a
// KeyFunc.
type cache struct {
	// cacheStorage holds the objects; it is safe for concurrent use.
	cacheStorage *threadSafeMap
	// keyFunc computes keys; never nil.
	keyFunc KeyFunc
	// keys tells whether keyFunc is a metadata key function.
	keys keyShape
	// transformer, when set, rewrites objects before Add, Update, Replace.
	transformer TransformFunc

	// offered is the key a queue last offered (see offerKey), guarded by
	// offeredMu. Any string with the right bytes is a valid key, so a write
	// whose key has the same bytes uses it without checking anything else.
	offeredMu sync.Mutex
	offered   string

	// Metrics options, read once by newCache.
	identifier  InformerNameAndResource
	metrics     InformerMetricsProvider
	withMetrics bool
}

var (
	_ Indexer          = (*cache)(nil)
	_ TransactionStore = (*cache)(nil)
	_ keyOfferee       = (*cache)(nil)
)

// offerKey records key, the key of the objects a [DeltaFIFO] is about to
// hand to the consumer that writes them into this store (the FIFO's known
// objects). The next writes whose key has the same bytes store this string
// instead of building an equal one, so that an object's key is allocated
// once on its way through an informer rather than by the FIFO and again by
// the store. Only stores with a metadata key function use the offer.
func (c *cache) offerKey(key string) {
	if c.keys == otherKeys {
		return
	}
	c.offeredMu.Lock()
	c.offered = key
	c.offeredMu.Unlock()
}

// writeKey computes the key of obj for a write. With a metadata key function
// it builds the key in a stack buffer first, and allocates it only when it
// is not the offered key (see offerKey) and is not a string already (a
// cluster-scoped name, an [ExplicitKey], a tombstone's key). Errors are
// [KeyError]s.
func (c *cache) writeKey(obj any) (string, error) {
	if c.keys != otherKeys {
		var buf [metaKeyBufSize]byte
		if key, built, ok := c.metaKey(obj, buf[:0]); ok {
			if built == nil {
				return key, nil
			}
			c.offeredMu.Lock()
			offered := c.offered
			c.offeredMu.Unlock()
			if offered == string(built) {
				return offered, nil
			}
			return string(built), nil
		}
	}
	key, err := c.keyFunc(obj)
	if err != nil {
		return "", KeyError{obj, err}
	}
	return key, nil
}

// prepare computes the key of obj and transforms it.
func (c *cache) prepare(obj any) (string, any, error) {
	key, err := c.writeKey(obj)
	if err != nil {
		return "", nil, err
	}
	if c.transformer != nil {
		if obj, err = c.transformer(obj); err != nil {
			return "", nil, fmt.Errorf("transforming: %w", err)
		}
	}
	return key, obj, nil
}

// Add stores obj, transformed, under the key of obj as given. It fails,
// changing nothing, when the key function, the transformer or an index
// function fails, or the object to store is nil.
func (c *cache) Add(obj any) error {
	key, obj, err := c.prepare(obj)
	if err != nil {
		return err
	}
	return c.cacheStorage.update(key, obj)
}

// Update is Add.
func (c *cache) Update(obj any) error {
	return c.Add(obj)
}

// swap is Add that also returns the object the key held before, read under
// the same lock as the write. It implements [swapStore].
func (c *cache) swap(obj any) (old any, existed bool, err error) {
	key, obj, err := c.prepare(obj)
	if err != nil {
		return nil, false, err
	}
	return c.cacheStorage.swap(key, obj)
}

// Delete removes the key of obj and records obj's resource version, when it
// has one, as the store's. It fails, changing nothing, when the key function
// fails.
func (c *cache) Delete(obj any) error {
	key, err := c.writeKey(obj)
	if err != nil {
		return err
	}
	c.cacheStorage.DeleteWithObject(key, obj)
	return nil
}

// Transaction implements [TransactionStore].
func (c *cache) Transaction(txns ...Transaction) *TransactionError {
	if len(txns) == 0 {
		return nil
	}
	keyed := make([]ThreadSafeStoreTransaction, 0, len(txns))
	positions := make([]int, 0, len(txns)) // positions[i]: index in txns of keyed[i]
	errs := make([]error, len(txns))
	failed := false
	for i, txn := range txns {
		key, err := c.keyFunc(txn.Object)
		if err != nil {
			errs[i], failed = KeyError{txn.Object, err}, true
			continue
		}
		keyed = append(keyed, ThreadSafeStoreTransaction{Transaction: txn, Key: key})
		positions = append(positions, i)
	}
	for i, err := range c.cacheStorage.transaction(keyed) {
		if err != nil {
			errs[positions[i]], failed = err, true
		}
	}
	if !failed {
		return nil
	}
	te := &TransactionError{TotalTransactions: len(txns)}
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
	if c.keys != otherKeys {
		if item, exists, ok := c.getByMetaKey(obj); ok {
			return item, exists, nil
		}
	}
	key, err := c.keyFunc(obj)
	if err != nil {
		return nil, false, KeyError{obj, err}
	}
	return c.GetByKey(key)
}

// metaKeyBufSize fits a key of a namespace (63 bytes) and a name (253).
const metaKeyBufSize = 320

// getByMetaKey looks obj up by the key the store's metadata key function
// would compute, without allocating it. ok is false when obj is something
// the key function would fail on: the caller then calls it for the error.
func (c *cache) getByMetaKey(obj any) (item any, exists, ok bool) {
	var buf [metaKeyBufSize]byte
	key, built, ok := c.metaKey(obj, buf[:0])
	switch {
	case !ok:
		return nil, false, false
	case built != nil:
		item, exists = c.cacheStorage.getBytes(built)
	default:
		item, exists = c.cacheStorage.Get(key)
	}
	return item, exists, true
}

// metaKey computes, without allocating, the key that the store's metadata
// key function would return for obj. When the key exists as a string already
// (an [ExplicitKey], a tombstone's key, the name of a cluster-scoped object)
// it is returned as key and built is nil; otherwise the key is built by
// appending "namespace/name" to buf and returned as built. ok is false when
// the key function would fail on obj: callers then call it for the error.
func (c *cache) metaKey(obj any, buf []byte) (key string, built []byte, ok bool) {
	switch o := obj.(type) {
	case ExplicitKey:
		return string(o), nil, true
	case DeletedFinalStateUnknown:
		if c.keys != deletionHandlingMetaKeys {
			return "", nil, false
		}
		return o.Key, nil, true
	}
	m, err := objectMeta(obj)
	if err != nil {
		return "", nil, false
	}
	namespace, name := m.GetNamespace(), m.GetName()
	if namespace == "" {
		return name, nil, true
	}
	return "", append(append(append(buf, namespace...), '/'), name...), true
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
	items := make(map[string]any, len(list))
	for _, obj := range list {
		key, obj, err := c.prepare(obj)
		if err != nil {
			return err
		}
		items[key] = obj
	}
	return c.cacheStorage.replace(items, resourceVersion)
}

// Resync does nothing.
func (c *cache) Resync() error {
	return nil
}
