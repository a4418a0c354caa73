package compare

import (
	"fmt"
	goruntime "runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
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

// benchClock is the time base of latency measurements.
var benchClock = time.Now()

func benchNow() int64 { return int64(time.Since(benchClock)) }

// latencyHandler counts its calls, signals when it reached a target, and
// records the latency of every update (by the Generation of the new object)
// against sentAt.
type latencyHandler struct {
	calls     atomic.Int64
	target    atomic.Int64
	reached   chan struct{}
	sentAt    []int64 // shared, written by the sender before sending
	latencies []int64 // owned by the handler's goroutine
}

func newLatencyHandler(sentAt []int64) *latencyHandler {
	return &latencyHandler{reached: make(chan struct{}, 1), sentAt: sentAt, latencies: make([]int64, len(sentAt))}
}

// expect arms the handler to signal once its call count reaches n.
func (h *latencyHandler) expect(n int64) {
	h.target.Store(n)
	if h.calls.Load() >= n {
		select {
		case h.reached <- struct{}{}:
		default:
		}
	}
}

func (h *latencyHandler) called() {
	if h.calls.Add(1) == h.target.Load() {
		select {
		case h.reached <- struct{}{}:
		default:
		}
	}
}

func (h *latencyHandler) OnAdd(any, bool) { h.called() }

func (h *latencyHandler) OnUpdate(_, newObj any) {
	if h.sentAt != nil {
		seq := newObj.(*metav1.PartialObjectMetadata).Generation
		h.latencies[seq] = benchNow() - h.sentAt[seq]
	}
	h.called()
}

func (h *latencyHandler) OnDelete(any) { h.called() }

// wait blocks until the handler reached its target. It has no timeout of
// its own, so that waiting does not allocate; go test's -timeout ends a
// stuck benchmark.
func (h *latencyHandler) wait() { <-h.reached }

// usage is the process's CPU time and allocations at one instant.
type usage struct {
	cpu     time.Duration
	mallocs uint64
	bytes   uint64
}

func readUsage() usage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return usage{
		cpu:     time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		mallocs: ms.Mallocs,
		bytes:   ms.TotalAlloc,
	}
}

// report publishes per-unit metrics for the usage since start.
func (start usage) report(b *testing.B, units int, unit string, elapsed time.Duration) {
	end := readUsage()
	n := float64(units)
	b.ReportMetric(float64(elapsed.Nanoseconds())/n, "ns/"+unit)
	b.ReportMetric(float64((end.cpu-start.cpu).Nanoseconds())/n, "cpu-ns/"+unit)
	b.ReportMetric(float64(end.mallocs-start.mallocs)/n, "allocs/"+unit)
	b.ReportMetric(float64(end.bytes-start.bytes)/n, "B/"+unit)
}

// reportLatencies publishes the p50 and p99 of the handlers' latencies.
func reportLatencies(b *testing.B, hs []*latencyHandler) {
	var all []int64
	for _, h := range hs {
		all = append(all, h.latencies...)
	}
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	b.ReportMetric(float64(all[len(all)/2]), "p50-ns")
	b.ReportMetric(float64(all[len(all)*99/100]), "p99-ns")
}

// BenchmarkInitialSync measures the initial sync of 100k listed objects to
// one handler: each iteration builds an informer, runs it until the
// handler's registration has synced and the handler got every object, and
// stops it.
func BenchmarkInitialSync(b *testing.B) {
	src := newSource(objects(syncObjects))
	for _, v := range variants {
		b.Run("lib="+v.name, func(b *testing.B) {
			start, began := readUsage(), time.Now()
			iterations := 0
			for b.Loop() {
				iterations++
				h := newLatencyHandler(nil)
				h.expect(syncObjects)
				ctx, cancel := quietContext()
				r, err := v.start(ctx, src, []eventHandler{h})
				if err != nil {
					cancel()
					b.Fatal(err)
				}
				h.wait()
				r.waitSynced()
				cancel()
				<-r.done
			}
			start.report(b, iterations*syncObjects, "object", time.Since(began))
		})
	}
}

// BenchmarkWatchUpdates measures 200k watch updates over 10k objects
// delivered to 1, 4 and 16 handlers of a synced informer. Each iteration
// sends every update once and waits until every handler got them all.
func BenchmarkWatchUpdates(b *testing.B) {
	objs := objects(watchObjects)
	ups := updates(watchObjects, watchUpdates)
	for _, handlers := range []int{1, 4, 16} {
		for _, v := range variants {
			b.Run(fmt.Sprintf("handlers=%d/lib=%s", handlers, v.name), func(b *testing.B) {
				src := newSource(objs)
				sentAt := make([]int64, len(ups))
				hs := make([]*latencyHandler, handlers)
				ehs := make([]eventHandler, handlers)
				for i := range hs {
					hs[i] = newLatencyHandler(sentAt)
					hs[i].expect(watchObjects)
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
					h.wait()
				}
				r.waitSynced()
				runWatchUpdates(b, src.events, ups, sentAt, hs)
			})
		}
	}
}

// runWatchUpdates sends every update once per iteration and waits until
// every handler got them all.
func runWatchUpdates(b *testing.B, events chan<- watch.Event, ups []*metav1.PartialObjectMetadata, sentAt []int64, hs []*latencyHandler) {
	start, began := readUsage(), time.Now()
	iterations := 0
	for b.Loop() {
		iterations++
		for _, h := range hs {
			h.expect(h.calls.Load() + int64(len(ups)))
		}
		for i, obj := range ups {
			sentAt[i] = benchNow()
			events <- watch.Event{Type: watch.Modified, Object: obj}
		}
		for _, h := range hs {
			h.wait()
		}
	}
	elapsed := time.Since(began)
	total := iterations * len(ups)
	start.report(b, total, "event", elapsed)
	b.ReportMetric(float64(total)/elapsed.Seconds(), "events/s")
	reportLatencies(b, hs)
}

// BenchmarkEventLatency measures the latency of one watch event through an
// idle informer to all its handlers: each iteration sends one update and
// waits until every handler got it, so ns/op is the round trip with no
// backlog (unlike the latencies of BenchmarkWatchUpdates, which include the
// time spent queued behind earlier events).
func BenchmarkEventLatency(b *testing.B) {
	objs := objects(1)
	ups := updates(1, 2)
	for _, handlers := range []int{1, 16} {
		for _, v := range variants {
			b.Run(fmt.Sprintf("handlers=%d/lib=%s", handlers, v.name), func(b *testing.B) {
				src := newSource(objs)
				hs := make([]*latencyHandler, handlers)
				ehs := make([]eventHandler, handlers)
				for i := range hs {
					hs[i] = newLatencyHandler(nil)
					hs[i].expect(1)
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
					h.wait()
				}
				r.waitSynced()
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					for _, h := range hs {
						h.expect(h.calls.Load() + 1)
					}
					src.events <- watch.Event{Type: watch.Modified, Object: ups[i%len(ups)]}
					for _, h := range hs {
						h.wait()
					}
				}
			})
		}
	}
}
