package cache

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
)

// MutationCache overlays objects the program wrote itself (for example the
// results of update calls) over an informer's store, so that reads see those
// writes before the informer does. Reads return the newer, by resource
// version, of the store's object and the recorded one. Resource versions are
// compared as unsigned integers.
//
// Implementations are safe for concurrent use. Calling OnAddOrUpdate and
// OnDelete from the informer's event handlers keeps the overlay small and
// accurate. The interface is sealed: only this package implements it.
type MutationCache interface {
	// GetByKey returns the newer of the store's object under key and the
	// recorded one. A key missing from the store is reported missing,
	// unless the cache includes adds: then the recorded object is returned,
	// and, as in client-go, the record is dropped by that read (it compares
	// equal to itself, so it counts as outdated).
	GetByKey(key string) (any, bool, error)
	// ByIndex returns the objects of the indexer indexed under indexKey in
	// the named index, each replaced by its recorded version when that is
	// newer; when the cache includes adds, recorded objects the indexer does
	// not have are added when they match. It fails when the cache has no
	// indexer.
	ByIndex(indexName, indexKey string) ([]any, error)
	// Mutation records obj, the result of a write. It is ignored when an
	// object already recorded under the same key is newer, or obj is known
	// to be deleted.
	Mutation(any)
	// OnAddOrUpdate tells the cache that the store now holds obj: the
	// recorded object is dropped when obj is as new or newer.
	OnAddOrUpdate(obj runtime.Object)
	// OnDelete tells the cache that obj was deleted from the store: the
	// recorded object is dropped when it is older or the same instance
	// (same UID), and later Mutations of the deleted instance are ignored
	// for the TTL.
	OnDelete(obj runtime.Object)

	// internal seals the interface.
	internal()
}

// ResourceVersionComparator compares the resource versions of two objects:
// it returns -1, 0 or 1 when lhs is older than, as new as, or newer than
// rhs.
type ResourceVersionComparator interface {
	CompareResourceVersion(lhs, rhs runtime.Object) int
}

// MutationCacheOptions configures a [MutationCache] built by
// [NewIntegerResourceVersionMutationCacheWithOptions].
type MutationCacheOptions struct {
	// Indexer answers ByIndex. When nil, ByIndex fails.
	Indexer Indexer

	// TTL is how long a recorded object is kept. Zero or negative means
	// five minutes.
	TTL time.Duration

	// IncludeAdds makes reads return recorded objects the store does not
	// have. Use it only if the program copes with such an object lingering
	// for up to TTL after it was deleted again, when the informer never saw
	// it.
	IncludeAdds bool

	// MaxCacheSize bounds the number of recorded objects; the least
	// recently used is evicted beyond it. Zero or negative means 100.
	MaxCacheSize int
}

// Defaults of MutationCacheOptions.
const (
	defaultMutationCacheTTL  = 5 * time.Minute
	defaultMutationCacheSize = 100
)

// NewIntegerResourceVersionMutationCacheWithOptions returns a [MutationCache]
// over backingCache for objects whose resource versions are integers that
// grow with every write, comparable across the objects of a resource (as
// with etcd). An object whose resource version is not an integer is never
// considered newer than another: the store's object wins, and the failure is
// reported to HandleError (client-go panics).
//
// With IncludeAdds, a recorded object can outlive its deletion: the
// informer may never see an object that was created and deleted quickly.
// Callers must check such objects once the TTL is over. OnAddOrUpdate and
// OnDelete prevent the same problem for updated objects.
func NewIntegerResourceVersionMutationCacheWithOptions(logger klog.Logger, backingCache Store, options MutationCacheOptions) MutationCache {
	return newMutationCache(logger, backingCache, options, nil)
}

// NewIntegerResourceVersionMutationCache is
// [NewIntegerResourceVersionMutationCacheWithOptions] with a size of 100.
func NewIntegerResourceVersionMutationCache(logger klog.Logger, backingCache Store, indexer Indexer, ttl time.Duration, includeAdds bool) MutationCache {
	return NewIntegerResourceVersionMutationCacheWithOptions(logger, backingCache, MutationCacheOptions{
		Indexer:      indexer,
		TTL:          ttl,
		IncludeAdds:  includeAdds,
		MaxCacheSize: defaultMutationCacheSize,
	})
}

