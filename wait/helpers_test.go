package wait

import (
	"context"
	"testing"
	"time"

	"k8s.io/utils/clock"
)

// waitFor polls cond until it holds, failing the test after
// ForeverTestTimeout.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(ForeverTestTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met before the deadline")
		}
		time.Sleep(time.Millisecond)
	}
}

// calls records when a function was called, as offsets from a start time.
// In a synctest bubble the offsets are exact.
type calls struct {
	start   time.Time
	offsets []time.Duration
}

func newCalls() *calls { return &calls{start: time.Now()} }

// record notes a call now and returns how many calls there have been.
func (c *calls) record() int {
	c.offsets = append(c.offsets, time.Since(c.start))
	return len(c.offsets)
}

// seconds is shorthand for a list of offsets in (fractional) seconds.
func seconds(s ...float64) []time.Duration {
	out := make([]time.Duration, len(s))
	for i, v := range s {
		out[i] = time.Duration(v * float64(time.Second))
	}
	return out
}

// isReady reports whether ch has a value (or is closed) without blocking.
func isReady(ch <-chan time.Time) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// clockTimer is clock.Timer, named for test doubles of BackoffManager.
type clockTimer = clock.Timer

// nilContext is a nil context.Context, for checking that functions reject
// one instead of panicking.
var nilContext context.Context
