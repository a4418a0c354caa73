package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientgocache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/internal/benchkit"
)

// library is one informer implementation: start builds an informer of
// example's kind on lw with a namespace index, registers h, runs it until
// ctx ends, and returns its HasSynced channel and a channel closed once its
// Run returned (and with it every goroutine of the informer).
type library struct {
	name  string
	start func(ctx context.Context, lw *countingListWatch, example kruntime.Object, h *benchkit.LatencyHandler) (synced, done <-chan struct{}, err error)
}

// libraries are client-go and this library in both pipelines.
var libraries = []library{
	{name: "client-go", start: startClientGo(nil)},
	{name: "informer-go", start: startInformerGo(cache.SharedIndexInformerOptions{}, nil)},
	{name: "informer-go-inorder", start: startInformerGo(cache.SharedIndexInformerOptions{InOrder: true}, nil)},
}

// strippingLibraries are client-go and this library with a transform that
// drops managedFields, what users write by hand to save memory.
var strippingLibraries = []library{
	{name: "client-go-stripmf", start: startClientGo(stripManagedFields)},
	{name: "informer-go-stripmf", start: startInformerGo(cache.SharedIndexInformerOptions{}, stripManagedFields)},
}

// memoryLibraries are this library's memory modes (see cache.MemoryOptions).
var memoryLibraries = []library{
	{name: "informer-go-share", start: startInformerGo(cache.SharedIndexInformerOptions{Memory: &cache.MemoryOptions{Share: true}}, nil)},
	{name: "informer-go-trim-share", start: startInformerGo(cache.SharedIndexInformerOptions{Memory: &cache.MemoryOptions{DropManagedFields: true, Share: true}}, nil)},
	{name: "informer-go-encode", start: startInformerGo(cache.SharedIndexInformerOptions{Memory: &cache.MemoryOptions{Encode: true}}, nil)},
	{name: "informer-go-trim-encode", start: startInformerGo(cache.SharedIndexInformerOptions{Memory: &cache.MemoryOptions{DropManagedFields: true, Encode: true}}, nil)},
}

// stripManagedFields drops the managedFields of every object.
func stripManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

func startClientGo(transform clientgocache.TransformFunc) func(context.Context, *countingListWatch, kruntime.Object, *benchkit.LatencyHandler) (synced, done <-chan struct{}, err error) {
	return func(ctx context.Context, lw *countingListWatch, example kruntime.Object, h *benchkit.LatencyHandler) (synced, done <-chan struct{}, err error) {
		inf := clientgocache.NewSharedIndexInformerWithOptions(lw.forLibrary(), example, clientgocache.SharedIndexInformerOptions{
			Indexers: clientgocache.Indexers{clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc},
		})
		if transform != nil {
			if err := inf.SetTransform(transform); err != nil {
				return nil, nil, err
			}
		}
		if _, err := inf.AddEventHandler(h); err != nil {
			return nil, nil, err
		}
		return inf.HasSyncedChecker().Done(), runUntilDone(ctx, inf.RunWithContext), nil
	}
}

func startInformerGo(opts cache.SharedIndexInformerOptions, transform cache.TransformFunc) func(context.Context, *countingListWatch, kruntime.Object, *benchkit.LatencyHandler) (synced, done <-chan struct{}, err error) {
	return func(ctx context.Context, lw *countingListWatch, example kruntime.Object, h *benchkit.LatencyHandler) (synced, done <-chan struct{}, err error) {
		opts.Indexers = cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
		inf := cache.NewSharedIndexInformerWithOptions(lw.forLibrary(), example, opts)
		if transform != nil {
			if err := inf.SetTransform(transform); err != nil {
				return nil, nil, err
			}
		}
		if _, err := inf.AddEventHandler(h); err != nil {
			return nil, nil, err
		}
		return inf.HasSyncedChecker().Done(), runUntilDone(ctx, inf.RunWithContext), nil
	}
}

// runUntilDone runs run(ctx) in a goroutine and returns a channel closed
// once it returned.
func runUntilDone(ctx context.Context, run func(context.Context)) <-chan struct{} {
	done := make(chan struct{})
	go func() { // exits on ctx.Done(); the caller waits on done
		defer close(done)
		run(ctx)
	}()
	return done
}

