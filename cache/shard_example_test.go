package cache_test

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

// This replica of a controller run as two holds shard 1 of 2 of the
// objects, then a third replica joins and it moves to shard 1 of 3: its
// handler learns which objects it gave up and which it took over, and
// nothing about the others.
func ExampleNewShardedListWatch() {
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("cm-%02d", i)
	}
	srv := newExampleServer(names...)
	defer srv.Close()

	shard, err := cache.ShardSelectorFor(cache.ShardKeyUID, 1, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	lw, err := cache.NewShardedListWatch(srv, shard, cache.ShardedListWatchOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	informer := cache.NewSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
	changes := make(chan string, 2*len(names))
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			if !isInInitialList {
				changes <- "add " + obj.(*metav1.PartialObjectMetadata).Name
			}
		},
		UpdateFunc: func(oldObj, newObj any) { changes <- "update " + newObj.(*metav1.PartialObjectMetadata).Name },
		DeleteFunc: func(obj any) { changes <- "delete " + obj.(*metav1.PartialObjectMetadata).Name },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.RunWithContext(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	if !cache.WaitForCacheSync(ctx.Done(), registration.HasSynced) {
		return
	}
	fmt.Println("shard 1 of 2:", len(informer.GetStore().ListKeys()), "objects")

	next, err := cache.ShardSelectorFor(cache.ShardKeyUID, 1, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := lw.SetShardSelector(next); err != nil {
		fmt.Println(err)
		return
	}
	// A new object of the new shard, written after the change, shows that
	// the handler has seen all of the handover: handlers see changes in
	// order.
	var sentinel string
	for i := 0; sentinel == ""; i++ {
		obj, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("sentinel-%d", i)}})
		if err != nil {
			fmt.Println(err)
			return
		}
		if ok, _ := next.Matches(obj); ok {
			sentinel = "add " + obj.Name
		}
	}
	counts := map[string]int{}
	for change := <-changes; change != sentinel; change = <-changes {
		counts[strings.Fields(change)[0]]++
	}
	fmt.Println("shard 1 of 3:", len(informer.GetStore().ListKeys())-1, "objects")
	fmt.Println("handler calls:", counts)
	// Output:
	// shard 1 of 2: 47 objects
	// shard 1 of 3: 29 objects
	// handler calls: map[add:14 delete:32]
}
