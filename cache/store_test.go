package cache

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// storeBadObjects are inputs MetaNamespaceKeyFunc cannot key.
var storeBadObjects = []struct {
	name string
	obj  any
}{
	{"nil", nil},
	{"typed nil", (*metav1.PartialObjectMetadata)(nil)},
	{"no metadata", struct{ Name string }{"x"}},
	{"string", "ns/name"},
	{"tombstone", DeletedFinalStateUnknown{Key: "ns/a"}},
}

func TestStoreBadObjectsAreKeyErrors(t *testing.T) {
	for _, tc := range storeBadObjects {
		t.Run(tc.name, func(t *testing.T) {
			s := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
			a := storeObj("ns", "a", "3")
			if err := s.Add(a); err != nil {
				t.Fatal(err)
			}
			ops := map[string]func() error{
				"Add":     func() error { return s.Add(tc.obj) },
				"Update":  func() error { return s.Update(tc.obj) },
				"Delete":  func() error { return s.Delete(tc.obj) },
				"Get":     func() error { _, _, err := s.Get(tc.obj); return err },
				"Replace": func() error { return s.Replace([]any{storeObj("ns", "b", "4"), tc.obj}, "4") },
			}
			for op, call := range ops {
				var keyErr KeyError
				if err := call(); !errors.As(err, &keyErr) {
					t.Errorf("%s: error %v, want a KeyError", op, err)
				}
			}
			if diff := cmp.Diff([]string{"ns/a"}, s.ListKeys()); diff != "" {
				t.Errorf("keys changed (-want +got):\n%s", diff)
			}
			if got := s.LastStoreSyncResourceVersion(); got != "3" {
				t.Errorf("resource version changed to %q", got)
			}
		})
	}
}

func TestStoreNilKeyFunc(t *testing.T) {
	s := NewStore(nil)
	var keyErr KeyError
	if err := s.Add(storeObj("", "a", "")); !errors.As(err, &keyErr) || !errors.Is(err, errNoKeyFunc) {
		t.Errorf("Add: error %v, want a KeyError for the missing key function", err)
	}
	if _, _, err := s.Get(storeObj("", "a", "")); !errors.As(err, &keyErr) {
		t.Errorf("Get: error %v, want a KeyError", err)
	}
	if len(s.List()) != 0 {
		t.Error("store not empty")
	}
}

