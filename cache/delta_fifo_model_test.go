package cache

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2"
)

// deltaFIFOModel is the documented behaviour of a DeltaFIFO, written as
// plainly as possible: a list of keys and a map of pending deltas.
type deltaFIFOModel struct {
	modelState
	hasKnown, emitReplaced, transform bool

	keys    []string // queued keys, oldest first
	pending map[string]Deltas
}

func (m *deltaFIFOModel) state() *modelState { return &m.modelState }
func (m *deltaFIFOModel) empty() bool        { return len(m.keys) == 0 }

// bookmark does nothing: a DeltaFIFO takes no bookmarks.
func (m *deltaFIFOModel) bookmark(string) {}

func (m *deltaFIFOModel) tf(obj any) (any, error) {
	if !m.transform {
		return obj, nil
	}
	return markTransform(obj)
}

// push applies the one dedup rule: a deletion after a deletion is dropped,
// unless the earlier one is a tombstone, which it then replaces.
func (m *deltaFIFOModel) push(key string, d Delta) {
	ds := m.pending[key]
	if len(ds) == 0 {
		m.keys = append(m.keys, key)
	}
	if n := len(ds); n > 0 && d.Type == Deleted && ds[n-1].Type == Deleted {
		if _, tomb := ds[n-1].Object.(DeletedFinalStateUnknown); tomb {
			ds[n-1] = d
		}
	} else {
		ds = append(ds, d)
	}
	m.pending[key] = ds
}

func (m *deltaFIFOModel) write(t DeltaType, obj any) error {
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return err
	}
	if t == Deleted {
		_, queued := m.pending[key]
		_, known := m.known[key]
		if !queued && (!m.hasKnown || (!known && !m.failing[key])) {
			m.populated = true
			return nil
		}
	}
	if _, tomb := obj.(DeletedFinalStateUnknown); !tomb {
		if obj, err = m.tf(obj); err != nil {
			return err
		}
	}
	m.populated = true
	m.push(key, Delta{t, obj})
	return nil
}

func (m *deltaFIFOModel) replace(list []any, _ string) error {
	keys, objs, err := modelListKeys(list, m.tf)
	if err != nil {
		return err
	}
	action := Sync
	if m.emitReplaced {
		action = Replaced
	}
	for i := range keys {
		m.push(keys[i], Delta{action, objs[i]})
	}
	deletions := 0
	for _, key := range slices.Clone(m.keys) {
		if slices.Contains(keys, key) {
			continue
		}
		last := m.pending[key][len(m.pending[key])-1].Object
		if tomb, ok := last.(DeletedFinalStateUnknown); ok {
			last = tomb.Obj
		}
		m.push(key, Delta{Deleted, DeletedFinalStateUnknown{Key: key, Obj: last}})
		deletions++
	}
	if m.hasKnown {
		for _, key := range slices.Sorted(maps.Keys(m.known)) {
			if _, queued := m.pending[key]; queued || slices.Contains(keys, key) {
				continue
			}
			var last any
			if !m.failing[key] {
				last = m.known[key]
			}
			m.push(key, Delta{Deleted, DeletedFinalStateUnknown{Key: key, Obj: last}})
			deletions++
		}
	}
	if !m.populated {
		m.populated = true
		distinct := map[string]bool{}
		for _, k := range keys {
			distinct[k] = true
		}
		m.initial = len(distinct) + deletions
	}
	return nil
}

func (m *deltaFIFOModel) resync() {
	if !m.hasKnown {
		return
	}
	for _, key := range slices.Sorted(maps.Keys(m.known)) {
		if _, queued := m.pending[key]; queued || m.failing[key] {
			continue
		}
		m.push(key, Delta{Sync, m.known[key]})
	}
}

// pop returns what Pop hands to process; ok is false when Pop would block.
func (m *deltaFIFOModel) pop() (deltas Deltas, initial bool, ok bool) {
	if len(m.keys) == 0 {
		return nil, false, false
	}
	initial = !m.synced()
	key := m.keys[0]
	m.keys = m.keys[1:]
	deltas = m.pending[key]
	delete(m.pending, key)
	if m.hasKnown {
		modelApply(m.known, deltas)
	}
	if m.initial > 0 {
		m.initial--
	}
	return deltas, initial, true
}

