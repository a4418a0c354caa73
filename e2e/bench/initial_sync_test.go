package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	clientgocache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/internal/benchkit"
)

// configMaps is the number of ConfigMaps the informers sync.
const configMaps = 5000

// syncTimeout bounds one sync, on a loaded machine.
const syncTimeout = 5 * time.Minute

// library is one informer implementation: start builds an informer of
// ConfigMaps on lw with a namespace index, registers h, runs it until ctx
// ends, and returns its HasSynced channel.
type library struct {
	name  string
	start func(ctx context.Context, lw *countingListWatch, h *benchkit.LatencyHandler) (<-chan struct{}, error)
}

var libraries = []library{
	{name: "client-go", start: startClientGo},
	{name: "informer-go", start: startInformerGo(false)},
	{name: "informer-go-inorder", start: startInformerGo(true)},
}

func startClientGo(ctx context.Context, lw *countingListWatch, h *benchkit.LatencyHandler) (<-chan struct{}, error) {
	inf := clientgocache.NewSharedIndexInformerWithOptions(lw.forLibrary(), &corev1.ConfigMap{}, clientgocache.SharedIndexInformerOptions{
		Indexers: clientgocache.Indexers{clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc},
	})
	if _, err := inf.AddEventHandler(h); err != nil {
		return nil, err
	}
	go inf.RunWithContext(ctx) // exits on ctx.Done(); syncOnce waits for the watch to end
	return inf.HasSyncedChecker().Done(), nil
}

func startInformerGo(inOrder bool) func(context.Context, *countingListWatch, *benchkit.LatencyHandler) (<-chan struct{}, error) {
	return func(ctx context.Context, lw *countingListWatch, h *benchkit.LatencyHandler) (<-chan struct{}, error) {
		inf := cache.NewSharedIndexInformerWithOptions(lw.forLibrary(), &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{
			Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			InOrder:  inOrder,
		})
		if _, err := inf.AddEventHandler(h); err != nil {
			return nil, err
		}
		go inf.RunWithContext(ctx) // exits on ctx.Done(); syncOnce waits for the watch to end
		return inf.HasSyncedChecker().Done(), nil
	}
}

// BenchmarkInitialSync measures, for each library, the time from starting an
// informer until its HasSynced and until its handler has every one of
// 5,000 ConfigMaps (5 labels, 1 KiB of data each), by a plain list
// (path=list) and by a streaming list (path=streaming). Every iteration
// syncs once with each library, in an order that rotates between
// iterations; run it with -benchtime=5x for 5 rounds. A first, unmeasured
// sync with each library warms up the server and the connection.
//
// Metrics: the median over the iterations of each library's times, in ms
// (<library>-synced-ms, <library>-handled-ms), and their ratio to
// client-go's (<library>-synced-ratio, <library>-handled-ratio).
func BenchmarkInitialSync(b *testing.B) {
	cluster := env.Cluster(b)
	client := cluster.Client()
	ns := cluster.CreateNamespace(b)
	start := time.Now()
	if err := createConfigMaps(b.Context(), client, ns, configMaps); err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d ConfigMaps in %v", configMaps, time.Since(start).Round(time.Millisecond))

	for _, streaming := range []bool{false, true} {
		path := "list"
		if streaming {
			path = "streaming"
		}
		b.Run("path="+path, func(b *testing.B) {
			for _, lib := range libraries {
				if _, _, err := syncOnce(client, ns, lib, streaming); err != nil {
					b.Fatalf("%s: warm-up: %v", lib.name, err)
				}
			}
			synced := map[string][]time.Duration{}
			handled := map[string][]time.Duration{}
			round := 0
			for b.Loop() {
				for k := range libraries {
					lib := libraries[(k+round)%len(libraries)]
					s, h, err := syncOnce(client, ns, lib, streaming)
					if err != nil {
						b.Fatalf("%s: %v", lib.name, err)
					}
					synced[lib.name] = append(synced[lib.name], s)
					handled[lib.name] = append(handled[lib.name], h)
				}
				round++
			}
			base := libraries[0].name
			for _, lib := range libraries {
				for _, m := range []struct {
					name string
					ds   map[string][]time.Duration
				}{{"synced", synced}, {"handled", handled}} {
					med := median(m.ds[lib.name])
					b.ReportMetric(float64(med)/float64(time.Millisecond), lib.name+"-"+m.name+"-ms")
					if lib.name != base {
						b.ReportMetric(float64(med)/float64(median(m.ds[base])), lib.name+"-"+m.name+"-ratio")
					}
				}
			}
		})
	}
}

