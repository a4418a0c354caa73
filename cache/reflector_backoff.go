package cache

import (
	"math"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/informer-go/informer/wait"
)

// The reflector's default backoff: 800ms doubling up to 30s, each delay
// stretched by a random factor in [1, 2) (full jitter). Against a server that
// keeps failing, one reflector settles at one attempt every 30 to 60 seconds.
const (
	defaultBackoffInit   = 800 * time.Millisecond
	defaultBackoffMax    = 30 * time.Second
	defaultBackoffFactor = 2.0
	defaultBackoffJitter = 1.0
	// defaultBackoffReset is the quiet period after which the sequence
	// starts over: that long after the end of the previous delay without
	// another failure.
	defaultBackoffReset = 2 * time.Minute
	// healthyContact is how long the reflector must have been in contact
	// with the server, without a failure, for the sequence to start over at
	// the next failure. It is the age under which a watch that closes
	// counts as a failure (veryShortWatch): contact that ends sooner is no
	// evidence of a working server.
	healthyContact = veryShortWatch
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

// reflectorBackoff hands out the delays the reflector waits after failures.
// Delays grow as params describe ([wait.Backoff.Step]). The sequence starts
// over at a failure that follows
//
//   - healthyContact of contact with the server: a list or streaming list
//     completed, or a watch stayed open for at least healthyContact, that
//     long before the failure, with no delay since; or
//   - resetAfter without a failure since the end of the previous delay.
//
// So a reflector that reconnected and worked, even briefly, meets the next
// outage with the shortest delays, while against a server that stays down
// (it never completes a list nor keeps a watch open) the delays stay at
// their cap. client-go instead starts the sequence over at the first delay
// asked for more than two minutes after the previous start (measured on the
// reflector's clock, from the reflector's creation), failures or not: a
// reflector that worked for longer than that starts over, one that worked
// for less may resume high in the sequence, and one whose server stays down
// falls back to sub-second retries every two minutes.
//
// Time is read from clock, the reflector's, as client-go reads it for its
// restarts; nothing waits on it here. It is safe for concurrent use.
type reflectorBackoff struct {
	clock      clock.PassiveClock
	params     wait.Backoff
	resetAfter time.Duration

	mu      sync.Mutex
	current wait.Backoff // guarded by mu; the state of the current sequence
	// delayEnded is when the previous delay ended, zero before the first
	// delay. Guarded by mu.
	delayEnded time.Time
	// contactSince is when the reflector's contact with the server began,
	// as far as it has been confirmed since the previous delay; zero when
	// it has not been. Guarded by mu.
	contactSince time.Time
}

func newReflectorBackoff(params wait.Backoff, resetAfter time.Duration, clock clock.PassiveClock) *reflectorBackoff {
	return &reflectorBackoff{clock: clock, params: params, resetAfter: resetAfter, current: params}
}

// inContact records that the reflector has been in contact with the server
// since the given time: a list completed then, or a watch requested then
// stayed open for at least healthyContact.
func (b *reflectorBackoff) inContact(since time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.contactSince.IsZero() || since.Before(b.contactSince) {
		b.contactSince = since
	}
}

// next returns the delay to wait after a failure, starting the sequence over
// first when the reflector was healthy (see [reflectorBackoff]).
func (b *reflectorBackoff) next() time.Duration {
	now := b.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	healthy := !b.contactSince.IsZero() && now.Sub(b.contactSince) >= healthyContact
	if healthy || b.delayEnded.IsZero() || now.Sub(b.delayEnded) >= b.resetAfter {
		b.current = b.params
	}
	d := b.current.Step()
	b.delayEnded = now.Add(d)
	b.contactSince = time.Time{}
	return d
}
