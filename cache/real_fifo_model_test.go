package cache

import (
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2"
)

// realFIFOModel is the documented behaviour of a RealFIFO, written as plainly
// as possible: a list of deltas.
type realFIFOModel struct {
	atomic, transform, bookmarks bool

	known   map[string]any // the consumer's store (non-atomic mode only)
	failing map[string]bool

	items []Delta

	populated bool
	initial   int // initial-batch deltas not yet processed
	closed    bool
}

func (m *realFIFOModel) synced() bool { return m.populated && m.initial == 0 }

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
	keys := []string{}
	objs := make([]any, 0, len(list))
	for _, obj := range list {
		key, err := MetaNamespaceKeyFunc(obj)
		if err != nil {
			return err
		}
		t, err := m.tf(obj)
		if err != nil {
			return err
		}
		keys, objs = append(keys, key), append(objs, t)
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

// runRealFIFOModel drives a RealFIFO and its model with the operations
// encoded in data and fails on the first difference.
func runRealFIFOModel(t *testing.T, data []byte) {
	r := &opReader{data: data}
	cfg := r.next()
	var discard klog.Logger // the zero logger discards; failed lookups would flood the fuzzer's output
	m := &realFIFOModel{
		atomic:    cfg&1 != 0,
		transform: cfg&2 != 0,
		failing:   map[string]bool{},
	}
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
		// The consumer may know objects before the first Replace.
		m.known = map[string]any{}
		known = newStubKnownObjects()
		for i, name := range modelNames {
			if cfg&(8<<i) != 0 {
				m.known[qkey(name)] = qobj(name, "0")
				known.set(qkey(name), qobj(name, "0"))
			}
		}
		opts.KnownObjects = known
	}
	f := NewRealFIFOWithOptions(opts)
	apply := func(deltas []Delta) {
		if known != nil {
			known.apply(deltas)
		}
	}
	check := func(step int, what string, gotErr, wantErr error) {
		t.Helper()
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("step %d %s: error %v, model says %v", step, what, gotErr, wantErr)
		}
		if got, want := f.HasSynced(), m.synced(); got != want {
			t.Fatalf("step %d %s: HasSynced() = %v, model says %v", step, what, got, want)
		}
	}
	type popped struct {
		Deltas  []Delta
		Initial bool
		Single  bool
	}
	comparePop := func(step int, batch bool) {
		t.Helper()
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
		check(step, "pop", nil, nil)
	}

	rv := 0
	for step := 0; r.more(); step++ {
		rv++
		op, arg := r.next(), r.next()
		name := modelNames[int(arg)%len(modelNames)]
		obj := qobj(name, strconv.Itoa(rv))
		switch op % 12 {
		case 0:
			check(step, "Add", f.Add(obj), m.write(Added, obj))
		case 1:
			check(step, "Update", f.Update(obj), m.write(Updated, obj))
		case 2:
			check(step, "Delete", f.Delete(obj), m.write(Deleted, obj))
		case 3:
			list := modelList(arg, rv)
			check(step, "Replace", f.Replace(list, strconv.Itoa(rv)), m.replace(list, strconv.Itoa(rv)))
		case 4:
			m.resync()
			check(step, "Resync", f.Resync(), nil)
		case 5:
			m.bookmark(strconv.Itoa(rv))
			check(step, "Bookmark", f.Bookmark(strconv.Itoa(rv)), nil)
		case 6, 7:
			comparePop(step, false)
		case 8:
			comparePop(step, true)
		case 9:
			f.Close()
			m.closed = true
			check(step, "Close", nil, nil)
		case 10:
			bad := []any{"junk", nil, qobj("bad", strconv.Itoa(rv))}[int(arg)%3]
			check(step, "Add(bad)", f.Add(bad), m.write(Added, bad))
		case 11:
			if known != nil {
				known.setFailing(qkey(name), !m.failing[qkey(name)])
				m.failing[qkey(name)] = !m.failing[qkey(name)]
			}
		}
	}
	f.Close()
	m.closed = true
	for step := 0; len(m.items) > 0; step++ {
		comparePop(1000+step, step%2 == 0)
	}
	comparePop(2000, false) // closed and empty
}

// TestRealFIFOMatchesModel runs random operation sequences against the
// model.
func TestRealFIFOMatchesModel(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 3))
		data := make([]byte, 1+2*r.IntN(150))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			runRealFIFOModel(t, data)
		})
	}
}

func FuzzRealFIFO(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 1, 6, 0})
	f.Add([]byte{0x7f, 3, 0x3f, 2, 1, 8, 0, 3, 0, 6, 0, 8, 0})
	f.Add([]byte{0x0f, 5, 0, 3, 0x0f, 4, 0, 5, 0, 8, 0, 6, 0})
	f.Add([]byte{0x38, 0, 0, 3, 1, 11, 2, 3, 0, 8, 0, 4, 0, 8, 0})
	f.Fuzz(runRealFIFOModel)
}
