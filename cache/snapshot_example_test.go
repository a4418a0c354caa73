package cache_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// ExampleSnapshotOptions restarts an informer from its snapshot: the
// second run makes no list, its handler gets the snapshot as the initial
// list and then the change made while no informer ran.
func ExampleSnapshotOptions() {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()
	for _, name := range []string{"a", "b"} {
		_, _ = srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}})
	}
	dir, err := os.MkdirTemp("", "snapshot-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = os.RemoveAll(dir) }()
	opts := cache.SharedIndexInformerOptions{Snapshot: &cache.SnapshotOptions{
		Path:            filepath.Join(dir, "objects.snapshot"),
		ClusterIdentity: "example-cluster",
	}}

	run := func(events int) cache.SyncStatus {
		informer := cache.NewSharedIndexInformerWithOptions(srv, &metav1.PartialObjectMetadata{}, opts)
		calls := make(chan string, 10)
		_, _ = informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, initial bool) {
				calls <- fmt.Sprintf("add %s initial=%t", obj.(*metav1.PartialObjectMetadata).Name, initial)
			},
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			informer.RunWithContext(ctx)
		}()
		cache.WaitForCacheSync(ctx.Done(), informer.HasSynced)
		for range events {
			fmt.Println(<-calls)
		}
		cancel()
		<-done // the informer writes its snapshot as it stops
		return informer.(cache.SyncStatusReporter).SyncStatus()
	}

	run(2)
	_, _ = srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}})
	srv.ResetRequests()
	fmt.Println("restart")
	st := run(3)
	lists := 0
	for _, r := range srv.Requests() {
		if r.Verb == framework.VerbList || r.Options.SendInitialEvents != nil {
			lists++
		}
	}
	fmt.Println("resumed:", st.Snapshot.ResumedAt != "", "lists:", lists)
	// Output:
	// add a initial=true
	// add b initial=true
	// restart
	// add a initial=true
	// add b initial=true
	// add c initial=false
	// resumed: true lists: 0
}
