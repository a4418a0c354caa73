package cache

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/internal/benchkit"
)

// The informer benchmarks feed an informer from benchLW, a ListerWatcher
// that serves a prebuilt list and a watch channel the benchmark writes to,
// so that nothing but the informer is measured. Each has a floor: the same
// work done by the simplest possible program (a map and one channel per
// handler), which bounds what any informer can achieve on this machine.
//
// Metrics, besides the standard ones:
//   - ns/object, allocs/object: initial sync, per listed object;
//   - events/s: watch events fully delivered (to every handler) per second;
//   - p50-ns, p99-ns: latency from the watch send to the handler call;
//   - cpu-ns/event: process CPU time (user+system) per watch event;
//   - allocs/event, B/event: heap allocations per watch event.

const (
	benchSyncObjects   = 100_000
	benchWatchObjects  = 10_000
	benchWatchUpdates  = 200_000
	benchWatchChanSize = 1024
)

// benchLW serves a fixed list and hands out watches fed from events.
type benchLW struct {
	list   *metav1.PartialObjectMetadataList
	events chan watch.Event
}

func newBenchLW(objs []*metav1.PartialObjectMetadata) *benchLW {
	list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: fmt.Sprint(len(objs))}}
	list.Items = make([]metav1.PartialObjectMetadata, len(objs))
	for i, obj := range objs {
		list.Items[i] = *obj
	}
	return &benchLW{list: list, events: make(chan watch.Event, benchWatchChanSize)}
}

func (l *benchLW) IsWatchListSemanticsUnSupported() bool { return true }

func (l *benchLW) List(metav1.ListOptions) (runtime.Object, error) { return l.list, nil }

func (l *benchLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	return &benchWatch{ch: l.events, stopped: make(chan struct{})}, nil
}

// benchWatch is a watch whose channel outlives it: the benchmark keeps
// sending into the same channel.
type benchWatch struct {
	ch       chan watch.Event
	stopOnce sync.Once
	stopped  chan struct{}
}

func (w *benchWatch) ResultChan() <-chan watch.Event { return w.ch }
func (w *benchWatch) Stop()                          { w.stopOnce.Do(func() { close(w.stopped) }) }

// quietContext is a context whose logger discards everything, so that
// logging does not show up in the measurements.
func quietContext() (context.Context, context.CancelFunc) {
	return context.WithCancel(klog.NewContext(context.Background(), klog.LoggerWithName(discardLogger(), "bench")))
}

func discardLogger() klog.Logger { return klog.Logger{} }

// BenchmarkSharedInformerInitialSync measures the initial sync of 100k listed
// objects to one handler: from Run until the handler's registration has
// synced (every object stored and handed to the handler).
func BenchmarkSharedInformerInitialSync(b *testing.B) {
	objs := benchkit.Objects(benchSyncObjects)
	lw := newBenchLW(objs)
	for _, mode := range queueModes {
		b.Run(mode.name, func(b *testing.B) {
			start, began := benchkit.ReadUsage(), time.Now()
			iterations := 0
			for b.Loop() {
				iterations++
				inf := newSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{InOrder: mode.inOrder}, realClock)
				h := benchkit.NewLatencyHandler(nil)
				h.Expect(benchSyncObjects)
				reg, err := inf.AddEventHandler(h)
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := quietContext()
				done := make(chan struct{})
				go func() {
					defer close(done)
					inf.RunWithContext(ctx)
				}()
				h.Wait()
				<-reg.HasSyncedChecker().Done()
				cancel()
				<-done
			}
			start.Report(b, iterations*benchSyncObjects, "object", time.Since(began))
		})
	}
	b.Run("floor", func(b *testing.B) {
		start, began := benchkit.ReadUsage(), time.Now()
		iterations := 0
		for b.Loop() {
			iterations++
			h := benchkit.NewLatencyHandler(nil)
			h.Expect(benchSyncObjects)
			f := newFloor([]*benchkit.LatencyHandler{h})
			list, _ := lw.List(metav1.ListOptions{})
			for i := range list.(*metav1.PartialObjectMetadataList).Items {
				item := list.(*metav1.PartialObjectMetadataList).Items[i] // copy, as the reflector does
				f.handle(watch.Event{Type: watch.Added, Object: &item})
			}
			h.Wait()
			f.stop()
		}
		start.Report(b, iterations*benchSyncObjects, "object", time.Since(began))
	})
}

