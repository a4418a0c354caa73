package cache

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2/ktesting"
)

// refusingIndexers make a store refuse objects named "refused".
var refusingIndexers = Indexers{"refuse": func(obj any) ([]string, error) {
	if m, err := objectMeta(obj); err == nil && m.GetName() == "refused" {
		return nil, errors.New("refused by the index")
	}
	return nil, nil
}}

// storeContents returns "ns/name@rv" of every object in s, sorted.
func storeContents(s Store) []string {
	var out []string
	for _, obj := range s.List() {
		out = append(out, testObjString(obj))
	}
	sort.Strings(out)
	return out
}

// checkingHandler is a handlerLog that also records, at every call, what the
// store holds.
type checkingHandler struct {
	handlerLog
	store  Store
	stores []string
}

func (h *checkingHandler) snapshot() {
	h.stores = append(h.stores, strings.Join(storeContents(h.store), " "))
}
func (h *checkingHandler) OnAdd(obj any, initial bool) {
	h.snapshot()
	h.handlerLog.OnAdd(obj, initial)
}
func (h *checkingHandler) OnUpdate(o, n any) { h.snapshot(); h.handlerLog.OnUpdate(o, n) }
func (h *checkingHandler) OnDelete(obj any)  { h.snapshot(); h.handlerLog.OnDelete(obj) }