// syncWith starts an informer of lib of example's kind on lw, with a
// handler that expects n objects, and waits until the informer's HasSynced
// and until the handler has every object. It returns the times from the
// start until each, and stop, which stops the informer and waits until its
// Run returned and its watches ended: until then the informer holds its
// objects.
func syncWith(lib library, lw *countingListWatch, example kruntime.Object, n int) (synced, handled time.Duration, stop func(), err error) {
	h := benchkit.NewLatencyHandler(nil, 0)
	h.Expect(int64(n))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Logger{}))
	began := time.Now()
	syncedCh, done, err := lib.start(ctx, lw, example, h)
	if err != nil {
		cancel()
		return 0, 0, nil, err
	}
	stop = func() {
		cancel()
		<-done
		lw.waitWatchesEnded()
	}
	synced, handled, ok := benchkit.TimeBoth(began, syncedCh, h.Reached(), time.After(syncTimeout))
	if !ok {
		stop()
		return 0, 0, nil, fmt.Errorf("not synced after %v: handler at %d of %d objects", syncTimeout, h.Calls(), n)
	}
	return synced, handled, stop, nil
}

// newCountingListWatch returns a countingListWatch of listFunc and
// watchFunc, the methods of a typed client; listOnly makes both libraries
// use plain lists.
func newCountingListWatch[L kruntime.Object](listFunc func(context.Context, metav1.ListOptions) (L, error), watchFunc func(context.Context, metav1.ListOptions) (watch.Interface, error), listOnly bool) *countingListWatch {
	return &countingListWatch{
		list: func(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
			return listFunc(ctx, opts)
		},
		watch:    watchFunc,
		listOnly: listOnly,
	}
}

// countingListWatch lists and watches with list and watch and counts the
// lists and streaming lists asked for. Its methods fit the
// ListerWatcherWithContext of both libraries.
type countingListWatch struct {
	list  func(context.Context, metav1.ListOptions) (kruntime.Object, error)
	watch func(context.Context, metav1.ListOptions) (watch.Interface, error)
	// listOnly makes both libraries use plain lists instead of streaming
	// lists (see forLibrary).
	listOnly bool

	lists, streams atomic.Int64
	watches        sync.WaitGroup // open watches
}

func (lw *countingListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
	lw.lists.Add(1)
	return lw.list(ctx, opts)
}

func (lw *countingListWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		lw.streams.Add(1)
	}
	w, err := lw.watch(ctx, opts)
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

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[len(s)/2]
}

// metric is one quantity a run measured.
type metric struct {
	name, unit string
	value      float64
}

// measureRounds runs run once per library of libs in every iteration of
// b.Loop, in an order that rotates between iterations, after one
// unmeasured run of each library that warms up the server and the
// connection. It reports, for every metric run returns, each library's
// median over the iterations and its ratio to the first library's (see
// medians.report).
func measureRounds(b *testing.B, libs []library, run func(lib library) ([]metric, error)) {
	b.Helper()
	for _, lib := range libs {
		if _, err := run(lib); err != nil {
			b.Fatalf("%s: warm-up: %v", lib.name, err)
		}
	}
	var m medians
	round := 0
	for b.Loop() {
		for k := range libs {
			lib := libs[(k+round)%len(libs)]
			ms, err := run(lib)
			if err != nil {
				b.Fatalf("%s: %v", lib.name, err)
			}
			m.add(lib.name, ms)
		}
		round++
	}
	names := make([]string, len(libs))
	for i, lib := range libs {
		names[i] = lib.name
	}
	m.report(b, names)
}

// medians collects the metrics of every library over the rounds of a
// benchmark.
type medians struct {
	names  []metric                        // the metrics, in the order first added; value unused
	values map[string]map[string][]float64 // library → metric name → values
}

// add records the metrics ms of one round of library lib.
func (m *medians) add(lib string, ms []metric) {
	if m.values == nil {
		m.values = map[string]map[string][]float64{}
	}
	if m.values[lib] == nil {
		m.values[lib] = map[string][]float64{}
	}
	for _, v := range ms {
		if !slices.ContainsFunc(m.names, func(n metric) bool { return n.name == v.name }) {
			m.names = append(m.names, v)
		}
		m.values[lib][v.name] = append(m.values[lib][v.name], v.value)
	}
}

// report reports, for every metric, each library's median as
// <library>-<name>-<unit>, and its ratio to the first library's as
// <library>-<name>-ratio (unless the first library's median is 0). Call
// it after b.Loop, which drops the metrics reported before it.
func (m *medians) report(b *testing.B, libs []string) {
	base := libs[0]
	for _, lib := range libs {
		for _, n := range m.names {
			med := median(m.values[lib][n.name])
			b.ReportMetric(med, lib+"-"+n.name+"-"+n.unit)
			if baseMed := median(m.values[base][n.name]); lib != base && baseMed != 0 {
				b.ReportMetric(med/baseMed, lib+"-"+n.name+"-ratio")
			}
		}
	}
}
