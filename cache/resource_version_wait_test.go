package cache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	framework "github.com/informer-go/informer/cache/testing"
)

// storedRV returns the resource version of the object named name in store,
// "" if it is not there.
func storedRV(t *testing.T, store Store, name string) string {
	t.Helper()
	obj, ok, err := store.GetByKey(testNamespace + "/" + name)
	if err != nil || !ok {
		return ""
	}
	return obj.(*metav1.PartialObjectMetadata).ResourceVersion
}

// writeNth makes write number i of a stream that interleaves objects
// obj-0 to obj-<objects-1>: it creates each, then updates them in turn. It
// returns the object's name and what the server stored.
func writeNth(t *testing.T, srv *framework.Server[*metav1.PartialObjectMetadata], i, objects int) (string, *metav1.PartialObjectMetadata) {
	t.Helper()
	name := fmt.Sprint("obj-", i%objects)
	if i < objects {
		return name, create(t, srv, name)
	}
	return name, touch(t, srv, name, strconv.Itoa(i))
}

// waitResult runs WaitForResourceVersion in a goroutine of the bubble and
// returns the channel its result arrives on.
func waitResult(ctx context.Context, w ResourceVersionWaiter, rv string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- w.WaitForResourceVersion(ctx, rv) }()
	return done
}

// TestWaitForResourceVersion checks read-your-writes: once the wait for a
// write's resource version returns, the store shows the write; and not
// before, even while the event has arrived but waits in the queue.
func TestWaitForResourceVersion(t *testing.T) {
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		srv := framework.NewServer(opts)
		defer srv.Close()
		release := make(chan struct{})
		var blocking atomic.Bool
		inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder, Indexers: Indexers{
			"gate": func(any) ([]string, error) {
				if blocking.Load() {
					<-release
				}
				return nil, nil
			},
		}})
		ctx := context.Background()
		// A wait before Run waits for it.
		early := create(t, srv, "early")
		earlyDone := waitResult(ctx, inf, early.ResourceVersion)
		synctest.Wait()
		select {
		case err := <-earlyDone:
			t.Fatalf("wait before Run returned %v", err)
		default:
		}
		defer runSharedInformer(t, inf)()
		if err := <-earlyDone; err != nil || storedRV(t, inf.GetStore(), "early") != early.ResourceVersion {
			t.Fatalf("wait before Run = %v, store has %q", err, storedRV(t, inf.GetStore(), "early"))
		}

		// Writes to several objects, interleaved: each wait returns with
		// the write in the store.
		for i := range 30 {
			name, obj := writeNth(t, srv, i, 7)
			if err := inf.WaitForResourceVersion(ctx, obj.ResourceVersion); err != nil {
				t.Fatal(err)
			}
			if got := storedRV(t, inf.GetStore(), name); got != obj.ResourceVersion {
				t.Fatalf("after waiting for %s: store has %s at %q", obj.ResourceVersion, name, got)
			}
		}

		// An event that reached the informer but waits in its queue does
		// not end the wait; applying it does. (Only the in-order queue
		// accepts events while one is processed: the DeltaFIFO holds its
		// lock while processing. TestResourceVersionTracker covers the
		// DeltaFIFO's out-of-order processing.)
		if inOrder {
			blocking.Store(true)
			touch(t, srv, "obj-1", "blocked")
			synctest.Wait() // the first event is being processed, and blocks
			second := touch(t, srv, "obj-2", "queued")
			third := touch(t, srv, "obj-1", "queued behind")
			done := waitResult(ctx, inf, second.ResourceVersion)
			synctest.Wait()
			select {
			case err := <-done:
				t.Fatalf("wait returned %v while the write was queued", err)
			default:
			}
			if got := inf.LastSyncResourceVersion(); got != third.ResourceVersion {
				t.Fatalf("the reflector is at %s, want %s", got, third.ResourceVersion)
			}
			blocking.Store(false)
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if got := storedRV(t, inf.GetStore(), "obj-2"); got != second.ResourceVersion {
				t.Errorf("after waiting for %s: obj-2 at %q", second.ResourceVersion, got)
			}
		}

		// A store that is fresh already answers at once, even to a
		// context that has ended.
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := inf.WaitForResourceVersion(cancelled, early.ResourceVersion); err != nil {
			t.Errorf("wait for an old version = %v, want nil at once", err)
		}

		// A context that ends first ends the wait, leaving nothing behind.
		future, _ := strconv.Atoi(srv.ResourceVersion())
		timed, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := inf.WaitForResourceVersion(timed, strconv.Itoa(future+10)); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("wait for a future version = %v, want the context's error", err)
		}
		if n := inf.monitor.versions.pending.Load(); n != 0 {
			t.Errorf("%d waiters left behind", n)
		}

		// Malformed versions cannot be compared.
		if err := inf.WaitForResourceVersion(ctx, "abc"); err == nil {
			t.Error("wait for a malformed version succeeded")
		}
	})
}

