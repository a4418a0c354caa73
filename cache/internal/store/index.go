package store

import (
	"fmt"
	"slices"
	"sort"
)

// IndexFunc computes the indexed values of an object for one index; see
// cache.IndexFunc, which converts to it.
type IndexFunc = func(obj any) ([]string, error)

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

// IndexSet is an ordered set of index functions. It is immutable once
// built: adding indexes builds a new set. Because of that, writers can
// compute the indexed values of an object from a snapshot of the set
// without holding the store lock, and check under the lock that the set did
// not change meanwhile.
type IndexSet struct {
	names     []string       // index names; position i belongs to funcs[i]
	funcs     []IndexFunc    // never nil
	positions map[string]int // name -> position in names
}

// emptyIndexSet has no index.
var emptyIndexSet = &IndexSet{positions: map[string]int{}}

// NewIndexSet returns the set of fns, in name order. It fails on a nil
// function.
func NewIndexSet(fns map[string]IndexFunc) (*IndexSet, error) {
	return emptyIndexSet.With(fns)
}

// With returns a set holding the functions of s followed by added, in name
// order; s itself when added is empty. It fails on a name s already has and
// on a nil function.
func (s *IndexSet) With(added map[string]IndexFunc) (*IndexSet, error) {
	var conflicts, names []string
	for name, fn := range added {
		if _, dup := s.positions[name]; dup {
			conflicts = append(conflicts, name)
			continue
		}
		if fn == nil {
			return nil, fmt.Errorf("index function %q is nil", name)
		}
		names = append(names, name)
	}
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		return nil, fmt.Errorf("indexer conflict: %v", conflicts)
	}
	if len(names) == 0 {
		return s, nil
	}
	sort.Strings(names)
	n := &IndexSet{
		names:     slices.Concat(s.names, names),
		funcs:     slices.Grow(slices.Clone(s.funcs), len(names)),
		positions: make(map[string]int, len(s.names)+len(names)),
	}
	for _, name := range names {
		n.funcs = append(n.funcs, added[name])
	}
	for i, name := range n.names {
		n.positions[name] = i
	}
	return n, nil
}

// Len returns the number of indexes.
func (s *IndexSet) Len() int { return len(s.names) }

// All calls yield with the name and function of every index, in order,
// until it returns false.
func (s *IndexSet) All(yield func(name string, fn IndexFunc) bool) {
	for i, name := range s.names {
		if !yield(name, s.funcs[i]) {
			return
		}
	}
}

// Compute appends to dst the indexed values of obj for every index of s
// from position from on, one entry per index. The entries are the index
// functions' own slices. key only labels errors.
func (s *IndexSet) Compute(key string, obj any, from int, dst [][]string) ([][]string, error) {
	for i := from; i < len(s.funcs); i++ {
		values, err := s.funcs[i](obj)
		if err != nil {
			return dst, &indexError{key: key, index: s.names[i], err: err}
		}
		dst = append(dst, values)
	}
	return dst, nil
}

// Values returns the indexed values of obj in the named index, as its
// function returns them.
func (s *IndexSet) Values(name string, obj any) ([]string, error) {
	pos, ok := s.positions[name]
	if !ok {
		return nil, errIndexNotFound(name)
	}
	return s.funcs[pos](obj)
}

// storeIndex maintains the indexes of the objects of an [objectTable], by
// id. It is pure bookkeeping: callers serialize access and compute indexed
// values beforehand with [IndexSet.Compute], so no method here can fail
// half-way.
type storeIndex struct {
	// set lists the index functions that buckets reflects.
	set *IndexSet
	// buckets[pos] maps each value of the index at position pos to the
	// ids indexed under it. A value with no id left is removed, so indexes
	// do not grow with the history of short-lived values.
	buckets []map[string]*indexBucket
	// refs[id] lists the buckets id is in; nil (or beyond the end) for
	// none. Keeping them makes removal independent of the index
	// functions: it never fails, and stays exact even if an index function
	// is not deterministic or a stored object was mutated in place.
	refs []*bucketList
}

// indexBucket is one value of an index and the ids indexed under it.
type indexBucket struct {
	value string
	ids   idSet
	// alone is the bucketList of an id that is in this bucket and in no
	// other: with one index and one value per object, the common case,
	// every id shares its bucket's list instead of allocating one.
	alone *bucketList
}

