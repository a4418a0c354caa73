package cache

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/informer-go/informer/wait"
)

// TestReflectorRunWaitsInRealTime shows that the delay between two
// ListAndWatch cycles passes in real time, as client-go's does, and puts no
// timer on the injected clock: a test stepping it sees no waiter, and
// stepping it does not shorten the delay.
func TestReflectorRunWaitsInRealTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, ctx := ktesting.NewTestContext(t)
		clk := testingclock.NewFakeClock(time.Now())
		lw := newScriptedLW([]step{{err: errInternal}, {err: errInternal}}, nil)
		lw.noWatchList = true
		r := NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, newRecordingStore(), ReflectorOptions{
			Clock:   clk,
			Backoff: &wait.Backoff{Duration: time.Second, Factor: 2, Steps: 5}, // no jitter: exact delays
		})
		defer startReflector(ctx, r)()
		lists := func() int { return len(lw.recorded()) }
		synctest.Wait()
		if lists() != 1 || clk.HasWaiters() {
			t.Fatalf("after the first list: %d lists, %d waiters on the injected clock; want 1 and 0", lists(), clk.Waiters())
		}
		// Less than the two minutes after which the backoff sequence,
		// which reads this clock, would start over.
		clk.Step(time.Minute)
		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		if lists() != 1 {
			t.Fatalf("relisted before the 1s delay passed in real time")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if lists() != 2 || clk.HasWaiters() {
			t.Fatalf("after 1s: %d lists, %d waiters on the injected clock; want 2 and 0", lists(), clk.Waiters())
		}
		time.Sleep(2*time.Second - time.Millisecond)
		synctest.Wait()
		if lists() != 2 {
			t.Fatalf("relisted before the 2s delay passed in real time")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if lists() != 3 {
			t.Fatalf("no third list after the 2s delay")
		}
	})
}

// TestReflectorGoesOnWithAFakeClockNeverStepped checks what a test written
// against client-go sees when it gives the reflector a fake clock and never
// steps it: the reflector relists and reopens watches, since the delays that
// client-go waits in real time, or does not wait at all, pass in real time.
// Retries of throttled requests wait on the fake clock, as in client-go, and
// a watch that outlives its timeout is reopened in real time. It runs in a
// synctest bubble, whose real time is fake.
func TestReflectorGoesOnWithAFakeClockNeverStepped(t *testing.T) {
	for _, tc := range []struct {
		name           string
		watchList      bool
		lists, watches []step
		// wait is how long the test lets the reflector run: ten minutes
		// unless set, less than the eleven after which the reflector
		// reopens a watch the server has not closed.
		wait      time.Duration
		wantCalls []call
	}{{
		name:      "a failed list is retried",
		lists:     []step{{err: errForbidden}, {list: pomList("10", "")}},
		wantCalls: []call{listCall("0", 500), listCall("0", 500), watchCall("10")},
	}, {
		name:      "a very short watch relists",
		lists:     []step{{list: pomList("10", "")}, {list: pomList("11", "")}},
		watches:   []step{{closeAtEnd: true}},
		wantCalls: []call{listCall("0", 500), watchCall("10"), listCall("10", 0), watchCall("11")},
	}, {
		name:  "watches that keep closing as soon as they open are reopened",
		lists: []step{{list: pomList("10", "")}},
		watches: []step{
			{events: []watch.Event{added("a", "11")}, closeAtEnd: true},
			{events: []watch.Event{added("b", "12")}, closeAtEnd: true},
			{events: []watch.Event{added("c", "13")}, closeAtEnd: true},
		},
		wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("11"), watchCall("12"), watchCall("13")},
	}, {
		name:      "a streaming list closed before its bookmark is streamed again",
		watchList: true,
		watches: []step{
			{events: []watch.Event{added("a", "5")}, closeAtEnd: true},
			{events: []watch.Event{added("a", "5"), bookmarkEvent("10", true)}},
		},
		wantCalls: []call{watchListCall(""), watchListCall("")},
	}, {
		name:      "a throttled watch waits for the fake clock",
		lists:     []step{{list: pomList("10", "")}},
		watches:   []step{{err: errTooMany}},
		wantCalls: []call{listCall("0", 500), watchCall("10")},
	}, {
		name:      "a watch the server never closes is reopened after eleven minutes",
		lists:     []step{{list: pomList("10", "")}},
		wait:      25 * time.Minute,
		wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("10"), watchCall("10")},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logger, ctx := ktesting.NewTestContext(t)
				ctx, cancel := context.WithCancel(ctx)
				lw := newScriptedLW(tc.lists, tc.watches)
				lw.noWatchList = !tc.watchList
				r := NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, newRecordingStore(), ReflectorOptions{
					Logger: &logger,
					Clock:  testingclock.NewFakeClock(time.Now()),
				})
				done := make(chan struct{})
				go func() {
					defer close(done)
					r.RunWithContext(ctx)
				}()
				wait := 10 * time.Minute
				if tc.wait > 0 {
					wait = tc.wait
				}
				time.Sleep(wait)
				cancel()
				<-done
				if diff := cmp.Diff(tc.wantCalls, callsOf(lw.recorded())); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestReflectorResyncTiming checks that Resync is called every resync period
