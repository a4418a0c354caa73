package cache

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/informer-go/informer/cache/internal/codec"
	"github.com/informer-go/informer/cache/internal/store"
)

// encodeOptions tune newEncodedThreadSafeStore. The zero value is the
// default: the codec chosen at the first write, the default number of
// recently read objects kept decoded.
type encodeOptions struct {
	// DecodedCacheSize is how many recently read objects stay decoded,
	// rounded up to an even power of two: 0 means store.DefaultRecent
	// (256), a negative number none.
	DecodedCacheSize int
	// exampleObject, when not nil, chooses the codec at construction, so
	// that a type without one fails there. When nil the codec is chosen
	// from the first object written, and a type without one makes every
	// write fail (reported, nothing stored).
	exampleObject runtime.Object
	// codec chooses the formats; the zero value is protobuf for typed
	// objects and CBOR for unstructured ones.
	codec codec.Options
	// storeOptions configure the store that holds the encoded objects
	// (WithThreadSafeStoreMetrics).
	storeOptions []ThreadSafeStoreOption
}

// newEncodedThreadSafeStore returns an empty ThreadSafeStore, also a
// ThreadSafeStoreWithTransaction, that keeps its objects serialized (the
// Encode memory mode): see encodedStore. It fails when
// opts.exampleObject's type has no codec (an error wrapping
// codec.ErrNoCodec).
func newEncodedThreadSafeStore(indexers Indexers, opts encodeOptions) (ThreadSafeStore, error) {
	enc, err := store.NewEncoding(opts.exampleObject, store.EncodingOptions{Codec: opts.codec, Recent: opts.DecodedCacheSize})
	if err != nil {
		return nil, fmt.Errorf("encoded store: %w", err)
	}
	s := &encodedStore{enc: enc}
	s.m = newThreadSafeMap(s.wrapIndexers(indexers), opts.storeOptions...)
	return s, nil
}

var _ ThreadSafeStoreWithTransaction = (*encodedStore)(nil)

// encodedStore is a ThreadSafeStore whose objects are kept as bytes
// (store.Encoded) in a threadSafeMap: the same engine, locking, indexes and
// resource version as NewThreadSafeStore's, with every object encoded
// before the write takes the lock and decoded after a read released it.
//
// Its contract differs from NewThreadSafeStore's in what objects are:
//   - A write stores an encoding of the object: the caller may modify the
//     object afterwards without changing the store. Only runtime.Objects of
//     the store's one type are stored (that of encodeOptions.exampleObject,
//     or of the first object written); any other write is refused and
//     reported as a failing index function's would be.
//   - Every read (Get, List, ByIndex, Index, and the old objects of swap
//     and transact) returns fresh objects that the caller owns and may
//     modify. Two reads of one key return two objects. The functions of
//     GetIndexers are wrappers of the store's own; given an object they
//     return what the original returns.
//   - Indexed values are computed once, from the object being written;
//     only AddIndexers decodes the objects already stored.
//   - Bytes that no longer decode (only memory corruption makes them) are
//     reported to HandleError on every read of them: Get answers that the
//     key does not exist, List and the index queries leave the object out,
//     a write over them reports that the key held nothing (an add, for an
//     informer), AddIndexers fails. Other objects are not affected, and the next write
//     of the key replaces the bytes.
//
// Costs (realistic Pods without managedFields, measured by the benchmarks
// of cache/internal/store/encheap): a write encodes, about a quarter of the
// CPU of a decode; a read decodes (16 µs) or, for one of the recently read
// objects kept decoded (encodeOptions.DecodedCacheSize), deep-copies
// (5.6 µs; client-go's Get returns the stored object in well under 1 µs);
// List and the index queries decode every object they return, after the
// lock is released, and so does a resync, which reads every object. The
// heap held is about 0.17 of client-go's for such Pods (0.43 with
// managedFields kept).
type encodedStore struct {
	enc *store.Encoding
	// m holds *store.Encoded values; its index functions are wrapped by
	// enc.IndexFunc.
	m *threadSafeMap
	// sources orders AddIndexers, which holds it while its index
	// functions read the stored objects, with writers, which hold it for
	// reading while they drop the sources of the objects they stored (see
	// dropSources): an index function never reads an object its writer
	// returned to a caller, who may be modifying it.
	sources sync.RWMutex
}

