package cache

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/internal/benchkit"
)

// benchSource serves a fixed list, whole or in pages, or as a streaming list,
// and then an idle watch.
type benchSource struct {
	list      runtime.Object
	items     []runtime.Object
	pages     []runtime.Object // pages[i] is the page that continue token i returns
	streaming bool
	bookmark  runtime.Object // ends the initial events of a streaming list
}

// newBenchSource returns a source of list, served whole (pageSize 0) or in
// pages of pageSize items, or as a streaming list.
func newBenchSource(b *testing.B, kind benchkit.Kind, list runtime.Object, pageSize int, streaming bool) *benchSource {
	rv, err := meta.NewAccessor().ResourceVersion(list)
	if err != nil {
		b.Fatal(err)
	}
	bookmark := kind.Example()
	bm, err := meta.Accessor(bookmark)
	if err != nil {
		b.Fatal(err)
	}
	bm.SetResourceVersion(rv)
	bm.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	s := &benchSource{list: list, items: kind.Items(list), streaming: streaming, bookmark: bookmark}
	if pageSize == 0 {
		return s
	}
	for start := 0; start < len(s.items); start += pageSize {
		end := min(start+pageSize, len(s.items))
		page := kind.List(0)
		if err := meta.SetList(page, s.items[start:end]); err != nil {
			b.Fatal(err)
		}
		pm, err := meta.ListAccessor(page)
		if err != nil {
			b.Fatal(err)
		}
		pm.SetResourceVersion(rv)
		if end < len(s.items) {
			pm.SetContinue(strconv.Itoa(len(s.pages) + 1))
		}
		s.pages = append(s.pages, page)
	}
	return s
}

func (s *benchSource) lw() ListerWatcher {
	lw := &ListWatch{
		ListWithContextFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			if s.pages == nil {
				return s.list, nil
			}
			page := 0
			if opts.Continue != "" {
				page, _ = strconv.Atoi(opts.Continue)
			}
			return s.pages[page], nil
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if opts.SendInitialEvents == nil {
				return newScriptedWatch(nil, false), nil
			}
			events := make([]watch.Event, 0, len(s.items)+1)
			for _, item := range s.items {
				events = append(events, watch.Event{Type: watch.Added, Object: item})
			}
			events = append(events, watch.Event{Type: watch.Bookmark, Object: s.bookmark})
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

// BenchmarkInformerInitialSync measures the initial sync through Reflector →
// queue → Indexer (with a namespace index) → handler of NewInformerWithOptions,
// by one list, by pages of 500 and by a streaming list: from starting the
// controller until the handler has seen every object. It reports the time
// and the allocations per object.
func BenchmarkInformerInitialSync(b *testing.B) {
	const n = 100_000
	for _, kind := range benchkit.Kinds {
		list := kind.List(n)
		for _, variant := range []struct {
			name   string
			source *benchSource
			order  bool
		}{
			{name: "list/DeltaFIFO", source: newBenchSource(b, kind, list, 0, false)},
			{name: "pages=500/DeltaFIFO", source: newBenchSource(b, kind, list, 500, false)},
			{name: "streaming/DeltaFIFO", source: newBenchSource(b, kind, list, 0, true)},
			{name: "list/RealFIFO", source: newBenchSource(b, kind, list, 0, false), order: true},
		} {
			b.Run(fmt.Sprintf("kind=%s/objects=%d/%s", kind.Name, n, variant.name), func(b *testing.B) {
				ctx := context.Background()
				var before, after goruntime.MemStats
				goruntime.GC()
				goruntime.ReadMemStats(&before)
				b.ReportAllocs()
				for b.Loop() {
					h := &countingHandler{n: n, done: make(chan struct{})}
					_, ctrl := NewInformerWithOptions(InformerOptions{
						ListerWatcher: variant.source.lw(),
						ObjectType:    kind.Example(),
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
}