// newDeltaFIFOModelRun builds a DeltaFIFO and its model: cfg bit 0 gives it
// known objects, bits 3 to 6 known objects before the first Replace, bit 1
// makes it emit Replaced deltas, bit 2 gives it a transformer, and bit 7
// makes it queue bulks, as an informer's does, popped with popBatchKeyed.
func newDeltaFIFOModelRun(t *testing.T, cfg byte) modelRun {
	var discard klog.Logger // the zero logger discards; failed lookups would flood the fuzzer's output
	m := &deltaFIFOModel{
		hasKnown:     cfg&1 != 0,
		emitReplaced: cfg&2 != 0,
		transform:    cfg&4 != 0,
		pending:      map[string]Deltas{},
	}
	m.failing = map[string]bool{}
	opts := DeltaFIFOOptions{EmitDeltaTypeReplaced: m.emitReplaced, Logger: &discard}
	var known *stubKnownObjects
	if m.hasKnown {
		m.known, known = newModelKnown(cfg)
		opts.KnownObjects = known
	}
	if m.transform {
		opts.Transformer = markTransform
	}
	f := NewDeltaFIFOWithOptions(opts)
	bulks := cfg&128 != 0
	if bulks {
		f.takeBulks(func() int {
			if known == nil {
				return 0
			}
			return known.len()
		})
	}
	expandBulk := func() {
		f.mu.Lock()
		f.expandBulkLocked()
		f.mu.Unlock()
	}
	process := func(obj any, _ bool) error {
		if known != nil {
			known.apply(obj.(Deltas))
		}
		return nil
	}
	checkSynced := func(step int) {
		t.Helper()
		if got, want := f.HasSynced(), m.synced(); got != want {
			t.Fatalf("step %d pop: HasSynced() = %v, model says %v", step, got, want)
		}
	}
	// samePop fails unless a pop got what the model pops.
	samePop := func(step int, got any, gotInitial bool, want Deltas, wantInitial bool) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("step %d: popped deltas (-model +got):\n%s", step, diff)
		}
		if gotInitial != wantInitial {
			t.Fatalf("step %d: isInInitialList = %v, model says %v", step, gotInitial, wantInitial)
		}
	}
	popBulk := func(step int) {
		t.Helper()
		f.mu.Lock()
		pending := f.bulk != nil || len(f.queue) > 0
		f.mu.Unlock()
		if len(m.keys) == 0 && !pending {
			if !m.closed {
				return // the pop would block
			}
			if err := f.popBatchKeyed(
				func([]string, []Delta, bool) error { t.Fatalf("step %d: a batch from an empty FIFO", step); return nil },
				func(string, Deltas, bool) error { t.Fatalf("step %d: an item from an empty FIFO", step); return nil },
			); !errors.Is(err, ErrFIFOClosed) {
				t.Fatalf("step %d: popBatchKeyed on a closed empty FIFO = %v", step, err)
			}
			return
		}
		var batchKeys []string
		var batch, single Deltas
		var gotInitial bool
		err := f.popBatchKeyed(
			func(keys []string, deltas []Delta, initial bool) error {
				batchKeys, batch, gotInitial = keys, deltas, initial
				if known != nil {
					for _, d := range deltas {
						known.apply([]Delta{d})
					}
				}
				return nil
			},
			func(_ string, deltas Deltas, initial bool) error {
				single, gotInitial = deltas, initial
				return process(deltas, initial)
			},
		)
		if err != nil {
			t.Fatalf("step %d: popBatchKeyed: %v", step, err)
		}
		switch {
		case batch != nil:
			// The per-key items of the batch, keys in first-occurrence
			// order, are what the model pops.
			var order []string
			byKey := map[string]Deltas{}
			for i, key := range batchKeys {
				if _, seen := byKey[key]; !seen {
					order = append(order, key)
				}
				byKey[key] = append(byKey[key], batch[i])
			}
			for i, key := range order {
				wantDeltas, wantInitial, ok := m.pop()
				if !ok {
					t.Fatalf("step %d: the batch holds %v, the model nothing more", step, key)
				}
				if diff := cmp.Diff(wantDeltas, byKey[key]); diff != "" {
					t.Fatalf("step %d: batch deltas of %s (-model +got):\n%s", step, key, diff)
				}
				if i == 0 && gotInitial != wantInitial {
					t.Fatalf("step %d: isInInitialList = %v, model says %v", step, gotInitial, wantInitial)
				}
			}
		case len(single) == 1 && single[0].Type == SyncAll:
			// A resync of everything: the model has queued a Sync of every
			// known object it could look up, and nothing else.
			for len(m.keys) > 0 {
				d, _, _ := m.pop()
				if len(d) != 1 || d[0].Type != Sync {
					t.Fatalf("step %d: SyncAll popped where the model pops %v", step, d)
				}
			}
		default:
			wantDeltas, wantInitial, ok := m.pop()
			if !ok {
				t.Fatalf("step %d: popped %v, the model is empty", step, single)
			}
			samePop(step, single, gotInitial, wantDeltas, wantInitial)
		}
		checkSynced(step)
	}
	pop := func(step int, kind byte) {
		t.Helper()
		if bulks && kind != 0 {
			popBulk(step)
			return
		}
		if bulks {
			expandBulk() // Pop expands a pending bulk; the checks below count keys
		}
		wantDeltas, wantInitial, ok := m.pop()
		if !ok {
			if got := deltaFIFOLen(f); got != 0 {
				t.Fatalf("step %d: the model is empty, the FIFO holds %d keys", step, got)
			}
			if !m.closed {
				return // Pop would block
			}
			_, err := f.Pop(process)
			if !errors.Is(err, ErrFIFOClosed) {
				t.Fatalf("step %d: Pop on a closed empty FIFO = %v", step, err)
			}
			return
		}
		if deltaFIFOLen(f) == 0 {
			t.Fatalf("step %d: the FIFO is empty, the model pops %v", step, wantDeltas)
		}
		var gotInitial bool
		item, err := f.Pop(func(obj any, initial bool) error {
			gotInitial = initial
			return process(obj, initial)
		})
		if err != nil {
			t.Fatalf("step %d: Pop: %v", step, err)
		}
		samePop(step, item, gotInitial, wantDeltas, wantInitial)
		checkSynced(step)
	}
	run := modelRun{queue: f, model: m, known: known, pop: pop}
	if bulks {
		// A pending resync bulk reads the known objects when it is
		// expanded or popped (in an informer nothing else changes them
		// meanwhile): expand it before a lookup starts or stops failing.
		run.beforeLookupChange = expandBulk
		// A resync of objects the model could not look up, if pending.
		run.finish = func() {
			popBulk(2000)
			popBulk(2002)
		}
	}
	return run
}
