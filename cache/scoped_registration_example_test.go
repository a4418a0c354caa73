package cache_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

// A handler registered with a context lasts as long as the context: a
// component that stops cancels it, and its Done channel tells when the
// handler will not be called again.
func ExampleAddEventHandlerWithContext() {
	srv := newExampleServer("a", "b")
	defer srv.Close()
	informer := cache.NewSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
	ctx, cancel := context.WithCancel(context.Background())

	componentCtx, stopComponent := context.WithCancel(ctx)
	reg, err := cache.AddEventHandlerWithContext(componentCtx, informer, cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { fmt.Println("add", obj.(*metav1.PartialObjectMetadata).Name) },
	}, cache.HandlerOptions{})
	if err != nil {
		panic(err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		informer.RunWithContext(ctx)
	}()
	if !cache.WaitFor(ctx, "", reg.HasSyncedChecker()) {
		panic("not synced")
	}

	stopComponent()
	<-reg.Done() // the handler has returned from its last call
	fmt.Println("handler removed; informer stopped:", informer.IsStopped())

	cancel()
	<-stopped
	// Output:
	// add a
	// add b
	// handler removed; informer stopped: false
}
