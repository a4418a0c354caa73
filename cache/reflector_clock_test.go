package cache

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"

	framework "github.com/informer-go/informer/cache/testing"
	"github.com/informer-go/informer/wait"
)

// The timers client-go v0.37.2's reflector puts on its clock, as
// ReflectorOptions.Clock documents them. A test of the waiters on a fake clock
// counts them from these.
const (
	// resyncTimer waits for the resync period while a watch is open, when
	// the period is positive.
	resyncTimer = 1
	// retryTimer waits the backoff delay before retrying a throttled or
	// refused watch request.
	retryTimer = 1
	// warningTicker ticks while a streaming list awaits its bookmark. A
	// FakeClock keeps it among its waiters once stopped, so every streaming
	// list leaves one behind.
	warningTicker = 1
)

// TestReflectorClockWaiters lists the waiters on the reflector's fake clock at
// each point of its life and compares them with the documented set: the
// clock carries client-go's timers (resync, retries of refused or throttled
// watches, the streaming list's warning ticker) and none of the reflector's
// safety timers (the bound on a watch's life, liveness, the stall timeout,
// the delays client-go waits in real time). Each case runs in a synctest
// bubble, where real time stands still unless the test sleeps.
func TestReflectorClockWaiters(t *testing.T) {
	for _, tc := range []struct {
		name           string
		streaming      bool
		lists, watches []step
		// want is the number of waiters once the reflector is idle,
		// without and with a resync period.
		want, wantWithResync int
	}{{
		name:           "watching after a list",
		lists:          []step{{list: pomList("10", "")}},
		want:           0,
		wantWithResync: resyncTimer,
	}, {
		name:           "watching after a streaming list",
		streaming:      true,
		watches:        []step{{events: []watch.Event{bookmarkEvent("10", true)}}},
		want:           warningTicker,
		wantWithResync: warningTicker + resyncTimer,
	}, {
		name:           "streaming a list",
		streaming:      true,
		watches:        []step{{events: []watch.Event{added("a", "5")}}},
		want:           warningTicker,
		wantWithResync: warningTicker,
	}, {
		name:           "waiting to relist after a failed list",
		lists:          []step{{err: errForbidden}},
		want:           0,
		wantWithResync: 0,
	}, {
		name:           "waiting to retry a refused watch",
		lists:          []step{{list: pomList("10", "")}},
		watches:        []step{{err: errConnRefused}},
		want:           retryTimer,
		wantWithResync: retryTimer + resyncTimer,
	}, {
		name:           "waiting to retry a watch ended by a 429",
		lists:          []step{{list: pomList("10", "")}},
		watches:        []step{{events: []watch.Event{errorEvent(errTooMany)}, closeAtEnd: true}},
		want:           retryTimer,
		wantWithResync: retryTimer + resyncTimer,
	}, {
		name:  "waiting to reopen watches that keep closing at once",
		lists: []step{{list: pomList("10", "")}},
		watches: []step{
			{events: []watch.Event{added("a", "11")}, closeAtEnd: true},
			{events: []watch.Event{added("b", "12")}, closeAtEnd: true},
		},
		want:           0,
		wantWithResync: resyncTimer,
	}, {
		name:           "waiting to relist after a very short watch",
		lists:          []step{{list: pomList("10", "")}},
		watches:        []step{{closeAtEnd: true}},
		want:           0,
		wantWithResync: 0,
	}} {
		for _, resync := range []time.Duration{0, time.Minute} {
			for _, liveness := range []*WatchLivenessOptions{nil, {}} {
				name := fmt.Sprintf("%s/resync=%v/liveness=%v", tc.name, resync, liveness != nil)
				t.Run(name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						_, ctx := ktesting.NewTestContext(t)
						clk := testingclock.NewFakeClock(time.Now())
						lw := newScriptedLW(tc.lists, tc.watches)
						lw.noWatchList = !tc.streaming
						r := NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, newRecordingStore(), ReflectorOptions{
							Clock: clk, ResyncPeriod: resync, WatchLiveness: liveness,
						})
						defer startReflector(ctx, r)()
						synctest.Wait()
						want := tc.want
						if resync > 0 {
							want = tc.wantWithResync
						}
						if got := clk.Waiters(); got != want {
							t.Errorf("%d waiters on the reflector's clock, want %d (calls %v)", got, want, callsOf(lw.recorded()))
						}
					})
				})
			}
		}
	}
}

// fakeWatchLW is a ListerWatcher in the style of client-go's own tests: lists
// answer at resource version "1", watches are apimachinery fakes that stay
// open, and it opts out of streaming lists. It counts the watches.
type fakeWatchLW struct {
	watches atomic.Int32
}

func (*fakeWatchLW) List(metav1.ListOptions) (runtime.Object, error) {
	return pomList("1", ""), nil
}

func (lw *fakeWatchLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	lw.watches.Add(1)
	return watch.NewFake(), nil
}

func (*fakeWatchLW) IsWatchListSemanticsUnSupported() bool { return true }

