package cache

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	testingclock "k8s.io/utils/clock/testing"
)

// realFIFOLen returns the number of queued deltas.
func realFIFOLen(f *RealFIFO) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.items)
}

// drainRealFIFO pops every queued delta, one at a time.
func drainRealFIFO(t testing.TB, f *RealFIFO) []Delta {
	t.Helper()
	var out []Delta
	for realFIFOLen(f) > 0 {
		out = append(out, popNow(t, f).Item.(Deltas)...)
	}
	return out
}

func TestRealFIFODeltas(t *testing.T) {
	a1, a2, b1, c1 := qobj("a", "1"), qobj("a", "2"), qobj("b", "1"), qobj("c", "1")
	tests := []queueCase[*RealFIFO, RealFIFOOptions, []Delta]{
		{
			name:  "every write is one delta, deletions of unseen keys included",
			known: []*metav1.PartialObjectMetadata{},
			ops: func(f *RealFIFO) error {
				return errors.Join(f.Add(a1), f.Update(a2), f.Delete(b1), f.Delete(b1), f.Add(c1))
			},
			want:     []Delta{{Added, a1}, {Updated, a2}, {Deleted, b1}, {Deleted, b1}, {Added, c1}},
			wantSync: true,
		},
		{
			name: "atomic Replace queues one transformed ReplacedAll",
			opts: RealFIFOOptions{AtomicEvents: true, Transformer: markTransform},
			ops: func(f *RealFIFO) error {
				return f.Replace([]any{b1, a1}, "7")
			},
			want: []Delta{{ReplacedAll, ReplacedAllInfo{ResourceVersion: "7", Objects: []any{transformed(b1), transformed(a1)}}}},
		},
		{
			name: "atomic Resync queues SyncAll whatever is queued",
			opts: RealFIFOOptions{AtomicEvents: true},
			ops: func(f *RealFIFO) error {
				return errors.Join(f.Add(a1), f.Resync(), f.Resync())
			},
			want:     []Delta{{Added, a1}, {SyncAll, SyncAllInfo{}}, {SyncAll, SyncAllInfo{}}},
			wantSync: true,
		},
		{
			name: "bookmarks are queued when enabled",
			opts: RealFIFOOptions{AtomicEvents: true, EmitDeltaTypeBookmark: true},
			ops: func(f *RealFIFO) error {
				return errors.Join(f.Bookmark("3"), f.Add(a1), f.Bookmark("4"))
			},
			want:     []Delta{{Bookmark, BookmarkInfo{ResourceVersion: "3"}}, {Added, a1}, {Bookmark, BookmarkInfo{ResourceVersion: "4"}}},
			wantSync: true,
		},
		{
			name: "bookmarks are dropped when disabled and do not count as writes",
			opts: RealFIFOOptions{AtomicEvents: true},
			ops: func(f *RealFIFO) error {
				return f.Bookmark("3")
			},
		},
		{
			name:  "non-atomic Replace: tombstones, then Replaced in list order",
			known: []*metav1.PartialObjectMetadata{b1, c1},
			opts:  RealFIFOOptions{Transformer: markTransform},
			ops: func(f *RealFIFO) error {
				return errors.Join(
					f.Add(qobj("x", "1")), f.Update(qobj("x", "2")), // queued, vanishes: tombstone with its last object
					f.Add(qobj("y", "1")), f.Delete(qobj("y", "1")), // queued, last delta a deletion: no tombstone
					f.Update(qobj("b", "2")), // queued and known, vanishes: tombstone from the queue only
					f.Replace([]any{a1, qobj("x", "3")}, "9"),
				)
			},
			want: []Delta{
				{Added, transformed(qobj("x", "1"))},
				{Updated, transformed(qobj("x", "2"))},
				{Added, transformed(qobj("y", "1"))},
				{Deleted, transformed(qobj("y", "1"))},
				{Updated, transformed(qobj("b", "2"))},
				{Deleted, tomb("b", transformed(qobj("b", "2")))},
				{Deleted, tomb("c", c1)},
				{Replaced, transformed(a1)},
				{Replaced, transformed(qobj("x", "3"))},
			},
			wantSync: true,
		},
		{
			name:    "non-atomic Replace tombstones unreadable known objects without object",
			known:   []*metav1.PartialObjectMetadata{a1, b1},
			failing: []string{qkey("a")},
			phantom: []string{qkey("z")},
			ops: func(f *RealFIFO) error {
				return f.Replace(nil, "9")
			},
			want: []Delta{{Deleted, tomb("a", nil)}, {Deleted, tomb("b", b1)}, {Deleted, tomb("z", nil)}},
		},
		{
			name:    "non-atomic Resync syncs known keys with nothing queued",
			known:   []*metav1.PartialObjectMetadata{a1, b1, c1},
			failing: []string{qkey("c")},
			phantom: []string{qkey("z")},
			opts:    RealFIFOOptions{Transformer: markTransform},
			ops: func(f *RealFIFO) error {
				return errors.Join(f.Delete(qobj("b", "2")), f.Resync())
			},
			want:     []Delta{{Deleted, transformed(qobj("b", "2"))}, {Sync, a1}},
			wantSync: true,
		},
		{
			name:  "a failing transformer leaves the FIFO unchanged",
			known: []*metav1.PartialObjectMetadata{},
			opts:  RealFIFOOptions{Transformer: markTransform},
			ops: func(f *RealFIFO) error {
				return errors.Join(f.Add(qobj("bad", "1")), f.Replace([]any{a1, qobj("bad", "2")}, "1"), f.Add(b1))
			},
			want:     []Delta{{Added, transformed(b1)}},
			wantErr:  errBadTransform,
			wantSync: true,
		},
		{
			name: "a failing transformer leaves an atomic FIFO unchanged",
			opts: RealFIFOOptions{AtomicEvents: true, Transformer: markTransform},
			ops: func(f *RealFIFO) error {
				return f.Replace([]any{a1, qobj("bad", "2")}, "1")
			},
			wantErr: errBadTransform,
		},
	}
	runQueueCases(t, tests, func(opts RealFIFOOptions, known KeyListerGetter) *RealFIFO {
		opts.KnownObjects = known
		return NewRealFIFOWithOptions(opts)
	}, drainRealFIFO)
}

