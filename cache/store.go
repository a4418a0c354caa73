package cache

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
	// objects instead. resourceVersion is the version of the list.
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
