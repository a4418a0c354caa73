package cache

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// ExpirationCache is a [Store] whose entries expire. Every object is
// time-stamped when it is stored (Add, Update, Replace); an [ExpirationPolicy]
// decides when it expires. Expiry is lazy: Get, GetByKey and List check it,
// delete expired entries and leave them out; ListKeys still lists expired
// entries that were not read since.
//
// It is safe for concurrent use, but slower than the store of [NewStore]:
// every read that checks expiry takes an exclusive lock, so that an entry
// found expired cannot be replaced by a fresh one before it is deleted. Build
// it with [NewTTLStore] or [NewExpirationStore]; the zero value is not
// usable.
type ExpirationCache struct {
	cacheStorage     ThreadSafeStore // holds *TimestampedEntry values
	keyFunc          KeyFunc
	clock            clock.Clock
	expirationPolicy ExpirationPolicy
	// expirationLock serializes writes with expiry checks.
	expirationLock sync.Mutex
}

var _ Store = (*ExpirationCache)(nil)

// ExpirationPolicy decides whether an entry of an [ExpirationCache] has
// expired.
type ExpirationPolicy interface {
	// IsExpired reports whether obj has expired.
	IsExpired(obj *TimestampedEntry) bool
}

// TTLPolicy expires entries older than TTL.
type TTLPolicy struct {
	// TTL is the age beyond which an entry expires; zero or negative means
	// never.
	TTL time.Duration

	// Clock measures ages. Nil means the real clock.
	Clock clock.Clock
}

// IsExpired reports whether obj is older than the TTL. An entry of unknown age
// (nil) has expired.
func (p *TTLPolicy) IsExpired(obj *TimestampedEntry) bool {
	if p.TTL <= 0 {
		return false
	}
	if obj == nil {
		return true
	}
	clk := p.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return clk.Since(obj.Timestamp) > p.TTL
}

// TimestampedEntry is how an [ExpirationCache] stores an object: with the time
// it was stored. Timestamps come from the cache's clock; one from another
// machine (such as the API server) is not comparable.
type TimestampedEntry struct {
	Obj       any
	Timestamp time.Time
	key       string // the key the entry is stored under
}

// NewTTLStore returns an [ExpirationCache] whose entries expire ttl after they
// were stored (never, when ttl is zero or negative), on the real clock.
func NewTTLStore(keyFunc KeyFunc, ttl time.Duration) Store {
	return NewExpirationStore(keyFunc, &TTLPolicy{TTL: ttl, Clock: clock.RealClock{}})
}

// NewExpirationStore returns an [ExpirationCache] whose entries expire as
// expirationPolicy says (never, when it is nil), time-stamped with the real
// clock. A nil keyFunc makes every keyed operation fail with a [KeyError].
func NewExpirationStore(keyFunc KeyFunc, expirationPolicy ExpirationPolicy) Store {
	return newExpirationCache(keyFunc, expirationPolicy, clock.RealClock{}, NewThreadSafeStore(Indexers{}, Indices{}))
}

func newExpirationCache(keyFunc KeyFunc, policy ExpirationPolicy, clk clock.Clock, storage ThreadSafeStore) *ExpirationCache {
	if keyFunc == nil {
		keyFunc = noKeyFunc
	}
	if policy == nil {
		policy = neverExpire{}
	}
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &ExpirationCache{cacheStorage: storage, keyFunc: keyFunc, clock: clk, expirationPolicy: policy}
}

// neverExpire is the policy of a cache built without one.
type neverExpire struct{}

// IsExpired reports false.
func (neverExpire) IsExpired(*TimestampedEntry) bool { return false }

// getOrExpire returns the object under key unless it has expired; an expired
// entry is deleted. No write can happen between the check and the delete.
func (c *ExpirationCache) getOrExpire(key string) (any, bool) {
	c.expirationLock.Lock()
	defer c.expirationLock.Unlock()
	item, _ := c.cacheStorage.Get(key)
	entry, ok := item.(*TimestampedEntry)
	if !ok {
		return nil, false
	}
	if c.expirationPolicy.IsExpired(entry) {
		c.cacheStorage.Delete(key)
		return nil, false
	}
	return entry.Obj, true
}

// GetByKey returns the object under key unless it has expired (and deletes
// it then).
func (c *ExpirationCache) GetByKey(key string) (any, bool, error) {
	obj, exists := c.getOrExpire(key)
	return obj, exists, nil
}

// Get returns the object under obj's key unless it has expired (and deletes
// it then).
func (c *ExpirationCache) Get(obj any) (any, bool, error) {
	key, err := c.keyFunc(obj)
	if err != nil {
		return nil, false, KeyError{obj, err}
	}
	item, exists := c.getOrExpire(key)
	return item, exists, nil
}

// List returns the objects that have not expired, deleting the expired ones.
func (c *ExpirationCache) List() []any {
	items := c.cacheStorage.List()
	list := make([]any, 0, len(items))
	for _, item := range items {
		entry, ok := item.(*TimestampedEntry)
		if !ok {
			continue
		}
		if obj, exists := c.getOrExpire(entry.key); exists {
			list = append(list, obj)
		}
	}
	return list
}

// ListKeys returns every key, including those of expired entries not read
// since they expired.
func (c *ExpirationCache) ListKeys() []string {
	return c.cacheStorage.ListKeys()
}

// LastStoreSyncResourceVersion returns the cache's resource version: the one
// of the last Replace, Bookmark or Delete of an object with metadata. Adds do
// not change it, as in client-go.
func (c *ExpirationCache) LastStoreSyncResourceVersion() string {
	return c.cacheStorage.LastStoreSyncResourceVersion()
}

// Bookmark records rv as the cache's resource version.
func (c *ExpirationCache) Bookmark(rv string) {
	c.cacheStorage.Bookmark(rv)
}

// Add time-stamps obj and stores it under its key, replacing what was there.
func (c *ExpirationCache) Add(obj any) error {
	key, err := c.keyFunc(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	c.expirationLock.Lock()
	defer c.expirationLock.Unlock()
	c.cacheStorage.Add(key, &TimestampedEntry{Obj: obj, Timestamp: c.clock.Now(), key: key})
	return nil
}

// Update is Add: it stores obj with a new time stamp.
func (c *ExpirationCache) Update(obj any) error {
	return c.Add(obj)
}

// Delete removes the entry under obj's key.
func (c *ExpirationCache) Delete(obj any) error {
	key, err := c.keyFunc(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	c.expirationLock.Lock()
	defer c.expirationLock.Unlock()
	c.cacheStorage.DeleteWithObject(key, obj)
	return nil
}

// Replace replaces the contents with list, every object time-stamped with the
// same time, and records resourceVersion. It fails, changing nothing, when a
// key cannot be computed.
func (c *ExpirationCache) Replace(list []any, resourceVersion string) error {
	items := make(map[string]any, len(list))
	ts := c.clock.Now()
	for _, obj := range list {
		key, err := c.keyFunc(obj)
		if err != nil {
			return KeyError{obj, err}
		}
		items[key] = &TimestampedEntry{Obj: obj, Timestamp: ts, key: key}
	}
	c.expirationLock.Lock()
	defer c.expirationLock.Unlock()
	c.cacheStorage.Replace(items, resourceVersion)
	return nil
}

// Resync does nothing.
func (c *ExpirationCache) Resync() error {
	return nil
}
