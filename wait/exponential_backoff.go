package wait

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// ExponentialBackoff calls condition up to backoff.Steps times, sleeping
// backoff.Step() between calls. It returns nil when condition returns true,
// condition's error when it returns one, and [ErrWaitTimeout] when the steps
// are used up or a step reaches backoff.Cap (which sets Steps to 0): the
// sleep that reached the cap is the last, and condition is not called after
// it. With Steps less than 1 condition is never called. Blocks while it
// sleeps; prefer [ExponentialBackoffWithContext], which can be cancelled. A
// nil condition is an error.
func ExponentialBackoff(backoff Backoff, condition ConditionFunc) error {
	return exponentialBackoff(clock.RealClock{}, backoff, condition)
}

// exponentialBackoff is ExponentialBackoff sleeping on clk.
func exponentialBackoff(clk clock.Clock, backoff Backoff, condition ConditionFunc) error {
	if condition == nil {
		return errNilCondition
	}
	ctx := context.Background()
	for backoff.Steps > 0 {
		if ok, err := runCondition(ctx, condition.WithContext()); err != nil || ok {
			return err
		}
		if backoff.Steps == 1 {
			break
		}
		clk.Sleep(backoff.Step())
	}
	return ErrWaitTimeout
}

// ExponentialBackoffWithContext is [ExponentialBackoff] bounded by ctx: it
// returns ctx.Err() as soon as ctx is done, checking it before each call of
// condition and while waiting. Condition is called at most backoff.Steps
// times. A nil ctx or condition is an error.
func ExponentialBackoffWithContext(ctx context.Context, backoff Backoff, condition ConditionWithContextFunc) error {
	return exponentialBackoffWithContext(ctx, clock.RealClock{}, backoff, condition)
}

// exponentialBackoffWithContext is ExponentialBackoffWithContext waiting on
// clk.
func exponentialBackoffWithContext(ctx context.Context, clk clock.Clock, backoff Backoff, condition ConditionWithContextFunc) error {
	if err := checkArgs(ctx, condition); err != nil {
		return err
	}
	for backoff.Steps > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ok, err := runCondition(ctx, condition); err != nil || ok {
			return err
		}
		if backoff.Steps == 1 {
			break
		}
		if err := sleepWithContext(ctx, clk, backoff.Step()); err != nil {
			return err
		}
	}
	return ErrWaitTimeout
}

// sleepWithContext waits d on clk, returning ctx.Err() early if ctx is done.
func sleepWithContext(ctx context.Context, clk clock.Clock, d time.Duration) error {
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C():
		return nil
	}
}
