package wait

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// scriptedCondition returns results[i] on call i (false after the end of the
// script) and counts its calls.
type scriptedCondition struct {
	results []conditionResult
	calls   int
}

type conditionResult struct {
	done bool
	err  error
}

func (c *scriptedCondition) check(context.Context) (bool, error) {
	c.calls++
	if c.calls > len(c.results) {
		return false, nil
	}
	r := c.results[c.calls-1]
	return r.done, r.err
}

var (
	errCondition = errors.New("condition failed")
	notYet       = conditionResult{}
	done         = conditionResult{done: true}
	failed       = conditionResult{err: errCondition}
)

func TestLoopConditionUntilContextSemantics(t *testing.T) {
	tests := []struct {
		name      string
		ctx       func() context.Context
		immediate bool
		results   []conditionResult
		wantCalls int
		wantErr   error
	}{
		{name: "done on the first call", immediate: true, results: []conditionResult{done}, wantCalls: 1},
		{name: "done on the third call", results: []conditionResult{notYet, notYet, done}, wantCalls: 3},
		{name: "done on the third call, immediate", immediate: true, results: []conditionResult{notYet, notYet, done}, wantCalls: 3},
		{name: "error stops the loop", results: []conditionResult{notYet, failed, done}, wantCalls: 2, wantErr: errCondition},
		{name: "error wins over done", results: []conditionResult{{done: true, err: errCondition}}, wantCalls: 1, wantErr: errCondition},
		{name: "cancelled: no call", ctx: cancelledContext, results: []conditionResult{done}, wantErr: context.Canceled},
		{name: "cancelled, immediate: one call", ctx: cancelledContext, immediate: true, results: []conditionResult{notYet, done}, wantCalls: 1, wantErr: context.Canceled},
		{name: "cancelled, immediate: the call may finish", ctx: cancelledContext, immediate: true, results: []conditionResult{done}, wantCalls: 1},
		{name: "cancelled, immediate: the call may fail", ctx: cancelledContext, immediate: true, results: []conditionResult{failed}, wantCalls: 1, wantErr: errCondition},
		{name: "deadline exceeded", ctx: expiredContext, results: []conditionResult{done}, wantErr: context.DeadlineExceeded},
		{name: "nil context", ctx: func() context.Context { return nil }, immediate: true, results: []conditionResult{done}, wantErr: errNilContext},
	}
	for _, tc := range tests {
		for _, sliding := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sliding=%t", tc.name, sliding), func(t *testing.T) {
				ctx := t.Context()
				if tc.ctx != nil {
					ctx = tc.ctx()
				}
				cond := &scriptedCondition{results: tc.results}
				// A timer that fires at once keeps the test about semantics,
				// not timing.
				err := loopConditionUntilContext(ctx, newNoopTimer(), tc.immediate, sliding, cond.check)
				if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
					t.Errorf("error = %v, want %v", err, tc.wantErr)
				}
				if cond.calls != tc.wantCalls {
					t.Errorf("condition called %d times, want %d", cond.calls, tc.wantCalls)
				}
			})
		}
	}
}

func TestLoopConditionUntilContextNilCondition(t *testing.T) {
	tm := &recordingTimer{}
	if err := loopConditionUntilContext(t.Context(), tm, true, true, nil); !errors.Is(err, errNilCondition) {
		t.Errorf("error = %v, want errNilCondition", err)
	}
	if diff := cmp.Diff([]string{"Stop"}, tm.events); diff != "" {
		t.Errorf("timer events mismatch (-want +got):\n%s", diff)
	}
}

func cancelledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func expiredContext() context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	_ = cancel // already expired; the context holds no resources
	return ctx
}

// recordingTimer is a Timer that is always ready and logs the calls made on
// it into events, which the condition shares.
type recordingTimer struct {
	events []string
	ch     chan time.Time
}

func (r *recordingTimer) C() <-chan time.Time {
	r.events = append(r.events, "C")
	if r.ch == nil {
		r.ch = make(chan time.Time)
		close(r.ch)
	}
	return r.ch
}
func (r *recordingTimer) Next() { r.events = append(r.events, "Next") }
func (r *recordingTimer) Stop() { r.events = append(r.events, "Stop") }

func TestLoopConditionUntilContextTimerProtocol(t *testing.T) {
	tests := []struct {
		immediate, sliding bool
		want               []string
	}{
		// Sliding: the interval starts after the condition returns.
		{immediate: false, sliding: true, want: []string{"C", "cond", "Next", "cond", "Next", "cond", "Stop"}},
		{immediate: true, sliding: true, want: []string{"cond", "C", "cond", "Next", "cond", "Stop"}},
		// Not sliding: the interval starts before the condition is called.
		{immediate: false, sliding: false, want: []string{"C", "Next", "cond", "Next", "cond", "Next", "cond", "Stop"}},
		{immediate: true, sliding: false, want: []string{"C", "cond", "Next", "cond", "Next", "cond", "Stop"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("immediate=%t/sliding=%t", tc.immediate, tc.sliding), func(t *testing.T) {
			tm := &recordingTimer{}
			n := 0
			err := loopConditionUntilContext(t.Context(), tm, tc.immediate, tc.sliding, func(context.Context) (bool, error) {
				tm.events = append(tm.events, "cond")
				n++
				return n == 3, nil
			})
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tc.want, tm.events); diff != "" {
				t.Errorf("timer protocol mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
