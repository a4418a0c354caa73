package compare

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// running is an informer started by a variant.
type running struct {
	// synced holds one channel per handler, closed once the handler's
	// registration has synced.
	synced []<-chan struct{}
	// done is closed once the informer's Run returned.
	done <-chan struct{}
}

// waitSynced blocks until every handler's registration has synced.
func (r running) waitSynced() {
	for _, ch := range r.synced {
		<-ch
	}
}

// variant is one informer implementation under comparison.
type variant struct {
	name string
	// start builds a SharedIndexInformer of *metav1.PartialObjectMetadata on
	// src, registers hs, and runs it in a goroutine until ctx is done.
	start func(ctx context.Context, src *source, hs []eventHandler) (running, error)
}

// variants are the informers under comparison: informer-go in its default
// DeltaFIFO mode and with InOrder set, and client-go v0.37.2 with its
// default feature gates (RealFIFO in atomic mode).
var variants = []variant{
	{name: "informer-go", start: startInformerGo(false)},
	{name: "informer-go-inorder", start: startInformerGo(true)},
	{name: "client-go", start: startClientGo},
}

func startInformerGo(inOrder bool) func(context.Context, *source, []eventHandler) (running, error) {
	return func(ctx context.Context, src *source, hs []eventHandler) (running, error) {
		inf := informer.NewSharedIndexInformerWithOptions(src, &metav1.PartialObjectMetadata{}, informer.SharedIndexInformerOptions{InOrder: inOrder})
		var r running
		for _, h := range hs {
			reg, err := inf.AddEventHandler(h)
			if err != nil {
				return running{}, fmt.Errorf("informer-go: adding a handler: %w", err)
			}
			r.synced = append(r.synced, reg.HasSyncedChecker().Done())
		}
		done := make(chan struct{})
		go func() { // exits on ctx.Done(); the caller waits on done
			defer close(done)
			inf.RunWithContext(ctx)
		}()
		r.done = done
		return r, nil
	}
}

func startClientGo(ctx context.Context, src *source, hs []eventHandler) (running, error) {
	inf := clientgocache.NewSharedIndexInformerWithOptions(src, &metav1.PartialObjectMetadata{}, clientgocache.SharedIndexInformerOptions{})
	var r running
	for _, h := range hs {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return running{}, fmt.Errorf("client-go: adding a handler: %w", err)
		}
		r.synced = append(r.synced, reg.HasSyncedChecker().Done())
	}
	done := make(chan struct{})
	go func() { // exits on ctx.Done(); the caller waits on done
		defer close(done)
		inf.RunWithContext(ctx)
	}()
	r.done = done
	return r, nil
}

// quietContext is a context whose logger discards everything, so that
// logging does not show up in the measurements or the test output.
func quietContext() (context.Context, context.CancelFunc) {
	return context.WithCancel(klog.NewContext(context.Background(), klog.Logger{}))
}
