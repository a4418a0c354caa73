package wait

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"
)

func TestDelayFuncUntilTimings(t *testing.T) {
	const work = 3 * time.Second
	tests := []struct {
		immediate, sliding bool
		want               []time.Duration
	}{
		{immediate: true, sliding: true, want: seconds(0, 13, 26)},
		{immediate: true, sliding: false, want: seconds(0, 10, 20)},
		{immediate: false, sliding: true, want: seconds(10, 23, 36)},
		{immediate: false, sliding: false, want: seconds(10, 20, 30)},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("immediate=%t/sliding=%t", tc.immediate, tc.sliding), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fn := DelayFunc(func() time.Duration { return 10 * time.Second })
				c := newCalls()
				err := fn.Until(t.Context(), tc.immediate, tc.sliding, func(context.Context) (bool, error) {
					n := c.record()
					time.Sleep(work)
					return n == 3, nil
				})
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if diff := cmp.Diff(tc.want, c.offsets); diff != "" {
					t.Errorf("call times mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestDelayFuncUntilCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 25*time.Second)
		defer cancel()
		c := newCalls()
		err := Backoff{Duration: 10 * time.Second, Factor: 2, Steps: 5}.DelayFunc().Until(ctx, false, true, func(context.Context) (bool, error) {
			c.record()
			return false, nil
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error = %v, want context.DeadlineExceeded", err)
		}
		if diff := cmp.Diff(seconds(10), c.offsets); diff != "" {
			t.Errorf("call times mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestDelayFuncNil(t *testing.T) {
	var fn DelayFunc
	if got := fn.Concurrent()(); got != 0 {
		t.Errorf("nil DelayFunc Concurrent() delay = %v, want 0", got)
	}
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	tm := fn.Timer(clk)
	ch := tm.C()
	clk.Step(0)
	if !isReady(ch) {
		t.Error("nil DelayFunc timer did not fire after 0")
	}
	tm.Stop()
	n := 0
	err := fn.Until(t.Context(), false, false, func(context.Context) (bool, error) { n++; return n == 3, nil })
	if err != nil || n != 3 {
		t.Errorf("nil DelayFunc Until = %v after %d calls, want nil after 3", err, n)
	}
}

func TestDelayFuncTimerNilClock(t *testing.T) {
	tm := DelayFunc(func() time.Duration { return 0 }).Timer(nil)
	defer tm.Stop()
	select {
	case <-tm.C():
	case <-time.After(ForeverTestTimeout):
		t.Fatal("timer on the default clock did not fire")
	}
}

func TestDelayFuncConcurrent(t *testing.T) {
	n := time.Duration(0)
	fn := DelayFunc(func() time.Duration { n++; return n }).Concurrent()
	const goroutines, each = 4, 250
	results := make(chan time.Duration, goroutines*each)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				results <- fn()
			}
		})
	}
	wg.Wait()
	close(results)
	seen := make(map[time.Duration]bool)
	for d := range results {
		if seen[d] {
			t.Fatalf("delay %v returned twice: calls were not serialised", d)
		}
		seen[d] = true
	}
	if len(seen) != goroutines*each {
		t.Errorf("%d distinct delays, want %d", len(seen), goroutines*each)
	}
}