func TestProcessDeltas(t *testing.T) {
	tests := []struct {
		name        string
		initial     []*metav1.PartialObjectMetadata
		deltas      Deltas
		inInitial   bool
		wantCalls   []string
		wantStore   []string
		wantErr     bool
		wantStoreRV string
		unordered   bool // the calls follow the store's (random) order
	}{
		{
			name:      "adds and updates depend on the store, not on the delta type",
			initial:   []*metav1.PartialObjectMetadata{pom("a", "1")},
			deltas:    Deltas{{Added, pom("a", "2")}, {Updated, pom("b", "3")}, {Replaced, pom("c", "4")}, {Sync, pom("a", "5")}},
			inInitial: true,
			wantCalls: []string{
				"update ns/a@1 -> ns/a@2", "add ns/b@3 initial=true", "add ns/c@4 initial=true", "update ns/a@2 -> ns/a@5",
			},
			wantStore: []string{"ns/a@5", "ns/b@3", "ns/c@4"},
		},
		{
			name:      "deletes are reported even for unknown keys, tombstones included",
			initial:   []*metav1.PartialObjectMetadata{pom("a", "1"), pom("b", "2")},
			deltas:    Deltas{{Deleted, pom("a", "3")}, {Deleted, pom("x", "4")}, {Deleted, DeletedFinalStateUnknown{Key: "ns/b", Obj: pom("b", "2")}}},
			wantCalls: []string{"delete ns/a@3", "delete ns/x@4", "delete tombstone ns/b (ns/b@2)"},
		},
		{
			name:        "bookmarks reach the store",
			initial:     []*metav1.PartialObjectMetadata{pom("a", "1")},
			deltas:      Deltas{{Bookmark, BookmarkInfo{ResourceVersion: "50"}}},
			wantStore:   []string{"ns/a@1"},
			wantStoreRV: "50",
		},
		{
			name:      "SyncAll updates every stored object and ends the item",
			initial:   []*metav1.PartialObjectMetadata{pom("a", "1"), pom("b", "2")},
			deltas:    Deltas{{SyncAll, SyncAllInfo{}}, {Added, pom("c", "3")}},
			wantCalls: []string{"update ns/a@1 -> ns/a@1", "update ns/b@2 -> ns/b@2"},
			wantStore: []string{"ns/a@1", "ns/b@2"},
			unordered: true,
		},
		{
			name:    "ReplacedAll replaces the store, then reports deletions, then the list in order",
			initial: []*metav1.PartialObjectMetadata{pom("z", "1"), pom("a", "2"), pom("m", "3")},
			deltas: Deltas{{ReplacedAll, ReplacedAllInfo{ResourceVersion: "20", Objects: []any{
				pom("n", "10"), pom("a", "11"),
			}}}},
			inInitial: true,
			wantCalls: []string{
				"delete tombstone ns/m (ns/m@3)", "delete tombstone ns/z (ns/z@1)",
				"add ns/n@10 initial=true", "update ns/a@2 -> ns/a@11",
			},
			wantStore:   []string{"ns/a@11", "ns/n@10"},
			wantStoreRV: "20",
		},
		{
			name:      "a store error stops processing before the handler",
			deltas:    Deltas{{Added, pom("a", "1")}, {Added, pom("refused", "2")}, {Added, pom("c", "3")}},
			wantCalls: []string{"add ns/a@1 initial=false"},
			wantStore: []string{"ns/a@1"},
			wantErr:   true,
		},
		{
			name:      "a refused ReplacedAll changes nothing",
			initial:   []*metav1.PartialObjectMetadata{pom("a", "1")},
			deltas:    Deltas{{ReplacedAll, ReplacedAllInfo{ResourceVersion: "20", Objects: []any{pom("b", "2"), &metav1.Status{}}}}},
			wantStore: []string{"ns/a@1"},
			wantErr:   true,
		},
		{name: "a malformed ReplacedAll is an error", deltas: Deltas{{ReplacedAll, "x"}}, wantErr: true},
		{name: "a malformed SyncAll is an error", deltas: Deltas{{SyncAll, "x"}}, wantErr: true},
		{name: "a malformed Bookmark is an error", deltas: Deltas{{Bookmark, "x"}}, wantErr: true},
		{name: "an unknown delta type is an error", deltas: Deltas{{"Strange", pom("a", "1")}}, wantErr: true},
	}
	// Each case runs with and without the key the queue computed (the key
	// of the item's first object, which the other objects of these cases do
	// not have).
	for _, tc := range tests {
		for _, queueKey := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/queueKey=%v", tc.name, queueKey), func(t *testing.T) {
				logger, _ := ktesting.NewTestContext(t)
				store := newCache(DeletionHandlingMetaNamespaceKeyFunc, refusingIndexers, nil)
				for _, obj := range tc.initial {
					if err := store.Add(obj); err != nil {
						t.Fatal(err)
					}
				}
				h := &checkingHandler{store: store}
				key := ""
				if queueKey {
					key, _ = DeletionHandlingMetaNamespaceKeyFunc(tc.deltas[0].Object)
				}
				err := newDeltaProcessor(logger, h, store, nil).processDeltas(key, tc.deltas, tc.inInitial)
				if (err != nil) != tc.wantErr {
					t.Fatalf("error = %v, want error: %v", err, tc.wantErr)
				}
				if tc.unordered {
					sort.Strings(h.calls)
				}
				if diff := cmp.Diff(tc.wantCalls, h.calls); diff != "" {
					t.Errorf("handler calls (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.wantStore, storeContents(store)); diff != "" {
					t.Errorf("store (-want +got):\n%s", diff)
				}
				if tc.wantStoreRV != "" {
					if got := store.LastStoreSyncResourceVersion(); got != tc.wantStoreRV {
						t.Errorf("store resource version %q, want %q", got, tc.wantStoreRV)
					}
				}
			})
		}
	}
}

// TestProcessReplacedAllStoreFirst checks that handlers of a ReplacedAll see
// a store that already holds the new list.
func TestProcessReplacedAllStoreFirst(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	store := newCache(DeletionHandlingMetaNamespaceKeyFunc, nil, nil)
	_ = store.Add(pom("gone", "1"))
	_ = store.Add(pom("a", "1"))
	h := &checkingHandler{store: store}
	info := ReplacedAllInfo{ResourceVersion: "9", Objects: []any{pom("a", "2"), pom("b", "3")}}
	if err := newDeltaProcessor(logger, h, store, nil).processDeltas("", Deltas{{ReplacedAll, info}}, false); err != nil {
		t.Fatal(err)
	}
	for i, s := range h.stores {
		if s != "ns/a@2 ns/b@3" {
			t.Errorf("call %d (%s) saw the store %q, want the replaced contents", i, h.calls[i], s)
		}
	}
}

