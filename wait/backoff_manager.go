package wait

import (
	"math"
	"time"

	"k8s.io/utils/clock"
)

// BackoffManager supplies the timer [BackoffUntil] sleeps on between runs.
type BackoffManager interface {
	// Backoff returns a timer that fires after the next delay. The same
	// clock.Timer is reset and returned on every call, so the caller must
	// receive from (or stop) the previous one before calling again. Not
	// safe for concurrent use.
	Backoff() clock.Timer
}

// NewExponentialBackoffManager returns a [BackoffManager] whose delays start
// at initBackoff and are multiplied by backoffFactor on each call, up to
// maxBackoff, each jittered by up to jitter times the delay (if jitter is
// positive). If more than resetDuration passes between two calls to Backoff
// the delay starts over from initBackoff. Time is read from c; a nil c means
// the real clock. The manager is not safe for concurrent use.
//
// Deprecated: Will be removed when the legacy Poll methods are removed. Build
// a [Backoff] and use [Backoff.DelayWithReset] with [DelayFunc.Timer].
func NewExponentialBackoffManager(initBackoff, maxBackoff, resetDuration time.Duration, backoffFactor, jitter float64, c clock.Clock) BackoffManager {
	if c == nil {
		c = clock.RealClock{}
	}
	return &exponentialBackoffManager{
		backoff: Backoff{
			Duration: initBackoff,
			Factor:   backoffFactor,
			Jitter:   jitter,
			// Backoff stops growing when Steps runs out; the manager
			// wants growth bounded by Cap only.
			Steps: math.MaxInt32,
			Cap:   maxBackoff,
		},
		initialBackoff:   initBackoff,
		lastBackoffStart: c.Now(),
		resetDuration:    resetDuration,
		clock:            c,
	}
}

// exponentialBackoffManager is the BackoffManager of
// NewExponentialBackoffManager.
type exponentialBackoffManager struct {
	backoff          Backoff
	initialBackoff   time.Duration
	resetDuration    time.Duration
	clock            clock.Clock
	lastBackoffStart time.Time   // when Backoff was last called
	timer            clock.Timer // nil until the first Backoff
}

func (m *exponentialBackoffManager) nextBackoff() time.Duration {
	now := m.clock.Now()
	if now.Sub(m.lastBackoffStart) > m.resetDuration {
		m.backoff.Steps = math.MaxInt32
		m.backoff.Duration = m.initialBackoff
	}
	m.lastBackoffStart = now
	return m.backoff.Step()
}

// Backoff implements [BackoffManager].
func (m *exponentialBackoffManager) Backoff() clock.Timer {
	m.timer = resetOrNewTimer(m.clock, m.timer, m.nextBackoff())
	return m.timer
}

// NewJitteredBackoffManager returns a [BackoffManager] whose delays are
// duration, jittered by up to jitter times duration if jitter is positive
// (see [Jitter]). Time is read from c; a nil c means the real clock. The
// manager is not safe for concurrent use.
//
// Deprecated: Will be removed when the legacy Poll methods are removed. Use
// Backoff{Duration: duration, Jitter: jitter}.Timer() instead.
func NewJitteredBackoffManager(duration time.Duration, jitter float64, c clock.Clock) BackoffManager {
	if c == nil {
		c = clock.RealClock{}
	}
	return &jitteredBackoffManager{clock: c, duration: duration, jitter: jitter}
}

// jitteredBackoffManager is the BackoffManager of NewJitteredBackoffManager.
type jitteredBackoffManager struct {
	clock    clock.Clock
	duration time.Duration
	jitter   float64
	timer    clock.Timer // nil until the first Backoff
}

func (m *jitteredBackoffManager) nextBackoff() time.Duration {
	if m.jitter > 0.0 {
		return Jitter(m.duration, m.jitter)
	}
	return m.duration
}

// Backoff implements [BackoffManager].
func (m *jitteredBackoffManager) Backoff() clock.Timer {
	m.timer = resetOrNewTimer(m.clock, m.timer, m.nextBackoff())
	return m.timer
}

// resetOrNewTimer re-arms t to fire after d, or makes a new timer on c if t
// is nil.
func resetOrNewTimer(c clock.Clock, t clock.Timer, d time.Duration) clock.Timer {
	if t == nil {
		return c.NewTimer(d)
	}
	t.Reset(d)
	return t
}
