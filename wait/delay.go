package wait

import (
	"context"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// DelayFunc returns the next interval to wait. Functions made by
// [Backoff.DelayFunc] are stateful: each call advances the backoff. In every
// method of DelayFunc a nil DelayFunc behaves as one that always returns 0.
type DelayFunc func() time.Duration

// zeroDelay is the DelayFunc used in place of a nil one.
func zeroDelay() time.Duration { return 0 }

func (fn DelayFunc) orZero() DelayFunc {
	if fn == nil {
		return zeroDelay
	}
	return fn
}

// Timer returns a [Timer] on clock c whose intervals are given by
// successive calls to fn; a nil c means the real clock. Prefer
// [Backoff.Timer] for a constant interval, which uses a cheaper ticker.
func (fn DelayFunc) Timer(c clock.Clock) Timer {
	if c == nil {
		c = clock.RealClock{}
	}
	return &variableTimer{fn: fn.orZero(), newTimer: c.NewTimer}
}

// Until calls condition, waiting fn() between calls on the real clock, until
// condition returns true (Until returns nil) or an error (returned as is),
// or ctx is done (ctx.Err() is returned). With immediate, condition is
// called once before the first wait, even if ctx is already done. With
// sliding, each interval starts after condition returns; otherwise it starts
// before condition is called, so a slow condition eats into it. Until blocks
// until it returns; a nil ctx or condition is an error.
func (fn DelayFunc) Until(ctx context.Context, immediate, sliding bool, condition ConditionWithContextFunc) error {
	return loopConditionUntilContext(ctx, fn.Timer(clock.RealClock{}), immediate, sliding, condition)
}

// Concurrent returns a DelayFunc that calls fn under a mutex, so several
// goroutines can share one backoff; each call advances the shared state.
func (fn DelayFunc) Concurrent() DelayFunc {
	fn = fn.orZero()
	var mu sync.Mutex
	return func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return fn()
	}
}
