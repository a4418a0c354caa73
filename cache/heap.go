package cache

import (
	"container/heap"
	"errors"
	"sync"

	"k8s.io/klog/v2"
)

// LessFunc reports whether a [Heap] must pop its first argument before its
// second.
type LessFunc func(any, any) bool

var (
	errHeapClosed   = errors.New("heap is closed")
	errHeapNotFound = errors.New("object not found")
)

// Heap is a priority queue of keyed objects: Pop returns the least object by
// its [LessFunc], and each key holds at most one object. It is safe for
// concurrent use. Create one with [NewHeap]; the zero value is not usable.
type Heap struct {
	mu     sync.Mutex
	cond   sync.Cond // L is &mu; signalled when the heap grows or closes
	data   heapData  // guarded by mu
	closed bool      // guarded by mu

	keyFunc KeyFunc
}

// NewHeap returns an empty Heap that keys objects with keyFn
// ([MetaNamespaceKeyFunc] when nil) and orders them with lessFn. A nil lessFn
// is logged as an error and replaced by ordering on the keys.
func NewHeap(keyFn KeyFunc, lessFn LessFunc) *Heap {
	if keyFn == nil {
		keyFn = MetaNamespaceKeyFunc
	}
	h := &Heap{
		data:    heapData{entries: map[string]*heapEntry{}, less: lessFn},
		keyFunc: keyFn,
	}
	if lessFn == nil {
		klog.Background().Error(nil, "NewHeap called without a LessFunc, ordering objects by key")
	}
	h.cond.L = &h.mu
	return h
}

// Add stores obj, replacing the object with the same key and moving it to
// its new place in the order. It fails on a closed heap, and with a
// [KeyError]; either way the heap is unchanged.
func (h *Heap) Add(obj any) error {
	return h.BulkAdd([]any{obj})
}

// Update is the same as Add.
func (h *Heap) Update(obj any) error {
	return h.Add(obj)
}

// BulkAdd adds every object of list as Add would, then wakes Pop once, so a
// consumer sees them all before popping the first. A key error in any object
// or a closed heap is returned and leaves the heap unchanged.
func (h *Heap) BulkAdd(list []any) error {
	keys := make([]string, len(list))
	for i, obj := range list {
		key, err := h.keyFunc(obj)
		if err != nil {
			return KeyError{obj, err}
		}
		keys[i] = key
	}
	return h.writeOpen(func() {
		for i, key := range keys {
			h.data.set(key, list[i])
		}
	})
}

// writeOpen runs write with the heap locked and wakes Pop, unless the heap is
// closed: then it returns errHeapClosed and writes nothing.
func (h *Heap) writeOpen(write func()) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errHeapClosed
	}
	write()
	h.cond.Broadcast()
	return nil
}

// AddIfNotPresent stores obj unless an object with its key is present, in
// which case the heap is unchanged. A consumer can use it to retry an object
// without overwriting a newer version a producer added meanwhile. Errors are
// those of Add.
func (h *Heap) AddIfNotPresent(obj any) error {
	key, err := h.keyFunc(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	return h.writeOpen(func() {
		if _, exists := h.data.entries[key]; !exists {
			heap.Push(&h.data, &heapEntry{key: key, obj: obj})
		}
	})
}

// Delete removes the object with obj's key. It returns an error "object not
// found" if there is none, and a [KeyError] if the key cannot be computed.
// It works on a closed heap.
func (h *Heap) Delete(obj any) error {
	key, err := h.keyFunc(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.data.entries[key]
	if !ok {
		return errHeapNotFound
	}
	heap.Remove(&h.data, e.index)
	return nil
}

// Pop blocks until the heap holds an object or is closed, and removes and
// returns the least object. On a closed heap it drains what is left, then
// returns the error "heap is closed".
func (h *Heap) Pop() (any, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.data.Len() == 0 {
		if h.closed {
			return nil, errHeapClosed
		}
		h.cond.Wait()
	}
	e := heap.Pop(&h.data).(*heapEntry)
	return e.obj, nil
}

// List returns every object, in no particular order.
func (h *Heap) List() []any {
	h.mu.Lock()
	defer h.mu.Unlock()
	list := make([]any, 0, len(h.data.queue))
	for _, e := range h.data.queue {
		list = append(list, e.obj)
	}
	return list
}

// ListKeys returns the key of every object, in no particular order.
func (h *Heap) ListKeys() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	keys := make([]string, 0, len(h.data.queue))
	for _, e := range h.data.queue {
		keys = append(keys, e.key)
	}
	return keys
}

// Get returns the object with obj's key, or exists=false. A key error is
// returned as a [KeyError].
func (h *Heap) Get(obj any) (item any, exists bool, err error) {
	key, err := h.keyFunc(obj)
	if err != nil {
		return nil, false, KeyError{obj, err}
	}
	return h.GetByKey(key)
}

// GetByKey returns the object stored under key, or exists=false.
func (h *Heap) GetByKey(key string) (item any, exists bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.data.entries[key]
	if !ok {
		return nil, false, nil
	}
	return e.obj, true, nil
}

// Close makes further additions fail and wakes every blocked Pop, which
// returns an error once the heap is empty. Closing twice is harmless.
func (h *Heap) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	h.cond.Broadcast()
}

// IsClosed reports whether Close has been called.
func (h *Heap) IsClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// heapEntry is one object in a heapData.
type heapEntry struct {
	key   string
	obj   any
	index int // position in heapData.queue
}

// heapData is the container/heap implementation behind Heap. Every entry is
// in entries under its key and in queue at its index.
type heapData struct {
	entries map[string]*heapEntry
	queue   []*heapEntry
	less    LessFunc // nil: order by key
}

var _ heap.Interface = (*heapData)(nil)

// set stores obj under key, inserting or re-positioning its entry.
func (d *heapData) set(key string, obj any) {
	if e, ok := d.entries[key]; ok {
		e.obj = obj
		heap.Fix(d, e.index)
		return
	}
	heap.Push(d, &heapEntry{key: key, obj: obj})
}

func (d *heapData) Len() int { return len(d.queue) }

func (d *heapData) Less(i, j int) bool {
	if d.less == nil {
		return d.queue[i].key < d.queue[j].key
	}
	return d.less(d.queue[i].obj, d.queue[j].obj)
}

func (d *heapData) Swap(i, j int) {
	d.queue[i], d.queue[j] = d.queue[j], d.queue[i]
	d.queue[i].index = i
	d.queue[j].index = j
}

// Push is for container/heap only.
func (d *heapData) Push(x any) {
	e := x.(*heapEntry)
	e.index = len(d.queue)
	d.queue = append(d.queue, e)
	d.entries[e.key] = e
}

// Pop is for container/heap only.
func (d *heapData) Pop() any {
	n := len(d.queue) - 1
	e := d.queue[n]
	d.queue[n] = nil
	d.queue = d.queue[:n]
	delete(d.entries, e.key)
	return e
}
