package cache

// FIFO is a [Queue] that keeps only the newest object of each key and hands
// keys out in the order they were first queued. Writing an object whose key
// is already queued replaces the object but keeps its place; Delete forgets
// the object, and Pop skips its key. Use it to process the latest state of
// every object once; use [DeltaFIFO] to see every change, deletions included.
// Informers do not use it.
//
// A FIFO is safe for concurrent use. Create one with [NewFIFO]; the zero value
// is not usable.
type FIFO struct {
	queueState

	// items holds the newest object of each key. guarded by mu; every key in
	// items is in queue. queue may hold keys whose object was deleted (Pop
	// skips them) and, after a Delete and an Add of the same key, a key twice
	// (Pop processes the first and skips the second).
	items map[string]any
	queue []string // guarded by mu

	keyFunc KeyFunc
}

var (
	_ Queue       = (*FIFO)(nil)
	_ DoneChecker = (*FIFO)(nil)
)

// NewFIFO returns an empty FIFO that keys objects with keyFunc
// ([MetaNamespaceKeyFunc] when keyFunc is nil).
func NewFIFO(keyFunc KeyFunc) *FIFO {
	if keyFunc == nil {
		keyFunc = MetaNamespaceKeyFunc
	}
	f := &FIFO{
		items:   map[string]any{},
		keyFunc: keyFunc,
	}
	f.init("FIFO")
	return f
}

// Add stores obj as the newest object of its key and queues the key unless it
// is queued already. A key error leaves the FIFO unchanged and is returned as
// a [KeyError].
func (f *FIFO) Add(obj any) error {
	key, err := f.keyFunc(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.written()
	if _, queued := f.items[key]; !queued {
		f.queue = append(f.queue, key)
	}
	f.items[key] = obj
	f.cond.Broadcast()
	return nil
}

// Update is the same as Add.
func (f *FIFO) Update(obj any) error {
	return f.Add(obj)
}

// Delete forgets the object with obj's key. The key stays in the queue and Pop
// skips it. A key error leaves the FIFO unchanged and is returned as a
// [KeyError].
func (f *FIFO) Delete(obj any) error {
	key, err := f.keyFunc(obj)
	if err != nil {
		return KeyError{obj, err}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.written()
	delete(f.items, key)
	return nil
}

// Replace discards everything queued and queues the given objects instead, in
// list order; a later object wins over an earlier one with the same key but
// keeps the earlier one's place. The first Replace before any other write defines the first batch.
// resourceVersion is ignored. A key error leaves the FIFO unchanged and is
// returned as a [KeyError].
func (f *FIFO) Replace(list []any, resourceVersion string) error {
	items := make(map[string]any, len(list))
	queue := make([]string, 0, len(list))
	for _, obj := range list {
		key, err := f.keyFunc(obj)
		if err != nil {
			return KeyError{obj, err}
		}
		if _, seen := items[key]; !seen {
			queue = append(queue, key)
		}
		items[key] = obj
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.sync.replaced(len(items))
	f.items = items
	f.queue = queue
	if len(f.queue) > 0 {
		f.cond.Broadcast()
	}
	return nil
}

// Resync queues the key of every stored object whose key is not queued. Every
// write keeps that true already, so Resync normally changes nothing.
func (f *FIFO) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	queued := make(map[string]struct{}, len(f.queue))
	for _, key := range f.queue {
		queued[key] = struct{}{}
	}
	for key := range f.items {
		if _, ok := queued[key]; !ok {
			f.queue = append(f.queue, key)
		}
	}
	if len(f.queue) > 0 {
		f.cond.Broadcast()
	}
	return nil
}

// Pop blocks until a key is queued or the FIFO is closed, removes the oldest
// key and its object, and calls process with the object while holding the
// FIFO's lock: process must not call the FIFO. Keys whose object was deleted
// are skipped. Pop returns the object and process's error; the object is not
// requeued. On a closed FIFO Pop drains what is queued, then returns
// [ErrFIFOClosed]. A nil process is an error and pops nothing.
func (f *FIFO) Pop(process PopProcessFunc) (any, error) {
	if process == nil {
		return nil, errNilProcessFunc
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		if err := f.waitLocked(f.lenLocked); err != nil {
			return nil, err
		}
		isInInitialList := !f.sync.synced()
		key := f.queue[0]
		f.queue = dropFront(f.queue, 1)
		initial := f.sync.taking(1)
		obj, ok := f.items[key]
		if !ok {
			// Deleted after it was queued: nothing to process.
			f.sync.processed(initial)
			continue
		}
		delete(f.items, key)
		defer f.sync.processed(initial) // only once process has returned
		err := process(obj, isInInitialList)
		return obj, err
	}
}

// lenLocked returns the number of queued keys, deleted ones included.
func (f *FIFO) lenLocked() int {
	return len(f.queue)
}

// HasSyncedChecker returns the FIFO itself: its Done channel closes when
// HasSynced becomes true. Its name is "FIFO".
func (f *FIFO) HasSyncedChecker() DoneChecker {
	return f
}
