package cache_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// A factory shares one informer among the parts of a program that ask for
// the same objects, and starts, waits for and stops all of them together.
func ExampleInformerFactory() {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()
	for _, name := range []string{"a", "b"} {
		srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: "demo", Name: name, Labels: map[string]string{"app": "web"},
		}})
	}
	// The constructor of the ListerWatcher of a new informer; with client-go
	// it would be a resource client such as clientset.CoreV1().ConfigMaps(ns).
	newListerWatcher := func(sel cache.InformerSelection) cache.ListerWatcher {
		return cache.NewListWatchFromTypedClient(configMapClient{srv.Namespace(sel.Namespace)}, sel.ApplyTo)
	}

	factory := cache.NewInformerFactory(cache.InformerFactoryOptions{})
	web := cache.InformerSelection{Namespace: "demo", LabelSelector: "app=web"}
	first, err := factory.InformerFor(&metav1.PartialObjectMetadata{}, web, newListerWatcher)
	if err != nil {
		panic(err)
	}
	second, err := factory.InformerFor(&metav1.PartialObjectMetadata{}, web, newListerWatcher)
	if err != nil {
		panic(err)
	}
	fmt.Println("shared:", first == second)

	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	for key, err := range factory.WaitForCacheSync(ctx) {
		fmt.Printf("%v synced: %v\n", key, err == nil)
	}
	fmt.Println(len(first.GetStore().List()), "objects")

	cancel()           // stops the informers
	factory.Shutdown() // returns once they have stopped
	fmt.Println("stopped:", first.IsStopped())
	// Output:
	// shared: true
	// *v1.PartialObjectMetadata in namespace demo with labels app=web synced: true
	// 2 objects
	// stopped: true
}