// on the injected clock while ShouldResync agrees, that the resync timer is
// the only waiter on that clock while the watch is open, and that a failed
// Resync ends the watch and relists after a backoff delay in real time.
func TestReflectorResyncTiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, ctx := ktesting.NewTestContext(t)
		clk := testingclock.NewFakeClock(time.Now())
		lw := newScriptedLW([]step{{list: pomList("10", "")}, {list: pomList("11", "")}},
			[]step{{events: []watch.Event{added("a", "10")}}}) // an open watch
		lw.noWatchList = true
		store := newRecordingStore()
		r := NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, store, ReflectorOptions{
			Clock: clk, ResyncPeriod: 30 * time.Second,
			Backoff: &wait.Backoff{Duration: time.Second},
		})
		allow := make(chan bool, 1)
		r.ShouldResync = func() bool { return <-allow }
		defer startReflector(ctx, r)()
		resyncs := func() int {
			n := 0
			for _, op := range store.operations() {
				if op == "resync" {
					n++
				}
			}
			return n
		}
		// onlyTheResyncTimer checks that the resync period is the one
		// timer on the injected clock.
		onlyTheResyncTimer := func(when string) {
			t.Helper()
			synctest.Wait()
			if n := clk.Waiters(); n != 1 {
				t.Fatalf("%s: %d waiters on the injected clock, want 1 (the resync timer)", when, n)
			}
		}
		onlyTheResyncTimer("watching")
		if got := len(lw.recorded()); got != 2 {
			t.Fatalf("%d calls, want a list and a watch", got)
		}

		clk.Step(29 * time.Second)
		allow <- true // consumed only if a resync tick happens
		clk.Step(time.Second)
		onlyTheResyncTimer("after the first resync")
		if got := resyncs(); got != 1 {
			t.Fatalf("%d resyncs after one period, want 1", got)
		}

		allow <- false
		clk.Step(30 * time.Second)
		onlyTheResyncTimer("after ShouldResync said no")
		if len(allow) != 0 {
			t.Fatalf("ShouldResync not asked after a period")
		}
		if got := resyncs(); got != 1 {
			t.Fatalf("%d resyncs after ShouldResync said no, want 1", got)
		}

		store.mu.Lock()
		store.failOn["resync"] = errors.New("resync failed")
		store.mu.Unlock()
		allow <- true
		clk.Step(30 * time.Second)
		// The failed resync ends the watch; the relist follows a 1s
		// backoff in real time, with nothing on the injected clock.
		synctest.Wait()
		if resyncs() != 2 || !lw.watchStopped(0) || clk.HasWaiters() {
			t.Fatalf("after the failed resync: %d resyncs (want 2), watch stopped %v, %d waiters (want 0)",
				resyncs(), lw.watchStopped(0), clk.Waiters())
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if diff := cmp.Diff([]call{listCall("0", 500), watchCall("10"), listCall("10", 0)}, callsOf(lw.recorded())[:3]); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
}