func TestProcessDeltasInBatch(t *testing.T) {
	tests := []struct {
		name           string
		deltas         []Delta
		wantCalls      []string
		wantStore      []string
		wantErr        bool
		wantTxnErr     bool // the error wraps a TransactionError
		wantStoreFirst bool // every callback saw the final store
	}{
		{
			name:   "a transaction writes everything before the callbacks",
			deltas: []Delta{{Added, pom("a", "2")}, {Updated, pom("b", "3")}, {Deleted, pom("c", "1")}, {Sync, pom("d", "4")}},
			wantCalls: []string{
				"update ns/a@1 -> ns/a@2", "add ns/b@3 initial=true", "delete ns/c@1", "add ns/d@4 initial=true",
			},
			wantStore:      []string{"ns/a@2", "ns/b@3", "ns/d@4"},
			wantStoreFirst: true,
		},
		{
			name:       "an object without a key fails alone",
			deltas:     []Delta{{Added, pom("x", "2")}, {Added, pom("y", "3")}, {Deleted, &metav1.Status{}}},
			wantCalls:  []string{"add ns/x@2 initial=true", "add ns/y@3 initial=true"},
			wantStore:  []string{"ns/a@1", "ns/c@1", "ns/x@2", "ns/y@3"},
			wantErr:    true,
			wantTxnErr: true,
		},
		{
			name:       "only the successful writes of a partial failure are reported",
			deltas:     []Delta{{Added, pom("x", "2")}, {Added, pom("refused", "3")}, {Deleted, &metav1.Status{}}, {Deleted, pom("c", "1")}},
			wantCalls:  []string{"add ns/x@2 initial=true", "delete ns/c@1"},
			wantStore:  []string{"ns/a@1", "ns/x@2"},
			wantErr:    true,
			wantTxnErr: true,
		},
		{
			name:      "a delta type that cannot be batched fails before any write",
			deltas:    []Delta{{Added, pom("x", "2")}, {SyncAll, SyncAllInfo{}}},
			wantStore: []string{"ns/a@1", "ns/c@1"},
			wantErr:   true,
		},
	}
	for _, tc := range tests {
		for _, queueKeys := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/queueKeys=%v", tc.name, queueKeys), func(t *testing.T) {
				logger, _ := ktesting.NewTestContext(t)
				indexer := newCache(DeletionHandlingMetaNamespaceKeyFunc, refusingIndexers, nil)
				_ = indexer.Add(pom("a", "1"))
				_ = indexer.Add(pom("c", "1"))
				h := &checkingHandler{store: indexer}
				var keys []string
				if queueKeys {
					for _, d := range tc.deltas {
						key, _ := DeletionHandlingMetaNamespaceKeyFunc(d.Object)
						keys = append(keys, key)
					}
				}
				err := newDeltaProcessor(logger, h, indexer, nil).processDeltasInBatch(keys, tc.deltas, true)
				if (err != nil) != tc.wantErr {
					t.Fatalf("error = %v, want error: %v", err, tc.wantErr)
				}
				var txnErr *TransactionError
				if got := errors.As(err, &txnErr); got != tc.wantTxnErr {
					t.Errorf("errors.As(%v, *TransactionError) = %v, want %v", err, got, tc.wantTxnErr)
				}
				if diff := cmp.Diff(tc.wantCalls, h.calls); diff != "" {
					t.Errorf("handler calls (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.wantStore, storeContents(indexer)); diff != "" {
					t.Errorf("store (-want +got):\n%s", diff)
				}
				if tc.wantStoreFirst {
					final := strings.Join(tc.wantStore, " ")
					for i, s := range h.stores {
						if s != final {
							t.Errorf("callback %d saw %q, want the whole batch written: %q", i, s, final)
						}
					}
				}
			})
		}
	}
}

func TestProcessDeltasInBatchSeesTransactionStore(t *testing.T) {
	if _, ok := NewStore(MetaNamespaceKeyFunc).(TransactionStore); !ok {
		t.Fatalf("%T is not a TransactionStore: batch processing would never use transactions", NewStore(MetaNamespaceKeyFunc))
	}
}
