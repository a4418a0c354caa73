package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// ConfigMap is all this demo needs of a ConfigMap: its metadata.
type ConfigMap = metav1.PartialObjectMetadata

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	// An in-memory apiserver with four ConfigMaps in two namespaces. It is
	// a cache.ListerWatcher, as a clientset wrapped in a cache.ListWatch is.
	resource := schema.GroupResource{Resource: "configmaps"}
	srv := framework.NewServer(framework.Options[*ConfigMap]{GroupResource: resource})
	defer srv.Close()
	for _, ns := range []string{"dev", "prod"} {
		for _, app := range []string{"web", "db"} {
			cm := &ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Namespace: ns, Name: app + "-config", Labels: map[string]string{"app": app}}}
			if _, err := srv.Create(cm); err != nil {
				return err
			}
		}
	}

	// An informer whose cache indexes the ConfigMaps by namespace and by
	// the value of their "app" label.
	informer := cache.NewSharedIndexInformerWithOptions(srv, &ConfigMap{}, cache.SharedIndexInformerOptions{
		Indexers: cache.Indexers{
			cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
			"app": func(obj any) ([]string, error) {
				cm, ok := obj.(*ConfigMap)
				if !ok {
					return nil, fmt.Errorf("not a ConfigMap: %T", obj)
				}
				return []string{cm.Labels["app"]}, nil
			},
		},
	})

	// Handlers run on the informer's goroutines; this one turns every event
	// into a line on a channel that run reads. The buffer holds more than
	// all the events of the demo, so the handler never blocks.
	events := make(chan string, 16)
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*ConfigMap)
			events <- fmt.Sprintf("add %s/%s (app=%s)", cm.Namespace, cm.Name, cm.Labels["app"])
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, n := oldObj.(*ConfigMap), newObj.(*ConfigMap)
			events <- fmt.Sprintf("update %s/%s: app=%s -> app=%s (resourceVersion %s -> %s)",
				n.Namespace, n.Name, o.Labels["app"], n.Labels["app"], o.ResourceVersion, n.ResourceVersion)
		},
		DeleteFunc: func(obj any) {
			// A deletion noticed only by a relist arrives as a
			// cache.DeletedFinalStateUnknown; this key function takes both.
			key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			events <- "delete " + key
		},
	})
	if err != nil {
		return err
	}

	// Run the informer until run returns, then wait for it to stop.
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { informer.RunWithContext(ctx) })
	defer func() {
		cancel()
		wg.Wait()
	}()

	// The registration has synced once its handler has returned from the
	// add of every object of the initial list. Adds of different objects
	// come in no particular order, so sort them.
	if !cache.WaitForCacheSync(ctx.Done(), registration.HasSynced) {
		return errors.New("informer did not sync")
	}
	initial := []string{<-events, <-events, <-events, <-events}
	slices.Sort(initial)
	fmt.Fprintln(w, "Initial list, as the handler saw it:")
	for _, line := range initial {
		fmt.Fprintln(w, " ", line)
	}
	indexer := informer.GetIndexer()
	fmt.Fprintln(w, "Index queries on the local cache:")
	printIndex(w, indexer, "app", "web")
	printIndex(w, indexer, cache.NamespaceIndex, "prod")

	// Writes to the server reach the handler. Waiting for each event before
	// the next write keeps the output in a stable order.
	fmt.Fprintln(w, "Writes to the server reach the handler:")
	cm, err := srv.Get("prod", "web-config")
	if err != nil {
		return err
	}
	cm.Labels["app"] = "api"
	if _, err := srv.Update(cm); err != nil {
		return err
	}
	fmt.Fprintln(w, " ", <-events)
	if _, err := srv.Delete("dev", "db-config"); err != nil {
		return err
	}
	fmt.Fprintln(w, " ", <-events)

	// The informer updates its cache before it notifies the handlers, so
	// the indexes already reflect both writes.
	fmt.Fprintln(w, "Index queries after the writes:")
	printIndex(w, indexer, "app", "web")
	printIndex(w, indexer, "app", "api")

	// A lister reads the cache the way a client-go generated lister does.
	lister := cache.NewGenericLister(indexer, resource).ByNamespace("dev")
	objs, err := lister.List(labels.Everything())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  lister, list in dev: %d ConfigMap(s)\n", len(objs))
	_, err = lister.Get("db-config")
	fmt.Fprintf(w, "  lister, get dev/db-config: %v\n", err)

	cancel()
	wg.Wait()
	fmt.Fprintln(w, "Informer stopped:", informer.IsStopped())
	return nil
}

// printIndex prints the sorted keys of the cached objects whose index value
// under index is value.
func printIndex(w io.Writer, indexer cache.Indexer, index, value string) {
	keys, err := indexer.IndexKeys(index, value)
	slices.Sort(keys)
	fmt.Fprintf(w, "  %s=%s: %v", index, value, keys)
	if err != nil {
		fmt.Fprintf(w, " (%v)", err)
	}
	fmt.Fprintln(w)
}
