package cache

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// benchSource serves a fixed list, whole or in pages, or as a streaming list,
// and then an idle watch.
type benchSource struct {
	list      *metav1.PartialObjectMetadataList
	pageSize  int
	streaming bool
}

func (s *benchSource) lw() ListerWatcher {
	lw := &ListWatch{
		ListWithContextFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			if s.pageSize == 0 {
				return s.list, nil
			}
			start := 0
			if opts.Continue != "" {
				start, _ = strconv.Atoi(opts.Continue)
			}
			end := min(start+s.pageSize, len(s.list.Items))
			page := &metav1.PartialObjectMetadataList{ListMeta: s.list.ListMeta, Items: s.list.Items[start:end]}
			if end < len(s.list.Items) {
				page.Continue = strconv.Itoa(end)
			}
			return page, nil
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if opts.SendInitialEvents == nil {
				return newScriptedWatch(nil, false), nil
			}
			events := make([]watch.Event, 0, len(s.list.Items)+1)
			for i := range s.list.Items {
				events = append(events, watch.Event{Type: watch.Added, Object: &s.list.Items[i]})
			}
			events = append(events, bookmarkEvent(s.list.ResourceVersion, true))
			return newScriptedWatch(events, false), nil
		},
	}
	if s.streaming {
		return lw
	}
	return ToListWatcherWithWatchListSemantics(lw, optOut{})
}

// countingHandler closes done once it has seen n adds.
type countingHandler struct {
	n    int64
	seen atomic.Int64
	done chan struct{}
}

func (h *countingHandler) OnAdd(any, bool) {
	if h.seen.Add(1) == h.n {
		close(h.done)
	}
}
func (h *countingHandler) OnUpdate(any, any) {}
func (h *countingHandler) OnDelete(any)      {}

// BenchmarkInformerInitialSync measures the initial sync of small objects
// through Reflector → queue → Indexer (with a namespace index) → handler:
// from starting the controller until the handler has seen every object. It
// reports the time and the allocations per object.
func BenchmarkInformerInitialSync(b *testing.B) {
	const n = 100_000
	list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "100000"}}
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for i := range n {
		obj := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns-" + strconv.Itoa(i%100), Name: "pod-" + strconv.Itoa(i), ResourceVersion: strconv.Itoa(i + 1),
			Labels: map[string]string{"app": "bench"},
		}}
		obj.SetGroupVersionKind(gvk)
		list.Items = append(list.Items, obj)
	}
	for _, variant := range []struct {
		name   string
		source *benchSource
		order  bool
	}{
		{name: "list/DeltaFIFO", source: &benchSource{list: list}},
		{name: "pages=500/DeltaFIFO", source: &benchSource{list: list, pageSize: 500}},
		{name: "streaming/DeltaFIFO", source: &benchSource{list: list, streaming: true}},
		{name: "list/RealFIFO", source: &benchSource{list: list}, order: true},
	} {
		b.Run(fmt.Sprintf("objects=%d/%s", n, variant.name), func(b *testing.B) {
			ctx := context.Background()
			var before, after goruntime.MemStats
			goruntime.GC()
			goruntime.ReadMemStats(&before)
			b.ReportAllocs()
			for b.Loop() {
				h := &countingHandler{n: n, done: make(chan struct{})}
				_, ctrl := NewInformerWithOptions(InformerOptions{
					ListerWatcher: variant.source.lw(),
					ObjectType:    &metav1.PartialObjectMetadata{},
					Handler:       h,
					Indexers:      Indexers{NamespaceIndex: MetaNamespaceIndexFunc},
					InOrder:       variant.order,
				})
				runCtx, cancel := context.WithCancel(ctx)
				var wg sync.WaitGroup
				wg.Go(func() { ctrl.RunWithContext(runCtx) })
				<-h.done
				cancel()
				wg.Wait()
			}
			goruntime.ReadMemStats(&after)
			objects := float64(b.N) * n
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/objects, "ns/object")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/objects, "allocs/object")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/objects, "B/object")
		})
	}
}
