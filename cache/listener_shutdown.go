package cache

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// errShutdownFromHandler is returned by [ShutDownEventHandler] when it gives
// up waiting for a handler's call in progress because the wait looks like a
// deadlock among handlers (see shutdownWatch).
var errShutdownFromHandler = errors.New("shut down event handler: gave up waiting for the handler's call in progress: " +
	"every call in progress that could be waiting for it was itself waiting for a handler to shut down, " +
	"as when a handler shuts itself down or handlers shut each other down; " +
	"the handler was removed and is not called again once its current call returns")

// shutdownStalemate is how long a stalemate (see shutdownWatch) must last,
// without any call in progress that it involves returning, before the oldest
// wait in it gives up: longer than a handler call should ever take (the
// chaos test stalls handlers for up to a minute).
const shutdownStalemate = 90 * time.Second

// shutdownWatch recognises the [ShutDownEventHandler] waits of one informer
// that may never end, without knowing which goroutine waits: a goroutine
// cannot tell whether it runs inside a handler's call, let alone whose.
//
// A wait ends when its target's call in progress returns. It can only be
// part of a deadlock when its caller is a handler in a call that waits,
// directly or through a chain, for itself. The watch counts, among the
// handlers of its informer:
//   - waiting: the pending waits whose target is in a call;
//   - involved: the handlers in a call that could take part: those being
//     waited for, and those whose call began before the latest wait did
//     (a call that began later cannot be the caller of an earlier wait,
//     nor can a call that has returned).
//
// While waiting < involved, some involved handler is not blocked in a wait,
// and it can return: nothing is stuck yet. When waiting >= involved > 0,
// every involved handler may be blocked in a wait for another one: a
// stalemate. Counts cannot tell that apart from callers outside any handler
// waiting for handlers that are merely slow, such as the informer's owner
// shutting down a handler whose call is the only one in progress. So a
// stalemate must also last shutdownStalemate, on the real clock, with no
// involved call returning; then the oldest wait whose target is in a call
// gives up and returns errShutdownFromHandler. The oldest, because a caller
// that comes to wait for a handler already caught in a deadlock is younger
// than the waits of the deadlock, and should see it end. If that wait came
// from a handler, its call can now return, which ends the waits for it, and
// so on along the chain.
//
// The counts are per informer, not per process: a busy handler of an
// unrelated informer does not delay a verdict, and informers share no state
// (nor timers, which matters to informers in separate synctest bubbles).
// The price: a handler of another informer waiting for one of this
// informer's handlers counts as a caller outside the handlers. A cycle
// through several informers is still a stalemate in each of them.
//
// Listeners report the beginning and end of their batches of calls only
// while a wait is pending (active), so the watch costs delivery one atomic
// load per batch otherwise. Its methods are safe for concurrent use; a nil
// *shutdownWatch (a listener of no informer) watches nothing.
type shutdownWatch struct {
	// clock times stalemates: the real clock, never an informer's
	// injected one, which carries only client-go's timers.
	clock clock.WithDelayedExecution
	// active is set while some wait is pending. It and the listeners'
	// delivering flags are each written before the other is read, so a
	// batch that begins while a wait starts is seen by one side or both.
	active atomic.Bool

	mu sync.Mutex
	// running holds the listeners whose delivery goroutine runs. guarded
	// by mu.
	running map[*processorListener]struct{}
	// waits are the pending waits, oldest first. guarded by mu.
	waits []*shutdownWait
	// seq numbers the waits; a batch is dated by the seq current when it
	// began. guarded by mu.
	seq uint64
	// waiting and involved are the counts described above. guarded by mu;
	// both are zero while no wait is pending.
	waiting, involved int
	// timer runs while there is a stalemate; gen tells the callback of the
	// current timer from that of a stopped one. guarded by mu.
	timer clock.Timer
	gen   uint64
}

// shutdownWait is one pending [ShutDownEventHandler] wait.
type shutdownWait struct {
	target *processorListener
	// gaveUp is closed when the wait gives up.
	gaveUp chan struct{}
}

// watchedListener is what a shutdownWatch knows of one of its listeners.
// guarded by the watch's mu; all zero while no wait is pending.
type watchedListener struct {
	// inCall: the listener is in a batch of calls.
	inCall bool
	// since is the watch's seq when that batch began.
	since uint64
	// waitedFor counts the pending waits for the listener.
	waitedFor int
	// involved: the listener is counted in the watch's involved.
	involved bool
}

func newShutdownWatch() *shutdownWatch {
	return &shutdownWatch{clock: clock.RealClock{}, running: map[*processorListener]struct{}{}}
}

