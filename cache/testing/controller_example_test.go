package framework_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// teamCounter stands for the controller under test: an event handler that
// counts the objects of each team (their "team" label) and reports every
// object it handled on a channel, so that a test can wait for it.
type teamCounter struct {
	mu      sync.Mutex
	counts  map[string]int
	handled chan string
}

func (c *teamCounter) add(obj any, delta int) {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		c.mu.Lock()
		c.counts[m.Labels["team"]] += delta
		c.mu.Unlock()
	}
}

func (c *teamCounter) OnAdd(obj any, _ bool) {
	c.add(obj, 1)
	c.handled <- "add " + obj.(*metav1.PartialObjectMetadata).Name
}

func (c *teamCounter) OnUpdate(oldObj, newObj any) {
	c.add(oldObj, -1)
	c.add(newObj, 1)
	c.handled <- "update " + newObj.(*metav1.PartialObjectMetadata).Name
}

func (c *teamCounter) OnDelete(obj any) {
	key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj // a deletion noticed by a relist: the last known state
	}
	c.add(obj, -1)
	c.handled <- "delete " + key
}

// snapshot returns a copy of the counts; fmt prints maps sorted by key.
func (c *teamCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for team, n := range c.counts {
		out[team] = n
	}
	return out
}

// ExampleServer_controllerTest has the shape of a controller unit test: seed
// the fake apiserver, run an informer on it with the code under test as a
// handler, wait for the initial sync, then write to the server and wait for
// the handler to see each write before checking its state. A test would
// compare with t.Errorf where this example prints.
func ExampleServer_controllerTest() {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()
	create := func(name, team string) {
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: name, Labels: map[string]string{"team": team}}}
		if _, err := srv.Create(obj); err != nil {
			fmt.Println(err)
		}
	}
	create("a", "red")
	create("b", "red")
	create("c", "blue")

	counter := &teamCounter{counts: map[string]int{}, handled: make(chan string, 10)}
	informer := cache.NewSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
	registration, err := informer.AddEventHandler(counter)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds a broken test
	var wg sync.WaitGroup
	wg.Go(func() { informer.RunWithContext(ctx) })
	defer func() {
		cancel()
		wg.Wait() // the informer and its handlers have stopped
	}()

	// After the registration synced, the handler has seen the whole
	// initial list.
	if !cache.WaitFor(ctx, "", registration.HasSyncedChecker()) {
		fmt.Println("not synced")
		return
	}
	fmt.Println("after sync:", counter.snapshot(), "handled:", len(counter.handled))
	for range 3 {
		<-counter.handled
	}

	// One write, then wait for the handler to have handled it.
	b, err := srv.Get("default", "b")
	if err != nil {
		fmt.Println(err)
		return
	}
	b.Labels["team"] = "blue"
	if _, err := srv.Update(b); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-counter.handled+":", counter.snapshot())

	// Faults: the server drops every watch, as an apiserver restart would.
	// The informer resumes from its resourceVersion; a write made in the
	// meantime still reaches the handler.
	srv.CloseWatchStreams()
	if _, err := srv.Delete("default", "a"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-counter.handled+":", counter.snapshot())
	// Output:
	// after sync: map[blue:1 red:2] handled: 3
	// update b: map[blue:2 red:1]
	// delete default/a: map[blue:2 red:0]
}
