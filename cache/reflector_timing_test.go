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

// TestReflectorBackoffSequence checks the delays against their bounds on a
// fake clock: 800ms doubling to a 30s cap, each stretched by [1, 2); a
// continuous run of failures never restarts the sequence; two minutes of
// health do.
func TestReflectorBackoffSequence(t *testing.T) {
	bounds := func(base time.Duration) [2]time.Duration { return [2]time.Duration{base, 2 * base} }
	want := []([2]time.Duration){
		bounds(800 * time.Millisecond), bounds(1600 * time.Millisecond), bounds(3200 * time.Millisecond),
		bounds(6400 * time.Millisecond), bounds(12800 * time.Millisecond), bounds(25600 * time.Millisecond),
		bounds(30 * time.Second), bounds(30 * time.Second), bounds(30 * time.Second),
	}
	for trial := range 20 {
		clk := testingclock.NewFakeClock(time.Unix(1000, 0))
		b := newReflectorBackoff(defaultBackoff(), defaultBackoffReset, clk)
		// Failures follow each other with no healthy time in between, for
		// far longer than the reset period.
		for i := range 40 {
			d := b.next()
			w := want[min(i, len(want)-1)]
			if d < w[0] || d >= w[1] {
				t.Fatalf("trial %d: delay %d = %v, want in [%v, %v)", trial, i, d, w[0], w[1])
			}
			clk.Step(d)
		}
		// Almost two minutes of health: the sequence goes on.
		clk.Step(defaultBackoffReset - time.Second)
		d := b.next()
		if d < 30*time.Second {
			t.Fatalf("trial %d: delay after 1m59s of health = %v, want the capped delay", trial, d)
		}
		clk.Step(d + defaultBackoffReset)
		if d := b.next(); d < 800*time.Millisecond || d >= 1600*time.Millisecond {
			t.Fatalf("trial %d: delay after 2m of health = %v, want the sequence restarted", trial, d)
		}
	}
}

func TestReflectorCustomBackoff(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(1000, 0))
	r := NewReflectorWithOptions(newScriptedLW(nil, nil), nil, newRecordingStore(), ReflectorOptions{
		Clock:   clk,
		Backoff: &wait.Backoff{Duration: time.Second, Factor: 3, Steps: 3},
	})
	var got []time.Duration
	for range 4 {
		got = append(got, r.backoff.next())
	}
	want := []time.Duration{time.Second, 3 * time.Second, 9 * time.Second, 27 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
}

// TestReflectorRunWaitsOnInjectedClock shows that the delay between two
// ListAndWatch cycles ends when it has passed on the injected clock. (It
// also ends in real time, which this test stops; see
// TestReflectorGoesOnWithAFakeClockNeverStepped.)
func TestReflectorRunWaitsOnInjectedClock(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	clk := testingclock.NewFakeClock(time.Unix(1000, 0))
	lw := newScriptedLW([]step{{err: errInternal}, {err: errInternal}}, nil)
	lw.noWatchList = true
	r := NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, newRecordingStore(), ReflectorOptions{
		Clock:   clk,
		Backoff: &wait.Backoff{Duration: time.Second, Factor: 2, Steps: 5}, // no jitter: exact delays
	})
	r.realTime = testingclock.NewFakeClock(time.Unix(0, 0)) // real time stands still
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunWithContext(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	lists := func() int { return len(lw.recorded()) }
	waitFor(t, "the first list", func() bool { return lists() == 1 && clk.HasWaiters() })
	clk.Step(999 * time.Millisecond)
	if !clk.HasWaiters() || lists() != 1 {
		t.Fatalf("relisted before the 1s delay passed")
	}
	clk.Step(time.Millisecond)
	waitFor(t, "the second list", func() bool { return lists() == 2 && clk.HasWaiters() })
	clk.Step(2*time.Second - time.Millisecond)
	if !clk.HasWaiters() || lists() != 2 {
		t.Fatalf("relisted before the 2s delay passed")
	}
	clk.Step(time.Millisecond)
	waitFor(t, "the third list", func() bool { return lists() == 3 })
}

