package wait

import (
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

func TestFixedTimer(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	tm := Backoff{Duration: time.Second}.timer(clk)
	ch := tm.C()
	for i := range 3 {
		clk.Step(time.Second - 1)
		if isReady(ch) {
			t.Fatalf("tick %d: fired early", i)
		}
		clk.Step(1)
		if !isReady(ch) {
			t.Fatalf("tick %d: did not fire after the interval", i)
		}
		tm.Next() // no-op: the ticker keeps its own schedule
	}
	tm.Stop()
	tm.Stop()
}

func TestVariableTimer(t *testing.T) {
	s := time.Second
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	tm := Backoff{Duration: s, Factor: 2, Steps: 5}.timer(clk)
	tm.Next() // before C: nothing to re-arm
	if clk.HasWaiters() {
		t.Fatal("timer started before C was called")
	}
	for i, d := range []time.Duration{s, 2 * s, 4 * s} {
		if i > 0 {
			tm.Next()
		}
		ch := tm.C() // the first call starts the timer
		clk.Step(d - 1)
		if isReady(ch) {
			t.Fatalf("interval %d: fired before %v", i, d)
		}
		clk.Step(1)
		if !isReady(ch) {
			t.Fatalf("interval %d: did not fire after %v", i, d)
		}
	}
	tm.Stop()
	if clk.HasWaiters() {
		t.Error("Stop left the timer armed")
	}
	// After Stop, C starts a new timer with the next delay.
	ch := tm.C()
	clk.Step(8 * s)
	if !isReady(ch) {
		t.Error("C after Stop did not start a timer with the next delay")
	}
	tm.Stop()
}

func TestNoopTimer(t *testing.T) {
	tm := Backoff{}.Timer()
	for range 3 {
		if !isReady(tm.C()) {
			t.Fatal("noop timer did not fire at once")
		}
		tm.Next()
	}
	tm.Stop()
	if a, b := newNoopTimer(), newNoopTimer(); a.C() == b.C() {
		t.Error("noop timers share a channel")
	}
}

func TestRealTimer(t *testing.T) {
	tm := RealTimer(0)
	select {
	case <-tm.C():
	case <-time.After(ForeverTestTimeout):
		t.Fatal("RealTimer(0) did not fire")
	}
}
