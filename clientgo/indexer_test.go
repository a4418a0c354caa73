package clientgo_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
)

// TestGeneratedListerOverAsIndexer reads an informer of this library, synced
// from the fake clientset, through client-go's generated pod lister.
func TestGeneratedListerOverAsIndexer(t *testing.T) {
	client := fake.NewClientset(pod("ns", "a"), pod("ns", "b"), pod("other", "c"))
	informer := cache.NewSharedIndexInformer(cache.NewListWatchFromTypedClient(client.CoreV1().Pods(""), nil),
		&corev1.Pod{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	runUntilSynced(t, informer)

	lister := corev1listers.NewPodLister(clientgo.AsIndexer(informer.GetIndexer()))
	all, err := lister.List(labels.Everything())
	if err != nil || len(all) != 3 {
		t.Errorf("List = %d pods, %v; want 3", len(all), err)
	}
	inNS, err := lister.Pods("ns").List(labels.SelectorFromSet(labels.Set{"app": "b"}))
	if err != nil || len(inNS) != 1 || inNS[0].Name != "b" {
		t.Errorf("Pods(ns).List(app=b) = %v, %v; want pod b", inNS, err)
	}
	if got, err := lister.Pods("other").Get("c"); err != nil || got.Name != "c" {
		t.Errorf("Pods(other).Get(c) = %v, %v", got, err)
	}
	if _, err := lister.Pods("ns").Get("c"); !apierrors.IsNotFound(err) {
		t.Errorf("Pods(ns).Get(c) error = %v, want NotFound", err)
	}
}

func TestAsIndexerConvertsIndexers(t *testing.T) {
	indexer := clientgo.AsIndexer(cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{}))
	byApp := func(obj any) ([]string, error) { return []string{obj.(*corev1.Pod).Labels["app"]}, nil }
	if err := indexer.AddIndexers(toolscache.Indexers{"app": byApp}); err != nil {
		t.Fatal(err)
	}
	if _, ok := indexer.GetIndexers()["app"]; !ok {
		t.Errorf("GetIndexers() = %v, want the app index", indexer.GetIndexers())
	}
	for _, p := range []*corev1.Pod{pod("ns", "a"), pod("ns", "b")} {
		if err := indexer.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := indexer.IndexKeys("app", "b")
	if diff := cmp.Diff([]string{"ns/b"}, keys); diff != "" || err != nil {
		t.Errorf("IndexKeys(app, b) = %v, %v (-want +got):\n%s", keys, err, diff)
	}
	if clientgo.AsIndexer(nil) != nil {
		t.Error("AsIndexer(nil) is not nil")
	}
}

// TestAsIndexerDeletesTombstonesOfBothLibraries deletes through the adapter
// with each library's tombstone.
func TestAsIndexerDeletesTombstonesOfBothLibraries(t *testing.T) {
	tests := []struct {
		name      string
		tombstone any
	}{
		{name: "this library's", tombstone: cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: pod("ns", "a")}},
		{name: "client-go's", tombstone: toolscache.DeletedFinalStateUnknown{Key: "ns/a", Obj: pod("ns", "a")}},
		{name: "client-go's without object", tombstone: toolscache.DeletedFinalStateUnknown{Key: "ns/a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			indexer := clientgo.AsIndexer(cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc,
				cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}))
			for _, p := range []*corev1.Pod{pod("ns", "a"), pod("ns", "b")} {
				if err := indexer.Add(p); err != nil {
					t.Fatal(err)
				}
			}
			if err := indexer.Delete(tc.tombstone); err != nil {
				t.Fatalf("Delete(%#v): %v", tc.tombstone, err)
			}
			if diff := cmp.Diff([]string{"ns/b"}, indexer.ListKeys()); diff != "" {
				t.Errorf("keys after the delete (-want +got):\n%s", diff)
			}
			if keys, _ := indexer.IndexKeys(cache.NamespaceIndex, "ns"); len(keys) != 1 {
				t.Errorf("namespace index holds %v, want ns/b only", keys)
			}
		})
	}
}
