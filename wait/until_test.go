package wait

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"
)

// untilVariant runs one of the Until functions with period 10s and no
// jitter until stop is called.
type untilVariant struct {
	name    string
	sliding bool
	run     func(ctx context.Context, f func())
}

func untilVariants() []untilVariant {
	const p = 10 * time.Second
	withCtx := func(f func()) func(context.Context) { return func(context.Context) { f() } }
	return []untilVariant{
		{"Until", true, func(ctx context.Context, f func()) { Until(f, p, ctx.Done()) }},
		{"UntilWithContext", true, func(ctx context.Context, f func()) { UntilWithContext(ctx, withCtx(f), p) }},
		{"NonSlidingUntil", false, func(ctx context.Context, f func()) { NonSlidingUntil(f, p, ctx.Done()) }},
		{"NonSlidingUntilWithContext", false, func(ctx context.Context, f func()) { NonSlidingUntilWithContext(ctx, withCtx(f), p) }},
		{"JitterUntil sliding", true, func(ctx context.Context, f func()) { JitterUntil(f, p, 0, true, ctx.Done()) }},
		{"JitterUntil non-sliding", false, func(ctx context.Context, f func()) { JitterUntil(f, p, 0, false, ctx.Done()) }},
		{"JitterUntilWithContext sliding", true, func(ctx context.Context, f func()) { JitterUntilWithContext(ctx, withCtx(f), p, -1, true) }},
		{"JitterUntilWithContext non-sliding", false, func(ctx context.Context, f func()) { JitterUntilWithContext(ctx, withCtx(f), p, 0, false) }},
	}
}

func TestUntilTimings(t *testing.T) {
	tests := []struct {
		name        string
		work        time.Duration // how long each call of f takes
		wantSliding []time.Duration
		wantFixed   []time.Duration
	}{
		{name: "instant f", work: 0, wantSliding: seconds(0, 10, 20), wantFixed: seconds(0, 10, 20)},
		{name: "f shorter than the period", work: 3 * time.Second, wantSliding: seconds(0, 13, 26), wantFixed: seconds(0, 10, 20)},
		{name: "f longer than the period", work: 15 * time.Second, wantSliding: seconds(0, 25, 50), wantFixed: seconds(0, 15, 30)},
	}
	for _, v := range untilVariants() {
		for _, tc := range tests {
			t.Run(v.name+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					ctx, cancel := context.WithCancel(t.Context())
					c := newCalls()
					v.run(ctx, func() {
						if c.record() == 3 {
							cancel() // no call may follow, even though f keeps working
						}
						time.Sleep(tc.work)
					})
					want := tc.wantFixed
					if v.sliding {
						want = tc.wantSliding
					}
					if diff := cmp.Diff(want, c.offsets); diff != "" {
						t.Errorf("call times mismatch (-want +got):\n%s", diff)
					}
				})
			})
		}
	}
}

func TestUntilStoppedBeforeStart(t *testing.T) {
	for _, v := range untilVariants() {
		t.Run(v.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			v.run(ctx, func() { t.Error("f called after stop") })
		})
	}
}

// TestForever runs on the real clock: Forever selects on NeverStop, a
// channel from outside any synctest bubble, so a bubble's clock would not
// advance. The period is short and only the number of calls is checked.
func TestForever(t *testing.T) {
	n := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		Forever(func() {
			n++
			if n == 3 {
				runtime.Goexit() // the only way out of Forever
			}
		}, time.Millisecond)
	}()
	select {
	case <-done:
	case <-time.After(ForeverTestTimeout):
		t.Fatal("Forever did not call f three times")
	}
	if n != 3 {
		t.Errorf("f called %d times, want 3", n)
	}
}

func TestJitterUntilJitterRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stop := make(chan struct{})
		c := newCalls()
		JitterUntil(func() {
			if c.record() == 50 {
				close(stop)
			}
		}, 10*time.Second, 0.5, true, stop)
		for i := 1; i < len(c.offsets); i++ {
			if gap := c.offsets[i] - c.offsets[i-1]; gap < 10*time.Second || gap >= 15*time.Second {
				t.Errorf("gap %d = %v, want in [10s, 15s)", i, gap)
			}
		}
	})
}

