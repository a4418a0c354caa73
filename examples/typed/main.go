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

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// App is the object type of this demo. Anything with ObjectMeta works the
// same way: *corev1.Pod, *unstructured.Unstructured or your own types.
type App = metav1.PartialObjectMetadata

func newApp(name, team string) *App {
	return &App{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"team": team}}}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "typed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	srv := framework.NewServer(framework.Options[*App]{})
	defer srv.Close()
	for _, app := range []*App{newApp("frontend", "web"), newApp("checkout", "payments"), newApp("billing", "payments")} {
		if _, err := srv.Create(app); err != nil {
			return err
		}
	}

	// Wrap a shared index informer in the typed API. Index functions and
	// handlers receive *App: no type assertions.
	informer := cache.NewTypedSharedIndexInformer[*App](cache.NewSharedIndexInformer(srv, &App{}, 0, cache.Indexers{}))
	if err := informer.AddTypedIndexers(cache.TypedIndexers[*App]{
		"team": func(app *App) ([]string, error) { return []string{app.Labels["team"]}, nil },
	}); err != nil {
		return err
	}
	events := make(chan string, 16) // more than all the events of the demo
	registration, err := informer.AddTypedEventHandler(cache.TypedResourceEventHandlerDetailedFuncs[*App]{
		AddFunc: func(app *App, isInInitialList bool) {
			events <- fmt.Sprintf("add %s (team %s, initial list: %v)", app.Name, app.Labels["team"], isInInitialList)
		},
		UpdateFunc: func(oldApp, newApp *App) {
			// A relist reports every object that is still there as an
			// update; an unchanged resourceVersion means nothing changed.
			if oldApp.ResourceVersion == newApp.ResourceVersion {
				return
			}
			events <- fmt.Sprintf("update %s: team %s -> %s", newApp.Name, oldApp.Labels["team"], newApp.Labels["team"])
		},
		DeleteFunc: func(deleted cache.DeletedObject[*App]) {
			// GetKey works with and without the final state. OptionalObj
			// is the last state the informer knew, when it knew one.
			line := "delete " + deleted.GetKey()
			if deleted.FinalStateUnknown != nil {
				line += " (missed; noticed by a relist)"
			}
			if deleted.OptionalObj != nil {
				line += ", last known team " + deleted.OptionalObj.Labels["team"]
			}
			events <- line
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
	indexer := informer.GetTypedIndexer()
	if err := printTeam(w, indexer, "payments"); err != nil {
		return err
	}

	// Each write, then its event.
	if _, err := srv.Create(newApp("search", "web")); err != nil {
		return err
	}
	fmt.Fprintln(w, <-events)
	if _, err := srv.Update(newApp("checkout", "web")); err != nil {
		return err
	}
	fmt.Fprintln(w, <-events)
	if _, err := srv.Delete("shop", "billing"); err != nil {
		return err
	}
	fmt.Fprintln(w, <-events)

	// A deletion the informer misses: its watch event is lost and the
	// server forgets its history, so the informer's watch cannot resume
	// and it relists. The object is gone from the list: the handler gets a
	// DeletedObject whose FinalStateUnknown holds the tombstone.
	srv.DropNextEvents(1)
	if _, err := srv.Delete("shop", "frontend"); err != nil {
		return err
	}
	srv.Compact()
	srv.CloseWatchStreams()
	fmt.Fprintln(w, <-events)

	if err := printTeam(w, indexer, "web"); err != nil {
		return err
	}
	return nil
}

// printTeam prints the names of the cached apps of team, sorted.
func printTeam(w io.Writer, indexer cache.TypedIndexer[*App], team string) error {
	apps, err := indexer.ByTypedIndex("team", team)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(apps))
	for _, app := range apps {
		names = append(names, app.Name)
	}
	slices.Sort(names)
	fmt.Fprintf(w, "team %s: %v\n", team, names)
	return nil
}
