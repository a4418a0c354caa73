package cache_test

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// slowHandler is an example handler that prints its calls and, in its first
// call, blocks until release is closed, as a handler stuck on a slow
// request would. done is closed by the call that adds the object named last.
type slowHandler struct {
	entered, release, done chan struct{}
	last                   string
	once                   sync.Once
}

func newSlowHandler(last string) *slowHandler {
	return &slowHandler{entered: make(chan struct{}), release: make(chan struct{}), done: make(chan struct{}), last: last}
}

func (h *slowHandler) OnAdd(obj any, _ bool) {
	fmt.Println("add", version(obj))
	h.once.Do(func() {
		close(h.entered)
		<-h.release
	})
	if obj.(*metav1.PartialObjectMetadata).Name == h.last {
		close(h.done)
	}
}

func (h *slowHandler) OnUpdate(oldObj, newObj any) {
	fmt.Println("update", version(oldObj), "->", version(newObj))
}

func (h *slowHandler) OnDelete(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	fmt.Println("delete", version(obj))
}

// version describes an example object: its name and its "v" label.
func version(obj any) string {
	o := obj.(*metav1.PartialObjectMetadata)
	return o.Name + "@" + o.Labels["v"]
}

// writer writes example objects to srv, and waits until an informer has
// distributed them.
type writer struct {
	srv *framework.Server[*metav1.PartialObjectMetadata]
	// distributed receives one value per notification of a handler
	// registered after the slow one: it hears of a change once the slow
	// handler's backlog holds it.
	distributed chan struct{}
	writes      int
}

func (w *writer) set(name, v string) {
	obj, err := w.srv.Get("default", name)
	if err != nil {
		obj = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	}
	obj.Labels = map[string]string{"v": v}
	if err != nil {
		_, err = w.srv.Create(obj)
	} else {
		_, err = w.srv.Update(obj)
	}
	if err != nil {
		panic(err)
	}
	w.writes++
}

func (w *writer) delete(name string) {
	if _, err := w.srv.Delete("default", name); err != nil {
		panic(err)
	}
	w.writes++
}

// wait waits until every write so far was distributed.
func (w *writer) wait() {
	for range w.writes {
		<-w.distributed
	}
	w.writes = 0
}

// runSlowHandlerExample runs an informer with a slow handler registered with
// options, lets write change the objects while the handler is blocked, then
// lets the handler run until it has added the object named last.
func runSlowHandlerExample(options cache.HandlerOptions, last string, write func(w *writer)) {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()
	w := &writer{srv: srv, distributed: make(chan struct{}, 100)}
	w.set("a", "0")

	informer := cache.NewSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
	h := newSlowHandler(last)
	if _, err := informer.AddEventHandlerWithOptions(h, options); err != nil {
		panic(err)
	}
	signal := func() { w.distributed <- struct{}{} }
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { signal() },
		UpdateFunc: func(any, any) { signal() },
		DeleteFunc: func(any) { signal() },
	}); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		informer.RunWithContext(ctx)
	}()

	<-h.entered // the handler is stuck in its first call
	w.wait()
	write(w)
	w.wait()
	close(h.release)
	<-h.done
	cancel()
	<-stopped
}

// A handler that falls behind can merge its pending notifications per
// object, so that its backlog holds at most two per object however many
// changes it missed. Here it is blocked while object a changes three times
// and object b comes and goes.
func ExampleHandlerOptions_coalesce() {
	runSlowHandlerExample(cache.HandlerOptions{Coalesce: true}, "c", func(w *writer) {
		w.set("a", "1")
		w.set("a", "2")
		w.set("a", "3")
		w.set("b", "0")
		w.set("b", "1")
		w.delete("b") // b's add and delete cancel out
		w.set("c", "0")
	})
	// Output:
	// add a@0
	// update a@0 -> a@3
	// add c@0
}

// A handler can cap its backlog. Past the cap the pending notifications are
// dropped; the handler is later told, per object that changed, the difference
// between what it last saw and the store's current state.
func ExampleHandlerOptions_maxBacklog() {
	runSlowHandlerExample(cache.HandlerOptions{MaxBacklog: 2}, "d", func(w *writer) {
		w.set("b", "0")
		w.set("c", "0")
		w.set("a", "1") // the third pending notification: past the cap
		w.set("a", "2")
		w.delete("c")
		w.set("d", "0")
		w.set("b", "1")
	})
	// Output:
	// add a@0
	// add b@1
	// update a@0 -> a@2
	// add d@0
}
