package cache

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// deltaFIFOLen returns the number of queued keys.
func deltaFIFOLen(f *DeltaFIFO) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue)
}

// drainDeltaFIFO pops every queued key.
func drainDeltaFIFO(t testing.TB, f *DeltaFIFO) []Deltas {
	t.Helper()
	var out []Deltas
	for deltaFIFOLen(f) > 0 {
		out = append(out, popNow(t, f).Item.(Deltas))
	}
	return out
}

// transformed returns markTransform(obj).
func transformed(obj *metav1.PartialObjectMetadata) *metav1.PartialObjectMetadata {
	out, _ := markTransform(obj)
	return out.(*metav1.PartialObjectMetadata)
}

func tomb(name string, obj any) DeletedFinalStateUnknown {
	return DeletedFinalStateUnknown{Key: qkey(name), Obj: obj}
}

func TestDeltaFIFODeltas(t *testing.T) {
	a1, a2, b1, c1 := qobj("a", "1"), qobj("a", "2"), qobj("b", "1"), qobj("c", "1")
	tests := []queueCase[*DeltaFIFO, DeltaFIFOOptions, []Deltas]{
		{
			name: "deltas accumulate per key in first-queued order",
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Add(a1), f.Add(b1), f.Update(a2), f.Delete(a2))
			},
			want: []Deltas{
				{{Added, a1}, {Updated, a2}, {Deleted, a2}},
				{{Added, b1}},
			},
			wantSync: true,
		},
		{
			name: "consecutive deletions keep the older one",
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Add(a1), f.Delete(a1), f.Delete(a2))
			},
			want:     []Deltas{{{Added, a1}, {Deleted, a1}}},
			wantSync: true,
		},
		{
			name:  "a real deletion replaces a queued tombstone",
			known: []*metav1.PartialObjectMetadata{a1},
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Replace(nil, "5"), f.Delete(a2))
			},
			want: []Deltas{{{Deleted, a2}}},
		},
		{
			name: "a tombstone after a real deletion is dropped",
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Add(a1), f.Delete(a1), f.Replace(nil, "5"))
			},
			want:     []Deltas{{{Added, a1}, {Deleted, a1}}},
			wantSync: true,
		},
		{
			name: "deletions of unqueued keys are dropped without known objects",
			ops: func(f *DeltaFIFO) error {
				return f.Delete(a1)
			},
			wantSync: true,
		},
		{
			name:  "deletions are dropped only if neither queued nor known",
			known: []*metav1.PartialObjectMetadata{a1},
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Delete(a2), f.Delete(b1))
			},
			want:     []Deltas{{{Deleted, a2}}},
			wantSync: true,
		},
		{
			name:    "a failed lookup does not drop a deletion",
			known:   []*metav1.PartialObjectMetadata{},
			failing: []string{qkey("b")},
			ops: func(f *DeltaFIFO) error {
				return f.Delete(b1)
			},
			want:     []Deltas{{{Deleted, b1}}},
			wantSync: true,
		},
		{
			name: "Replace emits Sync by default",
			ops: func(f *DeltaFIFO) error {
				return f.Replace([]any{a1, b1}, "5")
			},
			want: []Deltas{{{Sync, a1}}, {{Sync, b1}}},
		},
		{
			name: "Replace emits Replaced when asked, duplicates included",
			opts: DeltaFIFOOptions{EmitDeltaTypeReplaced: true},
			ops: func(f *DeltaFIFO) error {
				return f.Replace([]any{b1, a1, a2}, "5")
			},
			want: []Deltas{{{Replaced, b1}}, {{Replaced, a1}, {Replaced, a2}}},
		},
		{
			name: "Replace tombstones queued keys with their newest object",
			opts: DeltaFIFOOptions{EmitDeltaTypeReplaced: true},
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Add(a1), f.Update(a2), f.Replace([]any{b1}, "5"))
			},
			want: []Deltas{
				{{Added, a1}, {Updated, a2}, {Deleted, tomb("a", a2)}},
				{{Replaced, b1}},
			},
			wantSync: true,
		},
		{
			name:  "Replace tombstones known keys, unwrapping queued tombstones",
			opts:  DeltaFIFOOptions{EmitDeltaTypeReplaced: true},
			known: []*metav1.PartialObjectMetadata{a1, b1},
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Replace([]any{c1}, "5"), f.Replace([]any{c1}, "6"))
			},
			want: []Deltas{
				{{Replaced, c1}, {Replaced, c1}},
				{{Deleted, tomb("a", a1)}},
				{{Deleted, tomb("b", b1)}},
			},
		},
		{
			name:    "Replace tombstones without object when the known object cannot be read",
			opts:    DeltaFIFOOptions{EmitDeltaTypeReplaced: true},
			known:   []*metav1.PartialObjectMetadata{a1, b1},
			failing: []string{qkey("a")},
			phantom: []string{qkey("z")},
			ops: func(f *DeltaFIFO) error {
				return f.Replace([]any{b1}, "5")
			},
			want: []Deltas{
				{{Replaced, b1}},
				{{Deleted, tomb("a", nil)}},
				{{Deleted, tomb("z", nil)}},
			},
		},
		{
			name:  "Resync syncs known keys with nothing queued",
			known: []*metav1.PartialObjectMetadata{a1, b1, c1},
			opts:  DeltaFIFOOptions{Transformer: markTransform},
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Add(qobj("b", "2")), f.Resync())
			},
			want: []Deltas{
				{{Added, transformed(qobj("b", "2"))}},
				{{Sync, a1}}, // known objects are not transformed again
				{{Sync, c1}},
			},
			wantSync: true,
		},
		{
			name:    "Resync skips keys it cannot read",
			known:   []*metav1.PartialObjectMetadata{a1, b1},
			failing: []string{qkey("a")},
			phantom: []string{qkey("z")},
			ops: func(f *DeltaFIFO) error {
				return f.Resync()
			},
			want: []Deltas{{{Sync, b1}}},
		},
		{
			name: "Resync does nothing without known objects",
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Add(a1), f.Resync())
			},
			want:     []Deltas{{{Added, a1}}},
			wantSync: true,
		},
		{
			name:  "the transformer sees every object but tombstones and resyncs",
			known: []*metav1.PartialObjectMetadata{c1},
			opts:  DeltaFIFOOptions{Transformer: markTransform},
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Add(a1), f.Update(a2), f.Delete(a2), f.Replace([]any{b1}, "5"), f.Delete(DeletedFinalStateUnknown{Key: qkey("a")}))
			},
			want: []Deltas{
				{{Added, transformed(a1)}, {Updated, transformed(a2)}, {Deleted, transformed(a2)}},
				{{Sync, transformed(b1)}},
				{{Deleted, tomb("c", c1)}},
			},
			wantSync: true,
		},
		{
			name: "a failing transformer leaves the FIFO unchanged",
			opts: DeltaFIFOOptions{Transformer: markTransform, EmitDeltaTypeReplaced: true},
			ops: func(f *DeltaFIFO) error {
				return errors.Join(
					f.Add(a1),
					f.Add(qobj("bad", "1")),
					f.Update(qobj("bad", "2")),
					f.Replace([]any{b1, qobj("bad", "3")}, "5"),
				)
			},
			want:     []Deltas{{{Added, transformed(a1)}}},
			wantErr:  errBadTransform,
			wantSync: true,
		},
		{
			name: "a failing transformer is not consulted for dropped deletions",
			opts: DeltaFIFOOptions{Transformer: markTransform},
			ops: func(f *DeltaFIFO) error {
				return f.Delete(qobj("bad", "1"))
			},
			wantSync: true,
		},
		{
			name: "key errors leave the FIFO unchanged",
			ops: func(f *DeltaFIFO) error {
				return errors.Join(f.Add("no meta"), f.Replace([]any{a1, nil}, "5"), f.Add(b1))
			},
			want:     []Deltas{{{Added, b1}}},
			keyErr:   true,
			wantSync: true,
		},
	}
	runQueueCases(t, tests, func(opts DeltaFIFOOptions, known KeyListerGetter) *DeltaFIFO {
		opts.KnownObjects = known
		return NewDeltaFIFOWithOptions(opts)
	}, drainDeltaFIFO)
}

