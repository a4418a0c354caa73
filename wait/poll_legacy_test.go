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

// legacyPoll describes one deprecated Poll* function, called through run.
type legacyPoll struct {
	name       string
	immediate  bool
	hasTimeout bool
	stoppable  bool // ends with its context or stop channel
	run        func(ctx context.Context, interval, timeout time.Duration, cond ConditionWithContextFunc) error
}

func legacyPolls() []legacyPoll {
	plain := func(cond ConditionWithContextFunc) ConditionFunc {
		if cond == nil {
			return nil
		}
		return func() (bool, error) { return cond(context.Background()) }
	}
	return []legacyPoll{
		{"Poll", false, true, false, func(_ context.Context, i, to time.Duration, c ConditionWithContextFunc) error {
			return Poll(i, to, plain(c))
		}},
		{"PollWithContext", false, true, true, func(ctx context.Context, i, to time.Duration, c ConditionWithContextFunc) error {
			return PollWithContext(ctx, i, to, c)
		}},
		{"PollUntil", false, false, true, func(ctx context.Context, i, _ time.Duration, c ConditionWithContextFunc) error {
			return PollUntil(i, plain(c), ctx.Done())
		}},
		{"PollUntilWithContext", false, false, true, func(ctx context.Context, i, _ time.Duration, c ConditionWithContextFunc) error {
			return PollUntilWithContext(ctx, i, c)
		}},
		{"PollInfinite", false, false, false, func(_ context.Context, i, _ time.Duration, c ConditionWithContextFunc) error {
			return PollInfinite(i, plain(c))
		}},
		{"PollInfiniteWithContext", false, false, true, func(ctx context.Context, i, _ time.Duration, c ConditionWithContextFunc) error {
			return PollInfiniteWithContext(ctx, i, c)
		}},
		{"PollImmediate", true, true, false, func(_ context.Context, i, to time.Duration, c ConditionWithContextFunc) error {
			return PollImmediate(i, to, plain(c))
		}},
		{"PollImmediateWithContext", true, true, true, func(ctx context.Context, i, to time.Duration, c ConditionWithContextFunc) error {
			return PollImmediateWithContext(ctx, i, to, c)
		}},
		{"PollImmediateUntil", true, false, true, func(ctx context.Context, i, _ time.Duration, c ConditionWithContextFunc) error {
			return PollImmediateUntil(i, plain(c), ctx.Done())
		}},
		{"PollImmediateUntilWithContext", true, false, true, func(ctx context.Context, i, _ time.Duration, c ConditionWithContextFunc) error {
			return PollImmediateUntilWithContext(ctx, i, c)
		}},
		{"PollImmediateInfinite", true, false, false, func(_ context.Context, i, _ time.Duration, c ConditionWithContextFunc) error {
			return PollImmediateInfinite(i, plain(c))
		}},
		{"PollImmediateInfiniteWithContext", true, false, true, func(ctx context.Context, i, _ time.Duration, c ConditionWithContextFunc) error {
			return PollImmediateInfiniteWithContext(ctx, i, c)
		}},
	}
}

