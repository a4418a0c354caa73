package cache

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"
)

func mutationObj(name string, uid types.UID, rv string) *metav1.PartialObjectMetadata {
	o := storeObj("", name, rv)
	o.UID = uid
	return o
}

func rvOf(t *testing.T, obj any) string {
	t.Helper()
	rv, ok := rvFromObject(obj)
	if !ok {
		t.Fatalf("%v has no metadata", obj)
	}
	return rv
}

func TestMutationCacheGetByKey(t *testing.T) {
	tests := []struct {
		name        string
		stored      string // resource version in the store, "" for absent
		mutation    string // resource version recorded, "" for none
		includeAdds bool
		wantRV      string // "" for not found
	}{
		{name: "newer mutation wins", stored: "1", mutation: "2", wantRV: "2"},
		{name: "newer store wins", stored: "3", mutation: "2", wantRV: "3"},
		{name: "equal versions: store", stored: "2", mutation: "2", wantRV: "2"},
		{name: "absent from store", mutation: "2", wantRV: ""},
		{name: "absent from store, include adds", mutation: "2", includeAdds: true, wantRV: "2"},
		{name: "no mutation", stored: "1", wantRV: "1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger, _ := ktesting.NewTestContext(t)
			store := NewStore(MetaNamespaceKeyFunc)
			if tc.stored != "" {
				if err := store.Add(mutationObj("pod", "uid-1", tc.stored)); err != nil {
					t.Fatal(err)
				}
			}
			mc := NewIntegerResourceVersionMutationCache(logger, store, nil, time.Minute, tc.includeAdds)
			if tc.mutation != "" {
				mc.Mutation(mutationObj("pod", "uid-1", tc.mutation))
			}
			got, exists, err := mc.GetByKey("pod")
			if err != nil {
				t.Fatal(err)
			}
			gotRV := ""
			if exists {
				gotRV = rvOf(t, got)
			}
			if gotRV != tc.wantRV {
				t.Errorf("got version %q, want %q", gotRV, tc.wantRV)
			}
		})
	}
}

// TestMutationCacheIncludeAddsReadOnce pins a client-go quirk: an object only
// the mutation cache has is returned once, then forgotten.
func TestMutationCacheIncludeAddsReadOnce(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	mc := NewIntegerResourceVersionMutationCache(logger, NewStore(MetaNamespaceKeyFunc), nil, time.Minute, true)
	mc.Mutation(mutationObj("pod", "uid-1", "2"))
	if _, exists, _ := mc.GetByKey("pod"); !exists {
		t.Fatal("first read: not found")
	}
	if _, exists, _ := mc.GetByKey("pod"); exists {
		t.Error("second read: found")
	}
}

func TestMutationCacheOnAddOrUpdate(t *testing.T) {
	tests := []struct {
		name        string
		storeRV     string
		wantCleared bool
	}{
		{"equal version clears", "2", true},
		{"newer store clears", "3", true},
		{"older store keeps", "1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger, _ := ktesting.NewTestContext(t)
			store := NewStore(MetaNamespaceKeyFunc)
			mc := NewIntegerResourceVersionMutationCache(logger, store, nil, time.Minute, false)
			mc.Mutation(mutationObj("pod", "uid-1", "2"))
			mc.OnAddOrUpdate(mutationObj("pod", "uid-1", tc.storeRV))
			// An older store object tells whether the mutation is still there.
			if err := store.Add(mutationObj("pod", "uid-1", "1")); err != nil {
				t.Fatal(err)
			}
			got, _, _ := mc.GetByKey("pod")
			want := "2"
			if tc.wantCleared {
				want = "1"
			}
			if rv := rvOf(t, got); rv != want {
				t.Errorf("got version %q, want %q", rv, want)
			}
		})
	}
}

func TestMutationCacheOnDelete(t *testing.T) {
	tests := []struct {
		name       string
		deleteUID  types.UID
		deleteRV   string
		wantExists bool
	}{
		{"old version, same UID", "uid-1", "1", false},
		{"new version, other UID", "uid-2", "3", false},
		{"old version, other UID", "uid-other", "1", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger, _ := ktesting.NewTestContext(t)
			store := NewStore(MetaNamespaceKeyFunc)
			mc := NewIntegerResourceVersionMutationCache(logger, store, nil, time.Minute, true)
			if err := store.Add(mutationObj("pod", "uid-1", "2")); err != nil {
				t.Fatal(err)
			}
			mc.Mutation(mutationObj("pod", "uid-1", "3"))
			deleted := mutationObj("pod", tc.deleteUID, tc.deleteRV)
			if err := store.Delete(deleted); err != nil {
				t.Fatal(err)
			}
			mc.OnDelete(deleted)
			if _, exists, _ := mc.GetByKey("pod"); exists != tc.wantExists {
				t.Errorf("exists = %v, want %v", exists, tc.wantExists)
			}
		})
	}
}