// dropSources drops the sources of xs, written (or refused) by a write
// that is about to return.
func (s *encodedStore) dropSources(xs ...*store.Encoded) {
	s.sources.RLock()
	defer s.sources.RUnlock()
	for _, x := range xs {
		x.DropSource()
	}
}

// wrapIndexers returns indexers with each function wrapped for encoded
// objects. A nil function stays nil, for the store to refuse it as it
// would for a plain store.
func (s *encodedStore) wrapIndexers(indexers Indexers) Indexers {
	out := make(Indexers, len(indexers))
	for name, fn := range indexers {
		if fn != nil {
			fn = s.enc.IndexFunc(fn)
		}
		out[name] = fn
	}
	return out
}

// encode returns obj encoded, or the error refusing its write under key.
// The caller drops the source of the result once the write is done.
func (s *encodedStore) encode(key string, obj any) (*store.Encoded, error) {
	if obj == nil {
		return nil, &store.NilItemError{Key: key}
	}
	x, err := s.enc.Encode(obj)
	if err != nil {
		return nil, fmt.Errorf("encoded store: key %q: %w", key, err)
	}
	return x, nil
}

// encodeAll returns objs encoded, for a write of them all, and the same as
// Encoded for dropSources once the write is done; it fails on the first
// that cannot be.
func (s *encodedStore) encodeAll(keys []string, objs []any) (xs []any, encoded []*store.Encoded, err error) {
	xs = make([]any, len(objs))
	encoded = make([]*store.Encoded, len(objs))
	for i, obj := range objs {
		x, err := s.encode(keys[i], obj)
		if err != nil {
			s.dropSources(encoded[:i]...)
			return nil, nil, err
		}
		xs[i], encoded[i] = x, x
	}
	return xs, encoded, nil
}

// reportUnreadable reports bytes that do not decode: what names them.
func reportUnreadable(what string, err error) {
	utilruntime.HandleError(fmt.Errorf("encoded store: %s cannot be read, left out: %w", what, err))
}

// decode returns a fresh object of the stored value v (a *store.Encoded),
// keeping a copy decoded when recent is set.
func (s *encodedStore) decode(v any, recent bool) (runtime.Object, error) {
	if recent {
		return s.enc.DecodeRecent(v.(*store.Encoded))
	}
	return s.enc.Decode(v.(*store.Encoded))
}

// decodeAt returns a fresh object of v, what key holds (the current object
// when recent is set, as for Get, which keeps a copy decoded; the old one of
// a write otherwise); false, reported, when it does not decode.
func decodeAt(s *encodedStore, key string, v any, recent bool) (any, bool) {
	obj, err := s.decode(v, recent)
	if err == nil {
		return obj, true
	}
	what := "the old object"
	if recent {
		what = "the object"
	}
	reportUnreadable(fmt.Sprintf("%s of key %q", what, key), err)
	return nil, false
}

// decodeList returns fresh objects of the stored values, leaving out, and
// reporting, those that do not decode.
func (s *encodedStore) decodeList(vs []any) []any {
	out := vs[:0] // vs is a new slice of the caller's
	for _, v := range vs {
		obj, err := s.decode(v, false)
		if err != nil {
			reportUnreadable("an object of a list", err)
			continue
		}
		out = append(out, obj)
	}
	clear(vs[len(out):])
	return out
}

// decodePrior returns a fresh object of what a write found under key: the
// old object of an update. When it does not decode the key is reported as
// having held nothing: the caller sees an add.
func (s *encodedStore) decodePrior(key string, old any, existed bool) (any, bool) {
	if !existed {
		return nil, false
	}
	return decodeAt(s, key, old, false)
}

