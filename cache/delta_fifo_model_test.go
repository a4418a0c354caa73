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

// deltaFIFOModel is the documented behaviour of a DeltaFIFO, written as
// plainly as possible: a list of keys and a map of pending deltas.
type deltaFIFOModel struct {
	hasKnown, emitReplaced, transform bool

	known   map[string]any  // the consumer's store; nil without known objects
	failing map[string]bool // known keys whose lookup fails

	keys    []string // queued keys, oldest first
	pending map[string]Deltas

	populated bool
	initial   int // initial-batch keys not yet processed
	closed    bool
}

func (m *deltaFIFOModel) synced() bool { return m.populated && m.initial == 0 }

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

func (m *deltaFIFOModel) replace(list []any) error {
	var keys []string
	var objs []any
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

// runDeltaFIFOModel drives a DeltaFIFO and its model with the operations
// encoded in data and fails on the first difference.
func runDeltaFIFOModel(t *testing.T, data []byte) {
	r := &opReader{data: data}
	cfg := r.next()
	var discard klog.Logger // the zero logger discards; failed lookups would flood the fuzzer's output
	m := &deltaFIFOModel{
		hasKnown:     cfg&1 != 0,
		emitReplaced: cfg&2 != 0,
		transform:    cfg&4 != 0,
		failing:      map[string]bool{},
		pending:      map[string]Deltas{},
	}
	opts := DeltaFIFOOptions{EmitDeltaTypeReplaced: m.emitReplaced, Logger: &discard}
	var known *stubKnownObjects
	if m.hasKnown {
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
	if m.transform {
		opts.Transformer = markTransform
	}
	f := NewDeltaFIFOWithOptions(opts)
	process := func(obj any, _ bool) error {
		if known != nil {
			known.apply(obj.(Deltas))
		}
		return nil
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
	comparePop := func(step int) {
		t.Helper()
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
		if diff := cmp.Diff(wantDeltas, item); diff != "" {
			t.Fatalf("step %d: popped deltas (-model +got):\n%s", step, diff)
		}
		if gotInitial != wantInitial {
			t.Fatalf("step %d: isInInitialList = %v, model says %v", step, gotInitial, wantInitial)
		}
		check(step, "Pop", nil, nil)
	}

	rv := 0
	for step := 0; r.more(); step++ {
		rv++
		op, arg := r.next(), r.next()
		name := modelNames[int(arg)%len(modelNames)]
		obj := qobj(name, strconv.Itoa(rv))
		switch op % 11 {
		case 0:
			check(step, "Add", f.Add(obj), m.write(Added, obj))
		case 1:
			check(step, "Update", f.Update(obj), m.write(Updated, obj))
		case 2:
			check(step, "Delete", f.Delete(obj), m.write(Deleted, obj))
		case 3:
			tomb := DeletedFinalStateUnknown{Key: qkey(name), Obj: obj}
			check(step, "Delete(tombstone)", f.Delete(tomb), m.write(Deleted, tomb))
		case 4:
			list := modelList(arg, rv)
			check(step, "Replace", f.Replace(list, strconv.Itoa(rv)), m.replace(list))
		case 5:
			m.resync()
			check(step, "Resync", f.Resync(), nil)
		case 6, 7:
			comparePop(step)
		case 8:
			f.Close()
			m.closed = true
			check(step, "Close", nil, nil)
		case 9:
			bad := []any{"junk", nil, qobj("bad", strconv.Itoa(rv))}[int(arg)%3]
			check(step, "Add(bad)", f.Add(bad), m.write(Added, bad))
		case 10:
			if known != nil {
				known.setFailing(qkey(name), !m.failing[qkey(name)])
				m.failing[qkey(name)] = !m.failing[qkey(name)]
			}
		}
	}
	f.Close()
	m.closed = true
	for step := 0; len(m.keys) > 0; step++ {
		comparePop(1000 + step)
	}
	comparePop(2000) // closed and empty
}

// TestDeltaFIFOMatchesModel runs random operation sequences against the
// model.
func TestDeltaFIFOMatchesModel(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 2))
		data := make([]byte, 1+2*r.IntN(150))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			runDeltaFIFOModel(t, data)
		})
	}
}

func FuzzDeltaFIFO(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 1, 6, 0})
	f.Add([]byte{7, 4, 0x3f, 2, 1, 6, 0, 4, 0, 6, 0, 6, 0})
	f.Add([]byte{1, 0, 0, 6, 0, 4, 0, 5, 0, 10, 1, 4, 2, 6, 0, 6, 0})
	f.Add([]byte{3, 4, 0x1f, 8, 0, 0, 0, 6, 0, 9, 2})
	f.Fuzz(runDeltaFIFOModel)
}
