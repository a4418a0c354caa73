package wait

import (
	"time"

	"k8s.io/utils/clock"
)

// Timer is the clock the wait loops sleep on: a simplified clock.Timer that
// a loop drains and re-arms. Get one from [Backoff.Timer] or
// [DelayFunc.Timer]; tests may implement it. A Timer is not safe for
// concurrent use.
type Timer interface {
	// C returns the channel that receives a value each time the timer
	// fires. The first call starts the timer; the channel may be cached
	// until Stop, and must not be waited on after Stop.
	C() <-chan time.Time
	// Next starts the next interval. Call it only after receiving from C,
	// and never after Stop.
	Next()
	// Stop releases the timer. It may be called at any time, including
	// before any other method; after it, C starts a new timer.
	Stop()
}

// RealTimer returns a clock.Timer of the real clock that fires after d,
// for APIs that take a timer constructor.
var RealTimer = clock.RealClock{}.NewTimer

// noopTimer fires continuously: its channel is closed, so a loop on it runs
// its condition back to back.
type noopTimer struct {
	closedCh <-chan time.Time
}

// newNoopTimer returns a noopTimer with its own channel, so unrelated loops
// do not contend on one channel's lock.
func newNoopTimer() noopTimer {
	ch := make(chan time.Time)
	close(ch)
	return noopTimer{closedCh: ch}
}

func (t noopTimer) C() <-chan time.Time { return t.closedCh }
func (noopTimer) Next()                 {}
func (noopTimer) Stop()                 {}

// variableTimer asks fn for each interval and runs it on a clock.Timer made
// by newTimer.
type variableTimer struct {
	fn       DelayFunc
	newTimer func(time.Duration) clock.Timer
	t        clock.Timer // nil until the first C and after Stop
}

func (t *variableTimer) C() <-chan time.Time {
	if t.t == nil {
		t.t = t.newTimer(t.fn())
	}
	return t.t.C()
}

func (t *variableTimer) Next() {
	if t.t == nil {
		return
	}
	t.t.Reset(t.fn())
}

func (t *variableTimer) Stop() {
	if t.t == nil {
		return
	}
	t.t.Stop()
	t.t = nil
}

// fixedTimer ticks every interval on a clock.Ticker made by newTicker; Next
// has nothing to do.
type fixedTimer struct {
	interval  time.Duration
	newTicker func(time.Duration) clock.Ticker
	t         clock.Ticker // nil until the first C and after Stop
}

func (t *fixedTimer) C() <-chan time.Time {
	if t.t == nil {
		t.t = t.newTicker(t.interval)
	}
	return t.t.C()
}

func (t *fixedTimer) Next() {}

func (t *fixedTimer) Stop() {
	if t.t == nil {
		return
	}
	t.t.Stop()
	t.t = nil
}
