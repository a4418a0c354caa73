package wait

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Backoff describes a sequence of delays: starting at Duration, multiplied
// by Factor for each of Steps steps, capped at Cap, each delay jittered by up
// to Jitter*delay. The zero value is a constant delay of 0.
//
// For example Backoff{Duration: time.Second, Factor: 2, Steps: 4} gives
// 1s, 2s, 4s, 8s and then 16s for ever.
type Backoff struct {
	// Duration is the current base delay: the initial one, and after each
	// Step the next one.
	Duration time.Duration
	// Factor multiplies Duration at each step while Steps is positive;
	// 0 keeps Duration constant. It should not be negative. Jitter is not
	// compounded: the factor applies to the un-jittered Duration.
	Factor float64
	// Jitter, if positive, adds to each delay an amount drawn uniformly from
	// [0, Jitter*Duration).
	Jitter float64
	// Steps is the number of remaining steps in which Duration may change.
	// Once it is zero or less Duration stays as it is (still jittered).
	// [ExponentialBackoff] also uses it as the number of attempts.
	Steps int
	// Cap, if positive, bounds Duration: a step that would take Duration
	// above Cap sets it to Cap and Steps to 0.
	Cap time.Duration
}

// Step returns the next delay (the current Duration, jittered) and advances
// b: Steps is decremented and Duration multiplied by Factor, within Cap. If
// Steps is less than 1, b is left unchanged. A nil b returns 0. Not safe for
// concurrent use on the same b.
func (b *Backoff) Step() time.Duration {
	if b == nil {
		return 0
	}
	var next time.Duration
	next, b.Duration, b.Steps = delay(b.Steps, b.Duration, b.Cap, b.Factor, b.Jitter)
	return next
}

// DelayFunc returns a function that yields the delays of b one per call, as
// successive calls to [Backoff.Step] on a copy of b would; b itself is not
// modified. The function is not safe for concurrent use (see
// [DelayFunc.Concurrent]).
func (b Backoff) DelayFunc() DelayFunc {
	steps, duration := b.Steps, b.Duration
	return func() time.Duration {
		var next time.Duration
		next, duration, steps = delay(steps, duration, b.Cap, b.Factor, b.Jitter)
		return next
	}
}

// Timer returns a [Timer] on the real clock for the wait loops: one that
// follows [Backoff.DelayFunc] if Steps > 1 or Jitter != 0, otherwise a
// ticker of period Duration, or, if Duration is not positive, a timer that
// fires continuously.
func (b Backoff) Timer() Timer {
	return b.timer(clock.RealClock{})
}

// timer is Timer on the clock clk.
func (b Backoff) timer(clk clock.WithTicker) Timer {
	if b.Steps > 1 || b.Jitter != 0 {
		return &variableTimer{fn: b.DelayFunc(), newTimer: clk.NewTimer}
	}
	if b.Duration > 0 {
		return &fixedTimer{interval: b.Duration, newTicker: clk.NewTicker}
	}
	return newNoopTimer()
}

// delay computes one step of a backoff: the delay to wait now and the
// duration and steps that follow it.
func delay(steps int, duration, limit time.Duration, factor, jitter float64) (wait, nextDuration time.Duration, nextSteps int) {
	if steps < 1 {
		if jitter > 0 {
			return Jitter(duration, jitter), duration, 0
		}
		return duration, duration, 0
	}
	steps--
	next := duration
	if factor != 0 {
		next = time.Duration(float64(duration) * factor)
		if limit > 0 && next > limit {
			next = limit
			steps = 0
		}
	}
	wait = duration
	if jitter > 0 {
		wait = Jitter(duration, jitter)
	}
	return wait, next, steps
}

// DelayWithReset returns a [DelayFunc] that follows b and starts over from b
// whenever more than resetInterval has passed on clock c since the last
// start over (or since the call to DelayWithReset). The function is safe for
// concurrent use; every call advances the shared state. If b.Factor is not
// positive this is b.DelayFunc(), as steps change nothing without a factor;
// if resetInterval is not positive the delay is constant: b.Duration,
// jittered. A nil c means the real clock.
func (b Backoff) DelayWithReset(c clock.Clock, resetInterval time.Duration) DelayFunc {
	if b.Factor <= 0 {
		return b.DelayFunc()
	}
	if resetInterval <= 0 {
		b.Steps = 0
		b.Factor = 0
		return b.DelayFunc()
	}
	if c == nil {
		c = clock.RealClock{}
	}
	r := &resettingBackoff{
		backoff:       b,
		initial:       b,
		resetInterval: resetInterval,
		clock:         c,
		lastStart:     c.Now(),
	}
	return r.step
}

// resettingBackoff is the state behind DelayWithReset.
type resettingBackoff struct {
	initial       Backoff // read-only
	resetInterval time.Duration
	clock         clock.Clock

	mu        sync.Mutex
	backoff   Backoff   // guarded by mu; the current state
	lastStart time.Time // guarded by mu; when backoff last started from initial
}

func (r *resettingBackoff) step() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := r.clock.Now(); now.Sub(r.lastStart) > r.resetInterval {
		r.backoff = r.initial
		r.lastStart = now
	}
	return r.backoff.Step()
}