// waitShutdown blocks until l's handler will not be called any more: its
// call in progress, if any, has returned. l must have been stopped. It
// returns errShutdownFromHandler instead when the wait gives up (see
// shutdownWatch).
func (l *processorListener) waitShutdown() error {
	select {
	case <-l.runFinished:
		return nil
	default:
	}
	if l.watch == nil {
		<-l.runFinished
		return nil
	}
	sw := l.watch.add(l)
	defer l.watch.drop(sw)
	select {
	case <-l.runFinished:
		return nil
	case <-sw.gaveUp:
		select {
		case <-l.runFinished: // it returned after all
			return nil
		default:
			return errShutdownFromHandler
		}
	}
}

// started records that l's delivery goroutine runs.
func (w *shutdownWatch) started(l *processorListener) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running[l] = struct{}{}
}

// finished records that l's delivery goroutine has returned.
func (w *shutdownWatch) finished(l *processorListener) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.setInCallLocked(l, false)
	delete(w.running, l)
}

// batch records that l begins a batch of calls (inCall) or has ended one;
// l.delivering was set accordingly.
func (w *shutdownWatch) batch(l *processorListener, inCall bool) {
	if w == nil || !w.active.Load() {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.setInCallLocked(l, inCall)
}

// add registers a wait for target, which has been stopped.
func (w *shutdownWatch) add(target *processorListener) *shutdownWait {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.waits) == 0 {
		w.active.Store(true) // before delivering is read: see active
		for l := range w.running {
			l.watched = watchedListener{inCall: l.delivering.Load(), since: w.seq}
		}
	}
	w.seq++ // every call in progress began before this wait
	sw := &shutdownWait{target: target, gaveUp: make(chan struct{})}
	w.waits = append(w.waits, sw)
	target.watched.waitedFor++
	w.waiting, w.involved = 0, 0
	for l := range w.running {
		s := &l.watched
		s.involved = false
		if s.inCall {
			w.waiting += s.waitedFor
		}
		w.recountLocked(l)
	}
	w.evaluateLocked(false)
	return sw
}

// drop forgets sw, which has ended or given up.
func (w *shutdownWatch) drop(sw *shutdownWait) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropLocked(sw)
}

func (w *shutdownWatch) dropLocked(sw *shutdownWait) {
	i := -1
	for j, other := range w.waits {
		if other == sw {
			i = j
			break
		}
	}
	if i < 0 {
		return // it gave up: dropped already
	}
	w.waits = append(w.waits[:i], w.waits[i+1:]...)
	t := &sw.target.watched
	t.waitedFor--
	if t.inCall {
		w.waiting--
	}
	w.recountLocked(sw.target)
	if len(w.waits) > 0 {
		w.evaluateLocked(true)
		return
	}
	// Nothing is pending: forget the calls until the next wait.
	w.active.Store(false)
	for l := range w.running {
		l.watched = watchedListener{}
	}
	sw.target.watched = watchedListener{}
	w.waiting, w.involved = 0, 0
	w.stopTimerLocked()
}

// setInCallLocked records whether l is in a batch of calls. It does nothing
// while no wait is pending.
func (w *shutdownWatch) setInCallLocked(l *processorListener, inCall bool) {
	s := &l.watched
	if len(w.waits) == 0 || s.inCall == inCall {
		return
	}
	wasInvolved := s.involved
	s.inCall = inCall
	if inCall {
		s.since = w.seq
		w.waiting += s.waitedFor
	} else {
		w.waiting -= s.waitedFor
	}
	w.recountLocked(l)
	w.evaluateLocked(wasInvolved && !inCall)
}

// recountLocked updates whether l counts as involved.
func (w *shutdownWatch) recountLocked(l *processorListener) {
	s := &l.watched
	involved := s.inCall && (s.since < w.seq || s.waitedFor > 0)
	if involved == s.involved {
		return
	}
	s.involved = involved
	if involved {
		w.involved++
	} else {
		w.involved--
	}
}

// evaluateLocked starts the stalemate timer when a stalemate begins, and
// stops it when it ends; progress (an involved call returned, or a wait
// ended) starts it over.
func (w *shutdownWatch) evaluateLocked(progress bool) {
	switch {
	case w.waiting == 0 || w.waiting < w.involved:
		w.stopTimerLocked()
	case w.timer == nil || progress:
		w.stopTimerLocked()
		gen := w.gen
		w.timer = w.clock.AfterFunc(shutdownStalemate, func() { w.expire(gen) })
	}
}

func (w *shutdownWatch) stopTimerLocked() {
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	w.gen++
}

// expire ends the stalemate the timer of gen was started for, if it still
// lasts: the oldest wait whose target is in a call gives up.
func (w *shutdownWatch) expire(gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if gen != w.gen {
		return
	}
	w.timer = nil
	for _, sw := range w.waits {
		if sw.target.watched.inCall {
			close(sw.gaveUp)
			w.dropLocked(sw)
			return
		}
	}
}
