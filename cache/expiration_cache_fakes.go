package cache

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
)

// FakeExpirationPolicy is an [ExpirationPolicy] for tests: every entry has
// expired except those whose key is in NeverExpire.
type FakeExpirationPolicy struct {
	// NeverExpire holds the keys that never expire.
	NeverExpire sets.Set[string]
	// RetrieveKeyFunc computes the key of an entry; it is given the
	// *TimestampedEntry. Nil means the key the entry is stored under.
	RetrieveKeyFunc KeyFunc
}

// IsExpired reports whether the key of obj is not in NeverExpire. An entry
// whose key cannot be computed has expired.
func (p *FakeExpirationPolicy) IsExpired(obj *TimestampedEntry) bool {
	if obj == nil {
		return true
	}
	key := obj.key
	if p.RetrieveKeyFunc != nil {
		var err error
		if key, err = p.RetrieveKeyFunc(obj); err != nil {
			return true
		}
	}
	return !p.NeverExpire.Has(key)
}

// NewFakeExpirationStore returns an [ExpirationCache] for tests, time-stamped
// with cacheClock (nil: the real clock). Each key deleted from it by expiry
// (not by Delete) is sent to deletedKeys, synchronously and while the cache's
// lock is held: give it a buffered channel, or receive concurrently. As in
// client-go, when deletedKeys is nil expired entries are never deleted, only
// hidden.
func NewFakeExpirationStore(keyFunc KeyFunc, deletedKeys chan<- string, expirationPolicy ExpirationPolicy, cacheClock clock.Clock) Store {
	storage := &fakeThreadSafeMap{ThreadSafeStore: NewThreadSafeStore(Indexers{}, Indices{}), deletedKeys: deletedKeys}
	return newExpirationCache(keyFunc, expirationPolicy, cacheClock, storage)
}

// fakeThreadSafeMap reports the keys deleted by expiry on a channel.
type fakeThreadSafeMap struct {
	ThreadSafeStore
	deletedKeys chan<- string
}

// Delete deletes key and reports it, when there is a channel to report to.
func (c *fakeThreadSafeMap) Delete(key string) {
	if c.deletedKeys != nil {
		c.ThreadSafeStore.Delete(key)
		c.deletedKeys <- key
	}
}