// TestReflectorWatchListStallTimeout checks the stall deadline of streaming
// lists, in real time: it restarts with every ADDED event of the initial
// list, not with events that are dropped, and when it passes the reflector
// falls back to a paginated list. Meanwhile the injected clock carries only
// client-go's 10-second warning ticker.
func TestReflectorWatchListStallTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		want    time.Duration
	}{
		{name: "default", timeout: 0, want: time.Minute},
		{name: "custom", timeout: 10 * time.Second, want: 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, ctx := ktesting.NewTestContext(t)
				ctx, cancel := context.WithCancel(ctx)
				clk := testingclock.NewFakeClock(time.Now())
				events := make(chan watch.Event)
				lw := newScriptedLW([]step{{list: pomList("10", "")}}, nil)
				lw2 := &ListWatch{
					ListWithContextFunc: lw.ListWithContext,
					WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
						if opts.SendInitialEvents == nil {
							return lw.WatchWithContext(ctx, opts)
						}
						return watch.NewProxyWatcher(events), nil
					},
				}
				r := NewReflectorWithOptions(lw2, &metav1.PartialObjectMetadata{}, newRecordingStore(), ReflectorOptions{
					Clock: clk, WatchListStallTimeout: tc.timeout,
				})
				done := make(chan struct{})
				go func() {
					defer close(done)
					_ = r.ListAndWatchWithContext(ctx)
				}()
				defer func() {
					cancel()
					<-done
				}()
				synctest.Wait()
				if n := clk.Waiters(); n != 1 {
					t.Fatalf("%d waiters on the injected clock during the streaming list, want 1 (the warning ticker)", n)
				}
				time.Sleep(tc.want - time.Second)
				// Progress: the deadline starts over. A send returns once
				// the event before it has been handled completely.
				events <- added("a", "5")
				events <- added("b", "6")
				events <- watch.Event{Type: watch.Added, Object: &metav1.Status{}}
				// Events that are dropped are no progress.
				time.Sleep(tc.want / 2)
				events <- watch.Event{Type: "Strange", Object: pom("x", "7")}
				events <- watch.Event{Type: watch.Added, Object: (*metav1.PartialObjectMetadata)(nil)}
				time.Sleep(tc.want/2 - time.Second)
				synctest.Wait()
				if calls := lw.recorded(); len(calls) != 0 {
					t.Fatalf("gave up on a stream that made progress: %v", calls)
				}
				time.Sleep(time.Second)
				synctest.Wait()
				if diff := cmp.Diff([]call{listCall("0", 500), watchCall("10")}, callsOf(lw.recorded())); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
				if r.useWatchList.Load() {
					t.Errorf("the reflector still uses streaming lists after a stall")
				}
			})
		})
	}
}

func TestReflectorWatchTimeouts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		min      time.Duration
		wantLow  int64
		wantHigh int64
	}{
		{name: "default", wantLow: 300, wantHigh: 600},
		{name: "below five minutes is ignored", min: time.Minute, wantLow: 300, wantHigh: 600},
		{name: "longer", min: 10 * time.Minute, wantLow: 600, wantHigh: 1200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReflectorWithOptions(newScriptedLW(nil, nil), nil, newRecordingStore(), ReflectorOptions{MinWatchTimeout: tc.min})
			low, high := int64(1<<62), int64(0)
			for range 2000 {
				s := r.watchTimeoutSeconds()
				low, high = min(low, s), max(high, s)
			}
			if low < tc.wantLow || high > tc.wantHigh {
				t.Errorf("timeouts in [%d, %d], want within [%d, %d]", low, high, tc.wantLow, tc.wantHigh)
			}
			// 2000 uniform draws cover the range: not all equal, close to
			// both ends.
			if high-low < (tc.wantHigh-tc.wantLow)*9/10 {
				t.Errorf("timeouts in [%d, %d] are not spread over [%d, %d]", low, high, tc.wantLow, tc.wantHigh)
			}
		})
	}
}

// TestReflectorStopsDuringList checks that a reflector stops at once when its
// context ends during a list, even when the list function ignores the
// context.
func TestReflectorStopsDuringList(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	release := make(chan struct{})
	listed := make(chan struct{})
	returned := make(chan struct{})
	lw := &ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
			close(listed)
			<-release
			defer close(returned)
			return pomList("10", ""), nil
		},
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return nil, fmt.Errorf("unexpected watch") },
	}
	store := newRecordingStore()
	r := NewReflectorWithOptions(ToListWatcherWithWatchListSemantics(lw, optOut{}), nil, store, ReflectorOptions{})
	done := make(chan error)
	go func() { done <- r.ListAndWatchWithContext(ctx) }()
	<-listed
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ListAndWatch = %v, want nil after stop", err)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("ListAndWatch did not return after stop")
	}
	close(release)
	<-returned
	if ops := store.operations(); len(ops) != 0 {
		t.Errorf("the store saw %v after stop", ops)
	}
}

// optOut is a client that does not support streaming lists.
type optOut struct{}

func (optOut) IsWatchListSemanticsUnSupported() bool { return true }