// TestReflectorGoesOnWithAFakeClockNeverStepped checks what a test written
// against client-go sees when it gives the reflector a fake clock and never
// steps it: the reflector relists and reopens watches, since the delays that
// client-go waits in real time, or does not wait at all, end in real time
// too. Retries of throttled requests wait on the fake clock alone, as in
// client-go. It runs in a synctest bubble, whose real time is fake, and gives
// the reflector an hour of it.
func TestReflectorGoesOnWithAFakeClockNeverStepped(t *testing.T) {
	for _, tc := range []struct {
		name           string
		watchList      bool
		lists, watches []step
		wantCalls      []call
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
				time.Sleep(time.Hour)
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
// on the injected clock while ShouldResync agrees, and that a failed Resync
// ends the watch and relists.
func TestReflectorResyncTiming(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	clk := testingclock.NewFakeClock(time.Unix(1000, 0))
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
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunWithContext(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	resyncs := func() int {
		n := 0
		for _, op := range store.operations() {
			if op == "resync" {
				n++
			}
		}
		return n
	}
	// Two timers: the resync period, and the bound on the watch's life.
	timers := func(n int) func() bool { return func() bool { return clk.Waiters() == n } }
	waitFor(t, "the watch and the resync timer", func() bool { return len(lw.recorded()) == 2 && clk.Waiters() == 2 })

	clk.Step(29 * time.Second)
	allow <- true // consumed only if a resync tick happens
	clk.Step(time.Second)
	waitFor(t, "the first resync", func() bool { return resyncs() == 1 })

	waitFor(t, "the next resync timer", timers(2))
	allow <- false
	clk.Step(30 * time.Second)
	waitFor(t, "ShouldResync to be asked", func() bool { return len(allow) == 0 })
	waitFor(t, "the next resync timer", timers(2))
	if got := resyncs(); got != 1 {
		t.Fatalf("%d resyncs after ShouldResync said no, want 1", got)
	}

	store.mu.Lock()
	store.failOn["resync"] = errors.New("resync failed")
	store.mu.Unlock()
	allow <- true
	clk.Step(30 * time.Second)
	// The failed resync ends the watch (the watch, then its timer, are
	// stopped); the relist follows a 1s backoff.
	waitFor(t, "the backoff timer", func() bool {
		return resyncs() == 2 && lw.opened[0].isStopped() && clk.Waiters() == 1
	})
	clk.Step(time.Second)
	waitFor(t, "the relist", func() bool { return len(lw.recorded()) >= 3 })
	if diff := cmp.Diff([]call{listCall("0", 500), watchCall("10"), listCall("10", 0)}, callsOf(lw.recorded())[:3]); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// TestReflectorWatchListStallTimeout checks the stall deadline of streaming
// lists on the injected clock: it restarts with every ADDED event of the
// initial list, not with events that are dropped, and when it passes the
// reflector falls back to a paginated list.
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
			_, ctx := ktesting.NewTestContext(t)
			ctx, cancel := context.WithCancel(ctx)
			clk := testingclock.NewFakeClock(time.Unix(1000, 0))
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
			// Two timers: the stall timeout, and the bound on the
			// watch's life.
			waitFor(t, "the stall timer", func() bool { return clk.Waiters() == 2 })
			clk.Step(tc.want - time.Second)
			// Progress: the deadline starts over. A send returns once
			// the event before it has been handled completely.
			events <- added("a", "5")
			events <- added("b", "6")
			events <- watch.Event{Type: watch.Added, Object: &metav1.Status{}}
			// Events that are dropped are no progress.
			clk.Step(tc.want / 2)
			events <- watch.Event{Type: "Strange", Object: pom("x", "7")}
			events <- watch.Event{Type: watch.Added, Object: (*metav1.PartialObjectMetadata)(nil)}
			clk.Step(tc.want/2 - time.Second)
			if calls := lw.recorded(); len(calls) != 0 {
				t.Fatalf("gave up on a stream that made progress: %v", calls)
			}
			clk.Step(time.Second)
			waitFor(t, "the fallback list and watch", func() bool { return len(lw.recorded()) == 2 })
			if diff := cmp.Diff([]call{listCall("0", 500), watchCall("10")}, callsOf(lw.recorded())); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if r.useWatchList.Load() {
				t.Errorf("the reflector still uses streaming lists after a stall")
			}
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
