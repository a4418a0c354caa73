package cache_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// newExampleServer returns an in-memory apiserver holding objects with the
// given names in namespace "default".
func newExampleServer(names ...string) *framework.Server[*metav1.PartialObjectMetadata] {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	for _, name := range names {
		if _, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}); err != nil {
			panic(err)
		}
	}
	return srv
}

func ExampleNewSharedIndexInformer() {
	srv := newExampleServer("a", "b")
	defer srv.Close()

	informer := cache.NewSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
	events := make(chan string, 10)
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			events <- fmt.Sprintf("add %s (initial list: %v)", obj.(*metav1.PartialObjectMetadata).Name, isInInitialList)
		},
		DeleteFunc: func(obj any) {
			events <- fmt.Sprintf("delete %s", obj.(*metav1.PartialObjectMetadata).Name)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.RunWithContext(ctx)
	}()

	// The registration has synced once the handler has seen the whole
	// initial list.
	waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
	defer waitCancel()
	if !cache.WaitFor(waitCtx, "", registration.HasSyncedChecker()) {
		fmt.Println("not synced")
		return
	}
	initial := []string{<-events, <-events}
	slices.Sort(initial)
	fmt.Println(initial[0])
	fmt.Println(initial[1])
	fmt.Println("cached:", len(informer.GetStore().List()))

	if _, err := srv.Delete("default", "a"); err != nil {
		fmt.Println(err)
	}
	fmt.Println(<-events)

	cancel()
	<-done
	fmt.Println("stopped:", informer.IsStopped())
	// Output:
	// add a (initial list: true)
	// add b (initial list: true)
	// cached: 2
	// delete a
	// stopped: true
}

func ExampleNewTypedSharedIndexInformer() {
	srv := newExampleServer("a")
	defer srv.Close()

	informer := cache.NewTypedSharedIndexInformer[*metav1.PartialObjectMetadata](
		cache.NewSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{}))
	events := make(chan string, 10)
	registration, err := informer.AddTypedEventHandler(cache.TypedResourceEventHandlerFuncs[*metav1.PartialObjectMetadata]{
		AddFunc: func(obj *metav1.PartialObjectMetadata) { events <- "add " + obj.Name },
		UpdateFunc: func(oldObj, newObj *metav1.PartialObjectMetadata) {
			events <- fmt.Sprintf("update %s: labels %v -> %v", newObj.Name, oldObj.Labels, newObj.Labels)
		},
		DeleteFunc: func(obj cache.DeletedObject[*metav1.PartialObjectMetadata]) { events <- "delete " + obj.GetKey() },
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
		fmt.Println("not synced")
		return
	}
	fmt.Println(<-events)

	obj, _ := srv.Get("default", "a")
	obj.Labels = map[string]string{"team": "blue"}
	if _, err := srv.Update(obj); err != nil {
		fmt.Println(err)
	}
	fmt.Println(<-events)
	if _, err := srv.Delete("default", "a"); err != nil {
		fmt.Println(err)
	}
	fmt.Println(<-events)
	// Output:
	// add a
	// update a: labels map[] -> map[team:blue]
	// delete default/a
}

func ExampleShutDownEventHandler() {
	srv := newExampleServer("a")
	defer srv.Close()

	informer := cache.NewSharedInformer(srv, &metav1.PartialObjectMetadata{}, 0)
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

	calls := make(chan string, 10)
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { calls <- "add " + obj.(*metav1.PartialObjectMetadata).Name },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-calls)

	// ShutDownEventHandler returns once the handler will not be called
	// again.
	if err := cache.ShutDownEventHandler(informer, registration); err != nil {
		fmt.Println(err)
	}
	if _, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}}); err != nil {
		fmt.Println(err)
	}
	fmt.Println("pending calls:", len(calls))
	// Output:
	// add a
	// pending calls: 0
}
