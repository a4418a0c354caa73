package cache

import (
	"fmt"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/sets"
)

// IndexFunc computes the set of indexed values of an object for one index. An
// object may have no value, one, or several; duplicates count once. It must be
// safe for concurrent use: stores call it without holding their lock. A store
// keeps a copy of the result, so the function may reuse its slice.
//
// When an IndexFunc fails while a store writes an object, the write is refused
// with an error and the store is left unchanged (client-go panics instead).
type IndexFunc func(obj any) ([]string, error)

// Indexers maps index names to their index functions.
type Indexers map[string]IndexFunc

// Indices maps index names to their indexes. Callers can only create an empty
// one (Indices{}), for [NewThreadSafeStore].
type Indices map[string]index

// index maps an indexed value to the keys of the objects that have it.
type index map[string]sets.Set[string]

// NamespaceIndex is the conventional name of the index built by
// [MetaNamespaceIndexFunc].
const NamespaceIndex string = "namespace"

// MetaNamespaceIndexFunc indexes an object by its namespace. For an object
// without metadata it returns [""] and the error.
func MetaNamespaceIndexFunc(obj any) ([]string, error) {
	m, err := objectMeta(obj)
	if err != nil {
		return []string{""}, fmt.Errorf("object has no meta: %w", err)
	}
	return []string{m.GetNamespace()}, nil
}

// IndexFuncToKeyFuncAdapter turns an index function that yields exactly one
// value per object into a [KeyFunc]. The key function fails for an object
// with no value or several.
func IndexFuncToKeyFuncAdapter(indexFunc IndexFunc) KeyFunc {
	return func(obj any) (string, error) {
		values, err := indexFunc(obj)
		if err != nil {
			return "", err
		}
		switch len(values) {
		case 1:
			return values[0], nil
		case 0:
			return "", fmt.Errorf("the index function returned no value for %v", obj)
		default:
			return "", fmt.Errorf("the index function returned %d values for %v, a key needs exactly one", len(values), obj)
		}
	}
}

// indexError reports an index function that failed on an object being
// written. The write it belongs to was not applied.
type indexError struct {
	key   string // store key of the object
	index string // name of the failing index
	err   error
}

// Error names the key, the index and the cause.
func (e *indexError) Error() string {
	return fmt.Sprintf("unable to calculate an index entry for key %q on index %q: %v", e.key, e.index, e.err)
}

// Unwrap returns the index function's error.
func (e *indexError) Unwrap() error { return e.err }

// errIndexNotFound is the error of a query on an index that does not exist.
func errIndexNotFound(name string) error {
	return fmt.Errorf("index with name %s does not exist", name)
}

// indexSet is an ordered set of index functions. It is immutable once built:
// adding indexers builds a new set. Because of that, writers can compute the
// indexed values of an object from a snapshot of the set without holding the
// store lock, and check under the lock that the set did not change meanwhile.
type indexSet struct {
	names     []string       // index names; position i belongs to funcs[i]
	funcs     []IndexFunc    // never nil
	positions map[string]int // name -> position in names
}

// emptyIndexSet has no index.
var emptyIndexSet = &indexSet{positions: map[string]int{}}

// with returns a set holding the functions of s followed by newIndexers, in
// name order. It fails on a name s already has and on a nil function.
func (s *indexSet) with(newIndexers Indexers) (*indexSet, error) {
	var conflicts, added []string
	for name, fn := range newIndexers {
		if _, dup := s.positions[name]; dup {
			conflicts = append(conflicts, name)
			continue
		}
		if fn == nil {
			return nil, fmt.Errorf("index function %q is nil", name)
		}
		added = append(added, name)
	}
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		return nil, fmt.Errorf("indexer conflict: %v", conflicts)
	}
	if len(added) == 0 {
		return s, nil
	}
	sort.Strings(added)
	n := &indexSet{
		names:     slices.Concat(s.names, added),
		funcs:     slices.Grow(slices.Clone(s.funcs), len(added)),
		positions: make(map[string]int, len(s.names)+len(added)),
	}
	for _, name := range added {
		n.funcs = append(n.funcs, newIndexers[name])
	}
	for i, name := range n.names {
		n.positions[name] = i
	}
	return n, nil
}

