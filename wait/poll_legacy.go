package wait

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// This file holds the deprecated polling API. Unlike PollUntilContextCancel
// and PollUntilContextTimeout these functions return ErrWaitTimeout when the
// timeout expires and also when the stop channel or context ends the wait.
// Their polls run on a ticker goroutine that is always stopped, and waited
// for, before they return.

// Poll calls condition every interval, the first time after one interval,
// until it returns true (nil is returned) or an error (returned as is), or
// timeout expires; condition is then called one last time and, unless it
// returns true or an error, [ErrWaitTimeout] is returned. So condition is
// always called at least once. Ticks are dropped while condition runs. An
// interval of zero or less polls back to back; a timeout of 0 means none.
// Blocks until it returns.
//
// Deprecated: use [PollUntilContextTimeout], which ends with the context's error
// rather than [ErrWaitTimeout].
func Poll(interval, timeout time.Duration, condition ConditionFunc) error {
	return PollWithContext(context.Background(), interval, timeout, condition.WithContext())
}

// PollWithContext is [Poll] that also ends, with [ErrWaitTimeout], when ctx
// is done; condition receives ctx. If ctx is done before the first call,
// condition is not called.
//
// Deprecated: use [PollUntilContextTimeout], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollWithContext(ctx context.Context, interval, timeout time.Duration, condition ConditionWithContextFunc) error {
	return poll(ctx, false, poller(clock.RealClock{}, interval, timeout), condition)
}

// PollUntil is [Poll] without a timeout that ends, with [ErrWaitTimeout],
// when stopCh is closed.
//
// Deprecated: use [PollUntilContextCancel], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollUntil(interval time.Duration, condition ConditionFunc, stopCh <-chan struct{}) error {
	return PollUntilWithContext(ContextForChannel(stopCh), interval, condition.WithContext())
}

// PollUntilWithContext is [PollWithContext] without a timeout.
//
// Deprecated: use [PollUntilContextCancel], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollUntilWithContext(ctx context.Context, interval time.Duration, condition ConditionWithContextFunc) error {
	return poll(ctx, false, poller(clock.RealClock{}, interval, 0), condition)
}

// PollInfinite is [Poll] without a timeout: it returns only when condition
// returns true or an error.
//
// Deprecated: use [PollUntilContextCancel], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollInfinite(interval time.Duration, condition ConditionFunc) error {
	return PollInfiniteWithContext(context.Background(), interval, condition.WithContext())
}

// PollInfiniteWithContext is [PollWithContext] without a timeout.
//
// Deprecated: use [PollUntilContextCancel], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollInfiniteWithContext(ctx context.Context, interval time.Duration, condition ConditionWithContextFunc) error {
	return poll(ctx, false, poller(clock.RealClock{}, interval, 0), condition)
}

// PollImmediate is [Poll] that calls condition once before the first
// interval.
//
// Deprecated: use [PollUntilContextTimeout], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollImmediate(interval, timeout time.Duration, condition ConditionFunc) error {
	return PollImmediateWithContext(context.Background(), interval, timeout, condition.WithContext())
}

// PollImmediateWithContext is [PollWithContext] that calls condition once
// before the first interval, even if ctx is already done.
//
// Deprecated: use [PollUntilContextTimeout], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollImmediateWithContext(ctx context.Context, interval, timeout time.Duration, condition ConditionWithContextFunc) error {
	return poll(ctx, true, poller(clock.RealClock{}, interval, timeout), condition)
}

// PollImmediateUntil is [PollUntil] that calls condition once before the
// first interval, even if stopCh is already closed.
//
// Deprecated: use [PollUntilContextCancel], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollImmediateUntil(interval time.Duration, condition ConditionFunc, stopCh <-chan struct{}) error {
	return PollImmediateUntilWithContext(ContextForChannel(stopCh), interval, condition.WithContext())
}

