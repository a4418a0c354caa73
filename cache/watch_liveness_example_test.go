package cache_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// A watch that hangs (here a frozen stream of the in-memory apiserver) is
// replaced by a new watch from the last resourceVersion, without a relist.
// The interval is tiny for the example; against kube-apiserver keep the
// defaults (one minute, three times).
func ExampleWatchLivenessOptions() {
	srv := newExampleServer("a")
	defer srv.Close()
	informer := cache.NewSharedIndexInformerWithOptions(srv, &metav1.PartialObjectMetadata{}, cache.SharedIndexInformerOptions{
		WatchLiveness: &cache.WatchLivenessOptions{BookmarkInterval: 100 * time.Millisecond, Multiple: 3},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.RunWithContext(ctx)
	}()
	waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
	defer waitCancel()
	if err := cache.WaitForSync(waitCtx, cache.WaitForSyncOptions{}, informer); err != nil {
		fmt.Println(err)
		return
	}
	if err := srv.WaitForWatchStreams(waitCtx, 1); err != nil {
		fmt.Println(err)
		return
	}
	srv.WatchStreams()[0].Freeze()

	// Wait for the next watch request.
	last := informer.LastSyncResourceVersion()
	for len(srv.Requests()) < 2 && waitCtx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	lists := 0
	for _, r := range srv.Requests() {
		if r.Verb == framework.VerbList {
			lists++
		}
	}
	next := srv.Requests()[1]
	fmt.Println("next request:", next.Verb)
	fmt.Println("from the last resourceVersion:", next.Options.ResourceVersion == last)
	fmt.Println("lists:", lists)

	cancel()
	<-done
	// Output:
	// next request: watch
	// from the last resourceVersion: true
	// lists: 0
}