// Add is Update.
func (s *encodedStore) Add(key string, obj any) {
	s.Update(key, obj)
}

// Update stores obj, encoded, under key. A refused write is reported to
// HandleError.
func (s *encodedStore) Update(key string, obj any) {
	reportRefused(s.update(key, obj))
}

// reportRefused reports err, the refusal of a write, unless it is nil.
func reportRefused(err error) {
	if err != nil {
		utilruntime.HandleError(err)
	}
}

// update stores obj under key. It fails, changing nothing, when obj is nil,
// cannot be encoded, or an index function fails on it.
func (s *encodedStore) update(key string, obj any) error {
	_, _, err := s.put(key, obj)
	return err
}

// put stores obj under key and returns what key held, still encoded.
func (s *encodedStore) put(key string, obj any) (old any, existed bool, err error) {
	x, err := s.encode(key, obj)
	if err != nil {
		return nil, false, err
	}
	defer s.dropSources(x)
	return s.m.swap(key, x)
}

// swap is update that also returns, decoded, what key held before.
func (s *encodedStore) swap(key string, obj any) (old any, existed bool, err error) {
	old, existed, err = s.put(key, obj)
	if err != nil {
		return nil, false, err
	}
	old, existed = s.decodePrior(key, old, existed)
	return old, existed, nil
}

// Delete removes key without touching the resource version.
func (s *encodedStore) Delete(key string) {
	s.m.Delete(key)
}

// DeleteWithObject removes key and records the resource version of obj.
func (s *encodedStore) DeleteWithObject(key string, obj any) {
	s.m.DeleteWithObject(key, obj)
}

// Transaction applies txns in order under one lock; refused writes are
// reported to HandleError.
func (s *encodedStore) Transaction(txns ...ThreadSafeStoreTransaction) {
	for _, err := range s.transaction(txns) {
		reportRefused(err)
	}
}

// transaction is threadSafeMap.transaction of the objects encoded.
func (s *encodedStore) transaction(txns []ThreadSafeStoreTransaction) []error {
	return s.transact(txns, nil)
}

// transact is threadSafeMap.transact with the objects of adds and updates
// encoded first (a write whose object cannot be is refused at its
// position) and the recorded priors decoded after the lock is released.
func (s *encodedStore) transact(txns []ThreadSafeStoreTransaction, priors []storedState) []error {
	if len(txns) == 0 {
		return nil
	}
	run := make([]ThreadSafeStoreTransaction, 0, len(txns)) // what goes to s.m
	from := make([]int, 0, len(txns))                       // from[j]: position in txns of run[j]
	refused := make([]error, len(txns))
	anyRefused := false
	var written []*store.Encoded
	defer func() { s.dropSources(written...) }()
	for i, txn := range txns {
		if (txn.Type == TransactionTypeAdd || txn.Type == TransactionTypeUpdate) && txn.Object != nil {
			x, err := s.encode(txn.Key, txn.Object)
			if err != nil {
				refused[i], anyRefused = err, true
				continue
			}
			written = append(written, x)
			txn.Object = x
		}
		run = append(run, txn)
		from = append(from, i)
	}
	var runPriors []storedState
	if priors != nil {
		runPriors = make([]storedState, len(run))
	}
	errs := s.m.transact(run, runPriors)
	for j, i := range from {
		if errs != nil && errs[j] != nil {
			refused[i], anyRefused = errs[j], true
			continue
		}
		if priors != nil {
			obj, existed := s.decodePrior(run[j].Key, runPriors[j].obj, runPriors[j].existed)
			priors[i] = storedState{obj: obj, existed: existed}
		}
	}
	if !anyRefused {
		return nil
	}
	return refused
}

// Get returns a fresh copy of the object stored under key.
func (s *encodedStore) Get(key string) (item any, exists bool) {
	v, ok := s.m.Get(key)
	if !ok {
		return nil, false
	}
	return decodeAt(s, key, v, true)
}

