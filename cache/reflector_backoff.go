package cache

import (
	"math"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/informer-go/informer/wait"
)

// The reflector's default backoff: 800ms doubling up to 30s, each delay
// stretched by a random factor in [1, 2) (full jitter), and back to 800ms
// after two minutes without failures. Against a server that keeps failing,
// one reflector settles at one attempt every 30 to 60 seconds.
const (
	defaultBackoffInit   = 800 * time.Millisecond
	defaultBackoffMax    = 30 * time.Second
	defaultBackoffReset  = 2 * time.Minute
	defaultBackoffFactor = 2.0
	defaultBackoffJitter = 1.0
)

// defaultBackoff returns the reflector's default backoff parameters.
func defaultBackoff() wait.Backoff {
	return wait.Backoff{
		Duration: defaultBackoffInit,
		Cap:      defaultBackoffMax,
		Steps:    int(math.Ceil(float64(defaultBackoffMax) / float64(defaultBackoffInit))),
		Factor:   defaultBackoffFactor,
		Jitter:   defaultBackoffJitter,
	}
}

// reflectorBackoff hands out the delays the reflector waits before relisting
// and before retrying a throttled or refused watch. Delays grow as params
// describe ([wait.Backoff.Step]). The sequence starts over when the reflector
// has been healthy for resetAfter: that much time has passed since the end of
// the previous delay. (client-go restarts the sequence every resetAfter since
// the previous restart, even while failures continue, which lets a fleet of
// clients fall back to sub-second retries against a server that is still
// down.) It is safe for concurrent use.
type reflectorBackoff struct {
	clock      clock.Clock
	params     wait.Backoff
	resetAfter time.Duration

	mu      sync.Mutex
	current wait.Backoff // guarded by mu; the state of the current sequence
	// healthySince is when the previous delay ended, zero before the first
	// delay. Guarded by mu.
	healthySince time.Time
}

func newReflectorBackoff(params wait.Backoff, resetAfter time.Duration, clock clock.Clock) *reflectorBackoff {
	return &reflectorBackoff{clock: clock, params: params, resetAfter: resetAfter, current: params}
}

// next returns the next delay of the sequence, restarting it first when the
// reflector has been healthy long enough.
func (b *reflectorBackoff) next() time.Duration {
	now := b.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.healthySince.IsZero() || now.Sub(b.healthySince) >= b.resetAfter {
		b.current = b.params
	}
	d := b.current.Step()
	b.healthySince = now.Add(d)
	return d
}
