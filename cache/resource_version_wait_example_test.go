package cache_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

// Read-your-writes: after a write, wait until the informer's store reflects
// the write's resourceVersion, then read the store.
func ExampleWaitForResourceVersion() {
	for _, inOrder := range []bool{false, true} {
		srv := newExampleServer("a")
		informer := cache.NewSharedIndexInformerWithOptions(srv, &metav1.PartialObjectMetadata{}, cache.SharedIndexInformerOptions{InOrder: inOrder})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			informer.RunWithContext(ctx)
		}()

		written, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}})
		if err != nil {
			panic(err)
		}
		waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
		if err := cache.WaitForResourceVersion(waitCtx, informer, written.ResourceVersion); err != nil {
			fmt.Println(err)
		}
		waitCancel()
		obj, exists, _ := informer.GetStore().GetByKey("default/b")
		fmt.Printf("InOrder %v: b cached: %v, at the written version: %v\n",
			inOrder, exists, exists && obj.(*metav1.PartialObjectMetadata).ResourceVersion == written.ResourceVersion)

		cancel()
		<-done
		srv.Close()
	}
	// Output:
	// InOrder false: b cached: true, at the written version: true
	// InOrder true: b cached: true, at the written version: true
}
