package wait

import (
	"context"
	"errors"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/utils/clock"
)

// Forever calls f every period, for the lifetime of the program: it is
// [Until] with [NeverStop]. It never returns.
func Forever(f func(), period time.Duration) {
	Until(f, period, NeverStop)
}

// Until calls f, waits period after it returns, and repeats until stopCh is
// closed. It is [JitterUntil] with no jitter and sliding. f is not called if
// stopCh is already closed. Until blocks until stopCh is closed and the
// current call of f has returned.
//
// Code that logs through a context should call [UntilWithContext].
func Until(f func(), period time.Duration, stopCh <-chan struct{}) {
	JitterUntil(f, period, 0.0, true, stopCh)
}

// UntilWithContext calls f(ctx), waits period after it returns, and repeats
// until ctx is done. It is [JitterUntilWithContext] with no jitter and
// sliding.
func UntilWithContext(ctx context.Context, f func(context.Context), period time.Duration) {
	JitterUntilWithContext(ctx, f, period, 0.0, true)
}

// NonSlidingUntil calls f every period until stopCh is closed, the period
// being measured from the start of each call, so the time f takes counts
// against it. It is [JitterUntil] with no jitter and not sliding.
//
// Code that logs through a context should call [NonSlidingUntilWithContext].
func NonSlidingUntil(f func(), period time.Duration, stopCh <-chan struct{}) {
	JitterUntil(f, period, 0.0, false, stopCh)
}

// NonSlidingUntilWithContext calls f(ctx) every period until ctx is done,
// the period being measured from the start of each call. It is
// [JitterUntilWithContext] with no jitter and not sliding.
func NonSlidingUntilWithContext(ctx context.Context, f func(context.Context), period time.Duration) {
	JitterUntilWithContext(ctx, f, period, 0.0, false)
}

// JitterUntil calls f every period until stopCh is closed. If jitterFactor
// is positive each wait is jittered by up to jitterFactor*period (see
// [Jitter]); otherwise it is exactly period. With sliding the wait starts
// after f returns; without, it starts when f is called. f is not called if
// stopCh is already closed; pass [NeverStop] to run for ever. See
// [BackoffUntil] for panics and blocking.
//
// Code that logs through a context should call [JitterUntilWithContext].
func JitterUntil(f func(), period time.Duration, jitterFactor float64, sliding bool, stopCh <-chan struct{}) {
	BackoffUntil(f, NewJitteredBackoffManager(period, jitterFactor, clock.RealClock{}), sliding, stopCh)
}

// JitterUntilWithContext is [JitterUntil] stopped by ctx instead of a
// channel, and passing ctx to f.
func JitterUntilWithContext(ctx context.Context, f func(context.Context), period time.Duration, jitterFactor float64, sliding bool) {
	BackoffUntilWithContext(ctx, f, NewJitteredBackoffManager(period, jitterFactor, clock.RealClock{}), sliding)
}

// BackoffUntil calls f, waiting between calls for the timer from backoff,
// until stopCh is closed. With sliding the timer is started after f returns;
// without, before f is called, so the time f takes counts against it. f is
// not called if stopCh is already closed, and, as stopCh is checked before
// every call, at most once more after it is closed (the call in progress).
//
// BackoffUntil blocks until it stops and the timer is stopped. A panic in f
// is logged and, with the default utilruntime.ReallyCrash, propagated to the
// caller, ending the loop. A nil f or backoff is logged as an error and
// BackoffUntil returns at once.
//
// Code that logs through a context should call [BackoffUntilWithContext].
func BackoffUntil(f func(), backoff BackoffManager, sliding bool, stopCh <-chan struct{}) {
	var g func(context.Context)
	if f != nil {
		g = func(context.Context) { f() }
	}
	BackoffUntilWithContext(ContextForChannel(stopCh), g, backoff, sliding)
}

var (
	errNilFunc           = errors.New("wait: nil function")
	errNilBackoffManager = errors.New("wait: nil backoff manager")
	errNilTimer          = errors.New("wait: backoff manager returned a nil timer")
)

// BackoffUntilWithContext is [BackoffUntil] stopped by ctx instead of a
// channel, and passing ctx to f. A nil ctx is logged as an error and the
// function returns at once.
func BackoffUntilWithContext(ctx context.Context, f func(ctx context.Context), backoff BackoffManager, sliding bool) {
	if err := checkLoopArgs(ctx, f, backoff); err != nil {
		if ctx == nil {
			ctx = context.Background()
		}
		utilruntime.HandleErrorWithContext(ctx, err, "Not starting the loop")
		return
	}
	var t clock.Timer
	for {
		// Checked before every call: when the timer and ctx become ready
		// together, select may pick the timer.
		select {
		case <-ctx.Done():
			return
		default:
		}

		if !sliding {
			t = backoff.Backoff()
		}
		func() {
			defer utilruntime.HandleCrashWithContext(ctx)
			f(ctx)
		}()
		if sliding {
			t = backoff.Backoff()
		}
		if t == nil {
			utilruntime.HandleErrorWithContext(ctx, errNilTimer, "Stopping the loop")
			return
		}

		select {
		case <-ctx.Done():
			if !t.Stop() {
				// The manager reuses the timer: drop a tick that fired
				// meanwhile so the next user does not see it.
				select {
				case <-t.C():
				default:
				}
			}
			return
		case <-t.C():
		}
	}
}

func checkLoopArgs(ctx context.Context, f func(context.Context), backoff BackoffManager) error {
	switch {
	case ctx == nil:
		return errNilContext
	case f == nil:
		return errNilFunc
	case backoff == nil:
		return errNilBackoffManager
	}
	return nil
}