func TestUntilPanic(t *testing.T) {
	t.Run("propagated by default", func(t *testing.T) {
		_, ctx := ktesting.NewTestContext(t) // the logged panic goes to the test log
		var got any
		func() {
			defer func() { got = recover() }()
			UntilWithContext(ctx, func(context.Context) { panic("boom") }, time.Second)
		}()
		if got != "boom" {
			t.Errorf("recovered %v, want the panic of f", got)
		}
	})
	t.Run("loop continues when ReallyCrash is off", func(t *testing.T) {
		defer func(old bool) { utilruntime.ReallyCrash = old }(utilruntime.ReallyCrash)
		utilruntime.ReallyCrash = false
		synctest.Test(t, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			n := 0
			UntilWithContext(ctx, func(context.Context) {
				n++
				if n == 1 {
					panic("boom")
				}
				cancel()
			}, time.Second)
			if n != 2 {
				t.Errorf("f called %d times, want 2", n)
			}
		})
	})
}

// nilTimerManager is a misbehaving BackoffManager.
type nilTimerManager struct{}

func (nilTimerManager) Backoff() clockTimer { return nil }

func TestBackoffUntilBadArguments(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t) // the reported errors go to the test log
	calls := 0
	f := func(context.Context) { calls++ }
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	manager := NewJitteredBackoffManager(time.Second, 0, clk)
	tests := []struct {
		name      string
		run       func()
		wantCalls int
	}{
		{name: "nil f", run: func() { BackoffUntil(nil, manager, true, NeverStop) }},
		{name: "nil f with context", run: func() { BackoffUntilWithContext(ctx, nil, manager, true) }},
		{name: "nil manager", run: func() { BackoffUntilWithContext(ctx, f, nil, true) }},
		{name: "nil context", run: func() { BackoffUntilWithContext(nilContext, f, manager, true) }},
		{name: "nil UntilWithContext f", run: func() { UntilWithContext(ctx, nil, time.Second) }},
		{name: "manager returning a nil timer", run: func() { BackoffUntilWithContext(ctx, f, nilTimerManager{}, true) }, wantCalls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls = 0
			tc.run() // must return at once, without panicking
			if calls != tc.wantCalls {
				t.Errorf("f called %d times, want %d", calls, tc.wantCalls)
			}
		})
	}
}

// firedTimerManager hands out a fake timer that has already fired, so the
// loop finds both its context done and its timer ready.
type firedTimerManager struct {
	clk   *testingclock.FakeClock
	timer clockTimer
}

func (m *firedTimerManager) Backoff() clockTimer {
	m.timer = resetOrNewTimer(m.clk, m.timer, 0)
	m.clk.Step(0)
	return m.timer
}

func TestBackoffUntilLeavesTimerDrained(t *testing.T) {
	for range 20 { // select picks at random: cover both outcomes
		m := &firedTimerManager{clk: testingclock.NewFakeClock(time.Unix(0, 0))}
		ctx, cancel := context.WithCancel(t.Context())
		BackoffUntilWithContext(ctx, func(context.Context) { cancel() }, m, true)
		if isReady(m.timer.C()) {
			t.Fatal("BackoffUntil returned with a tick left in the shared timer")
		}
	}
}

func TestBackoffUntilStopsTimer(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var mu sync.Mutex
	n := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		BackoffUntilWithContext(ctx, func(context.Context) {
			mu.Lock()
			defer mu.Unlock()
			n++
		}, NewJitteredBackoffManager(time.Second, 0, clk), true)
	}()
	waitFor(t, clk.HasWaiters)
	clk.Step(time.Second)
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return n == 2 })
	waitFor(t, clk.HasWaiters)
	cancel()
	<-done
	if clk.HasWaiters() {
		t.Error("BackoffUntil returned with its timer still armed")
	}
}
