package cache

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// queueImpl is one Queue implementation (or configuration) under the shared
// contract test.
type queueImpl struct {
	name string
	new  func() Queue
	// objects returns the objects a popped item carries, oldest first.
	objects func(item any) []any
}

// deltaObjects unwraps what a DeltaFIFO or RealFIFO pops: the object of every
// delta, and the objects of a ReplacedAll.
func deltaObjects(item any) []any {
	var out []any
	for _, d := range item.(Deltas) {
		if info, ok := d.Object.(ReplacedAllInfo); ok {
			out = append(out, info.Objects...)
			continue
		}
		out = append(out, d.Object)
	}
	return out
}

func queueImpls() []queueImpl {
	return []queueImpl{
		{
			name:    "FIFO",
			new:     func() Queue { return NewFIFO(MetaNamespaceKeyFunc) },
			objects: func(item any) []any { return []any{item} },
		},
		{
			name:    "DeltaFIFO",
			new:     func() Queue { return NewDeltaFIFOWithOptions(DeltaFIFOOptions{}) },
			objects: deltaObjects,
		},
		{
			name: "DeltaFIFO/KnownObjects+Replaced+Transformer",
			new: func() Queue {
				return NewDeltaFIFOWithOptions(DeltaFIFOOptions{
					KnownObjects:          newStubKnownObjects(),
					EmitDeltaTypeReplaced: true,
					Transformer:           markTransform,
				})
			},
			objects: deltaObjects,
		},
		{
			name:    "DeltaFIFO/legacy",
			new:     func() Queue { return NewDeltaFIFO(MetaNamespaceKeyFunc, newStubKnownObjects()) },
			objects: deltaObjects,
		},
		{
			name: "RealFIFO",
			new: func() Queue {
				return NewRealFIFOWithOptions(RealFIFOOptions{KnownObjects: newStubKnownObjects()})
			},
			objects: deltaObjects,
		},
		{
			name: "RealFIFO/AtomicEvents",
			new: func() Queue {
				return NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true, Transformer: markTransform})
			},
			objects: deltaObjects,
		},
		{
			name: "RealFIFO/AtomicEvents+UnlockWhileProcessing+Bookmarks",
			new: func() Queue {
				return NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true, UnlockWhileProcessing: true, EmitDeltaTypeBookmark: true})
			},
			objects: deltaObjects,
		},
	}
}

// poppedNames returns the names of the objects in a popped item.
func (impl queueImpl) poppedNames(t testing.TB, item any) []string {
	t.Helper()
	var names []string
	for _, obj := range impl.objects(item) {
		if tomb, ok := obj.(DeletedFinalStateUnknown); ok {
			names = append(names, "tombstone:"+tomb.Key)
			continue
		}
		n, err := ObjectToName(obj)
		if err != nil {
			t.Fatalf("popped object %#v has no name: %v", obj, err)
		}
		names = append(names, n.Name)
	}
	return names
}

// TestQueueConformance runs the contract every Queue shares against every
// implementation.
func TestQueueConformance(t *testing.T) {
	for _, impl := range queueImpls() {
		t.Run(impl.name, func(t *testing.T) {
			testQueueContract(t, impl)
		})
	}
}