// TestWaitForResourceVersionBookmark checks that a bookmark ends the wait
// for a version no event of the informer carries (a write it does not see),
// and that stopping the informer ends the waits.
func TestWaitForResourceVersionBookmark(t *testing.T) {
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		srv := framework.NewServer(opts)
		defer srv.Close()
		inf := newTestInformer(srv.Namespace(testNamespace), SharedIndexInformerOptions{InOrder: inOrder})
		stop := runSharedInformer(t, inf)
		ctx := context.Background()
		if err := WaitForSync(ctx, WaitForSyncOptions{}, inf); err != nil {
			t.Fatal(err)
		}
		// The watch must be open before the write: one opened after it
		// starts at the write's resource version, and the fake sends no
		// bookmark until the resource version moves past that.
		if err := srv.WaitForWatchStreams(ctx, 1); err != nil {
			t.Fatal(err)
		}
		other, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "elsewhere", Name: "x"}})
		if err != nil {
			t.Fatal(err)
		}
		done := waitResult(ctx, inf, other.ResourceVersion)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("wait returned %v before a bookmark", err)
		default:
		}
		time.Sleep(framework.DefaultBookmarkInterval)
		if err := <-done; err != nil {
			t.Fatalf("wait after the bookmark: %v", err)
		}

		pending := waitResult(ctx, inf, "999999")
		synctest.Wait()
		stop()
		if err := <-pending; !errors.Is(err, ErrStoppedBeforeResourceVersion) {
			t.Errorf("wait when the informer stopped = %v", err)
		}
		if err := inf.WaitForResourceVersion(ctx, "999999"); !errors.Is(err, ErrStoppedBeforeResourceVersion) {
			t.Errorf("wait after the informer stopped = %v", err)
		}
	})
}

// TestWaitForResourceVersionHelpers checks the helper and the other
// informers that implement it: typed informers and low-level controllers.
func TestWaitForResourceVersionHelpers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
		defer srv.Close()
		obj := create(t, srv, "a")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		typed := NewTypedSharedIndexInformer[*metav1.PartialObjectMetadata](NewSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, 0, Indexers{}))
		defer runSharedInformer(t, typed)()
		if err := WaitForResourceVersion(ctx, typed, obj.ResourceVersion); err != nil {
			t.Errorf("typed informer: %v", err)
		}
		if st, ok := InformerSyncStatus(typed); !ok || !st.Synced {
			t.Errorf("typed informer status %+v, %v", st, ok)
		}

		store, ctrl := startInformer(t, srv, true)
		if err := ctrl.(ResourceVersionWaiter).WaitForResourceVersion(ctx, obj.ResourceVersion); err != nil {
			t.Errorf("controller: %v", err)
		}
		if _, ok, _ := store.GetByKey(testNamespace + "/a"); !ok {
			t.Error("controller's store misses the object")
		}
		if st := ctrl.(SyncStatusReporter).SyncStatus(); st.Phase != SyncPhaseWatching {
			t.Errorf("controller's phase %s", st.Phase)
		}

		if err := WaitForResourceVersion(ctx, nil, "1"); err == nil {
			t.Error("nil informer: no error")
		}
	})
}

// fakeProgressQueue is a progressQueue whose progress the test sets.
type fakeProgressQueue struct {
	Queue
	queued, applied uint64
}

func (q *fakeProgressQueue) progress() (uint64, uint64) { return q.queued, q.applied }
func (q *fakeProgressQueue) queuedSoFar() uint64        { return q.queued }

// newFakeTracker returns a started tracker and the queue whose progress the
// test sets.
func newFakeTracker() (*fakeProgressQueue, *resourceVersionTracker) {
	q := &fakeProgressQueue{}
	tr := &resourceVersionTracker{}
	tr.start(q)
	return q, tr
}

