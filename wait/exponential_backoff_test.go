package wait

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	testingclock "k8s.io/utils/clock/testing"
)

func TestExponentialBackoff(t *testing.T) {
	s := time.Second
	tests := []struct {
		name      string
		backoff   Backoff
		results   []conditionResult
		wantCalls []time.Duration // clock offsets of the condition calls
		wantEnd   time.Duration   // clock offset on return
		wantErr   error
	}{
		{
			name:      "steps exhausted",
			backoff:   Backoff{Duration: s, Factor: 2, Steps: 4},
			wantCalls: seconds(0, 1, 3, 7),
			wantEnd:   7 * s,
			wantErr:   ErrWaitTimeout,
		},
		{
			name:      "done on the second call",
			backoff:   Backoff{Duration: s, Factor: 2, Steps: 4},
			results:   []conditionResult{notYet, done},
			wantCalls: seconds(0, 1),
			wantEnd:   s,
		},
		{
			name:      "condition error",
			backoff:   Backoff{Duration: s, Steps: 4},
			results:   []conditionResult{notYet, notYet, failed},
			wantCalls: seconds(0, 1, 2),
			wantEnd:   2 * s,
			wantErr:   errCondition,
		},
		{
			name:    "no steps: condition never called",
			backoff: Backoff{Duration: s, Factor: 2},
			wantErr: ErrWaitTimeout,
		},
		{
			name:      "one step: one call, no sleep",
			backoff:   Backoff{Duration: s, Steps: 1},
			wantCalls: seconds(0),
			wantErr:   ErrWaitTimeout,
		},
		{
			name:      "cap reached: the sleep before the capped step is the last",
			backoff:   Backoff{Duration: s, Factor: 10, Steps: 5, Cap: 5 * s},
			wantCalls: seconds(0),
			wantEnd:   s,
			wantErr:   ErrWaitTimeout,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Unix(0, 0)
			clk := testingclock.NewFakeClock(start) // Sleep steps the fake clock
			cond := &scriptedCondition{results: tc.results}
			var got []time.Duration
			err := exponentialBackoff(clk, tc.backoff, func() (bool, error) {
				got = append(got, clk.Since(start))
				return cond.check(context.Background())
			})
			if err != tc.wantErr {
				t.Errorf("error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantCalls, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("call times mismatch (-want +got):\n%s", diff)
			}
			if end := clk.Since(start); end != tc.wantEnd {
				t.Errorf("returned at %v, want %v", end, tc.wantEnd)
			}
		})
	}
}

func TestExponentialBackoffRealClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCalls()
		err := ExponentialBackoff(Backoff{Duration: time.Second, Factor: 2, Steps: 3}, func() (bool, error) {
			c.record()
			return false, nil
		})
		if err != ErrWaitTimeout {
			t.Errorf("error = %v, want ErrWaitTimeout", err)
		}
		if diff := cmp.Diff(seconds(0, 1, 3), c.offsets); diff != "" {
			t.Errorf("call times mismatch (-want +got):\n%s", diff)
		}
		if err := ExponentialBackoff(Backoff{Steps: 1}, nil); !errors.Is(err, errNilCondition) {
			t.Errorf("nil condition: error = %v, want errNilCondition", err)
		}
	})
}

func TestExponentialBackoffWithContext(t *testing.T) {
	s := time.Second
	tests := []struct {
		name      string
		backoff   Backoff
		cancelAt  time.Duration // 0: never; <0: before the call
		timeout   time.Duration // 0: none
		results   []conditionResult
		wantCalls []time.Duration
		wantErr   error
	}{
		{name: "done", backoff: Backoff{Duration: s, Factor: 2, Steps: 5}, results: []conditionResult{notYet, notYet, done}, wantCalls: seconds(0, 1, 3)},
		{name: "steps exhausted", backoff: Backoff{Duration: s, Factor: 2, Steps: 3}, wantCalls: seconds(0, 1, 3), wantErr: ErrWaitTimeout},
		{name: "condition error", backoff: Backoff{Duration: s, Steps: 3}, results: []conditionResult{failed}, wantCalls: seconds(0), wantErr: errCondition},
		{name: "cancelled before the call", backoff: Backoff{Duration: s, Steps: 3}, cancelAt: -1, wantErr: context.Canceled},
		{name: "cancelled while waiting", backoff: Backoff{Duration: s, Factor: 2, Steps: 5}, cancelAt: 2 * s, wantCalls: seconds(0, 1), wantErr: context.Canceled},
		{name: "deadline while waiting", backoff: Backoff{Duration: s, Factor: 2, Steps: 5}, timeout: 5 * s, wantCalls: seconds(0, 1, 3), wantErr: context.DeadlineExceeded},
		{name: "no steps", backoff: Backoff{Duration: s}, wantErr: ErrWaitTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tc.timeout > 0 {
					ctx, cancel = context.WithTimeout(ctx, tc.timeout)
					defer cancel()
				}
				switch {
				case tc.cancelAt < 0:
					cancel()
				case tc.cancelAt > 0:
					time.AfterFunc(tc.cancelAt, cancel)
				}
				c := newCalls()
				cond := &scriptedCondition{results: tc.results}
				err := ExponentialBackoffWithContext(ctx, tc.backoff, func(ctx context.Context) (bool, error) {
					c.record()
					return cond.check(ctx)
				})
				if err != tc.wantErr {
					t.Errorf("error = %v, want %v", err, tc.wantErr)
				}
				if diff := cmp.Diff(tc.wantCalls, c.offsets, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("call times mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestExponentialBackoffWithContextBadArguments(t *testing.T) {
	if err := ExponentialBackoffWithContext(t.Context(), Backoff{Steps: 1}, nil); !errors.Is(err, errNilCondition) {
		t.Errorf("nil condition: error = %v, want errNilCondition", err)
	}
	never := func(context.Context) (bool, error) { return false, nil }
	if err := ExponentialBackoffWithContext(nilContext, Backoff{Steps: 1}, never); !errors.Is(err, errNilContext) {
		t.Errorf("nil context: error = %v, want errNilContext", err)
	}
}