func TestDeltaFIFOInitialBatch(t *testing.T) {
	known := newStubKnownObjects(qobj("gone", "1"), qobj("a", "1"))
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: true})
	// Two distinct listed keys (one listed twice) and one tombstone.
	if err := f.Replace([]any{qobj("a", "2"), qobj("b", "1"), qobj("a", "3")}, "5"); err != nil {
		t.Fatal(err)
	}
	// A second Replace does not redefine the first batch.
	if err := f.Replace([]any{qobj("a", "4"), qobj("b", "1")}, "6"); err != nil {
		t.Fatal(err)
	}
	var flags []bool
	for range 3 {
		if f.HasSynced() {
			t.Fatalf("synced after %d of 3 initial keys", len(flags))
		}
		flags = append(flags, popNow(t, f).IsInInitialList)
	}
	if !f.HasSynced() {
		t.Fatal("not synced after the initial keys were popped")
	}
	if diff := cmp.Diff([]bool{true, true, true}, flags); diff != "" {
		t.Errorf("isInInitialList (-want +got):\n%s", diff)
	}
}

func TestDeltaFIFOPopHoldsTheLock(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{})
	if err := f.Add(qobj("a", "1")); err != nil {
		t.Fatal(err)
	}
	_, err := f.Pop(func(any, bool) error {
		if f.mu.TryLock() {
			f.mu.Unlock()
			t.Error("process runs without the FIFO's lock")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDropFront(t *testing.T) {
	tests := []struct {
		name             string
		len, cap, n      int
		wantLen, wantCap int
	}{
		{name: "some", len: 3, cap: 4, n: 1, wantLen: 2, wantCap: 3},
		{name: "all of a small queue rewinds", len: 3, cap: 4, n: 3, wantLen: 0, wantCap: 4},
		{name: "all of a large queue lets it go", len: 3, cap: maxReusedQueueCap + 1, n: 3, wantLen: 0, wantCap: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := make([]*int, tc.len, tc.cap)
			for i := range s {
				s[i] = new(int)
			}
			got := dropFront(s, tc.n)
			if len(got) != tc.wantLen || cap(got) != tc.wantCap {
				t.Errorf("len %d cap %d, want len %d cap %d", len(got), cap(got), tc.wantLen, tc.wantCap)
			}
			for i, p := range s[:tc.n] {
				if p != nil {
					t.Errorf("dropped element %d still set", i)
				}
			}
		})
	}
}

func TestDeltaFIFOKeyOf(t *testing.T) {
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{})
	tests := []struct {
		name    string
		obj     any
		want    string
		wantErr error
	}{
		{name: "object", obj: qobj("a", "1"), want: "ns/a"},
		{name: "explicit key", obj: ExplicitKey("x/y"), want: "x/y"},
		{name: "tombstone", obj: DeletedFinalStateUnknown{Key: "k"}, want: "k"},
		{name: "deltas use the newest", obj: Deltas{{Added, qobj("a", "1")}, {Deleted, DeletedFinalStateUnknown{Key: "t"}}}, want: "t"},
		{name: "empty deltas", obj: Deltas{}, wantErr: ErrZeroLengthDeltasObject},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.KeyOf(tc.obj)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("KeyOf error = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("KeyOf = %q, want %q", got, tc.want)
			}
		})
	}
	var keyErr KeyError
	if _, err := f.KeyOf(Deltas{}); !errors.As(err, &keyErr) {
		t.Errorf("empty Deltas: %v is not a KeyError", err)
	}
	if _, err := f.KeyOf(nil); err == nil {
		t.Error("KeyOf(nil) succeeded")
	}
}

