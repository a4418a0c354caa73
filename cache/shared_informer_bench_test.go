package cache

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/internal/benchkit"
)

// The informer benchmarks feed an informer from a benchkit.Source, a
// ListerWatcher that serves a prebuilt list and a watch channel the
// benchmark writes to, so that nothing but the informer is measured. They run with both kinds of
// benchkit: realistic objects (kind=realistic) and tiny ones
// (kind=metadata); every informer has a namespace index. Each has a floor:
// the same work done by the simplest possible program (a map and one
// channel per handler), which bounds what any informer can achieve on this
// machine.
//
// Metrics, besides the standard ones:
//   - ns/object, cpu-ns/object, allocs/object, B/object: initial sync, per
//     listed object;
//   - events/s: watch events fully delivered (to every handler) per second;
//   - ns/event, cpu-ns/event, allocs/event, B/event: per watch event.
//
// CPU time is the process's user+system time (getrusage), so it includes
// every goroutine; allocations are the process's, from runtime.MemStats.
// The compare module runs the same workloads side by side with client-go.

const (
	benchSyncObjects  = 100_000
	benchWatchObjects = 10_000
	benchWatchUpdates = 200_000
)

// quietContext is a context whose logger discards everything, so that
// logging does not show up in the measurements.
func quietContext() (context.Context, context.CancelFunc) {
	return context.WithCancel(klog.NewContext(context.Background(), klog.LoggerWithName(discardLogger(), "bench")))
}

func discardLogger() klog.Logger { return klog.Logger{} }

// benchInformer returns an informer of kind's objects with a namespace
// index, as every informer of the benchmarks has.
func benchInformer(lw ListerWatcher, kind benchkit.Kind, inOrder bool) *sharedIndexInformer {
	return newSharedIndexInformer(lw, kind.Example(), SharedIndexInformerOptions{
		InOrder:  inOrder,
		Indexers: Indexers{NamespaceIndex: MetaNamespaceIndexFunc},
	}, realClock)
}

// runBenchInformer runs inf until the returned stop is called; stop waits
// for Run to return.
func runBenchInformer(inf *sharedIndexInformer) (stop func()) {
	ctx, cancel := quietContext()
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) }) // exits on ctx.Done(); stop waits on wg
	return func() {
		cancel()
		wg.Wait()
	}
}

// BenchmarkSharedInformerInitialSync measures the initial sync of 100k listed
// objects to one handler: from Run until the handler's registration has
// synced (every object stored and handed to the handler).
func BenchmarkSharedInformerInitialSync(b *testing.B) {
	for _, kind := range benchkit.Kinds {
		lw := benchkit.NewSource(kind.List(benchSyncObjects))
		for _, mode := range queueModes {
			b.Run("kind="+kind.Name+"/"+mode.name, func(b *testing.B) {
				start, began := benchkit.ReadUsage(), time.Now()
				iterations := 0
				for b.Loop() {
					iterations++
					inf := benchInformer(lw, kind, mode.inOrder)
					h := benchkit.NewLatencyHandler(nil, 0)
					h.Expect(benchSyncObjects)
					reg, err := inf.AddEventHandler(h)
					if err != nil {
						b.Fatal(err)
					}
					stop := runBenchInformer(inf)
					h.Wait()
					<-reg.HasSyncedChecker().Done()
					stop()
				}
				start.Report(b, iterations*benchSyncObjects, "object", time.Since(began))
			})
		}
		b.Run("kind="+kind.Name+"/floor", func(b *testing.B) {
			start, began := benchkit.ReadUsage(), time.Now()
			iterations := 0
			for b.Loop() {
				iterations++
				h := benchkit.NewLatencyHandler(nil, 0)
				h.Expect(benchSyncObjects)
				f := newFloor([]*benchkit.LatencyHandler{h})
				list, _ := lw.List(metav1.ListOptions{})
				items, err := meta.ExtractListWithAlloc(list) // copies, as the reflector does
				if err != nil {
					b.Fatal(err)
				}
				for _, item := range items {
					f.handle(watch.Event{Type: watch.Added, Object: item})
				}
				h.Wait()
				f.stop()
			}
			start.Report(b, iterations*benchSyncObjects, "object", time.Since(began))
		})
	}
}