func testQueueContract(t *testing.T, impl queueImpl) {
	t.Run("pops keys in first-queued order", func(t *testing.T) {
		q := impl.new()
		for _, name := range []string{"c", "a", "b"} {
			if err := q.Add(qobj(name, "1")); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for range 3 {
			got = append(got, impl.poppedNames(t, popNow(t, q).Item)...)
		}
		if diff := cmp.Diff([]string{"c", "a", "b"}, got); diff != "" {
			t.Errorf("pop order (-want +got):\n%s", diff)
		}
	})

	t.Run("unsynced until written", func(t *testing.T) {
		q := impl.new()
		checker := q.HasSyncedChecker()
		if q.HasSynced() || IsDone(checker) {
			t.Fatal("a fresh queue reports synced")
		}
		if checker.Name() == "" {
			t.Error("checker has no name")
		}
		if first, second := checker.Done(), checker.Done(); first != second {
			t.Error("Done returns different channels")
		}
		if err := q.Update(qobj("a", "1")); err != nil {
			t.Fatal(err)
		}
		if !q.HasSynced() || !IsDone(checker) {
			t.Error("not synced after an Update came first")
		}
		if got := popNow(t, q); got.IsInInitialList {
			t.Error("an item added after sync is flagged as initial")
		}
	})

	t.Run("first Replace is the initial batch", func(t *testing.T) {
		q := impl.new()
		list := []any{qobj("a", "1"), qobj("b", "1"), qobj("c", "1")}
		if err := q.Replace(list, "10"); err != nil {
			t.Fatal(err)
		}
		// A later write does not change the initial batch.
		if err := q.Add(qobj("d", "1")); err != nil {
			t.Fatal(err)
		}
		checker := q.HasSyncedChecker()
		var initial, later []string
		for !q.HasSynced() {
			item, err := q.Pop(func(obj any, isInInitialList bool) error {
				if !isInInitialList {
					t.Error("item of the first Replace not flagged as initial")
				}
				if IsDone(checker) {
					t.Error("Done closed before the initial item was processed")
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			initial = append(initial, impl.poppedNames(t, item)...)
		}
		if !IsDone(checker) {
			t.Error("HasSynced without Done")
		}
		slices.Sort(initial)
		if diff := cmp.Diff([]string{"a", "b", "c"}, initial); diff != "" {
			t.Errorf("initial items (-want +got):\n%s", diff)
		}
		got := popNow(t, q)
		if got.IsInInitialList {
			t.Error("item added after the first Replace flagged as initial")
		}
		later = impl.poppedNames(t, got.Item)
		if diff := cmp.Diff([]string{"d"}, later); diff != "" {
			t.Errorf("later items (-want +got):\n%s", diff)
		}
	})

	t.Run("empty first Replace syncs at once", func(t *testing.T) {
		q := impl.new()
		if err := q.Replace(nil, "1"); err != nil {
			t.Fatal(err)
		}
		if _, isRealFIFO := q.(*RealFIFO); isRealFIFO && q.(*RealFIFO).atomicEvents {
			// The ReplacedAll delta of an empty list is the initial batch.
			if q.HasSynced() {
				t.Fatal("synced before the ReplacedAll delta was popped")
			}
			popNow(t, q)
		}
		if !q.HasSynced() {
			t.Error("not synced after an empty first Replace")
		}
	})

	t.Run("Close wakes a blocked Pop", func(t *testing.T) {
		q := impl.new()
		errc := make(chan error, 1)
		go func() {
			_, err := q.Pop(func(any, bool) error { return nil })
			errc <- err
		}()
		q.Close()
		select {
		case err := <-errc:
			if !errors.Is(err, ErrFIFOClosed) {
				t.Errorf("Pop after Close: got %v, want ErrFIFOClosed", err)
			}
		case <-time.After(wait.ForeverTestTimeout):
			t.Fatal("Pop still blocked after Close")
		}
	})

	t.Run("Close drains queued items first and accepts writes", func(t *testing.T) {
		q := impl.new()
		if err := q.Add(qobj("a", "1")); err != nil {
			t.Fatal(err)
		}
		q.Close()
		q.Close() // harmless
		if c, ok := q.(interface{ IsClosed() bool }); !ok || !c.IsClosed() {
			t.Error("IsClosed false after Close")
		}
		if got := impl.poppedNames(t, popNow(t, q).Item); !slices.Equal(got, []string{"a"}) {
			t.Errorf("popped %v after Close, want [a]", got)
		}
		called := false
		if _, err := q.Pop(func(any, bool) error { called = true; return nil }); !errors.Is(err, ErrFIFOClosed) {
			t.Errorf("Pop on a closed empty queue: got %v, want ErrFIFOClosed", err)
		}
		if called {
			t.Error("process called on a closed empty queue")
		}
		if err := q.Add(qobj("b", "1")); err != nil {
			t.Errorf("Add after Close: %v", err)
		}
		if got := impl.poppedNames(t, popNow(t, q).Item); !slices.Equal(got, []string{"b"}) {
			t.Errorf("popped %v, want [b]", got)
		}
	})

	t.Run("failed writes leave the queue unchanged", func(t *testing.T) {
		q := impl.new()
		for _, bad := range []any{nil, "not an object", (*metav1.PartialObjectMetadata)(nil), 42} {
			for _, write := range []func(any) error{q.Add, q.Update, q.Delete} {
				var keyErr KeyError
				if err := write(bad); !errors.As(err, &keyErr) {
					t.Errorf("write of %#v: got %v, want a KeyError", bad, err)
				}
			}
			var keyErr KeyError
			if err := q.Replace([]any{qobj("a", "1"), bad}, "1"); !errors.As(err, &keyErr) {
				t.Errorf("Replace with %#v: got %v, want a KeyError", bad, err)
			}
		}
		if q.HasSynced() {
			t.Error("failed writes marked the queue as written")
		}
		if err := q.Add(qobj("z", "1")); err != nil {
			t.Fatal(err)
		}
		if got := impl.poppedNames(t, popNow(t, q).Item); !slices.Equal(got, []string{"z"}) {
			t.Errorf("popped %v, want only [z]", got)
		}
	})

	t.Run("process errors are returned and the item is not requeued", func(t *testing.T) {
		q := impl.new()
		for _, name := range []string{"a", "b"} {
			if err := q.Add(qobj(name, "1")); err != nil {
				t.Fatal(err)
			}
		}
		errProcess := errors.New("process failed")
		item, err := q.Pop(func(any, bool) error { return errProcess })
		if !errors.Is(err, errProcess) {
			t.Fatalf("Pop: got %v, want the process error", err)
		}
		if got := impl.poppedNames(t, item); !slices.Equal(got, []string{"a"}) {
			t.Errorf("Pop returned %v with the error, want [a]", got)
		}
		if got := impl.poppedNames(t, popNow(t, q).Item); !slices.Equal(got, []string{"b"}) {
			t.Errorf("next Pop: got %v, want [b]", got)
		}
	})

	t.Run("nil process func is an error", func(t *testing.T) {
		q := impl.new()
		if err := q.Add(qobj("a", "1")); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Pop(nil); err == nil {
			t.Fatal("Pop(nil) succeeded")
		}
		if got := impl.poppedNames(t, popNow(t, q).Item); !slices.Equal(got, []string{"a"}) {
			t.Errorf("Pop(nil) lost the item: popped %v", got)
		}
	})

	t.Run("process panics leave the queue usable", func(t *testing.T) {
		q := impl.new()
		for _, name := range []string{"a", "b"} {
			if err := q.Add(qobj(name, "1")); err != nil {
				t.Fatal(err)
			}
		}
		func() {
			defer func() { _ = recover() }()
			_, _ = q.Pop(func(any, bool) error { panic("handler bug") })
		}()
		if got := impl.poppedNames(t, popNow(t, q).Item); !slices.Equal(got, []string{"b"}) {
			t.Errorf("after a panicking process: popped %v, want [b]", got)
		}
	})

	t.Run("concurrent producers and one consumer", func(t *testing.T) {
		q := impl.new()
		const producers, perProducer = 4, 50
		var wg sync.WaitGroup
		for p := range producers {
			wg.Go(func() {
				for i := range perProducer {
					if err := q.Add(qobj(fmt.Sprintf("p%d-%d", p, i), "1")); err != nil {
						t.Error(err)
					}
				}
			})
		}
		seen := map[string]bool{}
		for len(seen) < producers*perProducer {
			for _, name := range impl.poppedNames(t, popNow(t, q).Item) {
				if seen[name] {
					t.Errorf("%s popped twice", name)
				}
				seen[name] = true
			}
		}
		wg.Wait()
		q.Close()
		if _, err := q.Pop(func(any, bool) error { return nil }); !errors.Is(err, ErrFIFOClosed) {
			t.Errorf("queue not empty after every item was popped: %v", err)
		}
	})
}

func TestSlowProcessingIsLogged(t *testing.T) {
	tests := []struct {
		name string
		new  func(logger *klog.Logger, clk clock.PassiveClock) Queue
	}{
		{"DeltaFIFO", func(logger *klog.Logger, clk clock.PassiveClock) Queue {
			return newDeltaFIFO(DeltaFIFOOptions{Logger: logger}, clk)
		}},
		{"RealFIFO", func(logger *klog.Logger, clk clock.PassiveClock) Queue {
			return newRealFIFO(RealFIFOOptions{Logger: logger, AtomicEvents: true}, clk)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger := bufferedLogger(t)
			clk := testingclock.NewFakePassiveClock(time.Unix(0, 0))
			q := tc.new(&logger, clk)
			for i := range slowPopDepth + 3 {
				if err := q.Add(qobj(fmt.Sprint(i), "1")); err != nil {
					t.Fatal(err)
				}
			}
			popWith := func(d time.Duration) {
				t.Helper()
				if _, err := q.Pop(func(any, bool) error { clk.SetTime(clk.Now().Add(d)); return nil }); err != nil {
					t.Fatal(err)
				}
			}
			popWith(slowPopThreshold) // not longer than the threshold
			if out := logOutput(logger); out != "" {
				t.Fatalf("logged a pop that was not slow:\n%s", out)
			}
			popWith(slowPopThreshold + time.Millisecond)
			if out := logOutput(logger); !strings.Contains(out, "took long") || !strings.Contains(out, "ns/1") {
				t.Errorf("slow pop not logged with its key:\n%s", out)
			}
		})
	}
}

// TestBeforeWaitRunsWithoutTheLock checks that the queues of the informers
// call beforeWait (the processor's releaseRun) without their lock: a
// beforeWait that writes to the queue does not deadlock, and Pop hands out
// what it wrote.
func TestBeforeWaitRunsWithoutTheLock(t *testing.T) {
	for _, qm := range queueModes {
		t.Run(qm.name, func(t *testing.T) {
			store := newCache(DeletionHandlingMetaNamespaceKeyFunc, nil, nil)
			var drained func()
			p := newInformerPipeline(pipelineConfig{
				logger:     klog.Background(),
				objectType: &metav1.PartialObjectMetadata{},
				clock:      clock.RealClock{},
				store:      store,
				handler:    ResourceEventHandlerFuncs{},
				drained:    func() { drained() },
				inOrder:    qm.inOrder,
			})
			calls := 0
			drained = func() {
				if calls++; calls == 1 {
					if err := p.queue.Add(qobj("a", "1")); err != nil {
						t.Error(err)
					}
				}
			}
			popped := make(chan error, 1)
			go func() { popped <- p.pop() }()
			select {
			case err := <-popped:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(wait.ForeverTestTimeout):
				t.Fatal("Pop did not return: beforeWait ran with the queue's lock held")
			}
			if _, ok, _ := store.GetByKey(qkey("a")); !ok || calls != 1 {
				t.Errorf("after the pop: stored %v, beforeWait called %d times; want stored, once", ok, calls)
			}
		})
	}
}