// syncOnce syncs an informer of lib over the ConfigMaps of ns and returns
// the time until its HasSynced and until its handler had every ConfigMap.
// It checks that the informer listed the way streaming asks for.
func syncOnce(client kubernetes.Interface, ns string, lib library, streaming bool) (synced, handled time.Duration, err error) {
	runtime.GC()
	lw := &countingListWatch{client: client, namespace: ns, listOnly: !streaming}
	h := benchkit.NewLatencyHandler(nil, 0)
	h.Expect(configMaps)
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Logger{}))
	defer func() {
		cancel()
		lw.waitWatchesEnded()
	}()
	began := time.Now()
	syncedCh, err := lib.start(ctx, lw, h)
	if err != nil {
		return 0, 0, err
	}
	synced, handled, ok := benchkit.TimeBoth(began, syncedCh, h.Reached(), time.After(syncTimeout))
	if !ok {
		return 0, 0, fmt.Errorf("not synced after %v: handler at %d of %d ConfigMaps", syncTimeout, h.Calls(), configMaps)
	}
	lists, streams := lw.lists.Load(), lw.streams.Load()
	if streaming && (lists != 0 || streams != 1) || !streaming && (lists != 1 || streams != 0) {
		return 0, 0, fmt.Errorf("%d lists and %d streaming lists, want %s", lists, streams, map[bool]string{true: "one streaming list", false: "one list"}[streaming])
	}
	return synced, handled, nil
}

// countingListWatch lists and watches the ConfigMaps of a namespace and
// counts the lists and streaming lists asked for. Its methods fit the
// ListerWatcherWithContext of both libraries.
type countingListWatch struct {
	client    kubernetes.Interface
	namespace string
	// listOnly makes both libraries use plain lists instead of streaming
	// lists (see forLibrary).
	listOnly bool

	lists, streams atomic.Int64
	watches        sync.WaitGroup // open watches
}

func (lw *countingListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
	lw.lists.Add(1)
	return lw.client.CoreV1().ConfigMaps(lw.namespace).List(ctx, opts)
}

func (lw *countingListWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		lw.streams.Add(1)
	}
	w, err := lw.client.CoreV1().ConfigMaps(lw.namespace).Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	lw.watches.Add(1)
	return &trackedWatch{Interface: w, done: lw.watches.Done}, nil
}

func (lw *countingListWatch) List(opts metav1.ListOptions) (kruntime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

func (lw *countingListWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), opts)
}

// waitWatchesEnded waits until every watch was stopped.
func (lw *countingListWatch) waitWatchesEnded() { lw.watches.Wait() }

// listerWatcher is the method set both libraries' ListerWatcher require;
// they find the others (the context variants, the opt-out of streaming
// lists) on the value by type assertion.
type listerWatcher interface {
	List(metav1.ListOptions) (kruntime.Object, error)
	Watch(metav1.ListOptions) (watch.Interface, error)
}

// forLibrary returns lw, or with listOnly a wrapper that tells both
// libraries' reflectors that the source does not support streaming lists.
func (lw *countingListWatch) forLibrary() listerWatcher {
	if lw.listOnly {
		return listOnly{lw}
	}
	return lw
}

type listOnly struct{ *countingListWatch }

func (listOnly) IsWatchListSemanticsUnSupported() bool { return true }

// trackedWatch calls done once when stopped.
type trackedWatch struct {
	watch.Interface
	once sync.Once
	done func()
}

func (w *trackedWatch) Stop() {
	w.Interface.Stop()
	w.once.Do(w.done)
}

// createConfigMaps creates n ConfigMaps shaped like the realistic objects of
// the other benchmarks: 5 labels, 2 annotations and 1 KiB of data.
func createConfigMaps(ctx context.Context, client kubernetes.Interface, ns string, n int) error {
	const workers = 16
	indexes := make(chan int)
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	for range workers {
		wg.Go(func() { // exits when indexes is closed
			for i := range indexes {
				obj := benchkit.NewObject(i, 0)
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: obj.Name, Namespace: ns, Labels: obj.Labels, Annotations: obj.Annotations},
					Data:       obj.Data,
				}
				if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					failed.CompareAndSwap(nil, &err)
				}
			}
		})
	}
	for i := range n {
		indexes <- i
	}
	close(indexes)
	wg.Wait()
	if err := failed.Load(); err != nil {
		return fmt.Errorf("create ConfigMaps: %w", *err)
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