func TestMutationCacheTombstoneBlocksStaleMutation(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	store := NewStore(MetaNamespaceKeyFunc)
	mc := NewIntegerResourceVersionMutationCache(logger, store, nil, time.Hour, true).(*mutationCache)
	updated := mutationObj("pod", "uid-1", "2")
	mc.OnAddOrUpdate(updated)
	mc.OnDelete(updated)
	mc.Mutation(updated)                          // the same version: known deleted
	mc.Mutation(mutationObj("pod", "uid-1", "5")) // the same instance: known deleted
	if _, exists, _ := mc.GetByKey("pod"); exists {
		t.Error("a deleted object is visible")
	}
	if diff := cmp.Diff([]any{"pod"}, mc.mutations.Keys()); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}

	// A newer store object drops the tombstone; a stale mutation then loses.
	replacement := mutationObj("pod", "uid-2", "3")
	if err := store.Add(replacement); err != nil {
		t.Fatal(err)
	}
	mc.OnAddOrUpdate(replacement)
	mc.Mutation(updated)
	got, exists, _ := mc.GetByKey("pod")
	if !exists || got != replacement {
		t.Errorf("got %v, %v; want the replacement", got, exists)
	}
	if keys := mc.mutations.Keys(); len(keys) != 0 {
		t.Errorf("records left: %v", keys)
	}
}

func TestMutationCacheByIndex(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	byName := Indexers{"name": storeNameIndexFunc}
	indexer := NewIndexer(MetaNamespaceKeyFunc, byName)
	if err := indexer.Add(mutationObj("a", "uid-a", "1")); err != nil {
		t.Fatal(err)
	}
	mc := NewIntegerResourceVersionMutationCacheWithOptions(logger, indexer, MutationCacheOptions{Indexer: indexer, IncludeAdds: true})
	mc.Mutation(mutationObj("a", "uid-a", "4"))
	mc.Mutation(mutationObj("b", "uid-b", "1")) // only in the mutation cache
	mc.Mutation("not an object")                // rejected: no key

	items, err := mc.ByIndex("name", "a")
	if err != nil || len(items) != 1 || rvOf(t, items[0]) != "4" {
		t.Errorf("ByIndex(name, a) = %v, %v; want the mutation at version 4", items, err)
	}
	items, err = mc.ByIndex("name", "b")
	if err != nil || len(items) != 1 {
		t.Errorf("ByIndex(name, b) = %v, %v; want the added object", items, err)
	}
	if _, err := mc.ByIndex("absent", "a"); err == nil {
		t.Error("ByIndex of an unknown index did not fail")
	}
	noIndexer := NewIntegerResourceVersionMutationCacheWithOptions(logger, indexer, MutationCacheOptions{})
	if _, err := noIndexer.ByIndex("name", "a"); err == nil {
		t.Error("ByIndex without an indexer did not fail")
	}
}

func TestMutationCacheBadInput(t *testing.T) {
	handled := storeHandledErrors(t)
	logger, _ := ktesting.NewTestContext(t)
	store := NewStore(MetaNamespaceKeyFunc)
	if err := store.Add(mutationObj("pod", "uid-1", "not-a-number")); err != nil {
		t.Fatal(err)
	}
	mc := NewIntegerResourceVersionMutationCacheWithOptions(logger, store, MutationCacheOptions{TTL: -1, MaxCacheSize: -5})
	mc.Mutation(mutationObj("pod", "uid-1", "7"))
	got, exists, err := mc.GetByKey("pod")
	if err != nil || !exists || rvOf(t, got) != "not-a-number" {
		t.Errorf("GetByKey = %v, %v, %v; want the store's object", got, exists, err)
	}
	mc.Mutation(nil)
	mc.Mutation((*metav1.PartialObjectMetadata)(nil))
	mc.OnAddOrUpdate(nil)
	mc.OnDelete(nil)
	mc.OnAddOrUpdate((*metav1.PartialObjectMetadata)(nil))
	mc.OnDelete((*metav1.PartialObjectMetadata)(nil))
	if len(handled()) == 0 {
		t.Error("nothing reported")
	}
}

func TestMutationCacheTTLAndSize(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	clk := testingclock.NewFakeClock(time.Now())
	store := NewStore(MetaNamespaceKeyFunc)
	for _, name := range []string{"a", "b", "c"} {
		if err := store.Add(mutationObj(name, types.UID(name), "1")); err != nil {
			t.Fatal(err)
		}
	}
	mc := newMutationCache(logger, store, MutationCacheOptions{TTL: time.Minute, MaxCacheSize: 2}, clk)
	for _, name := range []string{"a", "b", "c"} {
		mc.Mutation(mutationObj(name, types.UID(name), "2"))
	}
	versions := func() []string {
		var out []string
		for _, name := range []string{"a", "b", "c"} {
			got, _, _ := mc.GetByKey(name)
			out = append(out, rvOf(t, got))
		}
		return out
	}
	if diff := cmp.Diff([]string{"1", "2", "2"}, versions()); diff != "" {
		t.Errorf("least recently used record not evicted (-want +got):\n%s", diff)
	}
	clk.Step(2 * time.Minute)
	if diff := cmp.Diff([]string{"1", "1", "1"}, versions()); diff != "" {
		t.Errorf("records outlived their TTL (-want +got):\n%s", diff)
	}
}