// indexers returns the functions of s as a new map the caller owns.
func (s *indexSet) indexers() Indexers {
	out := make(Indexers, len(s.names))
	for i, name := range s.names {
		out[name] = s.funcs[i]
	}
	return out
}

// compute appends to dst the indexed values of obj for every index of s from
// position from on, one entry per index. The entries are the index
// functions' own slices. key only labels errors.
func (s *indexSet) compute(key string, obj any, from int, dst [][]string) ([][]string, error) {
	for i := from; i < len(s.funcs); i++ {
		values, err := s.funcs[i](obj)
		if err != nil {
			return dst, &indexError{key: key, index: s.names[i], err: err}
		}
		dst = append(dst, values)
	}
	return dst, nil
}

// storeIndex maintains the indexes of a keyed collection. It is pure
// bookkeeping: callers serialize access (the store lock) and compute indexed
// values beforehand with [indexSet.compute], so no method here can fail
// half-way.
type storeIndex struct {
	// set lists the index functions that indices reflects.
	set *indexSet
	// indices maps an index name to its index, for every name in set. A
	// value with no key left is removed, so indexes do not grow with the
	// history of short-lived values.
	indices Indices
	// values maps a key to the values it is indexed under. A key indexed
	// under no value at all has no entry. Keeping the values makes removal
	// independent of the index functions: it never fails, and stays exact
	// even if an index function is not deterministic or a stored object was
	// mutated in place.
	values map[string]keyValues
}

// keyValues is a copy of the values of one key, for every index of a set, in
// as few allocations as possible.
type keyValues struct {
	// flat holds the values of every index, in index order.
	flat []string
	// ends[i] is where the values of index i end in flat. It is nil in the
	// common case where every index has exactly one value: flat[i] is then
	// the value of index i.
	ends []int32
}

// at returns the values of the index at position pos. The result must not be
// modified.
func (kv keyValues) at(pos int) []string {
	switch {
	case kv.flat == nil:
		return nil
	case kv.ends == nil:
		return kv.flat[pos : pos+1 : pos+1]
	}
	start := int32(0)
	if pos > 0 {
		start = kv.ends[pos-1]
	}
	return kv.flat[start:kv.ends[pos]:kv.ends[pos]]
}

// newKeyValues copies values, which holds the values of each index of a set.
// ok is false when there is no value at all.
func newKeyValues(values [][]string) (kv keyValues, ok bool) {
	total, single := 0, true
	for _, v := range values {
		total += len(v)
		single = single && len(v) == 1
	}
	if total == 0 {
		return keyValues{}, false
	}
	kv.flat = make([]string, 0, total)
	if single {
		for _, v := range values {
			kv.flat = append(kv.flat, v[0])
		}
		return kv, true
	}
	kv.ends = make([]int32, len(values))
	for pos, v := range values {
		kv.flat = append(kv.flat, v...)
		kv.ends[pos] = int32(len(kv.flat))
	}
	return kv, true
}

// newStoreIndex returns an empty index maintained for set.
func newStoreIndex(set *indexSet) *storeIndex {
	i := &storeIndex{set: set, indices: make(Indices, len(set.names))}
	for _, name := range set.names {
		i.indices[name] = index{}
	}
	if len(set.names) > 0 {
		i.values = map[string]keyValues{}
	}
	return i
}

