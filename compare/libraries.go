package compare

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgocache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	informer "github.com/informer-go/informer/cache"
)

// eventHandler is the method set of both libraries' ResourceEventHandler.
type eventHandler interface {
	OnAdd(obj any, isInInitialList bool)
	OnUpdate(oldObj, newObj any)
	OnDelete(obj any)
}

// reader is the read side of both libraries' Indexer.
type reader interface {
	Get(obj any) (item any, exists bool, err error)
	GetByKey(key string) (item any, exists bool, err error)
	List() []any
	ByIndex(indexName, indexedValue string) ([]any, error)
}

// startOptions are what a workload asks of the informer it starts.
type startOptions struct {
	// handlers are registered, in order, before the informer runs.
	handlers []eventHandler
	// resyncPeriod is the informer's resync period, and so that of every
	// handler; zero disables resyncs.
	resyncPeriod time.Duration
}

// running is an informer started by a Library.
type running struct {
	// synced is closed once the informer's HasSynced is true: its store
	// holds the initial list.
	synced <-chan struct{}
	// handlersSynced holds one channel per handler, closed once the
	// handler's registration has synced.
	handlersSynced []<-chan struct{}
	// indexer is the informer's store.
	indexer reader
	// stop stops the informer and waits until its Run returned.
	stop func()
}

// Library is one informer implementation under comparison.
type Library struct {
	// Name is how the table and the -libs flag name it.
	Name string
	// Variant marks a library that changes what the informer keeps (a
	// transform, a memory mode): it runs only the workloads of the kinds
	// of k8s.io/api, where what it keeps shows; with SyncOnly, only their
	// initial syncs (its reads are those of the library it varies).
	Variant, SyncOnly bool
	// start builds a SharedIndexInformer of example's kind on lw, with a
	// namespace index, registers the handlers and runs it in a goroutine.
	start func(lw listerWatcher, example runtime.Object, opts startOptions) (*running, error)
}

// runs reports whether the library runs workload w.
func (lib Library) runs(w Workload) bool {
	if !lib.Variant {
		return true
	}
	return w.api && (w.Section == sectionSync || !lib.SyncOnly)
}

// Libraries are the informers under comparison: client-go v0.37.2 with its
// default feature gates (RealFIFO in atomic mode), informer-go with its
// default DeltaFIFO pipeline, and informer-go with InOrder set (its RealFIFO
// pipeline); then, on the initial syncs of the kinds of k8s.io/api only,
// client-go and informer-go with a transform that drops managedFields, what
// users write by hand to save memory; and, on the kinds of k8s.io/api
// (syncs and reads), informer-go's memory modes Share and Encode, each
// alone and with Trim (DropManagedFields). Ratios are against the first.
//
// A memory mode of informer-go is one more variant:
// {Name: "informer-go-<mode>", Variant: true, start: startInformerGo(options, nil)}.
var Libraries = []Library{
	{Name: "client-go", start: startClientGo(nil)},
	{Name: "informer-go", start: startInformerGo(informer.SharedIndexInformerOptions{}, nil)},
	{Name: "informer-go-inorder", start: startInformerGo(informer.SharedIndexInformerOptions{InOrder: true}, nil)},
	{Name: "client-go-stripmf", Variant: true, SyncOnly: true, start: startClientGo(stripManagedFields)},
	{Name: "informer-go-stripmf", Variant: true, SyncOnly: true, start: startInformerGo(informer.SharedIndexInformerOptions{}, stripManagedFields)},
	{Name: "informer-go-share", Variant: true, start: startInformerGo(informer.SharedIndexInformerOptions{Memory: &informer.MemoryOptions{Share: true}}, nil)},
	{Name: "informer-go-trim-share", Variant: true, start: startInformerGo(informer.SharedIndexInformerOptions{Memory: &informer.MemoryOptions{DropManagedFields: true, Share: true}}, nil)},
	{Name: "informer-go-encode", Variant: true, start: startInformerGo(informer.SharedIndexInformerOptions{Memory: &informer.MemoryOptions{Encode: true}}, nil)},
	{Name: "informer-go-trim-encode", Variant: true, start: startInformerGo(informer.SharedIndexInformerOptions{Memory: &informer.MemoryOptions{DropManagedFields: true, Encode: true}}, nil)},
}

// stripManagedFields is the transform users write to keep informers from
// caching managedFields: it drops them from every object.
func stripManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// runInformer runs run in a goroutine with a quiet context and returns the
// function that stops it.
func runInformer(run func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Logger{}))
	var wg sync.WaitGroup
	wg.Go(func() { run(ctx) }) // exits on ctx.Done(); stop waits on wg
	return func() {
		cancel()
		wg.Wait()
	}
}

// startInformerGo returns the start function of informer-go with options
// (start sets their ResyncPeriod and Indexers) and, when not nil,
// transform.
func startInformerGo(options informer.SharedIndexInformerOptions, transform informer.TransformFunc) func(listerWatcher, runtime.Object, startOptions) (*running, error) {
	return func(lw listerWatcher, example runtime.Object, opts startOptions) (*running, error) {
		options.ResyncPeriod = opts.resyncPeriod
		options.Indexers = informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc}
		inf := informer.NewSharedIndexInformerWithOptions(lw, example, options)
		if transform != nil {
			if err := inf.SetTransform(transform); err != nil {
				return nil, fmt.Errorf("informer-go: set the transform: %w", err)
			}
		}
		r := &running{synced: inf.HasSyncedChecker().Done(), indexer: inf.GetIndexer()}
		for _, h := range opts.handlers {
			reg, err := inf.AddEventHandler(h)
			if err != nil {
				return nil, fmt.Errorf("informer-go: add a handler: %w", err)
			}
			r.handlersSynced = append(r.handlersSynced, reg.HasSyncedChecker().Done())
		}
		r.stop = runInformer(inf.RunWithContext)
		return r, nil
	}
}

// startClientGo returns the start function of client-go with, when not
// nil, transform.
func startClientGo(transform clientgocache.TransformFunc) func(listerWatcher, runtime.Object, startOptions) (*running, error) {
	return func(lw listerWatcher, example runtime.Object, opts startOptions) (*running, error) {
		inf := clientgocache.NewSharedIndexInformerWithOptions(lw, example, clientgocache.SharedIndexInformerOptions{
			ResyncPeriod: opts.resyncPeriod,
			Indexers:     clientgocache.Indexers{clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc},
		})
		if transform != nil {
			if err := inf.SetTransform(transform); err != nil {
				return nil, fmt.Errorf("client-go: set the transform: %w", err)
			}
		}
		r := &running{synced: inf.HasSyncedChecker().Done(), indexer: inf.GetIndexer()}
		for _, h := range opts.handlers {
			reg, err := inf.AddEventHandler(h)
			if err != nil {
				return nil, fmt.Errorf("client-go: add a handler: %w", err)
			}
			r.handlersSynced = append(r.handlersSynced, reg.HasSyncedChecker().Done())
		}
		r.stop = runInformer(inf.RunWithContext)
		return r, nil
	}
}