func TestDeltaFIFOConstruction(t *testing.T) {
	logger := bufferedLogger(t)
	known := newStubKnownObjects(qobj("a", "1"))
	known.setFailing(qkey("a"), true)
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{Name: "pods", Logger: &logger, KnownObjects: known, Transformer: markTransform})
	if got := f.Name(); got != "pods" {
		t.Errorf("Name() = %q, want pods", got)
	}
	if f.Transformer() == nil {
		t.Error("Transformer() lost the transformer")
	}
	if f.HasSyncedChecker() != DoneChecker(f) {
		t.Error("HasSyncedChecker() is not the FIFO")
	}
	if err := f.Replace(nil, "1"); err != nil {
		t.Fatal(err)
	}
	if out := logOutput(logger); !strings.Contains(out, "pods") || !strings.Contains(out, errStubLookup.Error()) {
		t.Errorf("the failed lookup was not logged under the FIFO's name:\n%s", out)
	}

	d := NewDeltaFIFO(nil, nil)
	if got := d.Name(); got != "DeltaFIFO" {
		t.Errorf("default Name() = %q", got)
	}
	if d.Transformer() != nil {
		t.Error("default Transformer() is not nil")
	}
	if err := d.Add(qobj("a", "1")); err != nil { // default key function
		t.Fatal(err)
	}
}

