//go:build ignore

// Shims for apimachinery's pkg/util/wait tests: the unexported names they use
// that are spelled differently here. The runner adds this file to ./wait
// (without the build constraint) when it runs them.

package wait

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// The backoff managers' types and their next-delay method.
//upstream:rename exponentialBackoffManagerImpl=exponentialBackoffManager
//upstream:rename jitteredBackoffManagerImpl=jitteredBackoffManager
//upstream:rename getNextBackoff=nextBackoff

// A variableTimer's constructor of timers.
//upstream:rename variableTimer.new=newTimer

// upstreamPoller is upstream's poller, whose ticks follow the real clock;
// ours takes the clock as its first argument.
//
//upstream:rename poller=upstreamPoller
func upstreamPoller(interval, timeout time.Duration) waitWithContextFunc {
	return poller(clock.RealClock{}, interval, timeout)
}

// waitFunc is the channel-based form of waitWithContextFunc the upstream
// tests build their fake tickers with; this package has only the context
// form.
type waitFunc func(done <-chan struct{}) <-chan struct{}

// WithContext converts a waitFunc to a waitWithContextFunc.
func (w waitFunc) WithContext() waitWithContextFunc {
	return func(ctx context.Context) <-chan struct{} {
		return w(ctx.Done())
	}
}

// timerWithClock makes t read time from c.
func timerWithClock(t Timer, c clock.WithTicker) Timer {
	switch t := t.(type) {
	case *fixedTimer:
		t.newTicker = c.NewTicker
	case *variableTimer:
		t.newTimer = c.NewTimer
	default:
		panic("unrecognized timer type, cannot inject clock")
	}
	return t
}

// jitterRand is where upstream's Backoff.Step draws its jitter, which
// TestBackoff_Step seeds; ours draws from math/rand/v2 and this variable is
// not read, so the test checks the jitter's range with unseeded draws.
var jitterRand func() float64
