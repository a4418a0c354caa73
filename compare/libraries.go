package compare

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgocache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	informer "github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/internal/benchkit"
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
	// start builds a SharedIndexInformer of kind's objects on src, with a
	// namespace index, registers the handlers and runs it in a goroutine.
	start func(src *benchkit.Source, example runtime.Object, opts startOptions) (*running, error)
}

// Libraries are the informers under comparison: client-go v0.37.2 with its
// default feature gates (RealFIFO in atomic mode), informer-go with its
// default DeltaFIFO pipeline, and informer-go with InOrder set (its RealFIFO
// pipeline). Ratios are against the first.
var Libraries = []Library{
	{Name: "client-go", start: startClientGo},
	{Name: "informer-go", start: startInformerGo(false)},
	{Name: "informer-go-inorder", start: startInformerGo(true)},
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

func startInformerGo(inOrder bool) func(*benchkit.Source, runtime.Object, startOptions) (*running, error) {
	return func(src *benchkit.Source, example runtime.Object, opts startOptions) (*running, error) {
		inf := informer.NewSharedIndexInformerWithOptions(src, example, informer.SharedIndexInformerOptions{
			ResyncPeriod: opts.resyncPeriod,
			Indexers:     informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc},
			InOrder:      inOrder,
		})
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

func startClientGo(src *benchkit.Source, example runtime.Object, opts startOptions) (*running, error) {
	inf := clientgocache.NewSharedIndexInformerWithOptions(src, example, clientgocache.SharedIndexInformerOptions{
		ResyncPeriod: opts.resyncPeriod,
		Indexers:     clientgocache.Indexers{clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc},
	})
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
