package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// This file checks ThreadSafeStore and Indexer against storeModel, a naive
// reference (a map, and a linear scan for every query), on random sequences
// of operations: from math/rand in TestThreadSafeStoreMatchesModel and from
// the fuzzer in FuzzThreadSafeStore.

// storeModel is the reference. In keyed mode it models an Indexer, whose
// keys come from MetaNamespaceKeyFunc (so a nil object fails to be keyed
// whatever the operation); otherwise a ThreadSafeStore.
type storeModel struct {
	keyed    bool
	items    map[string]any
	indexers Indexers
	rv       string
}

func newStoreModel(keyed bool, indexers Indexers) *storeModel {
	return &storeModel{keyed: keyed, items: map[string]any{}, indexers: maps2(indexers)}
}

func maps2(in Indexers) Indexers {
	out := Indexers{}
	for k, v := range in {
		out[k] = v
	}
	return out
}

// storable reports whether obj can be stored: it is not nil and no index
// function fails on it.
func (m *storeModel) storable(obj any) bool {
	if obj == nil {
		return false
	}
	for _, fn := range m.indexers {
		if _, err := fn(obj); err != nil {
			return false
		}
	}
	return true
}

func (m *storeModel) recordRV(obj any) {
	if rv, ok := rvFromObject(obj); ok {
		m.rv = rv
	}
}

func (m *storeModel) update(key string, obj any) bool {
	if !m.storable(obj) {
		return false
	}
	m.items[key] = obj
	m.recordRV(obj)
	return true
}

func (m *storeModel) deleteWithObject(key string, obj any) {
	delete(m.items, key)
	if obj != nil {
		m.recordRV(obj)
	}
}

func (m *storeModel) replace(items map[string]any, rv string) bool {
	for _, obj := range items {
		if !m.storable(obj) {
			return false
		}
	}
	m.items = items
	m.rv = rv
	return true
}

func (m *storeModel) addIndexers(add Indexers) bool {
	for name, fn := range add {
		if _, dup := m.indexers[name]; dup || fn == nil {
			return false
		}
		for _, obj := range m.items {
			if _, err := fn(obj); err != nil {
				return false
			}
		}
	}
	for name, fn := range add {
		m.indexers[name] = fn
	}
	return true
}

// transaction applies txns and returns the positions applied.
func (m *storeModel) transaction(txns []ThreadSafeStoreTransaction) []int {
	applied, _ := m.transact(txns)
	return applied
}

// transact is transaction that also returns, for each position applied,
// what its key held just before.
func (m *storeModel) transact(txns []ThreadSafeStoreTransaction) (applied []int, priors map[int]storedState) {
	priors = map[int]storedState{}
	for i, txn := range txns {
		old, existed := m.items[txn.Key]
		switch txn.Type {
		case TransactionTypeAdd, TransactionTypeUpdate:
			if !m.storable(txn.Object) {
				continue
			}
			m.items[txn.Key] = txn.Object
		case TransactionTypeDelete:
			delete(m.items, txn.Key)
		default:
			continue
		}
		applied = append(applied, i)
		priors[i] = storedState{obj: old, existed: existed}
	}
	if len(applied) > 0 {
		m.recordRV(txns[applied[len(applied)-1]].Object)
	}
	return applied, priors
}

func (m *storeModel) values(name string, obj any) sets.Set[string] {
	vs, err := m.indexers[name](obj)
	if err != nil {
		panic(fmt.Sprintf("model: stored object fails index %q: %v", name, err))
	}
	return sets.New(vs...)
}

