package cache

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2"
)

// realFIFOModel is the documented behaviour of a RealFIFO, written as plainly
// as possible: a list of deltas.
type realFIFOModel struct {
	modelState                   // known only in non-atomic mode
	atomic, transform, bookmarks bool

	items []Delta
}

func (m *realFIFOModel) state() *modelState { return &m.modelState }
func (m *realFIFOModel) empty() bool        { return len(m.items) == 0 }

func (m *realFIFOModel) tf(obj any) (any, error) {
	if _, tomb := obj.(DeletedFinalStateUnknown); tomb || !m.transform {
		return obj, nil
	}
	return markTransform(obj)
}

func (m *realFIFOModel) write(t DeltaType, obj any) error {
	if _, err := DeletionHandlingMetaNamespaceKeyFunc(obj); err != nil {
		return err
	}
	obj, err := m.tf(obj)
	if err != nil {
		return err
	}
	m.populated = true
	m.items = append(m.items, Delta{t, obj})
	return nil
}

func (m *realFIFOModel) bookmark(rv string) {
	if m.bookmarks {
		m.items = append(m.items, Delta{Bookmark, BookmarkInfo{ResourceVersion: rv}})
	}
}

func (m *realFIFOModel) replace(list []any, rv string) error {
	keys, objs, err := modelListKeys(list, m.tf)
	if err != nil {
		return err
	}
	if m.atomic {
		m.items = append(m.items, Delta{ReplacedAll, ReplacedAllInfo{ResourceVersion: rv, Objects: objs}})
	} else {
		// Keys in the order they first appear in the queue, with their last
		// delta.
		var queued []string
		last := map[string]Delta{}
		for _, d := range m.items {
			key, _ := DeletionHandlingMetaNamespaceKeyFunc(d.Object)
			if _, ok := last[key]; !ok {
				queued = append(queued, key)
			}
			last[key] = d
		}
		var add []Delta
		for _, key := range queued {
			if !slices.Contains(keys, key) && last[key].Type != Deleted {
				add = append(add, Delta{Deleted, DeletedFinalStateUnknown{Key: key, Obj: last[key].Object}})
			}
		}
		for _, key := range slices.Sorted(maps.Keys(m.known)) {
			if _, ok := last[key]; ok || slices.Contains(keys, key) {
				continue
			}
			var obj any
			if !m.failing[key] {
				obj = m.known[key]
			}
			add = append(add, Delta{Deleted, DeletedFinalStateUnknown{Key: key, Obj: obj}})
		}
		for _, obj := range objs {
			add = append(add, Delta{Replaced, obj})
		}
		m.items = append(m.items, add...)
	}
	if !m.populated {
		m.populated = true
		m.initial = len(m.items)
	}
	return nil
}

func (m *realFIFOModel) resync() {
	if m.atomic {
		m.items = append(m.items, Delta{SyncAll, SyncAllInfo{}})
		return
	}
	queued := map[string]bool{}
	for _, d := range m.items {
		key, _ := DeletionHandlingMetaNamespaceKeyFunc(d.Object)
		queued[key] = true
	}
	for _, key := range slices.Sorted(maps.Keys(m.known)) {
		if !queued[key] && !m.failing[key] {
			m.items = append(m.items, Delta{Sync, m.known[key]})
		}
	}
}

// popBatch returns the next batch PopBatch takes (Pop takes batches of one);
// ok is false when it would block.
func (m *realFIFOModel) popBatch(limit int) (batch []Delta, initial bool, ok bool) {
	if len(m.items) == 0 {
		return nil, false, false
	}
	initial = !m.synced()
	if m.initial > 0 && m.initial < limit {
		limit = m.initial
	}
	seen := map[string]bool{}
	for _, d := range m.items {
		if len(batch) == limit {
			break
		}
		if !batchable(d.Type) {
			if len(batch) == 0 {
				batch = append(batch, d)
			}
			break
		}
		key, _ := DeletionHandlingMetaNamespaceKeyFunc(d.Object)
		if seen[key] {
			break
		}
		seen[key] = true
		batch = append(batch, d)
	}
	m.items = m.items[len(batch):]
	if !m.atomic {
		modelApply(m.known, batch)
	}
	m.initial -= min(m.initial, len(batch))
	return batch, initial, true
}

// newRealFIFOModelRun builds a RealFIFO and its model: cfg bit 0 selects
// atomic events, bit 1 a transformer; with atomic events bit 2 makes it emit
// bookmarks and bit 3 unlock while processing, without them bits 3 to 6 are
// the known objects before the first Replace.
func newRealFIFOModelRun(t *testing.T, cfg byte) modelRun {
	var discard klog.Logger // the zero logger discards; failed lookups would flood the fuzzer's output
	m := &realFIFOModel{atomic: cfg&1 != 0, transform: cfg&2 != 0}
	m.failing = map[string]bool{}
	opts := RealFIFOOptions{AtomicEvents: m.atomic, Logger: &discard}
	if m.transform {
		opts.Transformer = markTransform
	}
	var known *stubKnownObjects
	if m.atomic {
		m.bookmarks = cfg&4 != 0
		opts.EmitDeltaTypeBookmark = m.bookmarks
		opts.UnlockWhileProcessing = cfg&8 != 0
	} else {
		m.known, known = newModelKnown(cfg)
		opts.KnownObjects = known
	}
	f := NewRealFIFOWithOptions(opts)
	apply := func(deltas []Delta) {
		if known != nil {
			known.apply(deltas)
		}
	}
	type popped struct {
		Deltas  []Delta
		Initial bool
		Single  bool
	}
	pop := func(step int, kind byte) {
		t.Helper()
		batch := kind == 2
		limit := 1
		if batch {
			limit = defaultBatchSize
		}
		wantBatch, wantInitial, ok := m.popBatch(limit)
		if !ok {
			if got := realFIFOLen(f); got != 0 {
				t.Fatalf("step %d: the model is empty, the FIFO holds %d deltas", step, got)
			}
			if !m.closed {
				return // Pop would block
			}
			_, err := f.Pop(func(any, bool) error { return nil })
			if !errors.Is(err, ErrFIFOClosed) {
				t.Fatalf("step %d: Pop on a closed empty FIFO = %v", step, err)
			}
			return
		}
		if realFIFOLen(f) == 0 {
			t.Fatalf("step %d: the FIFO is empty, the model pops %v", step, wantBatch)
		}
		want := popped{Deltas: wantBatch, Initial: wantInitial, Single: len(wantBatch) == 1}
		var got popped
		single := func(obj any, initial bool) error {
			got = popped{Deltas: obj.(Deltas), Initial: initial, Single: true}
			apply(got.Deltas)
			return nil
		}
		var err error
		if batch {
			err = f.PopBatch(func(deltas []Delta, initial bool) error {
				got = popped{Deltas: deltas, Initial: initial}
				apply(deltas)
				return nil
			}, single)
		} else {
			_, err = f.Pop(single)
		}
		if err != nil {
			t.Fatalf("step %d: pop: %v", step, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("step %d: popped (-model +got):\n%s", step, diff)
		}
		if got, want := f.HasSynced(), m.synced(); got != want {
			t.Fatalf("step %d pop: HasSynced() = %v, model says %v", step, got, want)
		}
	}
	return modelRun{queue: f, model: m, known: known, pop: pop}
}
