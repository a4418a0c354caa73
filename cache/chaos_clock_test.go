package cache

import (
	"time"

	"k8s.io/utils/clock"
)

// fastClock is a real clock that runs speed times faster than the wall
// clock: its timers are real timers of the scaled-down duration. The chaos
// runs in real time use it for the informer, the server and the schedule,
// so that backoff delays, bookmarks and watch timeouts keep their meaning
// relative to each other while a run lasts seconds, and goroutines are
// scheduled as in production rather than by a synctest bubble.
type fastClock struct {
	start time.Time // on the wall clock
	speed time.Duration
}

var _ clock.Clock = fastClock{}

func newFastClock(speed int) fastClock {
	return fastClock{start: time.Now(), speed: time.Duration(speed)}
}

// real converts a duration of the clock into one of the wall clock.
func (c fastClock) real(d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	return max(d/c.speed, time.Microsecond)
}

func (c fastClock) Now() time.Time {
	return c.start.Add(time.Since(c.start) * c.speed)
}

func (c fastClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c fastClock) After(d time.Duration) <-chan time.Time { return c.NewTimer(d).C() }

func (c fastClock) NewTimer(d time.Duration) clock.Timer {
	return fastTimer{c: c, t: time.NewTimer(c.real(d))}
}

func (c fastClock) Sleep(d time.Duration) { time.Sleep(c.real(d)) }

func (c fastClock) Tick(d time.Duration) <-chan time.Time {
	return time.NewTicker(c.real(d)).C
}

// fastTimer is a timer of a fastClock.
type fastTimer struct {
	c fastClock
	t *time.Timer
}

func (t fastTimer) C() <-chan time.Time        { return t.t.C }
func (t fastTimer) Stop() bool                 { return t.t.Stop() }
func (t fastTimer) Reset(d time.Duration) bool { return t.t.Reset(t.c.real(d)) }