// TestReflectorResyncOnFakeClock is a test as they are written for client-go:
// it waits for the fake clock to have a waiter, steps it by the resync
// period and expects the store's Resync; then it steps the clock by an hour
// and expects another Resync and the same watch. It runs in a synctest
// bubble so that "the same watch" is checked once everything has settled.
func TestReflectorResyncOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, ctx := ktesting.NewTestContext(t)
		clk := testingclock.NewFakeClock(time.Now())
		resynced := make(chan struct{}, 10)
		store := &FakeCustomStore{ResyncFunc: func() error {
			resynced <- struct{}{}
			return nil
		}}
		lw := &fakeWatchLW{}
		const resyncPeriod = 30 * time.Second
		r := NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, store, ReflectorOptions{
			Clock: clk, ResyncPeriod: resyncPeriod, WatchLiveness: &WatchLivenessOptions{},
		})
		defer startReflector(ctx, r)()
		expectResync := func(what string) {
			t.Helper()
			synctest.Wait()
			select {
			case <-resynced:
			default:
				t.Fatalf("no resync after %s", what)
			}
		}

		// client-go's tests poll for this; in the bubble, one Wait
		// settles everything.
		synctest.Wait()
		if !clk.HasWaiters() {
			t.Fatal("no waiter on the fake clock once the reflector watches")
		}
		clk.Step(resyncPeriod)
		expectResync("one resync period")

		clk.Step(time.Hour)
		expectResync("an hour")
		if n := lw.watches.Load(); n != 1 || clk.Waiters() != resyncTimer {
			t.Errorf("after the fake clock moved an hour: %d watches, %d waiters; want the first watch still open, and the resync timer", n, clk.Waiters())
		}
	})
}

// TestInformerResyncOnFakeClock is TestReflectorResyncOnFakeClock for a
// shared informer with an injected fake clock, in both pipelines: the
// handler with a resync period is called for every object after one period,
// and stepping the clock an hour resyncs again without restarting the watch.
func TestInformerResyncOnFakeClock(t *testing.T) {
	for _, qm := range queueModes {
		t.Run(qm.name, func(t *testing.T) {
			srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{WatchListUnsupported: true})
			defer srv.Close()
			create(t, srv, "a")
			clk := testingclock.NewFakeClock(time.Now())
			const resyncPeriod = 30 * time.Second
			inf := newSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{
				ResyncPeriod: resyncPeriod, InOrder: qm.inOrder, WatchLiveness: &WatchLivenessOptions{},
			}, clk)
			resynced := make(chan struct{}, 10)
			_, err := inf.AddEventHandlerWithResyncPeriod(ResourceEventHandlerFuncs{
				UpdateFunc: func(oldObj, newObj any) {
					if oldObj.(*metav1.PartialObjectMetadata).ResourceVersion == newObj.(*metav1.PartialObjectMetadata).ResourceVersion {
						resynced <- struct{}{}
					}
				},
			}, resyncPeriod)
			if err != nil {
				t.Fatal(err)
			}
			defer runSharedInformer(t, inf)()
			waitForSync(t, inf.HasSyncedChecker())
			expectResync := func(what string) {
				t.Helper()
				select {
				case <-resynced:
				case <-time.After(wait.ForeverTestTimeout):
					t.Fatalf("no resync after %s", what)
				}
			}

			waitFor(t, "a waiter on the fake clock", clk.HasWaiters)
			clk.Step(resyncPeriod)
			expectResync("one resync period")

			waitFor(t, "the next resync timer", clk.HasWaiters)
			clk.Step(time.Hour)
			expectResync("an hour")
			waitFor(t, "the next resync timer", clk.HasWaiters)
			if lists, rewatches := livenessRequests(srv); lists != 1 || len(rewatches) != 0 {
				t.Errorf("after the fake clock moved an hour: %d lists, rewatches at %v; want the first list and watch only", lists, rewatches)
			}
		})
	}
}

// TestReflectorWarnsAwaitingEndBookmark checks client-go's warning about a
// streaming list that awaits its initial-events-end bookmark: at each 10
// seconds of the reflector's clock without an event, and not after 10 seconds
// that brought one.
func TestReflectorWarnsAwaitingEndBookmark(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger := bufferedLogger(t)
		clk := testingclock.NewFakeClock(time.Now())
		events := make(chan watch.Event)
		lw := &ListWatch{
			ListFunc: func(metav1.ListOptions) (runtime.Object, error) { return pomList("10", ""), nil },
			WatchFunc: func(metav1.ListOptions) (watch.Interface, error) {
				return watch.NewProxyWatcher(events), nil
			},
		}
		r := NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, newRecordingStore(), ReflectorOptions{
			Logger: &logger, Clock: clk,
		})
		defer startReflector(t.Context(), r)()
		const noEvent, silent = "received no event yet", "received no event for a while"
		warnings := func() (noEvents, silences int) {
			synctest.Wait()
			out := logOutput(logger)
			return strings.Count(out, noEvent), strings.Count(out, silent)
		}
		step := func(d time.Duration) {
			synctest.Wait()
			clk.Step(d)
		}
		step(awaitingEndBookmarkAfter - time.Millisecond)
		if n, m := warnings(); n+m != 0 {
			t.Fatalf("warned before 10s passed: %d, %d", n, m)
		}
		step(time.Millisecond)
		if n, m := warnings(); n != 1 || m != 0 {
			t.Fatalf("after 10s without an event: %d and %d warnings, want 1 that no event came", n, m)
		}
		events <- added("a", "5")
		step(awaitingEndBookmarkAfter)
		if n, m := warnings(); n != 1 || m != 0 {
			t.Fatalf("after 10s with an event: %d and %d warnings, want none more", n, m)
		}
		step(awaitingEndBookmarkAfter)
		if n, m := warnings(); n != 1 || m != 1 {
			t.Fatalf("after 10s more without an event: %d and %d warnings, want one more that none came for a while", n, m)
		}
		events <- bookmarkEvent("10", true)
		step(awaitingEndBookmarkAfter)
		if n, m := warnings(); n != 1 || m != 1 {
			t.Fatalf("after the bookmark: %d and %d warnings, want none more", n, m)
		}
	})
}
