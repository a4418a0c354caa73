package cache

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	framework "github.com/informer-go/informer/cache/testing"
)

// The soak test's flags; make soak sets them. Without -soak.duration the
// test is skipped, so that make test does not run it.
var (
	soakDuration = flag.Duration("soak.duration", 0, "TestSoak: how long to run; 0 skips the test (make soak runs it)")
	soakObjects  = flag.Int("soak.objects", 100_000, "TestSoak: the number of objects")
	soakRate     = flag.Int("soak.rate", 500, "TestSoak: writes per second")
	soakInOrder  = flag.Bool("soak.inorder", false, "TestSoak: run the InOrder pipeline instead of the DeltaFIFO one")
	soakMemory   = flag.String("soak.memory", "none", "TestSoak: the memory mode, by its name in chaosMemoryModes (none, trim, keep, share, trim+keep+share, encode, trim+encode)")
	soakOut      = flag.String("soak.out", "", "TestSoak: the directory to write heap.csv and heap.pprof to (default: a temporary one)")
)

const (
	// soakHandlers is the number of handlers of the soaked informer.
	soakHandlers = 16
	// soakFaultEvery is the period of the faults; soakSampleEvery that of
	// the heap and goroutine samples.
	soakFaultEvery  = 30 * time.Second
	soakSampleEvery = 15 * time.Second
	// A heap whose median over the last third of the samples after
	// warm-up exceeds that over the first third by more than
	// soakHeapGrowth plus soakHeapSlack is growing; so are goroutines
	// whose median rises by more than soakGoroutineSlack.
	soakHeapGrowth     = 0.10
	soakHeapSlack      = 16 << 20
	soakGoroutineSlack = 10
)

// soakFaults are the faults of a soak, one every soakFaultEvery, in this
// order, round and round: every kind of the chaos test's server faults,
// each undone by a later one where it lasts (frozen streams, list latency,
// lost events), and a stalling and a panicking handler.
var soakFaults = []chaosStep{
	{kind: stepCloseWatches},
	{kind: stepFailOpenStreams, errIndex: 3}, // 410 on the open watch: a relist
	{kind: stepListErrors, n: 2, errIndex: 0},
	{kind: stepCompact},
	{kind: stepCloseWatches}, // resumes from a compacted version: a relist
	{kind: stepDropEvents, n: 5},
	{kind: stepForceRelist},
	{kind: stepFreeze},
	{kind: stepThaw},
	{kind: stepSlowWatcher},
	{kind: stepHandlerStall, d: 5 * time.Second, actor: 3},
	{kind: stepHandlerPanic, n: 1, actor: 7},
	{kind: stepWatchStreamError, n: 1, errIndex: 1},
	{kind: stepWatchErrors, n: 1, errIndex: 5},
	{kind: stepListLatency, d: 2 * time.Second},
	{kind: stepExpireContinues, n: 1},
	{kind: stepListLatency},
}

// soakSample is one point of the heap curve.
type soakSample struct {
	at time.Duration
	// heap is the live heap after a collection; inuse the bytes of heap
	// spans in use; sys what the runtime got from the OS.
	heap, inuse, sys uint64
	goroutines       int
	objects          int
	notifications    int
}

// TestSoak runs a shared informer with 16 handlers over 100k objects for
// -soak.duration of real time: sustained writes (-soak.rate per second) and
// a fault every 30 seconds (soakFaults), then checks that the heap and the
// number of goroutines stayed flat after warm-up (the first fifth of the
// run), and that once the faults cleared every handler converged on the
// server, with the chaos test's checks of every notification. It writes
// the heap curve (heap.csv) and a heap profile taken at the end of the
// traffic (heap.pprof) to -soak.out. make soak runs it; make test does not.
func TestSoak(t *testing.T) {
	if *soakDuration <= 0 {
		t.Skip("the soak test runs only with -soak.duration (make soak)")
	}
	out := *soakOut
	if out == "" {
		out = t.TempDir()
	}
	installChaosPanicHandler(t)
	memory := slices.IndexFunc(chaosMemoryModes, func(m chaosMemoryMode) bool { return m.name == *soakMemory })
	if memory < 0 {
		t.Fatalf("-soak.memory=%q: no such memory mode", *soakMemory)
	}
	cfg := chaosConfig{
		seed: 1, inOrder: *soakInOrder, realTime: true, memory: chaosMemoryModes[memory],
		server: framework.Options[*metav1.PartialObjectMetadata]{
			WatchBufferSize: 1000, HistoryLimit: 10_000, BookmarkInterval: time.Minute,
		},
		resync: 5 * time.Minute,
		// Every name exists at the start, so that the handlers' own
		// bookkeeping holds every key from the initial list on; the
		// writer's deletes and creations then settle at about nine names
		// in ten, -soak.objects.
		pool: *soakObjects * 10 / 9, initial: *soakObjects * 10 / 9,
		handlers: soakHandlers,
	}
	r := newChaosRunOn(t, cfg, soakFaults, realClock, 0)
	start := time.Now()
	r.setUp()
	t.Logf("soak: %d objects created and %d handlers started in %v", cfg.initial, cfg.handlers, time.Since(start).Round(time.Millisecond))

	samples := r.soak(*soakDuration)
	profile := filepath.Join(out, "heap.pprof")
	if err := writeHeapProfile(profile); err != nil {
		t.Error(err)
	}
	r.heal()
	r.converge()
	r.stop()
	r.srv.Close()
	for _, f := range r.failures() {
		t.Error(f)
	}

	curve := filepath.Join(out, "heap.csv")
	if err := writeSoakCurve(curve, samples); err != nil {
		t.Error(err)
	}
	t.Logf("soak: %d writes, %d notifications checked; heap curve in %s, heap profile in %s",
		sumValues(r.stats.writes), r.stats.notifications, curve, profile)
	checkSoakFlat(t, samples, *soakDuration/5)
}