func TestRealFIFOInitialBatch(t *testing.T) {
	known := newStubKnownObjects(qobj("gone", "1"))
	f := NewRealFIFOWithOptions(RealFIFOOptions{KnownObjects: known})
	if err := f.Replace([]any{qobj("a", "1"), qobj("b", "1"), qobj("a", "2")}, "5"); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(qobj("c", "1")); err != nil {
		t.Fatal(err)
	}
	// Initial batch: one tombstone and three Replaced deltas.
	var flags []bool
	for range 5 {
		flags = append(flags, popNow(t, f).IsInInitialList)
	}
	if diff := cmp.Diff([]bool{true, true, true, true, false}, flags); diff != "" {
		t.Errorf("isInInitialList (-want +got):\n%s", diff)
	}
}

func TestRealFIFOBookmarkBeforeReplace(t *testing.T) {
	f := NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true, EmitDeltaTypeBookmark: true, UnlockWhileProcessing: true})
	if err := f.Bookmark("1"); err != nil {
		t.Fatal(err)
	}
	// While the bookmark is being processed, the first Replace arrives.
	_, err := f.Pop(func(any, bool) error {
		return f.Replace([]any{qobj("a", "1")}, "2")
	})
	if err != nil {
		t.Fatal(err)
	}
	if f.HasSynced() {
		t.Fatal("processing the bookmark counted towards the initial batch")
	}
	if got := popNow(t, f); !got.IsInInitialList || got.Item.(Deltas)[0].Type != ReplacedAll {
		t.Errorf("popped %+v, want the initial ReplacedAll", got)
	}
	if !f.HasSynced() {
		t.Error("not synced after the ReplacedAll was processed")
	}
}

