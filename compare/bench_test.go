package compare

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/internal/benchkit"
)

// The benchmarks follow the method of the informer benchmarks in the cache
// package (cache/shared_informer_bench_test.go), with the same inputs and
// metric names, so that their numbers line up:
//
//   - BenchmarkInitialSync: 100k listed objects to one handler, from Run
//     until the handler's registration has synced;
//   - BenchmarkWatchUpdates: 200k watch updates over 10k objects to 1, 4 and
//     16 handlers of a synced informer, until every handler got them all.
//
// Metrics, besides the standard ones:
//   - ns/object, allocs/object, B/object, cpu-ns/object: initial sync, per
//     listed object;
//   - events/s: watch events fully delivered (to every handler) per second;
//   - p50-ns, p99-ns: latency from the watch send to the handler call;
//   - ns/event, cpu-ns/event, allocs/event, B/event: per watch event.
//
// CPU time is the process's user+system time (getrusage), so it includes
// every goroutine; allocations are the process's, from runtime.MemStats.

const (
	syncObjects  = 100_000
	watchObjects = 10_000
	watchUpdates = 200_000
)

// BenchmarkInitialSync measures the initial sync of 100k listed objects to
// one handler: each iteration builds an informer, runs it until the
// handler's registration has synced and the handler got every object, and
// stops it.
func BenchmarkInitialSync(b *testing.B) {
	src := newSource(benchkit.Objects(syncObjects))
	for _, v := range variants {
		b.Run("lib="+v.name, func(b *testing.B) {
			start, began := benchkit.ReadUsage(), time.Now()
			iterations := 0
			for b.Loop() {
				iterations++
				h := benchkit.NewLatencyHandler(nil)
				h.Expect(syncObjects)
				ctx, cancel := quietContext()
				r, err := v.start(ctx, src, []eventHandler{h})
				if err != nil {
					cancel()
					b.Fatal(err)
				}
				h.Wait()
				r.waitSynced()
				cancel()
				<-r.done
			}
			start.Report(b, iterations*syncObjects, "object", time.Since(began))
		})
	}
}

// BenchmarkWatchUpdates measures 200k watch updates over 10k objects
// delivered to 1, 4 and 16 handlers of a synced informer. Each iteration
// sends every update once and waits until every handler got them all.
func BenchmarkWatchUpdates(b *testing.B) {
	objs := benchkit.Objects(watchObjects)
	ups := benchkit.Updates(watchObjects, watchUpdates)
	for _, handlers := range []int{1, 4, 16} {
		for _, v := range variants {
			b.Run(fmt.Sprintf("handlers=%d/lib=%s", handlers, v.name), func(b *testing.B) {
				src := newSource(objs)
				sentAt := make([]int64, len(ups))
				hs := make([]*benchkit.LatencyHandler, handlers)
				ehs := make([]eventHandler, handlers)
				for i := range hs {
					hs[i] = benchkit.NewLatencyHandler(sentAt)
					hs[i].Expect(watchObjects)
					ehs[i] = hs[i]
				}
				ctx, cancel := quietContext()
				r, err := v.start(ctx, src, ehs)
				if err != nil {
					cancel()
					b.Fatal(err)
				}
				defer func() {
					cancel()
					<-r.done
				}()
				for _, h := range hs {
					h.Wait()
				}
				r.waitSynced()
				runWatchUpdates(b, src.events, ups, sentAt, hs)
			})
		}
	}
}

// runWatchUpdates sends every update once per iteration and waits until
// every handler got them all.
func runWatchUpdates(b *testing.B, events chan<- watch.Event, ups []*metav1.PartialObjectMetadata, sentAt []int64, hs []*benchkit.LatencyHandler) {
	start, began := benchkit.ReadUsage(), time.Now()
	iterations := 0
	for b.Loop() {
		iterations++
		for _, h := range hs {
			h.Expect(h.Calls() + int64(len(ups)))
		}
		for i, obj := range ups {
			sentAt[i] = benchkit.Now()
			events <- watch.Event{Type: watch.Modified, Object: obj}
		}
		for _, h := range hs {
			h.Wait()
		}
	}
	elapsed := time.Since(began)
	total := iterations * len(ups)
	start.Report(b, total, "event", elapsed)
	b.ReportMetric(float64(total)/elapsed.Seconds(), "events/s")
	benchkit.ReportLatencies(b, hs)
}

// BenchmarkEventLatency measures the latency of one watch event through an
// idle informer to all its handlers: each iteration sends one update and
// waits until every handler got it, so ns/op is the round trip with no
// backlog (unlike the latencies of BenchmarkWatchUpdates, which include the
// time spent queued behind earlier events).
func BenchmarkEventLatency(b *testing.B) {
	objs := benchkit.Objects(1)
	ups := benchkit.Updates(1, 2)
	for _, handlers := range []int{1, 16} {
		for _, v := range variants {
			b.Run(fmt.Sprintf("handlers=%d/lib=%s", handlers, v.name), func(b *testing.B) {
				src := newSource(objs)
				hs := make([]*benchkit.LatencyHandler, handlers)
				ehs := make([]eventHandler, handlers)
				for i := range hs {
					hs[i] = benchkit.NewLatencyHandler(nil)
					hs[i].Expect(1)
					ehs[i] = hs[i]
				}
				ctx, cancel := quietContext()
				r, err := v.start(ctx, src, ehs)
				if err != nil {
					cancel()
					b.Fatal(err)
				}
				defer func() {
					cancel()
					<-r.done
				}()
				for _, h := range hs {
					h.Wait()
				}
				r.waitSynced()
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					for _, h := range hs {
						h.Expect(h.Calls() + 1)
					}
					src.events <- watch.Event{Type: watch.Modified, Object: ups[i%len(ups)]}
					for _, h := range hs {
						h.Wait()
					}
				}
			})
		}
	}
}