func TestStoreTombstones(t *testing.T) {
	s := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	for _, o := range []any{storeObj("ns", "a", "1"), storeObj("ns", "b", "2")} {
		if err := s.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := s.Get(DeletedFinalStateUnknown{Key: "ns/a"}); !ok || err != nil {
		t.Errorf("Get(tombstone) = %v, %v; want found", ok, err)
	}
	if err := s.Delete(DeletedFinalStateUnknown{Key: "ns/a", Obj: nil}); err != nil {
		t.Errorf("Delete(tombstone with nil Obj): %v", err)
	}
	if err := s.Delete(DeletedFinalStateUnknown{Key: "ns/b", Obj: storeObj("ns", "b", "9")}); err != nil {
		t.Errorf("Delete(tombstone): %v", err)
	}
	if keys := s.ListKeys(); len(keys) != 0 {
		t.Errorf("keys left: %v", keys)
	}
	if got := s.LastStoreSyncResourceVersion(); got != "2" {
		t.Errorf("resource version %q, want 2: a tombstone carries no version", got)
	}
	// A tombstone is not an object: storing one fails in the namespace index.
	if err := s.Add(DeletedFinalStateUnknown{Key: "ns/c"}); err == nil {
		t.Error("Add(tombstone) succeeded")
	}
}

func TestStoreTransformer(t *testing.T) {
	errTransform := errors.New("cannot transform")
	// The transformer renames the object; keys must come from the original.
	transform := func(obj any) (any, error) {
		o, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok {
			return nil, errTransform
		}
		if o.Name == "gone" {
			return nil, nil
		}
		c := o.DeepCopy()
		c.Annotations = map[string]string{"transformed": "yes"}
		return c, nil
	}
	s := NewStore(MetaNamespaceKeyFunc, WithTransformer(transform), nil)
	if err := s.Add(storeObj("ns", "a", "1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Replace([]any{storeObj("ns", "b", "1"), storeObj("ns", "c", "1")}, "1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(storeObj("ns", "c", "2")); err != nil {
		t.Fatal(err)
	}
	for _, obj := range s.List() {
		if obj.(*metav1.PartialObjectMetadata).Annotations["transformed"] != "yes" {
			t.Errorf("%v was stored untransformed", obj)
		}
	}
	if diff := cmp.Diff([]string{"ns/b", "ns/c"}, storeSorted(s.ListKeys())); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}

	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"failing transform on Add", func() error { return s.Add(ExplicitKey("ns/x")) }, "transforming: cannot transform"},
		{"failing transform on Replace", func() error { return s.Replace([]any{storeObj("ns", "d", "1"), ExplicitKey("ns/x")}, "9") }, "transforming: cannot transform"},
		{"transform to nil", func() error { return s.Update(storeObj("ns", "gone", "1")) }, `cannot store a nil object under key "ns/gone"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if diff := cmp.Diff([]string{"ns/b", "ns/c"}, storeSorted(s.ListKeys())); diff != "" {
				t.Errorf("keys changed (-want +got):\n%s", diff)
			}
		})
	}
	// Delete does not transform (the transformer would fail on an ExplicitKey).
	if err := s.Delete(ExplicitKey("ns/b")); err != nil {
		t.Errorf("Delete: %v", err)
	}
}

func TestIndexerRefusedWriteReturnsError(t *testing.T) {
	tests := []struct {
		name string
		call func(s Indexer) error
	}{
		{"Add", func(s Indexer) error { return s.Add(storeObj("ns", "b", "9", "fail", "")) }},
		{"Update", func(s Indexer) error { return s.Update(storeObj("ns", "a", "9", "fail", "")) }},
		{"Replace", func(s Indexer) error {
			return s.Replace([]any{storeObj("ns", "z", "9"), storeObj("ns", "y", "9", "fail", "")}, "9")
		}},
		{"AddIndexers", func(s Indexer) error {
			if err := s.Add(storeObj("ns", "bad", "1")); err != nil {
				t.Fatal(err)
			}
			return s.AddIndexers(Indexers{"name": storeNameIndexFunc})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			handled := storeHandledErrors(t)
			s := NewIndexer(MetaNamespaceKeyFunc, Indexers{"labels": storeLabelIndexFunc})
			a := storeObj("ns", "a", "1", "app", "x")
			if err := s.Add(a); err != nil {
				t.Fatal(err)
			}
			err := tc.call(s)
			if !errors.Is(err, errStoreIndexFailed) {
				t.Fatalf("error %v, want the index function's", err)
			}
			if got, _, _ := s.GetByKey("ns/a"); got != a {
				t.Errorf("ns/a changed to %v", got)
			}
			keys, _ := s.IndexKeys("labels", "x")
			if diff := cmp.Diff([]string{"ns/a"}, keys); diff != "" {
				t.Errorf("index changed (-want +got):\n%s", diff)
			}
			if got := s.LastStoreSyncResourceVersion(); got != "1" {
				t.Errorf("resource version changed to %q", got)
			}
			if errs := handled(); len(errs) != 0 {
				t.Errorf("error also sent to HandleError: %v", errs)
			}
		})
	}
}

// storeKeyProbes returns objects to store and objects to compute keys of
// (the stored ones included), covering every case of the allocation-free key
// computation of stores with metadata key functions.
func storeKeyProbes() (stored, probes []any) {
	long := strings.Repeat("n", 400) // longer than the stack buffer
	stored = []any{
		storeObj("ns", "a", "1"), storeObj("", "a", "1"), storeObj("ns", long, "1"), storeObj(long, long, "1"),
	}
	probes = append([]any{
		storeObj("ns", "a", ""), storeObj("", "a", ""), storeObj("other", "a", ""), storeObj("ns", long, ""),
		storeObj(long, long, ""), storeObj("ns", "", ""), storeObj("", "", ""),
		ExplicitKey("ns/a"), ExplicitKey(""), ExplicitKey("missing"),
		DeletedFinalStateUnknown{Key: "ns/a"}, DeletedFinalStateUnknown{Key: "nope", Obj: storeObj("ns", "a", "")},
		&DeletedFinalStateUnknown{Key: "ns/a"},
	}, stored...)
	for _, bad := range storeBadObjects {
		probes = append(probes, bad.obj)
	}
	return stored, probes
}

// storeKeyFuncs are the key functions whose stores compute keys without
// calling them, and one that hides MetaNamespaceKeyFunc so that the store
// calls it.
var storeKeyFuncs = map[string]KeyFunc{
	"MetaNamespaceKeyFunc":                 MetaNamespaceKeyFunc,
	"DeletionHandlingMetaNamespaceKeyFunc": DeletionHandlingMetaNamespaceKeyFunc,
	"wrapped":                              func(obj any) (string, error) { return MetaNamespaceKeyFunc(obj) },
}

// TestStoreGetMatchesKeyFunc checks that the allocation-free lookup of Get
// finds exactly what GetByKey(keyFunc(obj)) finds, and fails the same way.
func TestStoreGetMatchesKeyFunc(t *testing.T) {
	stored, probes := storeKeyProbes()
	for name, keyFunc := range storeKeyFuncs {
		t.Run(name, func(t *testing.T) {
			s := NewStore(keyFunc)
			for _, o := range stored {
				if err := s.Add(o); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range probes {
				got, gotOK, gotErr := s.Get(p)
				var want any
				var wantOK bool
				key, wantErr := keyFunc(p)
				if wantErr == nil {
					want, wantOK, _ = s.GetByKey(key)
				}
				if got != want || gotOK != wantOK || (gotErr == nil) != (wantErr == nil) {
					t.Errorf("Get(%s) = %v, %v, %v; want %v, %v, %v", describeObj(p), got, gotOK, gotErr, want, wantOK, wantErr)
				}
				if gotErr != nil && !strings.Contains(gotErr.Error(), wantErr.Error()) {
					t.Errorf("Get(%s) error %q, want the key function's %q", describeObj(p), gotErr, wantErr)
				}
			}
		})
	}
}

// TestStoreKeyedWrites checks that the keyed writes the informers' processing
// makes (swapKeyed, deleteKeyed, replaceKeyed, transactionKeyed) leave a store
// as the plain writes leave another one, and that the store keeps the very
// key strings it was given.
func TestStoreKeyedWrites(t *testing.T) {
	objs := []*metav1.PartialObjectMetadata{storeObj("ns", "a", "1"), storeObj("ns", "b", "2"), storeObj("", "c", "3")}
	keys := make([]string, len(objs))
	list := make([]any, len(objs))
	for i, obj := range objs {
		keys[i] = strings.Clone(storeKeysOf(t, []any{obj})[0]) // a string of the caller's
		list[i] = obj
	}
	tests := []struct {
		name  string
		plain func(s *cache) error
		keyed func(s *cache) error
	}{
		{
			name:  "swap",
			plain: func(s *cache) error { return errors.Join(s.Add(objs[0]), s.Update(objs[0])) },
			keyed: func(s *cache) error {
				if _, existed, err := s.swapKeyed(keys[0], objs[0]); existed || err != nil {
					return fmt.Errorf("first swap: existed %v, %v", existed, err)
				}
				old, existed, err := s.swapKeyed(keys[0], objs[0])
				if !existed || old != any(objs[0]) || err != nil {
					return fmt.Errorf("second swap: %v, %v, %v", old, existed, err)
				}
				return nil
			},
		},
		{
			name:  "delete",
			plain: func(s *cache) error { return errors.Join(s.Replace(list, "5"), s.Delete(objs[1])) },
			keyed: func(s *cache) error {
				err := s.replaceKeyed(keys, list, "5")
				s.deleteKeyed(keys[1], objs[1])
				return err
			},
		},
		{
			name:  "replace",
			plain: func(s *cache) error { return s.Replace(list, "7") },
			keyed: func(s *cache) error { return s.replaceKeyed(keys, list, "7") },
		},
		{
			name: "transaction",
			plain: func(s *cache) error {
				if err := s.Transaction(Transaction{objs[0], TransactionTypeAdd}, Transaction{objs[2], TransactionTypeUpdate}); err != nil {
					return err
				}
				return nil
			},
			keyed: func(s *cache) error {
				if err := s.transactionKeyed([]ThreadSafeStoreTransaction{
					{Transaction{objs[0], TransactionTypeAdd}, keys[0]}, {Transaction{objs[2], TransactionTypeUpdate}, keys[2]},
				}, nil); err != nil {
					return err
				}
				return nil
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plain := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}).(*cache)
			keyed := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}).(*cache)
			if err := tc.plain(plain); err != nil {
				t.Fatal(err)
			}
			if err := tc.keyed(keyed); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(storeSorted(plain.ListKeys()), storeSorted(keyed.ListKeys())); diff != "" {
				t.Errorf("keys (-plain +keyed):\n%s", diff)
			}
			if diff := cmp.Diff(storeSorted(plain.ListIndexFuncValues(NamespaceIndex)), storeSorted(keyed.ListIndexFuncValues(NamespaceIndex))); diff != "" {
				t.Errorf("namespace index (-plain +keyed):\n%s", diff)
			}
			if p, k := plain.LastStoreSyncResourceVersion(), keyed.LastStoreSyncResourceVersion(); p != k {
				t.Errorf("resource version %q, keyed %q", p, k)
			}
			given := map[string]string{}
			for _, key := range keys {
				given[key] = key
			}
			for _, key := range keyed.ListKeys() {
				if unsafe.StringData(key) != unsafe.StringData(given[key]) {
					t.Errorf("the store holds a copy of the key %q it was given", key)
				}
			}
		})
	}
}

func TestStoreTransaction(t *testing.T) {
	tests := []struct {
		name           string
		txns           []Transaction
		wantSuccessful []int
		wantErrs       int
		wantKeys       []string
		wantRV         string
	}{
		{
			name:     "empty",
			wantKeys: []string{"ns/a"},
			wantRV:   "1",
		},
		{
			name: "all applied",
			txns: []Transaction{
				{storeObj("ns", "b", "2"), TransactionTypeAdd},
				{storeObj("ns", "a", "3"), TransactionTypeUpdate},
				{storeObj("ns", "b", "4"), TransactionTypeDelete},
			},
			wantKeys: []string{"ns/a"},
			wantRV:   "4",
		},
		{
			name: "key errors and refused writes are skipped",
			txns: []Transaction{
				{nil, TransactionTypeAdd},
				{storeObj("ns", "b", "2"), TransactionTypeAdd},
				{storeObj("ns", "c", "3", "fail", ""), TransactionTypeAdd},
				{storeObj("ns", "d", "4"), "Bogus"},
				{struct{}{}, TransactionTypeDelete},
				{ExplicitKey("ns/a"), TransactionTypeDelete},
			},
			wantSuccessful: []int{1, 5},
			wantErrs:       4,
			wantKeys:       []string{"ns/b"},
			wantRV:         "1", // only the last applied write counts, and it has no metadata
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewIndexer(MetaNamespaceKeyFunc, Indexers{"labels": storeLabelIndexFunc})
			if err := s.Add(storeObj("ns", "a", "1")); err != nil {
				t.Fatal(err)
			}
			terr := s.(TransactionStore).Transaction(tc.txns...)
			if tc.wantErrs == 0 {
				if terr != nil {
					t.Fatalf("Transaction: %v", terr)
				}
			} else {
				if terr == nil {
					t.Fatal("Transaction succeeded")
				}
				if diff := cmp.Diff(tc.wantSuccessful, terr.SuccessfulIndices); diff != "" {
					t.Errorf("SuccessfulIndices (-want +got):\n%s", diff)
				}
				if len(terr.Errors) != tc.wantErrs || terr.TotalTransactions != len(tc.txns) {
					t.Errorf("got %d errors of %d transactions: %v", len(terr.Errors), terr.TotalTransactions, terr)
				}
				if !strings.HasPrefix(terr.Error(), "failed to execute (4/6) transactions failed due to: ") {
					t.Errorf("Error() = %q", terr.Error())
				}
				var keyErr KeyError
				if !errors.As(terr, &keyErr) || !errors.Is(terr, errStoreIndexFailed) {
					t.Errorf("errors.As/Is do not see the causes of %v", terr)
				}
			}
			if diff := cmp.Diff(tc.wantKeys, storeSorted(s.ListKeys())); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if got := s.LastStoreSyncResourceVersion(); got != tc.wantRV {
				t.Errorf("resource version %q, want %q", got, tc.wantRV)
			}
		})
	}
}

func TestStoreWithStoreMetrics(t *testing.T) {
	name, err := NewInformerName(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(name.Release)
	gauge := &storeGauge{}
	s := NewStore(MetaNamespaceKeyFunc, WithStoreMetrics(name.WithResource(schema.GroupVersionResource{Resource: "r"}), storeMetricsProvider{gauge}))
	if err := s.Add(storeObj("", "a", "42")); err != nil {
		t.Fatal(err)
	}
	s.Bookmark("43")
	if diff := cmp.Diff([]float64{42, 43}, gauge.get()); diff != "" {
		t.Errorf("published (-want +got):\n%s", diff)
	}
	if err := s.Resync(); err != nil {
		t.Errorf("Resync: %v", err)
	}
}

// TestTransactionAllFailedHasEmptySuccessfulIndices checks that a
// transaction in which every write fails reports an empty, non-nil
// SuccessfulIndices, as client-go's does (tests compare it with []int{}).
func TestTransactionAllFailedHasEmptySuccessfulIndices(t *testing.T) {
	for _, store := range []Store{NewStore(MetaNamespaceKeyFunc), NewIndexer(MetaNamespaceKeyFunc, Indexers{})} {
		terr := store.(TransactionStore).Transaction(Transaction{nil, TransactionTypeAdd}, Transaction{struct{}{}, TransactionTypeAdd})
		if terr == nil {
			t.Fatal("Transaction of two unkeyable objects succeeded")
		}
		if terr.SuccessfulIndices == nil || len(terr.SuccessfulIndices) != 0 {
			t.Errorf("SuccessfulIndices = %#v, want []int{}", terr.SuccessfulIndices)
		}
	}
}