func TestRealFIFOInconsistentOptions(t *testing.T) {
	known := newStubKnownObjects(qobj("a", "1"))
	tests := []struct {
		name       string
		opts       RealFIFOOptions
		wantAtomic bool
		wantUnlock bool
		wantBook   bool
		wantKnown  bool // the given known objects are used
		wantLog    string
	}{
		{
			name:      "consistent non-atomic",
			opts:      RealFIFOOptions{KnownObjects: known},
			wantKnown: true,
		},
		{
			name:       "consistent atomic",
			opts:       RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true},
			wantAtomic: true, wantUnlock: true, wantBook: true,
		},
		{
			name:       "known objects with atomic events are ignored",
			opts:       RealFIFOOptions{AtomicEvents: true, KnownObjects: known},
			wantAtomic: true,
			wantLog:    "KnownObjects is not used with AtomicEvents",
		},
		{
			name:      "unlocking without atomic events is ignored",
			opts:      RealFIFOOptions{KnownObjects: known, UnlockWhileProcessing: true},
			wantKnown: true,
			wantLog:   "UnlockWhileProcessing requires AtomicEvents",
		},
		{
			name:      "bookmarks without atomic events are ignored",
			opts:      RealFIFOOptions{KnownObjects: known, EmitDeltaTypeBookmark: true},
			wantKnown: true,
			wantLog:   "EmitDeltaTypeBookmark requires AtomicEvents",
		},
		{
			name:    "no known objects without atomic events means none are known",
			opts:    RealFIFOOptions{},
			wantLog: "KnownObjects is required without AtomicEvents",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger := bufferedLogger(t)
			tc.opts.Logger = &logger
			f := NewRealFIFOWithOptions(tc.opts)
			got := []bool{f.atomicEvents, f.unlockBelow > 0, f.emitDeltaTypeBookmark, f.knownObjects == KeyListerGetter(known)}
			want := []bool{tc.wantAtomic, tc.wantUnlock, tc.wantBook, tc.wantKnown}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("atomic, unlock, bookmark, known (-want +got):\n%s", diff)
			}
			out := logOutput(logger)
			if tc.wantLog == "" && out != "" {
				t.Errorf("unexpected log output:\n%s", out)
			}
			if !strings.Contains(out, tc.wantLog) || (tc.wantLog != "" && !strings.Contains(out, "ERROR")) {
				t.Errorf("log output does not contain an error %q:\n%s", tc.wantLog, out)
			}
			// Whatever the options, the FIFO works.
			if err := errors.Join(f.Add(qobj("b", "1")), f.Replace([]any{qobj("b", "2")}, "2"), f.Resync(), f.Bookmark("3")); err != nil {
				t.Fatal(err)
			}
			drainRealFIFO(t, f)
		})
	}
}

func TestRealFIFOUnlockWhileProcessing(t *testing.T) {
	tests := []struct {
		name       string
		opts       RealFIFOOptions
		queued     int // deltas left in the queue while processing
		wantLocked bool
	}{
		{name: "locked by default", opts: RealFIFOOptions{AtomicEvents: true}, wantLocked: true},
		{name: "unlocked for a short queue", opts: RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true}, queued: 2*defaultBatchSize - 1},
		{name: "locked for a long queue", opts: RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true}, queued: 2 * defaultBatchSize, wantLocked: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := func(f *RealFIFO) {
				locked := !f.mu.TryLock()
				if !locked {
					f.mu.Unlock()
				}
				if locked != tc.wantLocked {
					t.Errorf("lock held while processing = %v, want %v", locked, tc.wantLocked)
				}
			}
			fill := func(n int) *RealFIFO {
				f := NewRealFIFOWithOptions(tc.opts)
				for i := range n {
					if err := f.Add(qobj(fmt.Sprint(i), "1")); err != nil {
						t.Fatal(err)
					}
				}
				return f
			}
			f := fill(tc.queued + 1)
			if _, err := f.Pop(func(any, bool) error { check(f); return nil }); err != nil {
				t.Fatal(err)
			}
			g := fill(tc.queued + defaultBatchSize) // one full batch is popped
			if err := g.PopBatch(func([]Delta, bool) error { check(g); return nil }, nil); err != nil {
				t.Fatal(err)
			}
			if got := realFIFOLen(g); got != tc.queued {
				t.Errorf("%d deltas left after PopBatch, want %d", got, tc.queued)
			}
		})
	}
}