// BenchmarkSharedInformerWatchUpdates measures 200k watch updates over 10k objects
// delivered to 1, 4 and 16 handlers, on a synced informer.
func BenchmarkSharedInformerWatchUpdates(b *testing.B) {
	objs := benchkit.Objects(benchWatchObjects)
	updates := benchkit.Updates(benchWatchObjects, benchWatchUpdates)
	for _, handlers := range []int{1, 4, 16} {
		for _, mode := range queueModes {
			b.Run(fmt.Sprintf("handlers=%d/%s", handlers, mode.name), func(b *testing.B) {
				lw := newBenchLW(objs)
				sentAt := make([]int64, len(updates))
				hs := make([]*benchkit.LatencyHandler, handlers)
				inf := newSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{InOrder: mode.inOrder}, realClock)
				for i := range hs {
					hs[i] = benchkit.NewLatencyHandler(sentAt)
					hs[i].Expect(benchWatchObjects)
					if _, err := inf.AddEventHandler(hs[i]); err != nil {
						b.Fatal(err)
					}
				}
				ctx, cancel := quietContext()
				done := make(chan struct{})
				go func() {
					defer close(done)
					inf.RunWithContext(ctx)
				}()
				defer func() {
					cancel()
					<-done
				}()
				for _, h := range hs {
					h.Wait()
				}
				runWatchUpdates(b, lw.events, updates, sentAt, hs)
			})
		}
		b.Run(fmt.Sprintf("handlers=%d/floor", handlers), func(b *testing.B) {
			sentAt := make([]int64, len(updates))
			hs := make([]*benchkit.LatencyHandler, handlers)
			for i := range hs {
				hs[i] = benchkit.NewLatencyHandler(sentAt)
			}
			f := newFloor(hs)
			defer f.stop()
			events := make(chan watch.Event, benchWatchChanSize)
			go func() {
				for e := range events {
					f.handle(e)
				}
			}()
			defer close(events)
			for _, obj := range objs {
				f.handle(watch.Event{Type: watch.Added, Object: obj})
			}
			for _, h := range hs {
				h.Expect(benchWatchObjects)
				h.Wait()
			}
			runWatchUpdates(b, events, updates, sentAt, hs)
		})
	}
}

// runWatchUpdates sends every update once per iteration and waits until
// every handler got them all.
func runWatchUpdates(b *testing.B, events chan<- watch.Event, updates []*metav1.PartialObjectMetadata, sentAt []int64, hs []*benchkit.LatencyHandler) {
	start, began := benchkit.ReadUsage(), time.Now()
	iterations := 0
	for b.Loop() {
		iterations++
		for _, h := range hs {
			h.Expect(h.Calls() + int64(len(updates)))
		}
		for i, obj := range updates {
			sentAt[i] = benchkit.Now()
			events <- watch.Event{Type: watch.Modified, Object: obj}
		}
		for _, h := range hs {
			h.Wait()
		}
	}
	elapsed := time.Since(began)
	total := iterations * len(updates)
	start.Report(b, total, "event", elapsed)
	b.ReportMetric(float64(total)/elapsed.Seconds(), "events/s")
	benchkit.ReportLatencies(b, hs)
}