// soak writes at the configured rate for d, with a fault every
// soakFaultEvery, and returns a sample every soakSampleEvery.
func (r *chaosRun) soak(d time.Duration) []soakSample {
	const tick = 10 * time.Millisecond
	perTick := max(*soakRate*int(tick)/int(time.Second), 1)
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	start := time.Now()
	nextFault, nextSample := start.Add(soakFaultEvery), start
	var samples []soakSample
	for fault := 0; ; {
		now := <-ticker.C
		if now.Sub(start) >= d {
			break
		}
		r.write(perTick)
		if !now.Before(nextFault) {
			s := r.steps[fault%len(r.steps)]
			fault++
			r.logger.Info("Soak fault", "what", s.String())
			r.apply(s)
			nextFault = time.Now().Add(soakFaultEvery)
		}
		if !now.Before(nextSample) {
			s := r.sample(now.Sub(start))
			samples = append(samples, s)
			r.t.Logf("soak: t=%v heap=%.1fMiB inuse=%.1fMiB sys=%.1fMiB goroutines=%d objects=%d notifications=%d",
				s.at.Round(time.Second), mib(s.heap), mib(s.inuse), mib(s.sys), s.goroutines, s.objects, s.notifications)
			r.srv.ResetRequests()
			nextSample = time.Now().Add(soakSampleEvery)
		}
	}
	return samples
}

// sample collects garbage and measures the heap, the goroutines, the
// store and the notifications so far.
func (r *chaosRun) sample(at time.Duration) soakSample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := soakSample{at: at, heap: ms.HeapAlloc, inuse: ms.HeapInuse, sys: ms.Sys, goroutines: runtime.NumGoroutine(), objects: len(r.store.ListKeys())}
	r.mu.Lock()
	handlers := slices.Clone(r.handlers)
	r.mu.Unlock()
	for _, h := range handlers {
		s.notifications += h.results().calls
	}
	return s
}

// checkSoakFlat compares the samples of the first and the last third after
// warm-up.
func checkSoakFlat(t *testing.T, samples []soakSample, warmUp time.Duration) {
	t.Helper()
	i := slices.IndexFunc(samples, func(s soakSample) bool { return s.at >= warmUp })
	if i < 0 || len(samples)-i < 6 {
		t.Logf("soak: too short to judge the heap after a %v warm-up", warmUp)
		return
	}
	after := samples[i:]
	third := len(after) / 3
	first, last := after[:third], after[len(after)-third:]
	heap := func(s soakSample) float64 { return float64(s.heap) }
	goroutines := func(s soakSample) float64 { return float64(s.goroutines) }
	h0, h1 := median(first, heap), median(last, heap)
	g0, g1 := median(first, goroutines), median(last, goroutines)
	t.Logf("soak: after a %v warm-up, median live heap %.1fMiB over the first third, %.1fMiB over the last (%+.1f%%); median goroutines %.0f, then %.0f",
		warmUp, h0/(1<<20), h1/(1<<20), 100*(h1-h0)/h0, g0, g1)
	if h1 > h0*(1+soakHeapGrowth)+soakHeapSlack {
		t.Errorf("the live heap grew after warm-up: median %.1fMiB, then %.1fMiB", h0/(1<<20), h1/(1<<20))
	}
	if g1 > g0+soakGoroutineSlack {
		t.Errorf("goroutines grew after warm-up: median %.0f, then %.0f", g0, g1)
	}
}

func median(samples []soakSample, value func(soakSample) float64) float64 {
	values := make([]float64, len(samples))
	for i, s := range samples {
		values[i] = value(s)
	}
	slices.Sort(values)
	return values[len(values)/2]
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// writeSoakCurve writes the samples as CSV.
func writeSoakCurve(path string, samples []soakSample) error {
	var b strings.Builder
	b.WriteString("seconds,heap_mib,heap_inuse_mib,sys_mib,goroutines,objects,notifications\n")
	for _, s := range samples {
		fmt.Fprintf(&b, "%.0f,%.1f,%.1f,%.1f,%d,%d,%d\n", s.at.Seconds(), mib(s.heap), mib(s.inuse), mib(s.sys), s.goroutines, s.objects, s.notifications)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeHeapProfile writes a heap profile after a collection.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("write heap profile: %w", err)
	}
	return f.Close()
}
