package wait

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPollUntilContext(t *testing.T) {
	s := time.Second
	tests := []struct {
		name      string
		interval  time.Duration
		timeout   time.Duration // 0: PollUntilContextCancel
		cancelAt  time.Duration // 0: never
		immediate bool
		work      time.Duration // duration of each call
		doneAt    int           // call that returns true; 0: never
		failAt    int           // call that returns an error; 0: never
		wantCalls []time.Duration
		wantErr   error
	}{
		{name: "done on third call", interval: s, doneAt: 3, wantCalls: seconds(1, 2, 3)},
		{name: "done on third call, immediate", interval: s, immediate: true, doneAt: 3, wantCalls: seconds(0, 1, 2)},
		{name: "error", interval: s, failAt: 2, wantCalls: seconds(1, 2), wantErr: errCondition},
		{name: "slow condition: next call follows at once", interval: s, work: 2500 * time.Millisecond, doneAt: 3, wantCalls: seconds(1, 3.5, 6)},
		{name: "cancelled", interval: s, cancelAt: 2500 * time.Millisecond, wantCalls: seconds(1, 2), wantErr: context.Canceled},
		{name: "timeout", interval: s, timeout: 3500 * time.Millisecond, wantCalls: seconds(1, 2, 3), wantErr: context.DeadlineExceeded},
		{name: "timeout, immediate", interval: s, timeout: 3500 * time.Millisecond, immediate: true, wantCalls: seconds(0, 1, 2, 3), wantErr: context.DeadlineExceeded},
		{name: "timeout before the first interval", interval: 2 * s, timeout: s, wantErr: context.DeadlineExceeded},
		{name: "parent cancelled before the timeout", interval: s, timeout: time.Hour, cancelAt: 1500 * time.Millisecond, wantCalls: seconds(1), wantErr: context.Canceled},
		{name: "zero interval polls back to back", interval: 0, doneAt: 5, wantCalls: seconds(0, 0, 0, 0, 0)},
		{name: "negative interval polls back to back", interval: -s, timeout: s, doneAt: 2, wantCalls: seconds(0, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tc.cancelAt > 0 {
					time.AfterFunc(tc.cancelAt, cancel)
				}
				c := newCalls()
				condition := func(ctx context.Context) (bool, error) {
					n := c.record()
					time.Sleep(tc.work)
					if n == tc.failAt {
						return false, errCondition
					}
					return n == tc.doneAt, nil
				}
				var err error
				if tc.timeout > 0 {
					err = PollUntilContextTimeout(ctx, tc.interval, tc.timeout, tc.immediate, condition)
				} else {
					err = PollUntilContextCancel(ctx, tc.interval, tc.immediate, condition)
				}
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

func TestPollUntilContextTimeoutConditionContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var condCtx context.Context
		err := PollUntilContextTimeout(t.Context(), time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
			condCtx = ctx
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := condCtx.Deadline(); !ok || time.Until(d) != time.Minute {
			t.Errorf("condition context deadline = %v, %t; want one minute from the start", d, ok)
		}
		if condCtx.Err() != context.Canceled {
			t.Errorf("condition context Err() after return = %v, want context.Canceled", condCtx.Err())
		}
	})
}

func TestPollUntilContextBadArguments(t *testing.T) {
	never := func(context.Context) (bool, error) { return false, nil }
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{name: "cancel: nil condition", run: func() error { return PollUntilContextCancel(t.Context(), time.Second, true, nil) }, want: errNilCondition},
		{name: "cancel: nil context", run: func() error { return PollUntilContextCancel(nilContext, time.Second, true, never) }, want: errNilContext},
		{name: "timeout: nil condition", run: func() error { return PollUntilContextTimeout(t.Context(), time.Second, time.Second, true, nil) }, want: errNilCondition},
		{name: "timeout: nil context", run: func() error { return PollUntilContextTimeout(nilContext, time.Second, time.Second, true, never) }, want: errNilContext},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); !errors.Is(err, tc.want) {
				t.Errorf("error = %v, want %v", err, tc.want)
			}
		})
	}
}