// newMutationCache builds the cache; clk, when not nil, drives expiry.
func newMutationCache(logger klog.Logger, backingCache Store, options MutationCacheOptions, clk utilcache.Clock) *mutationCache {
	size, ttl := options.MaxCacheSize, options.TTL
	if size <= 0 {
		size = defaultMutationCacheSize
	}
	if ttl <= 0 {
		ttl = defaultMutationCacheTTL
	}
	c := &mutationCache{
		logger:       logger,
		backingCache: backingCache,
		indexer:      options.Indexer,
		includeAdds:  options.IncludeAdds,
		ttl:          ttl,
	}
	if clk != nil {
		c.mutations = utilcache.NewLRUExpireCacheWithClock(size, clk)
	} else {
		c.mutations = utilcache.NewLRUExpireCache(size)
	}
	return c
}

// mutationCache implements MutationCache. It cannot tell "the informer did not
// see the create yet" from "the object was deleted after the create", so
// without includeAdds a key missing from the store is reported missing.
type mutationCache struct {
	logger       klog.Logger
	backingCache Store
	indexer      Indexer // may be nil
	includeAdds  bool
	ttl          time.Duration

	lock sync.Mutex
	// mutations maps keys to recorded objects or *mutationTombstones; guarded
	// by lock (it has its own lock too, for its LRU bookkeeping).
	mutations *utilcache.LRUExpireCache
}

var _ MutationCache = (*mutationCache)(nil)

func (c *mutationCache) internal() {}

// GetByKey returns the newer of the stored and the recorded object.
func (c *mutationCache) GetByKey(key string) (any, bool, error) {
	c.lock.Lock()
	defer c.lock.Unlock()

	obj, exists, err := c.backingCache.GetByKey(key)
	if err != nil {
		return nil, false, err
	}
	if !exists {
		if !c.includeAdds {
			return nil, false, nil
		}
		obj, exists = c.mutations.Get(key)
		if !exists {
			return nil, false, nil
		}
		if _, ok := obj.(*mutationTombstone); ok {
			return nil, false, nil
		}
	}
	o, ok := obj.(runtime.Object)
	if !ok {
		return obj, true, nil
	}
	// When obj came from the store, this also drops an outdated tombstone:
	// the store's object is newer than any deletion it was told about.
	return c.newerObjectLocked(key, o), true, nil
}

// ByIndex returns the indexed objects, each at its newest known version.
func (c *mutationCache) ByIndex(indexName, indexKey string) ([]any, error) {
	c.lock.Lock()
	defer c.lock.Unlock()
	if c.indexer == nil {
		return nil, fmt.Errorf("no indexer has been provided to the mutation cache")
	}
	keys, err := c.indexer.IndexKeys(indexName, indexKey)
	if err != nil {
		return nil, err
	}
	var items []any
	seen := sets.New[string]()
	for _, key := range keys {
		seen.Insert(key)
		obj, exists, err := c.indexer.GetByKey(key)
		if err != nil {
			return nil, err
		}
		if !exists {
			continue
		}
		if o, ok := obj.(runtime.Object); ok {
			items = append(items, c.newerObjectLocked(key, o))
		} else {
			items = append(items, obj)
		}
	}
	if !c.includeAdds {
		return items, nil
	}

	indexFunc := c.indexer.GetIndexers()[indexName]
	if indexFunc == nil {
		return items, nil
	}
	// Keys come oldest first, so reading them all keeps the LRU order.
	for _, k := range c.mutations.Keys() {
		key, _ := k.(string)
		if seen.Has(key) {
			continue
		}
		recorded, ok := c.mutations.Get(k)
		if !ok {
			continue
		}
		if _, ok := recorded.(*mutationTombstone); ok {
			continue
		}
		values, err := indexFunc(recorded)
		if err != nil {
			c.logger.V(4).Info("Unable to calculate an index entry for mutation cache entry", "key", key, "err", err)
			continue
		}
		for _, v := range values {
			if v == indexKey {
				items = append(items, recorded)
				break
			}
		}
	}
	return items, nil
}

// newerObjectLocked returns the recorded object of key when it is newer than
// backing, and otherwise backing, dropping the outdated record.
func (c *mutationCache) newerObjectLocked(key string, backing runtime.Object) runtime.Object {
	recorded, exists := c.mutations.Get(key)
	if !exists || !versioned(recorded) {
		return backing
	}
	if cmp, err := c.compare(backing, recorded); err != nil || cmp >= 0 {
		c.mutations.Remove(key)
		return backing
	}
	if r, ok := recorded.(runtime.Object); ok {
		return r
	}
	// A tombstone newer than the store's object: the store has not seen
	// the deletion yet. Never return the tombstone itself.
	return backing
}