// BenchmarkSharedInformerEventLatency measures the latency of one watch event
// through an idle informer to all its handlers: each iteration sends one
// update and waits until every handler got it.
func BenchmarkSharedInformerEventLatency(b *testing.B) {
	objs := benchkit.Objects(1)
	updates := benchkit.Updates(1, 2)
	for _, handlers := range []int{1, 16} {
		for _, mode := range queueModes {
			b.Run(fmt.Sprintf("handlers=%d/%s", handlers, mode.name), func(b *testing.B) {
				lw := newBenchLW(objs)
				inf := newSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{InOrder: mode.inOrder}, realClock)
				hs := make([]*benchkit.LatencyHandler, handlers)
				for i := range hs {
					hs[i] = benchkit.NewLatencyHandler(nil)
					hs[i].Expect(1)
					if _, err := inf.AddEventHandler(hs[i]); err != nil {
						b.Fatal(err)
					}
				}
				ctx, cancel := quietContext()
				done := make(chan struct{})
				go func() {
					defer close(done)
					inf.RunWithContext(ctx)
				}()
				defer func() {
					cancel()
					<-done
				}()
				for _, h := range hs {
					h.Wait()
				}
				runPingPong(b, lw.events, updates, hs)
			})
		}
		b.Run(fmt.Sprintf("handlers=%d/floor", handlers), func(b *testing.B) {
			hs := make([]*benchkit.LatencyHandler, handlers)
			for i := range hs {
				hs[i] = benchkit.NewLatencyHandler(nil)
			}
			f := newFloor(hs)
			defer f.stop()
			events := make(chan watch.Event, benchWatchChanSize)
			go func() {
				for e := range events {
					f.handle(e)
				}
			}()
			defer close(events)
			runPingPong(b, events, updates, hs)
		})
	}
}

func runPingPong(b *testing.B, events chan<- watch.Event, updates []*metav1.PartialObjectMetadata, hs []*benchkit.LatencyHandler) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for _, h := range hs {
			h.Expect(h.Calls() + 1)
		}
		events <- watch.Event{Type: watch.Modified, Object: updates[i%len(updates)]}
		for _, h := range hs {
			h.Wait()
		}
	}
}

// floor is the simplest informer: one goroutine stores each event in a map
// and sends it on a buffered channel per handler; each handler has one
// goroutine reading its channel.
type floor struct {
	items map[string]any
	chans []chan floorNote
	wg    sync.WaitGroup
}

type floorNote struct {
	kind     watch.EventType
	old, obj any
}

func newFloor(hs []*benchkit.LatencyHandler) *floor {
	f := &floor{items: map[string]any{}}
	for _, h := range hs {
		ch := make(chan floorNote, benchWatchChanSize)
		f.chans = append(f.chans, ch)
		f.wg.Go(func() {
			for n := range ch {
				switch n.kind {
				case watch.Added:
					h.OnAdd(n.obj, false)
				case watch.Modified:
					h.OnUpdate(n.old, n.obj)
				case watch.Deleted:
					h.OnDelete(n.obj)
				}
			}
		})
	}
	return f
}

func (f *floor) handle(e watch.Event) {
	m := e.Object.(*metav1.PartialObjectMetadata)
	key := m.Namespace + "/" + m.Name
	old := f.items[key]
	if e.Type == watch.Deleted {
		delete(f.items, key)
	} else {
		f.items[key] = e.Object
	}
	for _, ch := range f.chans {
		ch <- floorNote{kind: e.Type, old: old, obj: e.Object}
	}
}

func (f *floor) stop() {
	for _, ch := range f.chans {
		close(ch)
	}
	f.wg.Wait()
}

// BenchmarkListenerDistribute measures the processor's fan-out of one
// notification to N listeners whose handlers do nothing, including the
// delivery: it should not allocate.
func BenchmarkListenerDistribute(b *testing.B) {
	obj := pom("a", "1")
	for _, handlers := range []int{1, 16} {
		b.Run(fmt.Sprintf("handlers=%d", handlers), func(b *testing.B) {
			p := newSharedProcessor(realClock)
			hs := make([]*benchkit.LatencyHandler, handlers)
			for i := range hs {
				hs[i] = benchkit.NewLatencyHandler(nil)
				p.addListener(newProcessorListener(discardLogger(), hs[i], 0, 0, realClock, "bench"))
			}
			p.run()
			defer p.stop()
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n++
				p.distribute(notification{kind: updateNotification, oldObj: obj, newObj: obj}, false)
			}
			for _, h := range hs {
				h.Expect(int64(n))
				h.Wait()
			}
		})
	}
}
