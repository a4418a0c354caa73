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

	"github.com/informer-go/informer/cache"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "custom-source:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	inv := NewInventory()
	inv.Set("apples", "north", 40)
	inv.Set("pears", "north", 12)
	inv.Set("plums", "south", 25)

	// A ListWatch turns the inventory's two methods into a ListerWatcher.
	lw := &cache.ListWatch{ListWithContextFunc: inv.List, WatchFuncWithContext: inv.Watch}
	informer := cache.NewSharedIndexInformerWithOptions(lw, &Item{}, cache.SharedIndexInformerOptions{
		Indexers: cache.Indexers{"warehouse": func(obj any) ([]string, error) {
			item, ok := obj.(*Item)
			if !ok {
				return nil, fmt.Errorf("not an Item: %T", obj)
			}
			return []string{item.Warehouse}, nil
		}},
	})
	events := make(chan string, 16) // more than all the events of the demo
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			item := obj.(*Item)
			events <- fmt.Sprintf("add %s: %d in %s", item.Name, item.Stock, item.Warehouse)
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, n := oldObj.(*Item), newObj.(*Item)
			events <- fmt.Sprintf("update %s: stock %d -> %d (resourceVersion %s -> %s)",
				n.Name, o.Stock, n.Stock, o.ResourceVersion, n.ResourceVersion)
		},
		DeleteFunc: func(obj any) {
			key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			events <- "delete " + key
		},
	})
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { informer.RunWithContext(ctx) })
	defer func() {
		cancel()
		wg.Wait()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), registration.HasSynced) {
		return errors.New("informer did not sync")
	}
	initial := []string{<-events, <-events, <-events} // in no particular order
	slices.Sort(initial)
	for _, line := range initial {
		fmt.Fprintln(w, line)
	}

	// The inventory changes; the informer hears of each change through its
	// watch. Waiting for each event keeps the output in a stable order.
	inv.Set("apples", "north", 3)
	fmt.Fprintln(w, <-events)
	inv.Remove("pears")
	fmt.Fprintln(w, <-events)
	inv.Set("figs", "north", 8)
	fmt.Fprintln(w, <-events)

	// The informer's indexer answers queries without asking the inventory.
	// Items have no namespace, so their keys are their names.
	for _, warehouse := range []string{"north", "south"} {
		keys, err := informer.GetIndexer().IndexKeys("warehouse", warehouse)
		if err != nil {
			return err
		}
		slices.Sort(keys)
		fmt.Fprintf(w, "warehouse %s: %v\n", warehouse, keys)
	}
	var low []string
	for _, obj := range informer.GetStore().List() {
		if item := obj.(*Item); item.Stock < 10 {
			low = append(low, item.Name)
		}
	}
	slices.Sort(low)
	fmt.Fprintf(w, "low stock: %v\n", low)
	return nil
}
