package cache

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// RetryWithDeadline decides whether a class of errors is still worth retrying:
// retries are allowed while the current run of such errors is younger than a
// maximum duration. The reflector uses it for watches that end with an
// internal server error.
type RetryWithDeadline interface {
	// After records that an attempt ended with err. Errors outside the
	// class are ignored. A retryable error that follows the previous one by
	// at least the reset period starts a new run.
	After(error)
	// ShouldRetry reports whether the current run of retryable errors began
	// no longer than the maximum duration ago. It always reports false when
	// the maximum duration is not positive. A false answer ends the run.
	ShouldRetry() bool
}

// NewRetryWithDeadline returns a [RetryWithDeadline] that allows retries for
// maxRetryDuration after the first of a run of errors for which isRetryable
// returns true; a gap of minResetPeriod between two such errors starts a new
// run. Time comes from clock. A nil isRetryable treats every non-nil error as
// retryable; a nil clock means the real clock. The result is safe for
// concurrent use.
func NewRetryWithDeadline(maxRetryDuration, minResetPeriod time.Duration, isRetryable func(error) bool, clock clock.Clock) RetryWithDeadline {
	if isRetryable == nil {
		isRetryable = func(err error) bool { return err != nil }
	}
	if clock == nil {
		clock = realClock
	}
	return &retryWithDeadline{
		maxRetryDuration: maxRetryDuration,
		minResetPeriod:   minResetPeriod,
		isRetryable:      isRetryable,
		clock:            clock,
	}
}

// retryWithDeadline implements RetryWithDeadline.
type retryWithDeadline struct {
	maxRetryDuration time.Duration
	minResetPeriod   time.Duration
	isRetryable      func(error) bool
	clock            clock.Clock

	mu sync.Mutex
	// firstErrorTime and lastErrorTime bound the current run of retryable
	// errors; both are zero when there is none. Guarded by mu.
	firstErrorTime, lastErrorTime time.Time
}

func (r *retryWithDeadline) After(err error) {
	if !r.isRetryable(err) {
		return
	}
	now := r.clock.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.lastErrorTime) >= r.minResetPeriod {
		r.firstErrorTime, r.lastErrorTime = time.Time{}, time.Time{}
	}
	if r.firstErrorTime.IsZero() {
		r.firstErrorTime = now
	}
	r.lastErrorTime = now
}

func (r *retryWithDeadline) ShouldRetry() bool {
	if r.maxRetryDuration <= 0 {
		return false
	}
	now := r.clock.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.firstErrorTime) <= r.maxRetryDuration {
		return true
	}
	r.firstErrorTime, r.lastErrorTime = time.Time{}, time.Time{}
	return false
}
