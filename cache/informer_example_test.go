package cache_test

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache"
)

// examplePod returns a small object standing for a pod.
func examplePod(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv},
	}
}

// fakePods is a ListWatch over a fixed list and a watch the example drives.
// It refuses streaming lists, as a server without them would.
func fakePods(events watch.Interface) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &metav1.PartialObjectMetadataList{
				ListMeta: metav1.ListMeta{ResourceVersion: "10"},
				Items:    []metav1.PartialObjectMetadata{*examplePod("a", "5"), *examplePod("b", "7")},
			}, nil
		},
		WatchFuncWithContext: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if opts.SendInitialEvents != nil {
				return nil, errors.New("streaming lists are not supported")
			}
			return events, nil
		},
	}
}

// An informer keeps a store in step with a resource and tells a handler
// about every change.
func ExampleNewInformerWithOptions() {
	events := watch.NewRaceFreeFake()
	seen := make(chan string, 10)
	name := func(obj any) string { return obj.(*metav1.PartialObjectMetadata).Name }
	store, controller := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: fakePods(events),
		ObjectType:    &metav1.PartialObjectMetadata{},
		Handler: cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, isInInitialList bool) {
				seen <- fmt.Sprintf("add %s (initial list: %v)", name(obj), isInInitialList)
			},
			UpdateFunc: func(oldObj, newObj any) {
				seen <- fmt.Sprintf("update %s: %s -> %s", name(newObj),
					oldObj.(*metav1.PartialObjectMetadata).ResourceVersion, newObj.(*metav1.PartialObjectMetadata).ResourceVersion)
			},
			DeleteFunc: func(obj any) { seen <- "delete " + name(obj) },
		},
	})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		controller.RunWithContext(ctx)
	}()

	fmt.Println(<-seen)
	fmt.Println(<-seen)
	events.Modify(examplePod("a", "11"))
	fmt.Println(<-seen)
	events.Delete(examplePod("b", "12"))
	fmt.Println(<-seen)
	fmt.Println("stored:", store.ListKeys(), "synced:", controller.HasSynced())

	cancel()
	<-done
	// Output:
	// add a (initial list: true)
	// add b (initial list: true)
	// update a: 5 -> 11
	// delete b
	// stored: [default/a] synced: true
}

// signallingStore tells when a list has been stored.
type signallingStore struct {
	cache.Indexer
	replaced chan struct{}
}

func (s signallingStore) Replace(list []any, resourceVersion string) error {
	err := s.Indexer.Replace(list, resourceVersion)
	s.replaced <- struct{}{}
	return err
}

// A reflector alone mirrors a resource into a store, without notifications.
func ExampleNewReflectorWithOptions() {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	store := signallingStore{Indexer: indexer, replaced: make(chan struct{}, 1)}
	r := cache.NewReflectorWithOptions(fakePods(watch.NewRaceFreeFake()), &metav1.PartialObjectMetadata{}, store,
		cache.ReflectorOptions{Name: "pods"})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunWithContext(ctx)
	}()
	<-store.replaced
	inDefault, _ := indexer.IndexKeys(cache.NamespaceIndex, "default")
	fmt.Println(r.Name(), "listed", inDefault)
	cancel()
	<-done
	fmt.Println("last synced resource version:", r.LastSyncResourceVersion())
	// Output:
	// pods listed [default/a default/b]
	// last synced resource version: 10
}
