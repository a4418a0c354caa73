package wait

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"
)

func TestBackoffStep(t *testing.T) {
	s := time.Second
	tests := []struct {
		name       string
		backoff    Backoff
		steps      int
		wantDelays []time.Duration
		wantAfter  Backoff
	}{
		{
			name:       "zero value",
			steps:      2,
			wantDelays: []time.Duration{0, 0},
		},
		{
			name:       "no steps: constant",
			backoff:    Backoff{Duration: s, Factor: 2},
			steps:      3,
			wantDelays: []time.Duration{s, s, s},
			wantAfter:  Backoff{Duration: s, Factor: 2},
		},
		{
			name:       "negative steps: duration kept, steps set to 0",
			backoff:    Backoff{Duration: 2 * s, Factor: 2, Steps: -3},
			steps:      2,
			wantDelays: []time.Duration{2 * s, 2 * s},
			wantAfter:  Backoff{Duration: 2 * s, Factor: 2},
		},
		{
			name:       "steps without factor",
			backoff:    Backoff{Duration: s, Steps: 2},
			steps:      3,
			wantDelays: []time.Duration{s, s, s},
			wantAfter:  Backoff{Duration: s},
		},
		{
			name:       "exponential until steps run out",
			backoff:    Backoff{Duration: s, Factor: 2, Steps: 4},
			steps:      6,
			wantDelays: []time.Duration{s, 2 * s, 4 * s, 8 * s, 16 * s, 16 * s},
			wantAfter:  Backoff{Duration: 16 * s, Factor: 2},
		},
		{
			name:       "cap reached: duration set to cap and steps to 0",
			backoff:    Backoff{Duration: s, Factor: 3, Steps: 10, Cap: 5 * s},
			steps:      4,
			wantDelays: []time.Duration{s, 3 * s, 5 * s, 5 * s},
			wantAfter:  Backoff{Duration: 5 * s, Factor: 3, Cap: 5 * s},
		},
		{
			name:       "cap exactly reached is not truncation",
			backoff:    Backoff{Duration: s, Factor: 2, Steps: 5, Cap: 4 * s},
			steps:      2,
			wantDelays: []time.Duration{s, 2 * s},
			wantAfter:  Backoff{Duration: 4 * s, Factor: 2, Steps: 3, Cap: 4 * s},
		},
		{
			name:       "shrinking factor",
			backoff:    Backoff{Duration: s, Factor: 0.5, Steps: 3},
			steps:      4,
			wantDelays: []time.Duration{s, s / 2, s / 4, s / 8},
			wantAfter:  Backoff{Duration: s / 8, Factor: 0.5},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.backoff
			fn := tc.backoff.DelayFunc()
			var got, gotFn []time.Duration
			for range tc.steps {
				got = append(got, b.Step())
				gotFn = append(gotFn, fn())
			}
			if diff := cmp.Diff(tc.wantDelays, got); diff != "" {
				t.Errorf("Step() delays mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAfter, b); diff != "" {
				t.Errorf("backoff after the steps mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantDelays, gotFn); diff != "" {
				t.Errorf("DelayFunc() delays mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBackoffStepNil(t *testing.T) {
	var b *Backoff
	if got := b.Step(); got != 0 {
		t.Errorf("nil Backoff Step() = %v, want 0", got)
	}
}

func TestBackoffStepJitter(t *testing.T) {
	s := time.Second
	tests := []struct {
		name      string
		backoff   Backoff
		wantBases []time.Duration // each delay is in [base, base*(1+Jitter))
		wantAfter Backoff
	}{
		{
			name:      "jitter does not compound",
			backoff:   Backoff{Duration: s, Factor: 2, Jitter: 0.5, Steps: 3},
			wantBases: []time.Duration{s, 2 * s, 4 * s, 8 * s},
			wantAfter: Backoff{Duration: 8 * s, Factor: 2, Jitter: 0.5},
		},
		{
			name:      "constant duration is still jittered",
			backoff:   Backoff{Duration: s, Jitter: 1},
			wantBases: []time.Duration{s, s, s},
			wantAfter: Backoff{Duration: s, Jitter: 1},
		},
		{
			name:      "negative jitter is ignored",
			backoff:   Backoff{Duration: s, Jitter: -1, Steps: 1, Factor: 2},
			wantBases: []time.Duration{s, 2 * s},
			wantAfter: Backoff{Duration: 2 * s, Jitter: -1, Factor: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for range 100 {
				b := tc.backoff
				for i, base := range tc.wantBases {
					limit := base + time.Duration(max(b.Jitter, 0)*float64(base))
					if got := b.Step(); got < base || got > limit || (b.Jitter > 0 && got == limit) {
						t.Fatalf("step %d: delay %v, want in [%v, %v)", i, got, base, limit)
					}
				}
				if diff := cmp.Diff(tc.wantAfter, b); diff != "" {
					t.Fatalf("backoff after the steps mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestBackoffDelayFuncDoesNotModify(t *testing.T) {
	b := Backoff{Duration: time.Second, Factor: 2, Steps: 3}
	fn := b.DelayFunc()
	fn()
	fn()
	if diff := cmp.Diff(Backoff{Duration: time.Second, Factor: 2, Steps: 3}, b); diff != "" {
		t.Errorf("DelayFunc modified the backoff (-want +got):\n%s", diff)
	}
}

func TestBackoffTimerKind(t *testing.T) {
	tests := []struct {
		backoff Backoff
		want    string
	}{
		{backoff: Backoff{}, want: "wait.noopTimer"},
		{backoff: Backoff{Duration: -time.Second}, want: "wait.noopTimer"},
		{backoff: Backoff{Duration: time.Second}, want: "*wait.fixedTimer"},
		{backoff: Backoff{Duration: time.Second, Steps: 1, Factor: 2}, want: "*wait.fixedTimer"},
		{backoff: Backoff{Duration: time.Second, Steps: 2}, want: "*wait.variableTimer"},
		{backoff: Backoff{Duration: time.Second, Jitter: 0.1}, want: "*wait.variableTimer"},
		{backoff: Backoff{Duration: time.Second, Jitter: -0.1}, want: "*wait.variableTimer"},
		{backoff: Backoff{Jitter: 1}, want: "*wait.variableTimer"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%+v", tc.backoff), func(t *testing.T) {
			tm := tc.backoff.Timer()
			defer tm.Stop()
			if got := fmt.Sprintf("%T", tm); got != tc.want {
				t.Errorf("Timer() is a %s, want %s", got, tc.want)
			}
		})
	}
}

func TestBackoffDelayWithReset(t *testing.T) {
	s := time.Second
	type call struct {
		advance time.Duration // clock step before the call
		want    time.Duration
	}
	tests := []struct {
		name          string
		backoff       Backoff
		resetInterval time.Duration
		calls         []call
	}{
		{
			name:          "no factor: plain DelayFunc",
			backoff:       Backoff{Duration: s, Steps: 3},
			resetInterval: time.Minute,
			calls:         []call{{want: s}, {want: s}, {advance: 2 * time.Minute, want: s}},
		},
		{
			name:          "no reset interval: constant",
			backoff:       Backoff{Duration: s, Factor: 2, Steps: 3},
			resetInterval: 0,
			calls:         []call{{want: s}, {want: s}, {want: s}},
		},
		{
			name:          "grows to the cap without a reset",
			backoff:       Backoff{Duration: s, Factor: 2, Steps: 10, Cap: 4 * s},
			resetInterval: time.Minute,
			calls:         []call{{want: s}, {want: 2 * s}, {want: 4 * s}, {want: 4 * s}},
		},
		{
			name:          "resets when the interval since the last reset has passed",
			backoff:       Backoff{Duration: s, Factor: 2, Steps: 10},
			resetInterval: time.Minute,
			calls: []call{
				{want: s},
				{advance: 30 * s, want: 2 * s},
				{advance: 30 * s, want: 4 * s}, // exactly one interval: no reset yet
				{advance: 30 * s, want: s},     // 90s after the start: reset, even though calls kept coming
				{advance: 30 * s, want: 2 * s},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(time.Unix(0, 0))
			fn := tc.backoff.DelayWithReset(clk, tc.resetInterval)
			for i, c := range tc.calls {
				clk.Step(c.advance)
				if got := fn(); got != c.want {
					t.Errorf("call %d: delay %v, want %v", i, got, c.want)
				}
			}
		})
	}
}

func TestBackoffDelayWithResetNilClock(t *testing.T) {
	fn := Backoff{Duration: time.Second, Factor: 2, Steps: 2}.DelayWithReset(nil, time.Minute)
	if got := fn(); got != time.Second {
		t.Errorf("first delay %v, want 1s", got)
	}
}