// trackerWait starts a wait of tr for rv in a goroutine of the bubble, lets
// it block or return, and returns the channel its result arrives on.
func trackerWait(tr *resourceVersionTracker, rv string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- tr.wait(context.Background(), rv) }()
	synctest.Wait()
	return done
}

// TestResourceVersionTracker drives the tracker through a DeltaFIFO's
// out-of-order processing: a wait ends only once everything queued up to the
// version's arrival has been applied, whatever was processed first.
func TestResourceVersionTracker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, tr := newFakeTracker()
		wait := func(rv string) <-chan error { return trackerWait(tr, rv) }
		ended := func(done <-chan error) bool {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				return true
			default:
				return false
			}
		}

		// Events at 10, 11 and 12 are queued (deltas 1, 2 and 3), nothing
		// is applied; a wait positions itself at the delta that carried
		// its version. The key of delta 3 is processed first (in a
		// DeltaFIFO it may have been queued first, with an older delta):
		// applied stays 0 until the key of delta 1 is popped too.
		q.queued = 1
		tr.resourceVersionReached("10")
		w10, w11, w12 := wait("10"), wait("11"), wait("12")
		q.queued = 2
		tr.resourceVersionReached("11")
		q.queued = 3
		tr.resourceVersionReached("12")
		tr.popped()
		synctest.Wait()
		if ended(w10) || ended(w11) || ended(w12) {
			t.Fatal("a wait ended before anything was applied")
		}
		q.applied = 1
		tr.popped()
		synctest.Wait()
		if !ended(w10) || ended(w11) || ended(w12) {
			t.Fatal("after delta 1: want only the wait for 10 ended")
		}
		q.applied = 3
		tr.popped()
		synctest.Wait()
		if !ended(w11) || !ended(w12) {
			t.Fatal("after delta 3: the waits for 11 and 12 did not end")
		}
		// A bookmark (nothing queued) of a fully applied queue ends the
		// wait at once.
		w13 := wait("13")
		tr.resourceVersionReached("13")
		synctest.Wait()
		if !ended(w13) {
			t.Fatal("the bookmark did not end the wait")
		}
		if n := tr.pending.Load(); n != 0 {
			t.Errorf("%d waiters left", n)
		}
	})
}

// TestWaitForResourceVersionAfterStop checks that a stopped informer answers
// for the store it left: nil for the versions the store had reached, whether
// the wait started before the informer stopped or after, and
// ErrStoppedBeforeResourceVersion for the others, among them a version that
// reached the informer but was never applied. The informer stops while it
// applies one event, with another queued behind it, and a wait for the
// version being applied pending.
func TestWaitForResourceVersionAfterStop(t *testing.T) {
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		srv := framework.NewServer(opts)
		defer srv.Close()
		// The gate holds the consumer; in the DeltaFIFO it holds the
		// queue's lock too, so the test waits on entered rather than
		// synctest.Wait (a goroutine waiting for a mutex is not durably
		// blocked).
		entered, release := make(chan struct{}, 1), make(chan struct{})
		var blocking atomic.Bool
		inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder, Indexers: Indexers{
			"gate": func(any) ([]string, error) {
				if blocking.Load() {
					select {
					case entered <- struct{}{}:
					default:
					}
					<-release
				}
				return nil, nil
			},
		}})
		runCtx, stop := context.WithCancel(testContext(t))
		defer stop()
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			inf.RunWithContext(runCtx)
		}()
		ctx := context.Background()
		applied := create(t, srv, "applied")
		if err := inf.WaitForResourceVersion(ctx, applied.ResourceVersion); err != nil {
			t.Fatal(err)
		}

		// A wait for the next write's version starts before the write.
		next, _ := strconv.Atoi(srv.ResourceVersion())
		pending := waitResult(ctx, inf, strconv.Itoa(next+1))
		blocking.Store(true)
		blocked := create(t, srv, "blocked")
		<-entered // the event is being applied, and blocks
		queued := create(t, srv, "queued")
		if inOrder {
			// The in-order queue takes events while one is applied.
			synctest.Wait()
			if got := inf.LastSyncResourceVersion(); got != queued.ResourceVersion {
				t.Fatalf("the reflector is at %s, want %s", got, queued.ResourceVersion)
			}
		}
		stop()
		blocking.Store(false)
		close(release)
		<-stopped

		if err := <-pending; err != nil {
			t.Errorf("wait pending when the informer stopped, for a version it applied: %v", err)
		}
		for _, rv := range []string{applied.ResourceVersion, blocked.ResourceVersion} {
			if err := inf.WaitForResourceVersion(ctx, rv); err != nil {
				t.Errorf("wait after the informer stopped for %s, which its store reached: %v", rv, err)
			}
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := inf.WaitForResourceVersion(cancelled, blocked.ResourceVersion); err != nil {
			t.Errorf("wait with an ended context after the informer stopped = %v, want nil", err)
		}
		if storedRV(t, inf.GetStore(), "queued") != "" {
			t.Fatal("the informer applied the event queued behind the blocked one")
		}
		for _, rv := range []string{queued.ResourceVersion, "999999"} {
			if err := inf.WaitForResourceVersion(ctx, rv); !errors.Is(err, ErrStoppedBeforeResourceVersion) {
				t.Errorf("wait after the informer stopped for %s, which its store did not reach = %v", rv, err)
			}
		}
	})
}