// benchKnownObjects is a KeyListerGetter whose ListKeys costs nothing, so
// benchmarks measure the queue.
type benchKnownObjects struct {
	keys []string
	objs map[string]any
}

func (k *benchKnownObjects) ListKeys() []string { return k.keys }

func (k *benchKnownObjects) GetByKey(key string) (any, bool, error) {
	obj, ok := k.objs[key]
	return obj, ok, nil
}

func benchObjects(n int) []any {
	objs := make([]any, n)
	for i := range objs {
		objs[i] = qobj(fmt.Sprintf("obj-%06d", i), "1")
	}
	return objs
}

func noopProcess(any, bool) error { return nil }

// benchmarkAddPop measures one Pop and one Add of the queues newQueue builds,
// with 100 and with 10,000 items queued (sub-benchmarks label=n): each
// iteration pops the oldest item and queues an object again.
func benchmarkAddPop(b *testing.B, label string, newQueue func() Queue) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("%s=%d", label, n), func(b *testing.B) {
			objs := benchObjects(n)
			q := newQueue()
			for _, obj := range objs {
				if err := q.Add(obj); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := q.Pop(noopProcess); err != nil {
					b.Fatal(err)
				}
				if err := q.Add(objs[i%n]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDeltaFIFOAddPop measures one Pop and one Add with the given number
// of keys queued: each iteration pops the oldest key and queues it again.
func BenchmarkDeltaFIFOAddPop(b *testing.B) {
	benchmarkAddPop(b, "keys", func() Queue { return NewDeltaFIFOWithOptions(DeltaFIFOOptions{}) })
}

// BenchmarkDeltaFIFOAddPopIntoStore measures the per-event work of an
// informer's DeltaFIFO pipeline, without the handlers: an update is queued,
// popped and written into the store that is the FIFO's known objects, as
// the informers' processing does it. Allocations: the FIFO's key (which the
// store keeps) and the key's Deltas.
func BenchmarkDeltaFIFOAddPopIntoStore(b *testing.B) {
	const n = 10_000
	objs := benchObjects(n)
	known := newCache(DeletionHandlingMetaNamespaceKeyFunc, Indexers{}, nil)
	for _, obj := range objs {
		if err := known.Add(obj); err != nil {
			b.Fatal(err)
		}
	}
	p := newInformerPipeline(pipelineConfig{
		logger:     discardLogger(),
		objectType: objs[0],
		clock:      realClock,
		store:      known,
		handler:    ResourceEventHandlerFuncs{},
	})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := p.queue.Update(objs[i%n]); err != nil {
			b.Fatal(err)
		}
		if err := p.pop(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeltaFIFOReplace measures a relist of 100k objects into a fresh
// FIFO, without known objects and with 100k known objects (a tenth of them
// missing from the list, so they get tombstones).
func BenchmarkDeltaFIFOReplace(b *testing.B) {
	const n = 100_000
	objs := benchObjects(n)
	known := &benchKnownObjects{objs: map[string]any{}}
	for _, obj := range objs {
		key, _ := MetaNamespaceKeyFunc(obj)
		known.keys = append(known.keys, key)
		known.objs[key] = obj
	}
	list := objs[:n-n/10]
	for _, tc := range []struct {
		name  string
		known KeyListerGetter
	}{{"known=none", nil}, {"known=100000", known}} {
		b.Run(fmt.Sprintf("items=%d/%s", len(list), tc.name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: tc.known, EmitDeltaTypeReplaced: true})
				if err := f.Replace(list, "1"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