func TestLegacyPoll(t *testing.T) {
	s := time.Second
	tests := []struct {
		name         string
		needsTimeout bool
		needsStop    bool
		interval     time.Duration
		timeout      time.Duration // for functions with a timeout; 0 means an hour
		stopAt       time.Duration // 0: never; <0: before the call
		work         time.Duration
		// Calls are numbered from 1 after the first wait; the immediate
		// functions' extra first call is call 0.
		doneAt int
		failAt int
		// Call times without immediate. With immediate they are
		// wantImmediate, by default the same with a call at 0 first.
		wantCalls     []time.Duration
		wantImmediate []time.Duration
		wantErr       error
	}{
		{name: "done on a later call", interval: s, doneAt: 2, wantCalls: seconds(1, 2)},
		{name: "condition error", interval: s, failAt: 1, wantCalls: seconds(1), wantErr: errCondition},
		{
			// The ticker starts after the immediate call returns.
			name: "ticks are dropped while the condition runs", interval: s, work: 2500 * time.Millisecond, doneAt: 2,
			wantCalls: seconds(1, 4), wantImmediate: seconds(0, 3.5, 6.5),
		},
		{name: "zero interval polls back to back", interval: 0, doneAt: 3, wantCalls: seconds(0, 0, 0)},
		{name: "negative interval polls back to back", interval: -s, doneAt: 3, wantCalls: seconds(0, 0, 0)},
		{name: "timeout: one last call, then ErrWaitTimeout", needsTimeout: true, interval: s, timeout: 3500 * time.Millisecond, wantCalls: seconds(1, 2, 3, 3.5), wantErr: ErrWaitTimeout},
		{
			name: "timeout with a zero interval", needsTimeout: true, interval: 0, timeout: 2500 * time.Millisecond, work: s,
			wantCalls: seconds(0, 1, 2, 3), wantImmediate: seconds(0, 1, 2, 3, 4), wantErr: ErrWaitTimeout,
		},
		{name: "timeout shorter than the interval", needsTimeout: true, interval: 2 * s, timeout: s, wantCalls: seconds(1), wantErr: ErrWaitTimeout},
		{name: "stopped: ErrWaitTimeout", needsStop: true, interval: s, stopAt: 2500 * time.Millisecond, wantCalls: seconds(1, 2), wantErr: ErrWaitTimeout},
		{name: "stopped before the call", needsStop: true, interval: s, stopAt: -1, wantErr: ErrWaitTimeout},
	}
	for _, p := range legacyPolls() {
		for _, tc := range tests {
			if tc.needsTimeout && !p.hasTimeout || tc.needsStop && !p.stoppable {
				continue
			}
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					switch {
					case tc.stopAt < 0:
						cancel()
					case tc.stopAt > 0:
						time.AfterFunc(tc.stopAt, cancel)
					}
					timeout := tc.timeout
					if timeout == 0 {
						timeout = time.Hour
					}
					want, first := tc.wantCalls, 1
					if p.immediate {
						want, first = tc.wantImmediate, 0
						if want == nil {
							want = append(seconds(0), tc.wantCalls...)
						}
					}
					c := newCalls()
					err := p.run(ctx, tc.interval, timeout, func(context.Context) (bool, error) {
						n := c.record() - 1 + first
						time.Sleep(tc.work)
						if n == tc.failAt && n > 0 {
							return false, errCondition
						}
						return n == tc.doneAt && n > 0, nil
					})
					if err != tc.wantErr {
						t.Errorf("error = %v, want %v", err, tc.wantErr)
					}
					if diff := cmp.Diff(want, c.offsets, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("call times mismatch (-want +got):\n%s", diff)
					}
				})
			})
		}
	}
}

func TestLegacyPollImmediateFirstCall(t *testing.T) {
	tests := []struct {
		name    string
		result  conditionResult
		wantErr error
	}{
		{name: "done", result: done},
		{name: "error", result: failed, wantErr: errCondition},
	}
	for _, p := range legacyPolls() {
		if !p.immediate {
			continue
		}
		for _, tc := range tests {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				cancel() // the immediate call happens even so
				cond := &scriptedCondition{results: []conditionResult{tc.result}}
				if err := p.run(ctx, time.Hour, time.Hour, cond.check); err != tc.wantErr {
					t.Errorf("error = %v, want %v", err, tc.wantErr)
				}
				if cond.calls != 1 {
					t.Errorf("condition called %d times, want 1", cond.calls)
				}
			})
		}
	}
}

func TestLegacyPollBadArguments(t *testing.T) {
	for _, p := range legacyPolls() {
		t.Run(p.name, func(t *testing.T) {
			if err := p.run(t.Context(), time.Second, time.Second, nil); !errors.Is(err, errNilCondition) {
				t.Errorf("nil condition: error = %v, want errNilCondition", err)
			}
		})
	}
	never := func(context.Context) (bool, error) { return false, nil }
	if err := PollImmediateWithContext(nilContext, time.Second, time.Second, never); !errors.Is(err, errNilContext) {
		t.Errorf("nil context: error = %v, want errNilContext", err)
	}
}

// TestWaitForTickSourceNeverCloses checks that the legacy poll loop returns
// when its caller's context ends or its condition holds, even though the
// tick source never closes its channel (a source of the caller's owns the
// channel; only poller closes its own).
func TestWaitForTickSourceNeverCloses(t *testing.T) {
	ticks := make(chan struct{}) // never closed
	source := func(context.Context) <-chan struct{} { return ticks }
	never := func(context.Context) (bool, error) { return false, nil }

	done, cancel := context.WithCancel(t.Context())
	cancel()
	if err := waitForWithContext(done, source, never); !errors.Is(err, ErrWaitTimeout) {
		t.Errorf("done context: error = %v, want ErrWaitTimeout", err)
	}

	calls := 0
	second := func(context.Context) (bool, error) { calls++; return calls == 2, nil }
	result := make(chan error, 1)
	go func() { result <- waitForWithContext(t.Context(), source, second) }()
	ticks <- struct{}{}
	ticks <- struct{}{}
	select {
	case err := <-result:
		if err != nil || calls != 2 {
			t.Errorf("condition true on the second tick: error = %v after %d calls, want nil after 2", err, calls)
		}
	case <-time.After(ForeverTestTimeout):
		t.Fatal("waitForWithContext did not return after its condition held")
	}
}