// update makes key indexed under newValues, which holds one entry per index
// of i.set (a nil newValues means no value at all, as for a deleted key).
// Index entries that stay the same are not touched.
func (i *storeIndex) update(key string, newValues [][]string) {
	if len(i.set.names) == 0 {
		return
	}
	old := i.values[key]
	changed := false
	for pos, name := range i.set.names {
		before := old.at(pos)
		var after []string
		if newValues != nil {
			after = newValues[pos]
		}
		if slices.Equal(before, after) {
			continue
		}
		changed = true
		idx := i.indices[name]
		if len(before)*len(after) > 64 {
			i.updateLarge(idx, key, before, after)
			continue
		}
		for _, v := range before {
			if !slices.Contains(after, v) {
				removeKey(idx, v, key)
			}
		}
		for _, v := range after {
			if !slices.Contains(before, v) {
				addKey(idx, v, key)
			}
		}
	}
	if changed {
		i.keep(key, newValues)
	}
}

// updateLarge is the part of update for one index when both value lists are
// long: it compares them as sets instead of by linear search.
func (i *storeIndex) updateLarge(idx index, key string, before, after []string) {
	beforeSet, afterSet := sets.New(before...), sets.New(after...)
	for v := range beforeSet {
		if !afterSet.Has(v) {
			removeKey(idx, v, key)
		}
	}
	for v := range afterSet {
		if !beforeSet.Has(v) {
			addKey(idx, v, key)
		}
	}
}

// keep records a copy of the values of key, or forgets key when it has none.
func (i *storeIndex) keep(key string, values [][]string) {
	if kv, ok := newKeyValues(values); ok {
		i.values[key] = kv
	} else {
		delete(i.values, key)
	}
}

// extend starts maintaining the indexes of set, which must be i.set followed
// by more indexes. added maps keys to their values for the added indexes
// (position len(i.set.names) on); keys without values may be left out.
func (i *storeIndex) extend(set *indexSet, added map[string][][]string) {
	first := len(i.set.names)
	for _, name := range set.names[first:] {
		i.indices[name] = index{}
	}
	if i.values == nil {
		i.values = make(map[string]keyValues, len(added))
	}
	// Re-lay the values of every key for the larger set.
	keys := make(map[string]struct{}, len(i.values)+len(added))
	for key := range i.values {
		keys[key] = struct{}{}
	}
	for key := range added {
		keys[key] = struct{}{}
	}
	all := make([][]string, len(set.names))
	for key := range keys {
		old := i.values[key]
		for pos := range first {
			all[pos] = old.at(pos)
		}
		newValues := added[key]
		for pos := first; pos < len(set.names); pos++ {
			all[pos] = nil
			if newValues != nil {
				all[pos] = newValues[pos-first]
			}
			name := set.names[pos]
			for _, v := range all[pos] {
				addKey(i.indices[name], v, key)
			}
		}
		i.keep(key, all)
	}
	i.set = set
}

// keysByValue returns the keys indexed under value in the named index. The set
// is owned by the index: read it only while holding the store lock.
func (i *storeIndex) keysByValue(name, value string) (sets.Set[string], error) {
	idx, ok := i.indices[name]
	if !ok {
		return nil, errIndexNotFound(name)
	}
	return idx[value], nil
}

// keysByValues returns the keys indexed under any of values in the named
// index. With exactly one value the set is owned by the index, as for
// keysByValue.
func (i *storeIndex) keysByValues(name string, values []string) (sets.Set[string], error) {
	idx, ok := i.indices[name]
	if !ok {
		return nil, errIndexNotFound(name)
	}
	if len(values) == 1 {
		return idx[values[0]], nil
	}
	keys := sets.Set[string]{}
	for _, v := range values {
		for key := range idx[v] {
			keys.Insert(key)
		}
	}
	return keys, nil
}

// indexedValues returns the values present in the named index; none for an
// unknown index.
func (i *storeIndex) indexedValues(name string) []string {
	idx := i.indices[name]
	out := make([]string, 0, len(idx))
	for v := range idx {
		out = append(out, v)
	}
	return out
}

func addKey(idx index, value, key string) {
	keys := idx[value]
	if keys == nil {
		keys = sets.Set[string]{}
		idx[value] = keys
	}
	keys.Insert(key)
}

func removeKey(idx index, value, key string) {
	keys := idx[value]
	if keys == nil {
		return
	}
	keys.Delete(key)
	if len(keys) == 0 {
		delete(idx, value)
	}
}
