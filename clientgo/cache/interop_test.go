package cache_test

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/clientgo/cache"
	"github.com/informer-go/informer/clientgo/internal/resttest"
)

// runSynced runs informer in a synctest bubble's test until it synced and
// returns the function that stops it and waits for it.
func runSynced(t *testing.T, informer interface {
	runner
	HasSynced() bool
}) (stop func()) {
	t.Helper()
	stop = start(t, informer)
	if !cache.WaitForCacheSync(t.Context().Done(), informer.HasSynced) {
		stop()
		t.Fatal("not synced")
	}
	return stop
}

// TestValuesPassBetweenLibraries checks, at compile time and at run time,
// that the drop-in's values are client-go's: its informer and indexer are
// client-go interface values, client-go's informer is a drop-in
// SharedIndexInformer, a generated lister reads the drop-in's indexer, the
// store of NewInformer is an Indexer as client-go's is, and client-go's
// ShutDownEventHandler waits for a registration of the drop-in's informer.
func TestValuesPassBetweenLibraries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var informer toolscache.SharedIndexInformer = cache.NewSharedIndexInformer(newScript(), &corev1.Pod{}, 0,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		var fromClientGo cache.SharedIndexInformer = toolscache.NewSharedIndexInformer(newScript(), &corev1.Pod{}, 0, nil)
		_ = fromClientGo
		reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{})
		if err != nil {
			t.Fatal(err)
		}
		stop := runSynced(t, informer)
		defer stop()

		var indexer cache.Indexer = informer.GetIndexer()
		lister := corev1listers.NewPodLister(indexer)
		pods, err := lister.Pods("ns").List(labels.Everything())
		if err != nil || len(pods) != 3 {
			t.Errorf("the generated lister listed %d pods, %v; want 3", len(pods), err)
		}
		if objs, err := indexer.ByIndex(cache.NamespaceIndex, "ns"); err != nil || len(objs) != 3 {
			t.Errorf("ByIndex(namespace, ns) = %d objects, %v; want 3", len(objs), err)
		}
		if err := toolscache.ShutDownEventHandler(informer, reg); err != nil {
			t.Errorf("client-go's ShutDownEventHandler: %v", err)
		}

		store, _ := cache.NewInformer(newScript(), &corev1.Pod{}, 0, cache.ResourceEventHandlerFuncs{})
		if _, ok := store.(cache.Indexer); !ok {
			t.Errorf("the store of NewInformer is a %T, not an Indexer as client-go's is", store)
		}
	})
}

// TestNewListWatchFromClient checks the requests of the drop-in's REST
// ListWatch, through the functions with and without a context, and that a
// nil REST client yields errors rather than panics.
func TestNewListWatchFromClient(t *testing.T) {
	var paths []string
	client := resttest.PodLister(podList("5", pod("a", "1")), &paths)
	var getter cache.Getter = client
	lw := cache.NewListWatchFromClient(getter, "pods", "ns", fields.OneTermEqualSelector("spec.nodeName", "n1"))
	for _, list := range []func() (runtime.Object, error){
		func() (runtime.Object, error) {
			return lw.List(metav1.ListOptions{ResourceVersion: "0", Limit: 10}) //lint:ignore SA1019 client-go's ListWatch has both
		},
		func() (runtime.Object, error) {
			return lw.ListWithContext(t.Context(), metav1.ListOptions{ResourceVersion: "0", Limit: 10})
		},
	} {
		obj, err := list()
		if err != nil {
			t.Fatal(err)
		}
		if pods, ok := obj.(*corev1.PodList); !ok || len(pods.Items) != 1 || pods.Items[0].Name != "a" {
			t.Errorf("List returned %#v, want the one pod", obj)
		}
	}
	want := []string{
		"/namespaces/ns/pods?fieldSelector=spec.nodeName%3Dn1&limit=10&resourceVersion=0",
		"/namespaces/ns/pods?fieldSelector=spec.nodeName%3Dn1&limit=10&resourceVersion=0",
	}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	// The fake clientset's RESTClient is a nil pointer.
	lw = cache.NewListWatchFromClient(fake.NewClientset().CoreV1().RESTClient(), "pods", "", fields.Everything())
	//lint:ignore SA1019 client-go's ListWatch has both
	if _, err := lw.List(metav1.ListOptions{}); err == nil {
		t.Error("List through a nil REST client succeeded")
	}
	if _, err := lw.WatchWithContext(t.Context(), metav1.ListOptions{}); err == nil {
		t.Error("Watch through a nil REST client succeeded")
	}
}

// metricsRecorder is a client-go InformerMetricsProvider that records the
// identities it is asked for metrics of.
type metricsRecorder struct {
	mu  sync.Mutex
	ids []string // guarded by mu
}

func (m *metricsRecorder) record(kind string, id cache.InformerNameAndResource) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ids = append(m.ids, kind+" "+id.Name()+" "+id.GroupVersionResource().Resource)
}

func (m *metricsRecorder) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	m.record("queued", id)
	return gauge{}
}

func (m *metricsRecorder) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	m.record("latency", id)
	return gauge{}
}

func (m *metricsRecorder) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	m.record("resourceVersion", id)
	return gauge{}
}

type gauge struct{}

func (gauge) Set(float64)     {}
func (gauge) Observe(float64) {}

// TestInformerMetricsOfClientGoIdentity checks that a drop-in informer with
// a reserved client-go identity creates its metrics through the provider of
// its options, for that identity, and none without a reserved identity.
func TestInformerMetricsOfClientGoIdentity(t *testing.T) {
	name, err := cache.NewInformerName("dropin-metrics-test")
	if err != nil {
		t.Fatal(err)
	}
	defer name.Release()
	id := name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})

	provider := &metricsRecorder{}
	synctest.Test(t, func(t *testing.T) {
		named := cache.NewSharedIndexInformerWithOptions(newScript(), &corev1.Pod{}, cache.SharedIndexInformerOptions{
			Identifier: id, InformerMetricsProvider: provider,
		})
		unnamed := cache.NewSharedIndexInformerWithOptions(newScript(), &corev1.Pod{}, cache.SharedIndexInformerOptions{
			InformerMetricsProvider: provider,
		})
		defer runSynced(t, named)()
		defer runSynced(t, unnamed)()
	})
	provider.mu.Lock()
	defer provider.mu.Unlock()
	want := []string{"latency dropin-metrics-test pods", "queued dropin-metrics-test pods", "resourceVersion dropin-metrics-test pods"}
	got := append([]string(nil), provider.ids...)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics created (-want +got):\n%s", diff)
	}
}
