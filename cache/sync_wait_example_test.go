package cache_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-go/informer/cache"
)

// An informer whose lists are forbidden: WaitForSync with FailFast returns
// after the first attempt with the cause, instead of a bare timeout.
func ExampleWaitForSync() {
	for _, inOrder := range []bool{false, true} {
		srv := newExampleServer("a")
		forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("RBAC says no"))
		srv.FailNextLists(100, forbidden)
		srv.FailNextWatches(100, forbidden) // streaming lists
		informer := cache.NewSharedIndexInformerWithOptions(srv, &metav1.PartialObjectMetadata{}, cache.SharedIndexInformerOptions{InOrder: inOrder})

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			informer.RunWithContext(ctx)
		}()

		waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
		err := cache.WaitForSync(waitCtx, cache.WaitForSyncOptions{FailFast: true}, informer)
		waitCancel()
		var syncErr *cache.SyncError
		if errors.As(err, &syncErr) {
			// The phase (listing, or streaming the list, depending on
			// where the reflector was when the wait gave up) is in
			// syncErr.Status.Phase too.
			fmt.Printf("InOrder %v: forbidden: %v, type: %s, attempts: %d\n",
				inOrder, apierrors.IsForbidden(err), syncErr.Status.Type, syncErr.Status.Attempts)
		}

		cancel()
		<-done
		status, _ := cache.InformerSyncStatus(informer)
		fmt.Println("after stop:", status.Phase)
		srv.Close()
	}
	// Output:
	// InOrder false: forbidden: true, type: *v1.PartialObjectMetadata, attempts: 1
	// after stop: Stopped
	// InOrder true: forbidden: true, type: *v1.PartialObjectMetadata, attempts: 1
	// after stop: Stopped
}