// BenchmarkSharedInformerWatchUpdates measures 200k watch updates over 10k
// objects delivered to 1, 4 and 16 handlers, on a synced informer.
func BenchmarkSharedInformerWatchUpdates(b *testing.B) {
	for _, kind := range benchkit.Kinds {
		list := kind.List(benchWatchObjects)
		updates := kind.Updates(benchWatchObjects, 2*benchWatchObjects)
		for _, handlers := range []int{1, 4, 16} {
			for _, mode := range queueModes {
				b.Run(fmt.Sprintf("kind=%s/handlers=%d/%s", kind.Name, handlers, mode.name), func(b *testing.B) {
					lw := benchkit.NewSource(list)
					hs := make([]*benchkit.LatencyHandler, handlers)
					inf := benchInformer(lw, kind, mode.inOrder)
					for i := range hs {
						hs[i] = benchkit.NewLatencyHandler(nil, 0)
						hs[i].Expect(benchWatchObjects)
						if _, err := inf.AddEventHandler(hs[i]); err != nil {
							b.Fatal(err)
						}
					}
					defer runBenchInformer(inf)()
					for _, h := range hs {
						h.Wait()
					}
					runWatchUpdates(b, &benchkit.Sender{Events: lw.Events, Updates: updates}, hs)
				})
			}
			b.Run(fmt.Sprintf("kind=%s/handlers=%d/floor", kind.Name, handlers), func(b *testing.B) {
				hs := make([]*benchkit.LatencyHandler, handlers)
				for i := range hs {
					hs[i] = benchkit.NewLatencyHandler(nil, 0)
				}
				events, stop := runFloor(hs)
				defer stop()
				for _, obj := range kind.Items(list) {
					events <- watch.Event{Type: watch.Added, Object: obj}
				}
				for _, h := range hs {
					h.Expect(benchWatchObjects)
					h.Wait()
				}
				runWatchUpdates(b, &benchkit.Sender{Events: events, Updates: updates}, hs)
			})
		}
	}
}

// runWatchUpdates sends benchWatchUpdates updates per iteration and waits
// until every handler got them all.
func runWatchUpdates(b *testing.B, s *benchkit.Sender, hs []*benchkit.LatencyHandler) {
	start, began := benchkit.ReadUsage(), time.Now()
	iterations := 0
	for b.Loop() {
		iterations++
		for _, h := range hs {
			h.Expect(h.Calls() + benchWatchUpdates) // every earlier event was delivered
		}
		s.Send(b.Context(), benchWatchUpdates)
		for _, h := range hs {
			h.Wait()
		}
	}
	elapsed := time.Since(began)
	total := iterations * benchWatchUpdates
	start.Report(b, total, "event", elapsed)
	b.ReportMetric(float64(total)/elapsed.Seconds(), "events/s")
}

// BenchmarkSharedInformerEventLatency measures the latency of one watch event
// through an idle informer to all its handlers: each iteration sends one
// update and waits until every handler got it.
func BenchmarkSharedInformerEventLatency(b *testing.B) {
	for _, kind := range benchkit.Kinds {
		list := kind.List(1)
		updates := kind.Updates(1, 2)
		for _, handlers := range []int{1, 16} {
			for _, mode := range queueModes {
				b.Run(fmt.Sprintf("kind=%s/handlers=%d/%s", kind.Name, handlers, mode.name), func(b *testing.B) {
					lw := benchkit.NewSource(list)
					inf := benchInformer(lw, kind, mode.inOrder)
					hs := make([]*benchkit.LatencyHandler, handlers)
					for i := range hs {
						hs[i] = benchkit.NewLatencyHandler(nil, 0)
						hs[i].Expect(1)
						if _, err := inf.AddEventHandler(hs[i]); err != nil {
							b.Fatal(err)
						}
					}
					defer runBenchInformer(inf)()
					for _, h := range hs {
						h.Wait()
					}
					runPingPong(b, lw.Events, updates, hs)
				})
			}
			b.Run(fmt.Sprintf("kind=%s/handlers=%d/floor", kind.Name, handlers), func(b *testing.B) {
				hs := make([]*benchkit.LatencyHandler, handlers)
				for i := range hs {
					hs[i] = benchkit.NewLatencyHandler(nil, 0)
				}
				events, stop := runFloor(hs)
				defer stop()
				runPingPong(b, events, updates, hs)
			})
		}
	}
}

func runPingPong(b *testing.B, events chan<- watch.Event, updates []runtime.Object, hs []*benchkit.LatencyHandler) {
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
		ch := make(chan floorNote, benchkit.WatchChanSize)
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
	m := e.Object.(metav1.Object)
	key := m.GetNamespace() + "/" + m.GetName()
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

// runFloor runs a floor for hs that handles the events sent on the returned
// channel, until stop is called; stop waits until every handler got every
// event sent before it.
func runFloor(hs []*benchkit.LatencyHandler) (events chan<- watch.Event, stop func()) {
	f := newFloor(hs)
	ch := make(chan watch.Event, benchkit.WatchChanSize)
	var wg sync.WaitGroup
	wg.Go(func() { // exits when ch is closed; stop waits on wg
		for e := range ch {
			f.handle(e)
		}
	})
	return ch, func() {
		close(ch)
		wg.Wait()
		f.stop()
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
	obj := benchkit.NewObject(0, 1)
	for _, handlers := range []int{1, 16} {
		b.Run(fmt.Sprintf("handlers=%d", handlers), func(b *testing.B) {
			p := newSharedProcessor(realClock)
			hs := make([]*benchkit.LatencyHandler, handlers)
			for i := range hs {
				hs[i] = benchkit.NewLatencyHandler(nil, 0)
				p.addListener(newProcessorListener(discardLogger(), hs[i], realClock, "bench"), resyncSchedule{})
			}
			p.run()
			defer p.stop()
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n++
				p.distribute(notification{kind: updateNotification, oldObj: obj, newObj: obj})
			}
			for _, h := range hs {
				h.Expect(int64(n))
				h.Wait()
			}
		})
	}
}