// PollImmediateUntilWithContext is [PollImmediateWithContext] without a
// timeout.
//
// Deprecated: use [PollUntilContextCancel], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollImmediateUntilWithContext(ctx context.Context, interval time.Duration, condition ConditionWithContextFunc) error {
	return poll(ctx, true, poller(clock.RealClock{}, interval, 0), condition)
}

// PollImmediateInfinite is [PollInfinite] that calls condition once before
// the first interval.
//
// Deprecated: use [PollUntilContextCancel], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollImmediateInfinite(interval time.Duration, condition ConditionFunc) error {
	return PollImmediateInfiniteWithContext(context.Background(), interval, condition.WithContext())
}

// PollImmediateInfiniteWithContext is [PollInfiniteWithContext] that calls
// condition once before the first interval, even if ctx is already done.
//
// Deprecated: use [PollUntilContextCancel], which ends with the context's error
// rather than [ErrWaitTimeout].
func PollImmediateInfiniteWithContext(ctx context.Context, interval time.Duration, condition ConditionWithContextFunc) error {
	return poll(ctx, true, poller(clock.RealClock{}, interval, 0), condition)
}

// waitWithContextFunc starts a source of poll ticks: the returned channel
// receives a value for every poll and is closed when the last poll is due
// (at the timeout) or when ctx is done.
type waitWithContextFunc func(ctx context.Context) <-chan struct{}

// poll is the loop behind the deprecated Poll* functions: with immediate it
// calls condition once first; then, unless ctx is already done, it polls on
// the ticks of wait. It returns ErrWaitTimeout when ctx ends the wait.
func poll(ctx context.Context, immediate bool, wait waitWithContextFunc, condition ConditionWithContextFunc) error {
	if err := checkArgs(ctx, condition); err != nil {
		return err
	}
	if immediate {
		if ok, err := runCondition(ctx, condition); err != nil || ok {
			return err
		}
	}
	if ctx.Err() != nil {
		// The deprecated API reports a done context as a timeout.
		return ErrWaitTimeout
	}
	return waitForWithContext(ctx, wait, condition)
}

// waitForWithContext calls condition for every tick of wait and once more
// when wait closes its channel, until condition returns true (nil) or an
// error; when the channel is closed and condition still does not hold, or
// ctx is done, it returns ErrWaitTimeout. The context given to wait is
// canceled when waitForWithContext returns, which stops [poller]'s
// goroutine; it does not wait for the channel to close, since a tick
// source of the caller's may never close it.
func waitForWithContext(ctx context.Context, wait waitWithContextFunc, condition ConditionWithContextFunc) error {
	waitCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ticks := wait(waitCtx)
	for {
		select {
		case _, open := <-ticks:
			ok, err := runCondition(ctx, condition)
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
			if !open {
				return ErrWaitTimeout
			}
		case <-ctx.Done():
			return ErrWaitTimeout
		}
	}
}

// poller returns a waitWithContextFunc whose goroutine ticks every interval
// on clk and closes the channel after timeout (never, if timeout is 0) or
// when its context is done. A tick the consumer is not ready for is dropped.
// With an interval of zero or less it offers ticks back to back.
func poller(clk clock.WithTicker, interval, timeout time.Duration) waitWithContextFunc {
	return func(ctx context.Context) <-chan struct{} {
		ch := make(chan struct{})
		go func() { // exits on timeout or ctx.Done(); closes ch on exit
			defer close(ch)

			var tick <-chan time.Time
			if interval > 0 {
				ticker := clk.NewTicker(interval)
				defer ticker.Stop()
				tick = ticker.C()
			}
			var after <-chan time.Time
			if timeout != 0 {
				timer := clk.NewTimer(timeout)
				defer timer.Stop()
				after = timer.C()
			}

			for {
				if tick == nil {
					select {
					case ch <- struct{}{}:
					case <-after:
						return
					case <-ctx.Done():
						return
					}
					continue
				}
				select {
				case <-tick:
					select {
					case ch <- struct{}{}:
					default:
					}
				case <-after:
					return
				case <-ctx.Done():
					return
				}
			}
		}()
		return ch
	}
}