func TestRealFIFOUnlockedProducerDuringProcessing(t *testing.T) {
	f := NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true})
	if err := f.Replace([]any{qobj("a", "1")}, "1"); err != nil {
		t.Fatal(err)
	}
	added := make(chan error)
	_, err := f.Pop(func(any, bool) error {
		go func() { added <- f.Add(qobj("b", "1")) }()
		select {
		case err := <-added: // the producer is not blocked by processing
			return err
		case <-time.After(wait.ForeverTestTimeout):
			return errors.New("Add blocked while processing")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := popNow(t, f); got.IsInInitialList {
		t.Error("item added while the initial batch was processed flagged as initial")
	}
}

func TestRealFIFOPopBatch(t *testing.T) {
	obj := func(i int) *metav1.PartialObjectMetadata { return qobj(fmt.Sprint(i), "1") }
	adds := func(from, to int) []Delta {
		var out []Delta
		for i := from; i < to; i++ {
			out = append(out, Delta{Added, obj(i)})
		}
		return out
	}
	type popped struct {
		Single  bool
		Deltas  []Delta
		Initial bool
	}
	tests := []struct {
		name string
		opts RealFIFOOptions
		ops  func(f *RealFIFO) error
		want []popped
	}{
		{
			name: "distinct keys form one batch",
			opts: RealFIFOOptions{AtomicEvents: true},
			ops: func(f *RealFIFO) error {
				return errors.Join(f.Add(obj(0)), f.Update(obj(1)), f.Delete(obj(2)))
			},
			want: []popped{{Deltas: []Delta{{Added, obj(0)}, {Updated, obj(1)}, {Deleted, obj(2)}}}},
		},
		{
			name: "a repeated key ends the batch",
			opts: RealFIFOOptions{AtomicEvents: true},
			ops: func(f *RealFIFO) error {
				return errors.Join(f.Add(obj(0)), f.Add(obj(1)), f.Update(obj(0)), f.Add(obj(2)))
			},
			want: []popped{
				{Deltas: []Delta{{Added, obj(0)}, {Added, obj(1)}}},
				{Deltas: []Delta{{Updated, obj(0)}, {Added, obj(2)}}},
			},
		},
		{
			name: "batches hold at most 1000 deltas",
			opts: RealFIFOOptions{AtomicEvents: true},
			ops: func(f *RealFIFO) error {
				var errs []error
				for i := range 2001 {
					errs = append(errs, f.Add(obj(i)))
				}
				return errors.Join(errs...)
			},
			want: []popped{{Deltas: adds(0, 1000)}, {Deltas: adds(1000, 2000)}, {Single: true, Deltas: adds(2000, 2001)}},
		},
		{
			name: "other delta types are popped alone and end a batch",
			opts: RealFIFOOptions{AtomicEvents: true, EmitDeltaTypeBookmark: true},
			ops: func(f *RealFIFO) error {
				return errors.Join(f.Add(obj(0)), f.Add(obj(1)), f.Resync(), f.Bookmark("5"), f.Add(obj(2)))
			},
			want: []popped{
				{Deltas: []Delta{{Added, obj(0)}, {Added, obj(1)}}},
				{Single: true, Deltas: []Delta{{SyncAll, SyncAllInfo{}}}},
				{Single: true, Deltas: []Delta{{Bookmark, BookmarkInfo{ResourceVersion: "5"}}}},
				{Single: true, Deltas: []Delta{{Added, obj(2)}}},
			},
		},
		{
			name: "a batch never crosses the end of the initial batch",
			opts: RealFIFOOptions{KnownObjects: newStubKnownObjects(obj(9))},
			ops: func(f *RealFIFO) error {
				return errors.Join(f.Replace([]any{obj(0), obj(1)}, "1"), f.Add(obj(2)), f.Add(obj(3)))
			},
			want: []popped{
				{Initial: true, Deltas: []Delta{{Deleted, DeletedFinalStateUnknown{Key: qkey("9"), Obj: obj(9)}}, {Replaced, obj(0)}, {Replaced, obj(1)}}},
				{Deltas: []Delta{{Added, obj(2)}, {Added, obj(3)}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewRealFIFOWithOptions(tc.opts)
			if err := tc.ops(f); err != nil {
				t.Fatal(err)
			}
			var got []popped
			for realFIFOLen(f) > 0 {
				err := f.PopBatch(
					func(deltas []Delta, initial bool) error {
						got = append(got, popped{Deltas: deltas, Initial: initial})
						return nil
					},
					func(obj any, initial bool) error {
						got = append(got, popped{Single: true, Deltas: obj.(Deltas), Initial: initial})
						return nil
					})
				if err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("batches (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRealFIFOPopBatchEdgeCases(t *testing.T) {
	newFIFO := func(t *testing.T) *RealFIFO {
		f := NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true})
		if err := errors.Join(f.Add(qobj("a", "1")), f.Add(qobj("b", "1"))); err != nil {
			t.Fatal(err)
		}
		return f
	}
	t.Run("no functions", func(t *testing.T) {
		f := newFIFO(t)
		if err := f.PopBatch(nil, nil); err == nil {
			t.Error("PopBatch(nil, nil) succeeded")
		}
		if got := realFIFOLen(f); got != 2 {
			t.Errorf("PopBatch(nil, nil) popped: %d left", got)
		}
	})
	t.Run("no batch function pops singles", func(t *testing.T) {
		f := newFIFO(t)
		var got []string
		for range 2 {
			err := f.PopBatch(nil, func(obj any, _ bool) error {
				got = append(got, obj.(Deltas)[0].Object.(*metav1.PartialObjectMetadata).Name)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, []string{"a", "b"}) {
			t.Errorf("popped %v", got)
		}
	})
	t.Run("no single function uses batches of one", func(t *testing.T) {
		f := NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true})
		if err := f.Add(qobj("a", "1")); err != nil {
			t.Fatal(err)
		}
		var got []Delta
		if err := f.PopBatch(func(d []Delta, _ bool) error { got = d; return nil }, nil); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Errorf("batch %v, want one delta", got)
		}
	})
	t.Run("process errors are returned", func(t *testing.T) {
		f := newFIFO(t)
		errBatch := errors.New("batch failed")
		if err := f.PopBatch(func([]Delta, bool) error { return errBatch }, nil); !errors.Is(err, errBatch) {
			t.Errorf("PopBatch error = %v", err)
		}
		if got := realFIFOLen(f); got != 0 {
			t.Errorf("%d deltas requeued", got)
		}
	})
	t.Run("closed and empty", func(t *testing.T) {
		f := NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true})
		f.Close()
		if err := f.PopBatch(func([]Delta, bool) error { return nil }, nil); !errors.Is(err, ErrFIFOClosed) {
			t.Errorf("PopBatch on a closed FIFO = %v", err)
		}
	})
	t.Run("keys are computed once, when queued", func(t *testing.T) {
		calls := 0
		keyFunc := func(obj any) (string, error) { // fails from the third call on
			calls++
			if calls > 2 {
				return "", errors.New("flaky key")
			}
			return MetaNamespaceKeyFunc(obj)
		}
		f := NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true, KeyFunction: keyFunc})
		if err := errors.Join(f.Add(qobj("a", "1")), f.Add(qobj("b", "1"))); err != nil {
			t.Fatal(err)
		}
		var got []Delta
		if err := f.PopBatch(func(d []Delta, _ bool) error { got = d; return nil }, nil); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || calls != 2 {
			t.Errorf("got batch %v after %d key function calls, want both deltas after 2 calls", got, calls)
		}
	})
}

func TestRealFIFOMetrics(t *testing.T) {
	ResetInformerNamesForTesting()
	name, err := NewInformerName("queue-metrics-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(name.Release)
	id := name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	metrics := &fakeFIFOMetrics{}
	clk := testingclock.NewFakePassiveClock(time.Unix(0, 0))
	f := newRealFIFO(RealFIFOOptions{AtomicEvents: true, Identifier: id, MetricsProvider: metrics}, clk)
	if got := f.Name(); got != "queue-metrics-test" {
		t.Errorf("Name() = %q, want the identifier's name", got)
	}
	if err := errors.Join(f.Add(qobj("a", "1")), f.Add(qobj("b", "1")), f.Add(qobj("c", "1"))); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Pop(func(any, bool) error { clk.SetTime(clk.Now().Add(2 * time.Second)); return nil }); err != nil {
		t.Fatal(err)
	}
	err = f.PopBatch(func([]Delta, bool) error { clk.SetTime(clk.Now().Add(500 * time.Millisecond)); return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	queued, latencies := metrics.snapshot()
	if diff := cmp.Diff([]float64{1, 2, 3, 2, 0}, queued); diff != "" {
		t.Errorf("queued items gauge (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{2, 0.5}, latencies); diff != "" {
		t.Errorf("processing latencies (-want +got):\n%s", diff)
	}

	// An unreserved identity publishes nothing.
	other := &fakeFIFOMetrics{}
	g := NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true, Identifier: InformerNameAndResource{}, MetricsProvider: other, Name: "plain"})
	if err := g.Add(qobj("a", "1")); err != nil {
		t.Fatal(err)
	}
	popNow(t, g)
	if q, l := other.snapshot(); len(q)+len(l) != 0 {
		t.Errorf("unreserved identity published metrics: %v %v", q, l)
	}
	if got := g.Name(); got != "plain" {
		t.Errorf("Name() = %q, want plain", got)
	}
}

func TestRealFIFODeprecatedConstructor(t *testing.T) {
	known := newStubKnownObjects()
	f := NewRealFIFO(nil, known, markTransform)
	if f.atomicEvents || f.knownObjects != KeyListerGetter(known) || f.Transformer() == nil || f.Name() != "RealFIFO" {
		t.Errorf("NewRealFIFO built %+v", f)
	}
}

// BenchmarkRealFIFOAddPop measures one Pop and one Add with the given number
// of deltas queued.
func BenchmarkRealFIFOAddPop(b *testing.B) {
	benchmarkAddPop(b, "queued", func() Queue {
		return NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true})
	})
}

// BenchmarkRealFIFOPopBatch measures one PopBatch of a full batch (1000
// deltas with distinct keys) and the 1000 Adds that refill the queue.
func BenchmarkRealFIFOPopBatch(b *testing.B) {
	const n = 10_000
	objs := benchObjects(n)
	f := NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true})
	for _, obj := range objs {
		if err := f.Add(obj); err != nil {
			b.Fatal(err)
		}
	}
	batchProcess := func(deltas []Delta, _ bool) error {
		if len(deltas) != defaultBatchSize {
			return fmt.Errorf("batch of %d", len(deltas))
		}
		return nil
	}
	b.ReportAllocs()
	next := 0
	for b.Loop() {
		if err := f.PopBatch(batchProcess, noopProcess); err != nil {
			b.Fatal(err)
		}
		for range defaultBatchSize {
			if err := f.Add(objs[next%n]); err != nil {
				b.Fatal(err)
			}
			next++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*defaultBatchSize), "ns/delta")
}