// bucketList is the buckets one id is in, for every index of a set, in
// index order. It is immutable once built, so that ids can share one.
type bucketList struct {
	buckets []*indexBucket
	// ends[pos] is where the buckets of index pos end in buckets. It is
	// nil when every index has exactly one bucket: buckets[pos] is then
	// the bucket of index pos.
	ends []int32
}

// at returns the buckets of the index at position pos.
func (l *bucketList) at(pos int) []*indexBucket {
	switch {
	case l == nil:
		return nil
	case l.ends == nil:
		return l.buckets[pos : pos+1 : pos+1]
	}
	start := int32(0)
	if pos > 0 {
		start = l.ends[pos-1]
	}
	return l.buckets[start:l.ends[pos]:l.ends[pos]]
}

// newStoreIndex returns an empty index maintained for set, with room for n
// ids.
func newStoreIndex(set *IndexSet, n int) storeIndex {
	i := storeIndex{set: set, buckets: make([]map[string]*indexBucket, len(set.names))}
	for pos := range i.buckets {
		i.buckets[pos] = map[string]*indexBucket{}
	}
	if len(set.names) > 0 && n > 0 {
		i.refs = make([]*bucketList, 0, n)
	}
	return i
}

// bucket returns the bucket of value in the index at pos, creating it.
func (i *storeIndex) bucket(pos int, value string) *indexBucket {
	b, ok := i.buckets[pos][value]
	if !ok {
		b = &indexBucket{value: value}
		i.buckets[pos][value] = b
	}
	return b
}

// reserve makes room for the ids of n objects.
func (i *storeIndex) reserve(n int) {
	if len(i.set.names) > 0 && n > len(i.refs) {
		i.refs = slices.Grow(i.refs, n-len(i.refs))
	}
}

// listOf returns the buckets id is in.
func (i *storeIndex) listOf(id uint32) *bucketList {
	if int(id) < len(i.refs) {
		return i.refs[id]
	}
	return nil
}

// update makes id indexed under newValues, which holds one entry per index
// of i.set (a nil newValues means no value at all, as for a deleted id).
// Buckets that stay the same are not touched.
func (i *storeIndex) update(id uint32, newValues [][]string) {
	if len(i.set.names) == 0 {
		return
	}
	old := i.listOf(id)
	if old != nil && newValues != nil && old.holds(newValues) {
		return
	}
	var list *bucketList
	if newValues != nil {
		list = i.listFor(newValues)
	}
	if list != nil {
		for _, b := range list.buckets {
			b.ids.add(id)
		}
	}
	if old != nil {
		for pos := range i.set.names {
			var keep []*indexBucket
			if list != nil {
				keep = list.at(pos)
			}
			for _, b := range old.at(pos) {
				if !containsBucket(keep, b) {
					i.drop(pos, b, id)
				}
			}
		}
	}
	i.setList(id, list)
}

// containsBucket reports whether list holds b.
func containsBucket(list []*indexBucket, b *indexBucket) bool {
	for _, c := range list {
		if c == b {
			return true
		}
	}
	return false
}

// drop removes id from b, the bucket of the index at pos, and forgets the
// bucket once empty.
func (i *storeIndex) drop(pos int, b *indexBucket, id uint32) {
	b.ids.remove(id)
	if b.ids.len() == 0 && i.buckets[pos][b.value] == b {
		delete(i.buckets[pos], b.value)
	}
}

// setList records list as id's.
func (i *storeIndex) setList(id uint32, list *bucketList) {
	if int(id) >= len(i.refs) {
		if list == nil {
			return
		}
		i.refs = append(i.refs, make([]*bucketList, int(id)+1-len(i.refs))...)
	}
	i.refs[id] = list
}

// remove forgets id.
func (i *storeIndex) remove(id uint32) {
	i.update(id, nil)
}

// holds reports whether l is exactly the buckets of values, one entry per
// index, each a set of values (duplicates count once).
func (l *bucketList) holds(values [][]string) bool {
	if l.ends == nil {
		for pos, v := range values {
			if len(v) != 1 || l.buckets[pos].value != v[0] {
				if !sameValues(l.at(pos), v) {
					return false
				}
			}
		}
		return true
	}
	for pos, v := range values {
		if !sameValues(l.at(pos), v) {
			return false
		}
	}
	return true
}