// List returns fresh copies of every object.
func (s *encodedStore) List() []any {
	return s.decodeList(s.m.List())
}

// len returns the number of stored objects.
func (s *encodedStore) len() int {
	return s.m.len()
}

// ListKeys returns every key.
func (s *encodedStore) ListKeys() []string {
	return s.m.ListKeys()
}

// Replace swaps in items, encoded. A refused replace is reported to
// HandleError.
func (s *encodedStore) Replace(items map[string]any, resourceVersion string) {
	reportRefused(s.replace(items, resourceVersion))
}

// replace swaps in items and records resourceVersion. It fails, changing
// nothing, when an object is nil, cannot be encoded, or an index function
// fails on it.
func (s *encodedStore) replace(items map[string]any, resourceVersion string) error {
	keys := make([]string, 0, len(items))
	objs := make([]any, 0, len(items))
	for key, obj := range items {
		keys = append(keys, key)
		objs = append(objs, obj)
	}
	return s.replaceList(keys, objs, resourceVersion)
}

// replaceList is replace with the items given as keys and the objects at
// the same positions; of a key given twice, the last object is kept.
func (s *encodedStore) replaceList(keys []string, objs []any, resourceVersion string) error {
	xs, encoded, err := s.encodeAll(keys, objs)
	if err != nil {
		return err
	}
	defer s.dropSources(encoded...)
	return s.m.replaceList(keys, xs, resourceVersion)
}

// fill is threadSafeMap.fill of objs encoded. It fails, storing nothing,
// when an object cannot be encoded, as when it cannot be stored.
func (s *encodedStore) fill(keys []string, objs []any) error {
	if s.m.len() != 0 {
		return errStoreNotEmpty // before encoding the whole list for nothing
	}
	xs, encoded, err := s.encodeAll(keys, objs)
	if err != nil {
		return err
	}
	defer s.dropSources(encoded...)
	return s.m.fill(keys, xs)
}

// Index returns fresh copies of the objects sharing an indexed value with
// obj.
func (s *encodedStore) Index(indexName string, obj any) ([]any, error) {
	vs, err := s.m.Index(indexName, obj)
	if err != nil {
		return nil, err
	}
	return s.decodeList(vs), nil
}

// ByIndex returns fresh copies of the objects indexed under indexedValue.
func (s *encodedStore) ByIndex(indexName, indexedValue string) ([]any, error) {
	vs, err := s.m.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return s.decodeList(vs), nil
}

// IndexKeys returns the sorted keys indexed under indexedValue.
func (s *encodedStore) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return s.m.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues returns the values present in the named index.
func (s *encodedStore) ListIndexFuncValues(indexName string) []string {
	return s.m.ListIndexFuncValues(indexName)
}

// GetIndexers returns the index functions, as wrapped for encoded objects
// (they behave as the originals on any object a caller has).
func (s *encodedStore) GetIndexers() Indexers {
	return s.m.GetIndexers()
}

// AddIndexers adds indexes and indexes the stored objects with them, which
// decodes each stored object once. It fails, changing nothing, on a name
// conflict, a nil function, an index function failing on a stored object,
// or a stored object that does not decode.
func (s *encodedStore) AddIndexers(newIndexers Indexers) error {
	s.sources.Lock()
	defer s.sources.Unlock()
	defer s.enc.ForgetIndexed()
	return s.m.AddIndexers(s.wrapIndexers(newIndexers))
}

// Resync does nothing.
func (s *encodedStore) Resync() error {
	return nil
}

// Bookmark records rv as the store's resource version.
func (s *encodedStore) Bookmark(rv string) {
	s.m.Bookmark(rv)
}

// LastStoreSyncResourceVersion returns the store's resource version.
func (s *encodedStore) LastStoreSyncResourceVersion() string {
	return s.m.LastStoreSyncResourceVersion()
}