func (m *storeModel) keysWithAny(name string, values sets.Set[string]) []string {
	keys := []string{}
	for key, obj := range m.items {
		if m.values(name, obj).HasAny(values.UnsortedList()...) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return keys
}

func (m *storeModel) indexValues(name string) []string {
	all := sets.New[string]()
	for _, obj := range m.items {
		all = all.Union(m.values(name, obj))
	}
	return sets.List(all)
}

// storeUnderTest is the ThreadSafeStore or Indexer being checked, seen
// through the unexported store that holds its state.
type storeUnderTest struct {
	tsm     threadSafeStoreUnderTest
	indexer *cache // nil when testing the ThreadSafeStore directly
	// encoded is set for a store of encoded objects, whose reads return
	// fresh objects equal to those written.
	encoded bool
}

// threadSafeStoreUnderTest is what the tests call on a ThreadSafeStore:
// a threadSafeMap or an encodedStore.
type threadSafeStoreUnderTest interface {
	ThreadSafeStoreWithTransaction
	update(key string, obj any) error
	replace(items map[string]any, resourceVersion string) error
	transaction(txns []ThreadSafeStoreTransaction) []error
	transact(txns []ThreadSafeStoreTransaction, priors []storedState) []error
	swap(key string, obj any) (old any, existed bool, err error)
}

// storeImpl is one implementation of ThreadSafeStore the tests run on.
type storeImpl struct {
	name    string
	encoded bool
	new     func(t testing.TB, indexers Indexers, opts ...ThreadSafeStoreOption) threadSafeStoreUnderTest
}

// storeImpls are the implementations of ThreadSafeStore: the plain one and
// the encoded one (protobuf, as the test objects are
// PartialObjectMetadata).
var storeImpls = []storeImpl{
	{name: "plain", new: func(_ testing.TB, indexers Indexers, opts ...ThreadSafeStoreOption) threadSafeStoreUnderTest {
		return NewThreadSafeStore(indexers, Indices{}, opts...).(*threadSafeMap)
	}},
	{name: "encoded", encoded: true, new: func(t testing.TB, indexers Indexers, opts ...ThreadSafeStoreOption) threadSafeStoreUnderTest {
		s, err := newEncodedThreadSafeStore(indexers, encodeOptions{DecodedCacheSize: 4, storeOptions: opts})
		if err != nil {
			t.Fatal(err)
		}
		return s.(*encodedStore)
	}},
}

// holds reports whether got, read from the store, is want as written: want
// itself, or, for an encoded store, an equal object of the reader's own.
func (sut storeUnderTest) holds(got, want any) bool {
	if !sut.encoded {
		return got == want
	}
	return got != want && apiequality.Semantic.DeepEqual(got, want)
}

// storeOpSource yields the choices of a random run.
type storeOpSource interface {
	intn(n int) int
}

type randSource struct{ r *rand.Rand }

func (s randSource) intn(n int) int { return s.r.IntN(n) }

// bytesSource reads choices from fuzzer input; it yields 0 once exhausted.
type bytesSource struct{ data []byte }

func (s *bytesSource) intn(n int) int {
	if len(s.data) == 0 {
		return 0
	}
	b := s.data[0]
	s.data = s.data[1:]
	return int(b) % n
}

func (s *bytesSource) done() bool { return len(s.data) == 0 }

// storeGen generates operands.
type storeGen struct{ src storeOpSource }

func (g storeGen) pick(options ...string) string { return options[g.src.intn(len(options))] }

// obj returns a random object, sometimes nil.
func (g storeGen) obj() any {
	if g.src.intn(16) == 0 {
		return nil
	}
	ns := g.pick("", "ns1", "ns2")
	name := g.pick("a", "b", "c", "bad")
	rv := g.pick("", "1", "2", "3", "17", "abc", "1234567890123456789")
	var kv []string
	for _, label := range []string{"app", "tier"} {
		if g.src.intn(2) == 0 {
			kv = append(kv, label, g.pick("x", "y", "z"))
		}
	}
	if g.src.intn(10) == 0 {
		kv = append(kv, "fail", "")
	}
	return storeObj(ns, name, rv, kv...)
}

func (g storeGen) key(obj any) string {
	if obj != nil {
		if k, err := MetaNamespaceKeyFunc(obj); err == nil {
			return k
		}
	}
	return g.pick("a", "ns1/a", "ns2/b", "c")
}

// storeInitialIndexers are the indexes every run starts with.
func storeInitialIndexers() Indexers {
	return Indexers{"ns": MetaNamespaceIndexFunc, "labels": storeLabelIndexFunc}
}

// storeAddableIndexers are the candidates for AddIndexers: new, failing on
// some objects, conflicting, partly conflicting.
var storeAddableIndexers = []Indexers{
	{"name": storeNameIndexFunc},
	{"labels2": storeLabelIndexFunc},
	{"ns": MetaNamespaceIndexFunc},
	{"name2": storeNameIndexFunc, "labels": storeLabelIndexFunc},
	{"nilfunc": nil},
	{},
}

// storeRunOps applies n operations (or until src is exhausted, for a
// bytesSource) to a fresh store and model, checking them after each one.
// impl builds the ThreadSafeStore when keyed is false.
func storeRunOps(t *testing.T, keyed bool, impl storeImpl, src storeOpSource, n int) {
	t.Helper()
	model := newStoreModel(keyed, storeInitialIndexers())
	var sut storeUnderTest
	if keyed {
		sut.indexer = NewIndexer(MetaNamespaceKeyFunc, storeInitialIndexers()).(*cache)
		sut.tsm = sut.indexer.cacheStorage.(threadSafeStoreUnderTest)
	} else {
		sut.tsm = impl.new(t, storeInitialIndexers())
		sut.encoded = impl.encoded
	}
	g := storeGen{src: src}
	var log []string
	for i := 0; i < n; i++ {
		if bs, ok := src.(*bytesSource); ok && bs.done() {
			return
		}
		desc := storeApplyOp(t, g, model, sut)
		log = append(log, desc)
		if err := storeCompare(model, sut); err != nil {
			t.Fatalf("after operations:\n  %s\n%v", joinLines(log), err)
		}
	}
}

func joinLines(lines []string) string {
	out := ""
	for i, l := range lines {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}

// storeApplyOp applies one random operation to both and checks that they
// agree on its outcome. It returns a description of the operation.
func storeApplyOp(t *testing.T, g storeGen, model *storeModel, sut storeUnderTest) string {
	t.Helper()
	check := func(desc string, wantOK bool, err error) string {
		t.Helper()
		if wantOK != (err == nil) {
			t.Fatalf("%s: model says ok=%v, store returned error %v", desc, wantOK, err)
		}
		return desc
	}
	switch op := g.src.intn(9); op {
	case 0, 1: // Add, Update
		obj := g.obj()
		key := g.key(obj)
		desc := fmt.Sprintf("update(%q, %s)", key, describeObj(obj))
		if sut.indexer != nil {
			ok := obj != nil && model.update(key, obj)
			if op == 0 {
				return check(desc, ok, sut.indexer.Add(obj))
			}
			return check(desc, ok, sut.indexer.Update(obj))
		}
		return check(desc, model.update(key, obj), sut.tsm.update(key, obj))
	case 2: // Delete by key
		obj := g.obj()
		key := g.key(obj)
		if sut.indexer != nil {
			model.deleteWithObject(key, nil)
			return check(fmt.Sprintf("delete(ExplicitKey(%q))", key), true, sut.indexer.Delete(ExplicitKey(key)))
		}
		model.deleteWithObject(key, nil)
		sut.tsm.Delete(key)
		return fmt.Sprintf("delete(%q)", key)
	case 3: // Delete with the object
		obj := g.obj()
		key := g.key(obj)
		desc := fmt.Sprintf("deleteWithObject(%q, %s)", key, describeObj(obj))
		if sut.indexer != nil {
			if obj != nil {
				model.deleteWithObject(key, obj)
			}
			return check(desc, obj != nil, sut.indexer.Delete(obj))
		}
		model.deleteWithObject(key, obj)
		sut.tsm.DeleteWithObject(key, obj)
		return desc
	case 4: // Replace
		rv := g.pick("", "5", "6", "xyz")
		var list []any
		items := map[string]any{}
		keyable := true
		for range g.src.intn(6) {
			obj := g.obj()
			if obj == nil {
				keyable = false
			}
			list = append(list, obj)
			items[g.key(obj)] = obj
		}
		desc := fmt.Sprintf("replace(%d objects, %q)", len(list), rv)
		if sut.indexer != nil {
			ok := keyable && model.replace(storeModelItems(list), rv)
			return check(desc, ok, sut.indexer.Replace(list, rv))
		}
		modelItems := map[string]any{}
		for k, v := range items {
			modelItems[k] = v
		}
		return check(desc, model.replace(modelItems, rv), sut.tsm.replace(items, rv))
	case 5: // AddIndexers
		add := storeAddableIndexers[g.src.intn(len(storeAddableIndexers))]
		names := slices.Sorted(func(yield func(string) bool) {
			for k := range add {
				if !yield(k) {
					return
				}
			}
		})
		desc := fmt.Sprintf("addIndexers(%v)", names)
		return check(desc, model.addIndexers(add), sut.tsm.AddIndexers(add))
	case 6: // Bookmark
		rv := g.pick("", "7", "8", "bm")
		model.rv = rv
		if sut.indexer != nil {
			sut.indexer.Bookmark(rv)
		} else {
			sut.tsm.Bookmark(rv)
		}
		return fmt.Sprintf("bookmark(%q)", rv)
	case 7: // A keyed write, as the informers' processing makes with the queue's key.
		obj := g.obj()
		key := strings.Clone(g.key(obj)) // its own copy, as a queue's key
		desc := fmt.Sprintf("swapKeyed(%q, %s)", key, describeObj(obj))
		if sut.indexer != nil {
			wantOld, wantExisted := model.items[key]
			ok := obj != nil && model.update(key, obj)
			old, existed, err := sut.indexer.swapKeyed(key, obj)
			if ok && (old != wantOld || existed != wantExisted) {
				t.Fatalf("%s: returned %v, %v; model held %v, %v", desc, old, existed, wantOld, wantExisted)
			}
			return check(desc, ok, err)
		}
		wantOld, wantExisted := model.items[key]
		ok := model.update(key, obj)
		old, existed, err := sut.tsm.swap(key, obj)
		if ok && (existed != wantExisted || existed && !sut.holds(old, wantOld)) {
			t.Fatalf("%s: returned %s, %v; model held %s, %v", desc, describeObj(old), existed, describeObj(wantOld), wantExisted)
		}
		return check(desc, ok, err)
	default: // Transaction
		var txns []ThreadSafeStoreTransaction
		var plain []Transaction
		var descs []string
		types := []TransactionType{TransactionTypeAdd, TransactionTypeUpdate, TransactionTypeDelete, "Bogus"}
		for range 1 + g.src.intn(4) {
			obj := g.obj()
			typ := types[g.src.intn(len(types))]
			if typ == TransactionTypeDelete && obj != nil && g.src.intn(3) == 0 {
				obj = ExplicitKey(g.key(obj))
			}
			key := g.key(obj)
			if ek, ok := obj.(ExplicitKey); ok {
				key = string(ek)
			}
			txns = append(txns, ThreadSafeStoreTransaction{Transaction: Transaction{Object: obj, Type: typ}, Key: key})
			plain = append(plain, Transaction{Object: obj, Type: typ})
			descs = append(descs, fmt.Sprintf("%s %q %s", typ, key, describeObj(obj)))
		}
		desc := fmt.Sprintf("transaction(%v)", descs)
		if sut.indexer != nil {
			// Keyed: a nil object cannot be keyed, whatever the type.
			var keyedTxns []ThreadSafeStoreTransaction
			var positions []int
			for i, txn := range txns {
				if txn.Object != nil {
					keyedTxns = append(keyedTxns, txn)
					positions = append(positions, i)
				}
			}
			want := []int{} // as client-go: empty, not nil, when none was applied
			for _, i := range model.transaction(keyedTxns) {
				want = append(want, positions[i])
			}
			terr := sut.indexer.Transaction(plain...)
			got := []int{}
			if terr == nil {
				for i := range plain {
					got = append(got, i)
				}
			} else {
				got = terr.SuccessfulIndices
				if terr.TotalTransactions != len(plain) || len(terr.Errors)+len(got) != len(plain) {
					t.Fatalf("%s: inconsistent %#v", desc, terr)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: applied (-want +got):\n%s", desc, diff)
			}
			return desc
		}
		want, wantPriors := model.transact(txns)
		priors := make([]storedState, len(txns))
		errs := sut.tsm.transact(txns, priors)
		var got []int
		for i := range txns {
			if errs == nil || errs[i] == nil {
				got = append(got, i)
				w := wantPriors[i]
				if priors[i].existed != w.existed || w.existed && !sut.holds(priors[i].obj, w.obj) {
					t.Fatalf("%s: write %d found %s, %v; model held %s, %v", desc, i, describeObj(priors[i].obj), priors[i].existed, describeObj(w.obj), w.existed)
				}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: applied (-want +got):\n%s", desc, diff)
		}
		return desc
	}
}

// storeModelItems keys list as an Indexer with MetaNamespaceKeyFunc would.
func storeModelItems(list []any) map[string]any {
	items := map[string]any{}
	for _, obj := range list {
		key, _ := MetaNamespaceKeyFunc(obj)
		items[key] = obj
	}
	return items
}

func describeObj(obj any) string {
	switch o := obj.(type) {
	case nil:
		return "nil"
	case ExplicitKey:
		return fmt.Sprintf("ExplicitKey(%q)", string(o))
	case *metav1.PartialObjectMetadata:
		return fmt.Sprintf("{%s/%s rv=%q labels=%v}", o.Namespace, o.Name, o.ResourceVersion, o.Labels)
	}
	return fmt.Sprintf("%#v", obj)
}

// storeCompare checks every query of sut against the model. (The invariants
// of the table and indexes inside are checked by the model tests of
// cache/internal/store.)
func storeCompare(m *storeModel, sut storeUnderTest) error {
	var errs []error
	diff := func(what string, want, got any) {
		if d := cmp.Diff(want, got); d != "" {
			errs = append(errs, fmt.Errorf("%s (-want +got):\n%s", what, d))
		}
	}
	var s interface {
		ListKeys() []string
		List() []any
		ByIndex(string, string) ([]any, error)
		IndexKeys(string, string) ([]string, error)
		Index(string, any) ([]any, error)
		ListIndexFuncValues(string) []string
		GetIndexers() Indexers
		LastStoreSyncResourceVersion() string
	} = sut.tsm
	if sut.indexer != nil {
		s = sut.indexer
	}

	wantKeys := slices.Sorted(func(yield func(string) bool) {
		for k := range m.items {
			if !yield(k) {
				return
			}
		}
	})
	if wantKeys == nil {
		wantKeys = []string{}
	}
	diff("ListKeys", wantKeys, storeSorted(s.ListKeys()))
	diff("List keys", wantKeys, storeObjKeys(m, sut, s.List()))
	for key, want := range m.items {
		got, ok := sut.tsm.Get(key)
		if !ok || !sut.holds(got, want) {
			errs = append(errs, fmt.Errorf("Get(%q) = %s, %v; want %s", key, describeObj(got), ok, describeObj(want)))
		}
		if sut.indexer != nil {
			got, ok, err := sut.indexer.Get(want)
			if err != nil || !ok || got != want {
				errs = append(errs, fmt.Errorf("Indexer.Get(%s) = %s, %v, %v", describeObj(want), describeObj(got), ok, err))
			}
		}
	}
	diff("LastStoreSyncResourceVersion", m.rv, s.LastStoreSyncResourceVersion())
	diff("GetIndexers", storeSorted(slices.Collect(mapKeys(m.indexers))), storeSorted(slices.Collect(mapKeys(s.GetIndexers()))))

	probes := []any{storeObj("ns1", "p", "", "app", "x"), storeObj("", "p", "", "tier", "y", "app", "z"), storeObj("ns2", "p", "")}
	for name := range m.indexers {
		values := m.indexValues(name)
		diff("ListIndexFuncValues("+name+")", values, storeSorted(s.ListIndexFuncValues(name)))
		for _, v := range append(values, "absent") {
			want := m.keysWithAny(name, sets.New(v))
			keys, err := s.IndexKeys(name, v)
			if err != nil {
				errs = append(errs, fmt.Errorf("IndexKeys(%q, %q): %w", name, v, err))
			}
			if keys == nil {
				keys = []string{}
			}
			diff(fmt.Sprintf("IndexKeys(%q, %q)", name, v), want, keys)
			objs, err := s.ByIndex(name, v)
			if err != nil {
				errs = append(errs, fmt.Errorf("ByIndex(%q, %q): %w", name, v, err))
			}
			diff(fmt.Sprintf("ByIndex(%q, %q) keys", name, v), want, storeObjKeys(m, sut, objs))
		}
		for _, p := range probes {
			pv, err := m.indexers[name](p)
			if err != nil {
				continue
			}
			objs, err := s.Index(name, p)
			if err != nil {
				errs = append(errs, fmt.Errorf("Index(%q, %s): %w", name, describeObj(p), err))
			}
			diff(fmt.Sprintf("Index(%q, %s) keys", name, describeObj(p)), m.keysWithAny(name, sets.New(pv...)), storeObjKeys(m, sut, objs))
		}
	}
	if _, err := s.ByIndex("absent-index", "x"); err == nil {
		errs = append(errs, errors.New("ByIndex of an unknown index did not fail"))
	}

	return errors.Join(errs...)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// storeObjKeys maps objects back to the model's keys (see
// storeUnderTest.holds).
func storeObjKeys(m *storeModel, sut storeUnderTest, objs []any) []string {
	keys := []string{}
	for _, o := range objs {
		found := false
		for k, v := range m.items {
			if sut.holds(o, v) {
				keys = append(keys, k)
				found = true
				break
			}
		}
		if !found {
			keys = append(keys, "<not in model: "+describeObj(o)+">")
		}
	}
	sort.Strings(keys)
	return keys
}

// storeModelRuns are the stores the model tests run on: each
// ThreadSafeStore implementation, and the Indexer.
var storeModelRuns = []struct {
	name  string
	keyed bool
	impl  storeImpl
}{
	{"ThreadSafeStore", false, storeImpls[0]},
	{"Indexer", true, storeImpls[0]},
	{"EncodedThreadSafeStore", false, storeImpls[1]},
}

func TestThreadSafeStoreMatchesModel(t *testing.T) {
	for _, run := range storeModelRuns {
		t.Run(run.name, func(t *testing.T) {
			for seed := range uint64(48) {
				src := randSource{rand.New(rand.NewPCG(seed, 0x5eed))}
				t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
					storeRunOps(t, run.keyed, run.impl, src, 120)
				})
			}
		})
	}
}

func FuzzThreadSafeStore(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	seed := make([]byte, 512)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(seed); i += 8 {
		binary.LittleEndian.PutUint64(seed[i:], r.Uint64())
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		run := storeModelRuns[int(data[0])%len(storeModelRuns)]
		storeRunOps(t, run.keyed, run.impl, &bytesSource{data: data[1:]}, 64)
	})
}
