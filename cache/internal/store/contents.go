package store

import (
	"errors"
	"slices"
	"strconv"
)

// Contents is the objects of a store, by key, and their indexes. It is
// pure bookkeeping, not safe for concurrent use: callers serialize access
// (cache's ThreadSafeStore holds a read-write lock around it). Readers may
// run concurrently with each other.
//
// Writers compute the indexed values of an object beforehand, with the
// [IndexSet] of the contents ([Contents.IndexSet].Compute), so that a write
// either applies whole or, when an index function fails, is refused before
// anything changes.
//
// Objects sit in an open-addressing table that gives each stored key a
// small integer id; the indexes hold those ids (see objectTable and
// storeIndex).
type Contents struct {
	table objectTable // never holds a nil object
	// index indexes exactly the ids of table.
	index storeIndex
}

// New returns empty contents indexed with set, with room for n objects.
func New(set *IndexSet, n int) *Contents {
	return &Contents{table: newObjectTable(n), index: newStoreIndex(set, n)}
}

// ErrNilObject refuses to store a nil object: it could not be told apart
// from a missing one and index functions would be called with nil.
var ErrNilObject = errors.New("cannot store a nil object")

// NilItemError refuses to store a nil object under Key.
type NilItemError struct{ Key string }

// Error names the key.
func (e *NilItemError) Error() string {
	return "cannot store a nil object under key " + strconv.Quote(e.Key)
}

// Unwrap returns [ErrNilObject].
func (e *NilItemError) Unwrap() error { return ErrNilObject }

// Build returns new contents holding the n items that items yields,
// indexed with set, sized for n. Of a key given twice, the last object
// counts: an earlier one can neither fail an index function nor be nil
// without consequence. It fails with a [NilItemError] when the last object
// of a key is nil, or with the error of an index function that fails.
func Build(set *IndexSet, n int, items func(yield func(string, any) bool)) (*Contents, error) {
	c := &Contents{table: newObjectTable(n)}
	var nilKeys map[string]struct{} // keys whose last object is nil
	for key, obj := range items {
		if obj == nil {
			if nilKeys == nil {
				nilKeys = map[string]struct{}{}
			}
			nilKeys[key] = struct{}{}
			c.table.remove(key)
			continue
		}
		if nilKeys != nil {
			delete(nilKeys, key)
		}
		c.table.put(key, obj)
	}
	for key := range nilKeys {
		return nil, &NilItemError{Key: key}
	}
	c.index = newStoreIndex(set, n)
	if set.Len() == 0 {
		return c, nil
	}
	var buf [4][]string
	for id, e := range c.table.all {
		values, err := set.Compute(c.table.keyAt(id), e.obj, 0, buf[:0])
		if err != nil {
			return nil, err
		}
		c.index.update(id, values)
	}
	return c, nil
}

// IndexSet returns the index functions the contents are indexed with.
func (c *Contents) IndexSet() *IndexSet {
	return c.index.set
}

// Len returns the number of stored objects.
func (c *Contents) Len() int {
	return c.table.len()
}

// Reserve makes room for n objects in all, so that storing up to that many
// grows nothing.
func (c *Contents) Reserve(n int) {
	c.table.reserve(n)
	c.index.reserve(n)
}

// Get returns the object stored under key. It does not allocate.
func (c *Contents) Get(key string) (obj any, ok bool) {
	return c.table.get(key)
}

// GetBytes is Get with the key given as bytes. It does not allocate.
func (c *Contents) GetBytes(key []byte) (obj any, ok bool) {
	return c.table.getBytes(key)
}

// Put stores obj, which must not be nil, under key with its indexed values,
// one entry per index of [Contents.IndexSet], computed with it. It returns
// what key held before.
func (c *Contents) Put(key string, obj any, values [][]string) (old any, existed bool) {
	id, old, existed := c.table.put(key, obj)
	c.index.update(id, values)
	return old, existed
}

// Delete removes key and returns what it held.
func (c *Contents) Delete(key string) (old any, existed bool) {
	id, old, existed := c.table.remove(key)
	if existed {
		c.index.remove(id)
	}
	return old, existed
}

// List returns every stored object, in no particular order, in a new
// slice.
func (c *Contents) List() []any {
	list := make([]any, 0, c.table.len())
	for _, e := range c.table.all {
		list = append(list, e.obj)
	}
	return list
}

// Keys returns every key, in no particular order, in a new slice.
func (c *Contents) Keys() []string {
	keys := make([]string, 0, c.table.len())
	for id := range c.table.all {
		keys = append(keys, c.table.keyAt(id))
	}
	return keys
}

// AddIndexes starts maintaining the indexes of set, which must be
// [Contents.IndexSet] followed by more indexes, and indexes the stored
// objects with the added ones. It fails, changing nothing, when an added
// index function fails on a stored object.
func (c *Contents) AddIndexes(set *IndexSet) error {
	if set == c.index.set {
		return nil
	}
	first := c.index.set.Len()
	added := make(map[uint32][][]string, c.table.len())
	for id, e := range c.table.all {
		values, err := set.Compute(c.table.keyAt(id), e.obj, first, nil)
		if err != nil {
			return err
		}
		added[id] = values
	}
	c.index.extend(set, added)
	return nil
}

// ByValues returns the objects indexed under any of values in the named
// index, each once, in no particular order, in a new slice.
func (c *Contents) ByValues(name string, values []string) ([]any, error) {
	var list []any
	err := c.index.idsByValues(name, values, func(id uint32) bool {
		list = append(list, c.table.at(id).obj)
		return true
	})
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = []any{}
	}
	return list, nil
}

// ByIndex returns the objects indexed under value in the named index, in no
// particular order, in a new slice.
func (c *Contents) ByIndex(name, value string) ([]any, error) {
	b, err := c.index.bucketOf(name, value)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return []any{}, nil
	}
	list := make([]any, 0, b.ids.len())
	for id := range b.ids.all {
		list = append(list, c.table.at(id).obj)
	}
	return list, nil
}

// IndexKeys returns the keys indexed under value in the named index,
// sorted, in a new slice.
func (c *Contents) IndexKeys(name, value string) ([]string, error) {
	b, err := c.index.bucketOf(name, value)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return []string{}, nil
	}
	keys := make([]string, 0, b.ids.len())
	for id := range b.ids.all {
		keys = append(keys, c.table.keyAt(id))
	}
	slices.Sort(keys)
	return keys, nil
}

// IndexValues returns the values present in the named index, in no
// particular order; none for an unknown index.
func (c *Contents) IndexValues(name string) []string {
	return c.index.indexedValues(name)
}