// TestResourceVersionTrackerStop drives the tracker through the race of a
// wait with the stop of the informer: the queue applies the delta of the
// version waited for, and the informer stops before the consumer reports the
// pop. It also checks that a wait for an old version ends at once while
// newer deltas wait in the queue.
func TestResourceVersionTrackerStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, tr := newFakeTracker()
		ctx := context.Background()
		wait := func(rv string) <-chan error { return trackerWait(tr, rv) }

		q.queued = 1
		tr.resourceVersionReached("10")
		q.queued = 2
		tr.resourceVersionReached("11")
		q.queued = 3
		tr.resourceVersionReached("12")
		q.applied = 1
		tr.popped() // no waiter: nothing to do
		if err := tr.wait(ctx, "10"); err != nil {
			t.Errorf("wait for an applied version behind a busy queue = %v", err)
		}
		w11, w12 := wait("11"), wait("12")
		q.applied = 2 // popped, but not reported before the stop
		tr.stop()
		if err := <-w11; err != nil {
			t.Errorf("wait for 11, applied when the informer stopped = %v", err)
		}
		if err := <-w12; !errors.Is(err, ErrStoppedBeforeResourceVersion) {
			t.Errorf("wait for 12, queued when the informer stopped = %v", err)
		}
		for rv, want := range map[string]error{"9": nil, "11": nil, "12": ErrStoppedBeforeResourceVersion, "13": ErrStoppedBeforeResourceVersion} {
			if err := tr.wait(ctx, rv); !errors.Is(err, want) {
				t.Errorf("wait for %s after the stop = %v, want %v", rv, err, want)
			}
		}
		if n := tr.pending.Load(); n != 0 {
			t.Errorf("%d waiters left", n)
		}
	})
}

// TestReachedVersions checks the tracker's queue of reached versions: order,
// the bookmark that replaces the newest version, compaction, and no
// allocation once it has grown, whatever the backlog.
func TestReachedVersions(t *testing.T) {
	var r reachedVersions
	for i := uint64(1); i <= 10; i++ {
		r.push(reachedVersion{rv: strconv.FormatUint(10+i, 10), position: i})
	}
	r.push(reachedVersion{rv: "30", position: 10}) // a bookmark: nothing queued since 20
	if rv, ok := r.dropApplied(0); ok {
		t.Fatalf("dropApplied(0) = %s", rv)
	}
	for _, step := range []struct {
		applied uint64
		want    string
	}{{3, "13"}, {4, "14"}, {8, "18"}, {10, "30"}} {
		if rv, ok := r.dropApplied(step.applied); !ok || rv != step.want {
			t.Fatalf("dropApplied(%d) = %s, %v; want %s", step.applied, rv, ok, step.want)
		}
	}
	if n := r.len(); n != 0 {
		t.Fatalf("%d versions left", n)
	}
	for _, backlog := range []int{0, 1, 100} {
		r = reachedVersions{}
		var pos uint64
		push := func() {
			pos++
			r.push(reachedVersion{rv: "1", position: pos})
		}
		for range backlog + 200 { // grown
			push()
			r.dropApplied(pos - uint64(backlog))
		}
		if n := testing.AllocsPerRun(1000, func() {
			push()
			r.dropApplied(pos - uint64(backlog))
		}); n != 0 {
			t.Errorf("backlog %d: %v allocations per version", backlog, n)
		}
		if got := r.len(); got != backlog {
			t.Errorf("backlog %d: %d versions held", backlog, got)
		}
		if cap(r.items) > max(16, 4*(backlog+1)) {
			t.Errorf("backlog %d: array of %d", backlog, cap(r.items))
		}
	}
}

