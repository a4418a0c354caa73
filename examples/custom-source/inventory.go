package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Item is one record of the inventory. To flow through an informer, a type
// needs to be a runtime.Object with object metadata: embed TypeMeta and
// ObjectMeta and write DeepCopyObject. No code generation is needed.
type Item struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Warehouse string
	Stock     int
}

// DeepCopyObject implements runtime.Object.
func (i *Item) DeepCopyObject() runtime.Object {
	if i == nil {
		return nil
	}
	out := *i
	i.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// ItemList is what List returns: a list needs ListMeta, for the
// resourceVersion the watch starts from, and an Items slice.
type ItemList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Item
}

// DeepCopyObject implements runtime.Object.
func (l *ItemList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &ItemList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopyObject().(*Item))
	}
	return out
}

// Inventory is an in-process store of items that changes over time; it
// stands for any source of change: a database, a message bus, a file. Every
// change gets the next resourceVersion; List returns the items with the
// current one, and Watch streams the changes after a given one, which is all
// an informer needs. It is safe for concurrent use.
type Inventory struct {
	mu      sync.Mutex
	rv      uint64           // resourceVersion of the last change
	items   map[string]*Item // by name; stored items are never mutated
	history []watch.Event    // every change, in order; Object is an *Item
	changed chan struct{}    // closed and replaced on every change
}

// NewInventory returns an empty inventory.
func NewInventory() *Inventory {
	return &Inventory{items: map[string]*Item{}, changed: make(chan struct{})}
}

// Set creates or replaces the item name.
func (inv *Inventory) Set(name, warehouse string, stock int) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	typ := watch.Modified
	if _, ok := inv.items[name]; !ok {
		typ = watch.Added
	}
	item := &Item{ObjectMeta: metav1.ObjectMeta{Name: name}, Warehouse: warehouse, Stock: stock}
	inv.items[name] = item
	inv.recordLocked(typ, item)
}

// Remove deletes the item name, if there is one.
func (inv *Inventory) Remove(name string) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if item, ok := inv.items[name]; ok {
		delete(inv.items, name)
		inv.recordLocked(watch.Deleted, item.DeepCopyObject().(*Item))
	}
}

// recordLocked stamps item with the next resourceVersion, appends the
// change to the history and wakes the watches.
func (inv *Inventory) recordLocked(typ watch.EventType, item *Item) {
	inv.rv++
	item.ResourceVersion = strconv.FormatUint(inv.rv, 10)
	inv.history = append(inv.history, watch.Event{Type: typ, Object: item})
	close(inv.changed)
	inv.changed = make(chan struct{})
}

// List returns every item, as an *ItemList at the current resourceVersion.
// It ignores the options: no selectors, no pages.
func (inv *Inventory) List(_ context.Context, _ metav1.ListOptions) (runtime.Object, error) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	list := &ItemList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.FormatUint(inv.rv, 10)}}
	for _, item := range inv.items {
		list.Items = append(list.Items, *item.DeepCopyObject().(*Item))
	}
	return list, nil
}

// Watch streams the changes after options.ResourceVersion (after the
// current one if it is "" or "0") until ctx ends or the watch is stopped. A
// real source keeps a bounded history and answers a 410 Gone error
// (apierrors.NewResourceExpired) for older resourceVersions, which makes the
// informer relist; this one keeps everything.
//
// It refuses streaming lists (SendInitialEvents: a watch that starts with
// the current items), which an informer tries first; the informer then
// lists and watches.
func (inv *Inventory) Watch(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if options.SendInitialEvents != nil && *options.SendInitialEvents {
		return nil, errors.New("streaming lists are not supported")
	}
	from := uint64(0)
	if rv := options.ResourceVersion; rv != "" && rv != "0" {
		var err error
		if from, err = strconv.ParseUint(rv, 10, 64); err != nil {
			return nil, fmt.Errorf("invalid resourceVersion %q: %w", rv, err)
		}
	} else {
		inv.mu.Lock()
		from = inv.rv
		inv.mu.Unlock()
	}
	w := &itemWatch{result: make(chan watch.Event), stopped: make(chan struct{})}
	go w.run(ctx, inv, from) // exits on ctx.Done() or Stop
	return w, nil
}

// since returns the changes after resourceVersion rv, and a channel closed
// at the next change.
func (inv *Inventory) since(rv uint64) ([]watch.Event, <-chan struct{}) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	// The history holds the change of resourceVersion n at index n-1.
	return inv.history[min(rv, uint64(len(inv.history))):], inv.changed
}

// itemWatch is a watch.Interface that forwards the inventory's history to
// its result channel.
type itemWatch struct {
	result   chan watch.Event
	stopped  chan struct{}
	stopOnce sync.Once
}

// Stop ends the watch; ResultChan is closed soon after.
func (w *itemWatch) Stop() { w.stopOnce.Do(func() { close(w.stopped) }) }

// ResultChan returns the channel of changes.
func (w *itemWatch) ResultChan() <-chan watch.Event { return w.result }

// run sends the changes after resourceVersion from, then waits for more.
func (w *itemWatch) run(ctx context.Context, inv *Inventory, from uint64) {
	defer close(w.result)
	for {
		events, changed := inv.since(from)
		for _, e := range events {
			select {
			case w.result <- watch.Event{Type: e.Type, Object: e.Object.DeepCopyObject()}:
				from++
			case <-w.stopped:
				return
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-changed:
		case <-w.stopped:
			return
		case <-ctx.Done():
			return
		}
	}
}