// versioned reports whether a recorded value takes part in resource version
// comparisons: runtime.Objects and tombstones do, other values are kept as
// they are.
func versioned(recorded any) bool {
	switch recorded.(type) {
	case runtime.Object, *mutationTombstone:
		return true
	}
	return false
}

// Mutation records obj unless something newer or its deletion is known.
func (c *mutationCache) Mutation(obj any) {
	c.lock.Lock()
	defer c.lock.Unlock()

	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		// The cache is an optimisation: report and carry on.
		utilruntime.HandleErrorWithLogger(c.logger, err, "Cannot record mutation")
		return
	}
	if o, ok := obj.(runtime.Object); ok {
		if recorded, exists := c.mutations.Get(key); exists && versioned(recorded) {
			if cmp, err := c.compare(o, recorded); err == nil {
				if cmp < 0 {
					return
				}
				if t, ok := recorded.(*mutationTombstone); ok {
					if cmp == 0 {
						// This very version is known to be deleted.
						return
					}
					if uid, ok := uidOf(obj); ok && uid == t.uid {
						// Another version of a deleted instance.
						return
					}
				}
			}
		}
	}
	c.mutations.Add(key, obj, c.ttl)
}

// OnAddOrUpdate drops the record of obj's key when obj is as new or newer.
func (c *mutationCache) OnAddOrUpdate(obj runtime.Object) {
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleErrorWithLogger(c.logger, err, "Cannot process added or updated object")
		return
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	recorded, exists := c.mutations.Get(key)
	if !exists || !versioned(recorded) {
		return
	}
	// UIDs do not matter: resource versions are comparable across
	// instances, and the store has caught up with the record.
	if cmp, err := c.compare(obj, recorded); err != nil || cmp >= 0 {
		c.mutations.Remove(key)
	}
}

// OnDelete drops the record of obj's key when it is outdated or the same
// instance, then records a tombstone of obj.
func (c *mutationCache) OnDelete(obj runtime.Object) {
	m, err := objectMeta(obj)
	if err != nil {
		return
	}
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleErrorWithLogger(c.logger, err, "Cannot process deleted object")
		return
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	if recorded, exists := c.mutations.Get(key); exists {
		if versioned(recorded) {
			// A deletion newer than the record removed it, since resource
			// versions grow per resource; so did a deletion of the same
			// instance. Otherwise the record may be a newer instance that
			// still exists: keep it, the caller checks after the TTL.
			cmp, cmpErr := c.compare(obj, recorded)
			uid, _ := uidOf(recorded)
			if cmpErr != nil || cmp >= 0 || uid == m.GetUID() {
				c.mutations.Remove(key)
			} else {
				return
			}
		}
	}
	c.mutations.Add(key, &mutationTombstone{uid: m.GetUID(), rv: m.GetResourceVersion()}, c.ttl)
}

// compare compares the resource versions of lhs and rhs as unsigned integers
// ("" is 0). rhs may be a tombstone. An unparsable version is an error,
// reported to HandleError.
func (c *mutationCache) compare(lhs, rhs any) (int, error) {
	l, err := integerResourceVersion(lhs)
	if err == nil {
		var r uint64
		if r, err = integerResourceVersion(rhs); err == nil {
			switch {
			case l < r:
				return -1, nil
			case l > r:
				return 1, nil
			}
			return 0, nil
		}
	}
	utilruntime.HandleErrorWithLogger(c.logger, err, "Cannot compare resource versions, preferring the informer's object")
	return 0, err
}

// integerResourceVersion parses the resource version of obj.
func integerResourceVersion(obj any) (uint64, error) {
	var rv string
	if t, ok := obj.(*mutationTombstone); ok {
		rv = t.rv
	} else {
		m, err := objectMeta(obj)
		if err != nil {
			return 0, err
		}
		rv = m.GetResourceVersion()
	}
	if rv == "" {
		return 0, nil
	}
	v, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("resource version %q is not an integer: %w", rv, err)
	}
	return v, nil
}

// uidOf returns the UID of an object with metadata or of a tombstone.
func uidOf(obj any) (types.UID, bool) {
	if t, ok := obj.(*mutationTombstone); ok {
		return t.uid, true
	}
	m, err := objectMeta(obj)
	if err != nil {
		return "", false
	}
	return m.GetUID(), true
}

// mutationTombstone marks a key whose object was deleted at resource version
// rv. It blocks Mutations of that instance or of older versions, and is never
// returned by reads.
type mutationTombstone struct {
	uid types.UID
	rv  string
}