// TestQueuedSoFar checks that both queues' lock-free count of queued deltas
// follows progress through writes, lists (a DeltaFIFO's bulk, renumbered
// when a Pop expands it), resyncs and pops.
func TestQueuedSoFar(t *testing.T) {
	for _, qm := range queueModes {
		for _, bulks := range []bool{false, true} {
			if bulks && qm.inOrder {
				continue
			}
			t.Run(fmt.Sprintf("%s/bulks=%v", qm.name, bulks), func(t *testing.T) {
				known := newCache(MetaNamespaceKeyFunc, nil, nil)
				var q interface {
					Queue
					progressQueue
				}
				if qm.inOrder {
					q = NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: MetaNamespaceKeyFunc, KnownObjects: known})
				} else {
					f := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: MetaNamespaceKeyFunc, KnownObjects: known})
					if bulks {
						f.takeBulks(known.len)
					}
					q = f
				}
				check := func(step string) {
					t.Helper()
					if queued, _ := q.progress(); q.queuedSoFar() != queued {
						t.Fatalf("after %s: queuedSoFar %d, progress %d", step, q.queuedSoFar(), queued)
					}
				}
				pop := func() {
					t.Helper()
					if _, err := q.Pop(func(obj any, _ bool) error {
						for _, d := range obj.(Deltas) {
							if d.Type == Deleted {
								return known.Delete(d.Object)
							}
							if err := known.Add(d.Object); err != nil {
								return err
							}
						}
						return nil
					}); err != nil {
						t.Fatal(err)
					}
					check("pop")
				}
				if err := q.Replace([]any{pom("a", "1"), pom("b", "2"), pom("c", "3")}, "3"); err != nil {
					t.Fatal(err)
				}
				check("replace")
				pop() // expands a bulk
				for i := range 3 {
					if err := q.Update(pom("a", strconv.Itoa(4+i))); err != nil {
						t.Fatal(err)
					}
					check("update")
				}
				for range 3 {
					pop()
				}
				if err := q.Resync(); err != nil {
					t.Fatal(err)
				}
				check("resync")
				pop()
			})
		}
	}
}

// TestWaitForResourceVersionStopRace tries to break the answers of a stopping
// informer: writes stream in while waits for each of them are pending, and the
// informer stops at a different point in each round. For every write, the
// pending wait and a wait after the stop must agree, and nil must mean that
// the store holds the write or a newer version of its object.
func TestWaitForResourceVersionStopRace(t *testing.T) {
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		const writes = 40
		for round := range 8 {
			srv := framework.NewServer(opts)
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder})
			ctx := context.Background()
			runCtx, stop := context.WithCancel(testContext(t))
			stopped := make(chan struct{})
			go func() {
				defer close(stopped)
				inf.RunWithContext(runCtx)
			}()
			var names, rvs []string
			var pending []<-chan error
			for i := range writes {
				if i == round*writes/8 {
					stop()
				}
				name, obj := writeNth(t, srv, i, 5)
				names, rvs = append(names, name), append(rvs, obj.ResourceVersion)
				pending = append(pending, waitResult(ctx, inf, obj.ResourceVersion))
			}
			stop() // done above; for vet
			<-stopped
			applied := 0
			for i, rv := range rvs {
				first := <-pending[i]
				if first != nil && !errors.Is(first, ErrStoppedBeforeResourceVersion) {
					t.Fatalf("round %d: pending wait for %s = %v", round, rv, first)
				}
				if again := inf.WaitForResourceVersion(ctx, rv); !errors.Is(again, first) {
					t.Errorf("round %d: wait for %s = %v while pending, %v after the stop", round, rv, first, again)
				}
				if first != nil {
					continue
				}
				applied++
				if got := storedRV(t, inf.GetStore(), names[i]); !atLeast(got, rv) {
					t.Errorf("round %d: wait for %s returned nil, store has %s at %q", round, rv, names[i], got)
				}
			}
			t.Logf("round %d: %d of %d writes reflected when the informer stopped", round, applied, writes)
			srv.Close()
		}
	})
}
