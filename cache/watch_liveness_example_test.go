package cache_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

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
	// The server, with every watch request also sent to watches.
	watches := make(chan metav1.ListOptions, 8)
	lw := &cache.ListWatch{
		ListWithContextFunc: srv.ListWithContext,
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			select {
			case watches <- options:
			default:
			}
			return srv.WatchWithContext(ctx, options)
		},
	}
	informer := cache.NewSharedIndexInformerWithOptions(lw, &metav1.PartialObjectMetadata{}, cache.SharedIndexInformerOptions{
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
	<-watches // the streaming list the informer synced from
	last := informer.LastSyncResourceVersion()
	srv.WatchStreams()[0].Freeze()

	// The next request is a watch from the last resourceVersion.
	select {
	case next := <-watches:
		fmt.Println("from the last resourceVersion:", next.ResourceVersion == last)
	case <-waitCtx.Done():
		fmt.Println("no new watch")
		return
	}
	lists := 0
	for _, r := range srv.Requests() {
		if r.Verb == framework.VerbList {
			lists++
		}
	}
	fmt.Println("lists:", lists)

	cancel()
	<-done
	// Output:
	// from the last resourceVersion: true
	// lists: 0
}
