package wait

import (
	"testing"
	"time"

	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// expectFiresAfter checks that tm fires exactly d after now on clk.
func expectFiresAfter(t *testing.T, clk *testingclock.FakeClock, tm clock.Timer, d time.Duration) {
	t.Helper()
	if d > 0 {
		clk.Step(d - 1)
		if isReady(tm.C()) {
			t.Fatalf("timer fired before %v", d)
		}
	}
	clk.Step(min(d, 1))
	if !isReady(tm.C()) {
		t.Fatalf("timer did not fire after %v", d)
	}
}

func TestExponentialBackoffManager(t *testing.T) {
	s := time.Second
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	m := NewExponentialBackoffManager(s, 10*s, time.Minute, 2, 0, clk)
	var first clock.Timer
	for i, want := range []time.Duration{s, 2 * s, 4 * s, 8 * s, 10 * s, 10 * s} {
		tm := m.Backoff()
		if first == nil {
			first = tm
		} else if tm != first {
			t.Fatalf("call %d: Backoff returned a new timer instead of resetting the shared one", i)
		}
		expectFiresAfter(t, clk, tm, want)
	}
	// More than resetDuration since the last call: start over.
	clk.Step(time.Minute + 1)
	expectFiresAfter(t, clk, m.Backoff(), s)
}

func TestExponentialBackoffManagerJitter(t *testing.T) {
	s := time.Second
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	m := NewExponentialBackoffManager(s, 100*s, time.Minute, 2, 0.5, clk).(*exponentialBackoffManager)
	for i, base := range []time.Duration{s, 2 * s, 4 * s, 8 * s} {
		if got := m.nextBackoff(); got < base || got >= base*3/2 {
			t.Errorf("call %d: delay %v, want in [%v, %v)", i, got, base, base*3/2)
		}
	}
}

func TestJitteredBackoffManager(t *testing.T) {
	s := time.Second
	tests := []struct {
		name    string
		jitter  float64
		wantMax time.Duration // exclusive; 0 means exactly the duration
	}{
		{name: "no jitter", jitter: 0},
		{name: "negative jitter is no jitter", jitter: -1},
		{name: "jitter", jitter: 0.5, wantMax: 3 * s / 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(time.Unix(0, 0))
			m := NewJitteredBackoffManager(s, tc.jitter, clk).(*jitteredBackoffManager)
			for range 100 {
				got := m.nextBackoff()
				if tc.wantMax == 0 && got != s || tc.wantMax != 0 && (got < s || got >= tc.wantMax) {
					t.Fatalf("delay %v out of range", got)
				}
			}
			if tc.wantMax == 0 {
				tm := m.Backoff()
				expectFiresAfter(t, clk, tm, s)
				if m.Backoff() != tm {
					t.Error("Backoff returned a new timer instead of resetting the shared one")
				}
				expectFiresAfter(t, clk, tm, s)
			}
		})
	}
}

func TestBackoffManagersNilClock(t *testing.T) {
	if c := NewJitteredBackoffManager(time.Second, 0, nil).(*jitteredBackoffManager).clock; c != (clock.RealClock{}) {
		t.Errorf("jittered manager clock = %T, want clock.RealClock", c)
	}
	if c := NewExponentialBackoffManager(time.Second, time.Minute, time.Minute, 2, 0, nil).(*exponentialBackoffManager).clock; c != (clock.RealClock{}) {
		t.Errorf("exponential manager clock = %T, want clock.RealClock", c)
	}
}
