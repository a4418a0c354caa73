package cache

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-go/informer/cache/internal/store"
)

func TestThreadSafeStoreResourceVersion(t *testing.T) {
	tests := []struct {
		name string
		ops  func(s ThreadSafeStoreWithTransaction)
		want string
	}{
		{
			name: "add records the object's version",
			ops:  func(s ThreadSafeStoreWithTransaction) { s.Add("a", storeObj("", "a", "5")) },
			want: "5",
		},
		{
			name: "an older version written later wins",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Add("a", storeObj("", "a", "5"))
				s.Update("b", storeObj("", "b", "3"))
			},
			want: "3",
		},
		{
			name: "an object without metadata leaves it",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Add("a", storeObj("", "a", "5"))
				s.Add("b", "not an object")
			},
			want: "5",
		},
		{
			name: "delete leaves it",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Add("a", storeObj("", "a", "5"))
				s.Delete("a")
			},
			want: "5",
		},
		{
			name: "delete with object records the object's version",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Add("a", storeObj("", "a", "5"))
				s.DeleteWithObject("a", storeObj("", "a", "6"))
			},
			want: "6",
		},
		{
			name: "delete with nil object or tombstone leaves it",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Add("a", storeObj("", "a", "5"))
				s.DeleteWithObject("a", nil)
				s.DeleteWithObject("a", DeletedFinalStateUnknown{Key: "a"})
				s.DeleteWithObject("a", DeletedFinalStateUnknown{Key: "a", Obj: storeObj("", "a", "9")})
			},
			want: "5",
		},
		{
			name: "replace records the list's version, even empty",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Add("a", storeObj("", "a", "5"))
				s.Replace(map[string]any{"b": storeObj("", "b", "9")}, "")
			},
			want: "",
		},
		{
			name: "bookmark records it",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Add("a", storeObj("", "a", "5"))
				s.Bookmark("10")
			},
			want: "10",
		},
		{
			name: "transaction records the last write's object",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Transaction(
					ThreadSafeStoreTransaction{Transaction{storeObj("", "a", "7"), TransactionTypeAdd}, "a"},
					ThreadSafeStoreTransaction{Transaction{storeObj("", "b", "4"), TransactionTypeDelete}, "b"},
				)
			},
			want: "4",
		},
		{
			name: "transaction whose last write has no metadata leaves it",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Bookmark("1")
				s.Transaction(
					ThreadSafeStoreTransaction{Transaction{storeObj("", "a", "7"), TransactionTypeAdd}, "a"},
					ThreadSafeStoreTransaction{Transaction{ExplicitKey("a"), TransactionTypeDelete}, "a"},
				)
			},
			want: "1",
		},
		{
			name: "transaction ignores a last write that is refused",
			ops: func(s ThreadSafeStoreWithTransaction) {
				s.Transaction(
					ThreadSafeStoreTransaction{Transaction{storeObj("", "a", "7"), TransactionTypeAdd}, "a"},
					ThreadSafeStoreTransaction{Transaction{storeObj("", "b", "8", "fail", ""), TransactionTypeAdd}, "b"},
				)
			},
			want: "7",
		},
	}
	for _, impl := range storeImpls {
		for _, tc := range tests {
			t.Run(impl.name+"/"+tc.name, func(t *testing.T) {
				storeHandledErrors(t)
				s := impl.new(t, Indexers{"labels": storeLabelIndexFunc})
				tc.ops(s)
				if diff := cmp.Diff(tc.want, s.LastStoreSyncResourceVersion()); diff != "" {
					t.Errorf("LastStoreSyncResourceVersion (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// storeSnapshot is what a test compares before and after a refused write.
type storeSnapshot struct {
	Keys     []string
	ByLabel  []string
	Values   []string
	RV       string
	Indexers []string
}

func takeStoreSnapshot(t *testing.T, s ThreadSafeStore) storeSnapshot {
	t.Helper()
	byLabel, err := s.IndexKeys("labels", "x")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range s.GetIndexers() {
		names = append(names, name)
	}
	return storeSnapshot{
		Keys:     storeSorted(s.ListKeys()),
		ByLabel:  byLabel,
		Values:   storeSorted(s.ListIndexFuncValues("labels")),
		RV:       s.LastStoreSyncResourceVersion(),
		Indexers: storeSorted(names),
	}
}

func TestThreadSafeStoreRefusedWriteChangesNothing(t *testing.T) {
	tests := []struct {
		name    string
		write   func(s ThreadSafeStoreWithTransaction)
		wantErr error // errors.Is target of the one reported error
	}{
		{
			name:    "add of a new key failing an index",
			write:   func(s ThreadSafeStoreWithTransaction) { s.Add("ns/new", storeObj("ns", "new", "9", "fail", "")) },
			wantErr: errStoreIndexFailed,
		},
		{
			name:    "update of an existing key failing an index",
			write:   func(s ThreadSafeStoreWithTransaction) { s.Update("ns/a", storeObj("ns", "a", "9", "fail", "")) },
			wantErr: errStoreIndexFailed,
		},
		{
			name:    "update to nil",
			write:   func(s ThreadSafeStoreWithTransaction) { s.Update("ns/a", nil) },
			wantErr: store.ErrNilObject,
		},
		{
			name:    "update to an object without metadata",
			write:   func(s ThreadSafeStoreWithTransaction) { s.Update("ns/a", 42) },
			wantErr: nil, // the index function's own error
		},
		{
			name: "replace with one object failing an index",
			write: func(s ThreadSafeStoreWithTransaction) {
				s.Replace(map[string]any{"ns/a": storeObj("ns", "a", "9"), "ns/b": storeObj("ns", "b", "9", "fail", "")}, "9")
			},
			wantErr: errStoreIndexFailed,
		},
		{
			name:    "replace with a nil object",
			write:   func(s ThreadSafeStoreWithTransaction) { s.Replace(map[string]any{"ns/a": nil}, "9") },
			wantErr: store.ErrNilObject,
		},
		{
			name: "transaction of refused writes",
			write: func(s ThreadSafeStoreWithTransaction) {
				s.Transaction(ThreadSafeStoreTransaction{Transaction{storeObj("ns", "a", "9", "fail", ""), TransactionTypeUpdate}, "ns/a"})
			},
			wantErr: errStoreIndexFailed,
		},
		{
			name: "transaction of an unknown type",
			write: func(s ThreadSafeStoreWithTransaction) {
				s.Transaction(ThreadSafeStoreTransaction{Transaction{storeObj("ns", "a", "9"), "Upsert"}, "ns/a"})
			},
		},
	}
	for _, impl := range storeImpls {
		for _, tc := range tests {
			t.Run(impl.name+"/"+tc.name, func(t *testing.T) {
				handled := storeHandledErrors(t)
				s := impl.new(t, Indexers{"labels": storeLabelIndexFunc})
				a := storeObj("ns", "a", "1", "app", "x")
				s.Add("ns/a", a)
				s.Add("ns/b", storeObj("ns", "b", "2", "app", "y"))
				before := takeStoreSnapshot(t, s)

				tc.write(s)

				if diff := cmp.Diff(before, takeStoreSnapshot(t, s)); diff != "" {
					t.Errorf("store changed (-before +after):\n%s", diff)
				}
				if got, _ := s.Get("ns/a"); !(storeUnderTest{encoded: impl.encoded}).holds(got, a) {
					t.Errorf("Get(ns/a) = %v, want the original object", got)
				}
				errs := handled()
				if len(errs) != 1 {
					t.Fatalf("HandleError received %v, want one error", errs)
				}
				if tc.wantErr != nil && !errors.Is(errs[0], tc.wantErr) {
					t.Errorf("reported error %v, want one wrapping %v", errs[0], tc.wantErr)
				}
			})
		}
	}
}

func TestThreadSafeStoreAddIndexers(t *testing.T) {
	tests := []struct {
		name        string
		add         Indexers
		wantErr     string
		wantIndexes []string
	}{
		{name: "new index", add: Indexers{"name": storeNameIndexFunc}, wantIndexes: []string{"labels", "name"}},
		{name: "nothing", add: Indexers{}, wantIndexes: []string{"labels"}},
		{name: "conflict", add: Indexers{"labels": storeNameIndexFunc, "name": storeNameIndexFunc}, wantErr: "indexer conflict: [labels]", wantIndexes: []string{"labels"}},
		{name: "nil function", add: Indexers{"name": nil}, wantErr: `index function "name" is nil`, wantIndexes: []string{"labels"}},
		{name: "function failing on a stored object", add: Indexers{"name": storeNameIndexFunc, "other": MetaNamespaceIndexFunc}, wantErr: "bad", wantIndexes: []string{"labels"}},
	}
	for _, impl := range storeImpls {
		for _, tc := range tests {
			t.Run(impl.name+"/"+tc.name, func(t *testing.T) {
				s := impl.new(t, Indexers{"labels": storeLabelIndexFunc})
				s.Add("a", storeObj("", "a", "1", "app", "x"))
				if tc.name == "function failing on a stored object" {
					s.Add("bad", storeObj("", "bad", "1"))
				}
				err := s.AddIndexers(tc.add)
				gotErr := ""
				if err != nil {
					gotErr = err.Error()
				}
				if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(gotErr, tc.wantErr)) {
					t.Fatalf("AddIndexers error %q, want one containing %q", gotErr, tc.wantErr)
				}
				var names []string
				for name := range s.GetIndexers() {
					names = append(names, name)
				}
				if diff := cmp.Diff(tc.wantIndexes, storeSorted(names)); diff != "" {
					t.Errorf("indexes (-want +got):\n%s", diff)
				}
				if err == nil {
					for name := range tc.add {
						if name == "name" {
							keys, err := s.IndexKeys("name", "a")
							if err != nil || !cmp.Equal(keys, []string{"a"}) {
								t.Errorf(`IndexKeys("name", "a") = %v, %v; want [a]`, keys, err)
							}
						}
					}
				}
			})
		}
	}
}

func TestThreadSafeStoreQueries(t *testing.T) {
	for _, impl := range storeImpls {
		t.Run(impl.name, func(t *testing.T) {
			testThreadSafeStoreQueries(t, impl.new(t, Indexers{"labels": storeLabelIndexFunc, NamespaceIndex: MetaNamespaceIndexFunc}))
		})
	}
}

func testThreadSafeStoreQueries(t *testing.T, s ThreadSafeStore) {
	s.Add("ns/c", storeObj("ns", "c", "1", "app", "x", "tier", "x"))
	s.Add("ns/a", storeObj("ns", "a", "1", "app", "x"))
	s.Add("other/b", storeObj("other", "b", "1", "tier", "y"))

	keys, err := s.IndexKeys("labels", "x")
	if diff := cmp.Diff([]string{"ns/a", "ns/c"}, keys); err != nil || diff != "" {
		t.Errorf("IndexKeys are sorted (-want +got):\n%s (err %v)", diff, err)
	}
	objs, err := s.Index("labels", storeObj("", "probe", "", "app", "x", "tier", "y"))
	if diff := cmp.Diff([]string{"ns/a", "ns/c", "other/b"}, storeKeysOf(t, objs)); err != nil || diff != "" {
		t.Errorf("Index returns each match once (-want +got):\n%s (err %v)", diff, err)
	}
	objs, err = s.ByIndex(NamespaceIndex, "nowhere")
	if err != nil || len(objs) != 0 {
		t.Errorf("ByIndex of an absent value = %v, %v; want nothing, no error", objs, err)
	}
	for _, query := range []func() error{
		func() error { _, err := s.ByIndex("nope", "x"); return err },
		func() error { _, err := s.IndexKeys("nope", "x"); return err },
		func() error { _, err := s.Index("nope", storeObj("", "a", "")); return err },
	} {
		if err := query(); err == nil || err.Error() != "index with name nope does not exist" {
			t.Errorf("query of an unknown index: error %v", err)
		}
	}
	if _, err := s.Index("labels", storeObj("", "a", "", "fail", "")); !errors.Is(err, errStoreIndexFailed) {
		t.Errorf("Index with a failing probe: error %v, want the index function's", err)
	}
	if got := s.ListIndexFuncValues("nope"); got == nil || len(got) != 0 {
		t.Errorf("ListIndexFuncValues of an unknown index = %#v, want empty", got)
	}

	indexers := s.GetIndexers()
	delete(indexers, "labels")
	if _, ok := s.GetIndexers()["labels"]; !ok {
		t.Error("modifying the result of GetIndexers changed the store")
	}
	if err := s.Resync(); err != nil {
		t.Errorf("Resync: %v", err)
	}
}

func TestThreadSafeStoreNilIndexFuncLeftOut(t *testing.T) {
	for _, impl := range storeImpls {
		t.Run(impl.name, func(t *testing.T) {
			handled := storeHandledErrors(t)
			s := impl.new(t, Indexers{"nil": nil, "labels": storeLabelIndexFunc})
			s.Add("a", storeObj("", "a", "1", "app", "x"))
			if _, ok := s.GetIndexers()["nil"]; ok {
				t.Error("nil index function kept")
			}
			if got := len(handled()); got != 1 {
				t.Errorf("HandleError called %d times, want 1", got)
			}
		})
	}
}

// TestThreadSafeStoreIndexSetChangesDuringWrite covers a write prepared before
// AddIndexers and committed after it: the values for the added index are
// computed under the lock.
func TestThreadSafeStoreIndexSetChangesDuringWrite(t *testing.T) {
	tests := []struct {
		name    string
		obj     *metav1.PartialObjectMetadata
		wantErr bool
	}{
		{name: "indexable", obj: storeObj("", "a", "1", "app", "x")},
		{name: "failing the added index", obj: storeObj("", "bad", "1", "app", "x"), wantErr: true},
	}
	for _, impl := range storeImpls {
		for _, tc := range tests {
			t.Run(impl.name+"/"+tc.name, func(t *testing.T) {
				s := impl.new(t, Indexers{"labels": storeLabelIndexFunc})
				key := tc.obj.Name
				c, stored := storeEngineOf(t, s, key, tc.obj)
				p, err := c.prepare(key, stored, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.AddIndexers(Indexers{"name": storeNameIndexFunc}); err != nil {
					t.Fatal(err)
				}
				_, _, err = c.commit(key, stored, p)
				if gotErr := err != nil; gotErr != tc.wantErr {
					t.Fatalf("commit error %v, want error: %v", err, tc.wantErr)
				}
				wantKeys := []string{key}
				if tc.wantErr {
					wantKeys = []string{}
				}
				keys, _ := s.IndexKeys("name", key)
				if diff := cmp.Diff(wantKeys, append([]string{}, keys...)); diff != "" {
					t.Errorf("name index (-want +got):\n%s", diff)
				}
				keys, _ = s.IndexKeys("labels", "x")
				if diff := cmp.Diff(wantKeys, append([]string{}, keys...)); diff != "" {
					t.Errorf("labels index (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// storeGauge records what a store publishes.
type storeGauge struct {
	mu     sync.Mutex
	values []float64
}

func (g *storeGauge) Set(v float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.values = append(g.values, v)
}

func (g *storeGauge) get() []float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.values)
}

// storeMetricsProvider hands out one gauge for the store resource version.
type storeMetricsProvider struct{ gauge *storeGauge }

func (p storeMetricsProvider) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric {
	return noopMetric{}
}
func (p storeMetricsProvider) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return noopMetric{}
}
func (p storeMetricsProvider) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return p.gauge
}

func TestThreadSafeStoreMetrics(t *testing.T) {
	name, err := NewInformerName(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(name.Release)
	reserved := name.WithResource(schema.GroupVersionResource{Resource: "things"})
	tests := []struct {
		name string
		id   InformerNameAndResource
		want []float64
	}{
		{name: "reserved identity", id: reserved, want: []float64{5, 0, 123456789012345, 7}},
		{name: "unreserved identity", id: InformerNameAndResource{}, want: nil},
	}
	for _, impl := range storeImpls {
		for _, tc := range tests {
			t.Run(impl.name+"/"+tc.name, func(t *testing.T) {
				gauge := &storeGauge{}
				s := impl.new(t, Indexers{}, WithThreadSafeStoreMetrics(tc.id, storeMetricsProvider{gauge}))
				s.Add("a", storeObj("", "a", "5"))
				s.Bookmark("")
				s.Bookmark("not-a-number")
				s.Replace(map[string]any{}, "9123456789012345")
				s.DeleteWithObject("a", storeObj("", "a", "7"))
				if diff := cmp.Diff(tc.want, gauge.get()); diff != "" {
					t.Errorf("published (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestThreadSafeStoreConcurrentUse races writers, readers and AddIndexers;
// run with -race. The final state is checked against what was written last.
func TestThreadSafeStoreConcurrentUse(t *testing.T) {
	s := NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	const writers, perWriter = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				obj := storeObj(fmt.Sprintf("ns%d", w), fmt.Sprintf("o%d", i%20), fmt.Sprint(i), "app", fmt.Sprint(i%3))
				if err := s.Update(obj); err != nil {
					t.Errorf("Update: %v", err)
					return
				}
				if i%7 == 0 {
					_ = s.Delete(obj)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 50 {
			_, _ = s.ByIndex(NamespaceIndex, "ns1")
			_ = s.List()
			_, _, _ = s.Get(storeObj("ns0", "o1", ""))
			if i == 10 {
				if err := s.AddIndexers(Indexers{"labels": storeLabelIndexFunc}); err != nil {
					t.Errorf("AddIndexers: %v", err)
				}
			}
		}
	})
	wg.Wait()

	// Every object is indexed under its labels, whichever write won.
	for _, obj := range s.List() {
		key, _ := MetaNamespaceKeyFunc(obj)
		app := obj.(*metav1.PartialObjectMetadata).Labels["app"]
		keys, err := s.IndexKeys("labels", "app="+app)
		if err != nil || !slices.Contains(keys, key) {
			t.Errorf("%s is not indexed under app=%s: %v %v", key, app, keys, err)
		}
	}
}