// sameValues reports whether values, as a set, are the values of buckets.
func sameValues(buckets []*indexBucket, values []string) bool {
	if len(buckets)*len(values) > 64 {
		have := make(map[string]struct{}, len(buckets))
		for _, b := range buckets {
			have[b.value] = struct{}{}
		}
		want := make(map[string]struct{}, len(values))
		for _, v := range values {
			if _, ok := have[v]; !ok {
				return false
			}
			want[v] = struct{}{}
		}
		return len(want) == len(have)
	}
	for _, v := range values {
		found := false
		for _, b := range buckets {
			if b.value == v {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	// Every value is a bucket's; every bucket must be a value's.
	for _, b := range buckets {
		if !slices.Contains(values, b.value) {
			return false
		}
	}
	return true
}

// listFor returns the bucket list of values (one entry per index),
// creating missing buckets; nil when there is no value at all.
func (i *storeIndex) listFor(values [][]string) *bucketList {
	total, single := 0, true
	for _, v := range values {
		total += len(v)
		single = single && len(v) == 1
	}
	switch {
	case total == 0:
		return nil
	case single && len(values) == 1:
		b := i.bucket(0, values[0][0])
		if b.alone == nil {
			b.alone = &bucketList{buckets: []*indexBucket{b}}
		}
		return b.alone
	}
	l := &bucketList{buckets: make([]*indexBucket, 0, total)}
	if single {
		for pos, v := range values {
			l.buckets = append(l.buckets, i.bucket(pos, v[0]))
		}
		return l
	}
	l.ends = make([]int32, len(values))
	for pos, vs := range values {
		start := len(l.buckets)
		for _, v := range vs {
			b := i.bucket(pos, v)
			if !containsBucket(l.buckets[start:], b) { // duplicates count once
				l.buckets = append(l.buckets, b)
			}
		}
		l.ends[pos] = int32(len(l.buckets))
	}
	return l
}

// extend starts maintaining the indexes of set, which must be i.set followed
// by more indexes. added maps ids to their values for the added indexes
// (position len(i.set.names) on); ids without values may be left out.
func (i *storeIndex) extend(set *IndexSet, added map[uint32][][]string) {
	first := len(i.set.names)
	for range set.names[first:] {
		i.buckets = append(i.buckets, map[string]*indexBucket{})
	}
	old := i.set
	i.set = set
	ids := make(map[uint32]struct{}, len(i.refs)+len(added))
	for id, l := range i.refs {
		if l != nil {
			ids[uint32(id)] = struct{}{}
		}
	}
	for id := range added {
		ids[id] = struct{}{}
	}
	all := make([][]string, len(set.names))
	for id := range ids {
		l := i.listOf(id)
		for pos := range old.names {
			all[pos] = all[pos][:0]
			for _, b := range l.at(pos) {
				all[pos] = append(all[pos], b.value)
			}
		}
		newValues := added[id]
		for pos := first; pos < len(set.names); pos++ {
			all[pos] = nil
			if newValues != nil {
				all[pos] = newValues[pos-first]
			}
		}
		list := i.listFor(all)
		if list != nil {
			for _, b := range list.buckets {
				b.ids.add(id)
			}
		}
		i.setList(id, list)
	}
}

// bucketOf returns the bucket of value in the named index: nil when no id
// has the value. It is owned by the index: read it only while the index
// does not change.
func (i *storeIndex) bucketOf(name, value string) (*indexBucket, error) {
	pos, ok := i.set.positions[name]
	if !ok {
		return nil, errIndexNotFound(name)
	}
	return i.buckets[pos][value], nil
}

// idsByValues calls yield with every id indexed under any of values in the
// named index, each once.
func (i *storeIndex) idsByValues(name string, values []string, yield func(id uint32) bool) error {
	pos, ok := i.set.positions[name]
	if !ok {
		return errIndexNotFound(name)
	}
	if len(values) == 1 {
		if b := i.buckets[pos][values[0]]; b != nil {
			b.ids.all(yield)
		}
		return nil
	}
	seen := map[uint32]struct{}{}
	for _, v := range values {
		b := i.buckets[pos][v]
		if b == nil {
			continue
		}
		for id := range b.ids.all {
			if _, dup := seen[id]; dup {
				continue
			}
			seen[id] = struct{}{}
			if !yield(id) {
				return nil
			}
		}
	}
	return nil
}

// indexedValues returns the values present in the named index; none for an
// unknown index.
func (i *storeIndex) indexedValues(name string) []string {
	pos, ok := i.set.positions[name]
	if !ok {
		return []string{}
	}
	out := make([]string, 0, len(i.buckets[pos]))
	for v := range i.buckets[pos] {
		out = append(out, v)
	}
	return out
}
