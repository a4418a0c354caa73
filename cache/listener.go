package cache

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/informer-go/informer/cache/synctrack"
)

// heldChange is a change the processor held back in its run (see
// sharedProcessor.holdRuns) and hands to addRun.
type heldChange struct {
	n notification
	// isSync marks an update that listeners skipping syncs do not get.
	isSync bool
}

const (
	// deliveryBatchSize is the most notifications a listener takes from its
	// buffer per lock acquisition.
	deliveryBatchSize = 256

	// A batch of handler calls that takes longer than slowHandlerThreshold
	// while more than slowHandlerBacklog notifications wait for the same
	// handler is logged, at most once per slowHandlerLogInterval.
	slowHandlerThreshold   = 100 * time.Millisecond
	slowHandlerBacklog     = 1024
	slowHandlerLogInterval = 10 * time.Second

	// crashPause is how long a listener waits, after its handler panicked,
	// before delivering the next notification, so that a handler that
	// panics on every call does not spin.
	crashPause = time.Second
)

// ResourceEventHandlerRegistration is what adding a handler to a shared
// informer returns: it identifies the handler for RemoveEventHandler and
// reports whether the handler has seen the initial list. The registrations of
// this package also have a ShutdownChan() <-chan struct{} method, closed
// once the handler is removed and will not be called again (see
// [ShutDownEventHandler]).
type ResourceEventHandlerRegistration interface {
	// HasSynced reports whether the informer has synced and the handler
	// has returned from the OnAdd call of every object of the initial list
	// and, for a handler added to a running informer, of every object
	// cached when it was added. It stays false if the handler is removed
	// before that; once true, it stays true.
	HasSynced() bool

	// HasSyncedChecker returns a [DoneChecker] for the condition of
	// HasSynced, to wait without polling (see [WaitFor]).
	HasSyncedChecker() DoneChecker
}

// processorListener delivers the notifications of one registered handler.
// Producers (the shared processor, and AddEventHandler replaying the store)
// append to an unbounded buffer (a notificationQueue) under a short mutex;
// one goroutine, run, takes notifications out in batches and calls the
// handler without any lock held. Adding never blocks, a slow handler only
// grows its own buffer, and notifications reach the handler one at a time,
// in the order they were added. A registration that bounds its backlog
// (HandlerOptions.Coalesce, MaxBacklog) has, behind the buffer, a
// coalescingBacklog that merges the notifications per object
// (listener_backlog.go); so that the bounds hold for everything the handler
// has not been handed, a batch counts towards them until handed (see
// flightBatch), and merged notifications are taken one at a time.
//
// The listener is also the [ResourceEventHandlerRegistration] handed to the
// caller of AddEventHandler.
type processorListener struct {
	logger      klog.Logger
	handler     ResourceEventHandler
	handlerName string
	clock       clock.Clock

	// syncTracker counts the initial-list adds queued but not yet handled.
	syncTracker *synctrack.SingleFileTracker

	// bounds are the registration's backlog limits; keyFunc keys its
	// notifications and source resolves its stale entries. Set before the
	// listener is shared; the zero values keep the unbounded buffer.
	bounds  backlogBounds
	keyFunc KeyFunc
	source  backlogSource

	// mu guards the fields marked so. Lock order: after the processor's
	// locks (see sharedIndexInformer.startedLock).
	mu sync.Mutex
	// pending holds the notifications not yet taken by run, in order.
	// guarded by mu.
	pending notificationQueue
	// keyed, nil unless the backlog is bounded, holds the notifications
	// that came after those of pending, merged per object key. guarded by
	// mu.
	keyed *coalescingBacklog
	// flight, used when the backlog is bounded, is the batch run took and
	// has not handed to the handler yet.
	flight flightBatch
	// idle is set by run before it waits for wake, and cleared by whoever
	// sends the wake-up. guarded by mu; at most one wake-up is in flight.
	idle bool
	// started is set when run has been started. guarded by mu.
	started bool
	// stopped is set when the listener was removed or its processor
	// stopped: nothing is accepted or delivered any more. guarded by mu.
	stopped bool

	// dropping mirrors stopped for run, which checks it between the
	// deliveries of a batch without taking mu.
	dropping atomic.Bool
	// wake carries one wake-up to an idle run; capacity 1.
	wake chan struct{}
	// stopCh is closed when the listener stops; it interrupts the pause
	// after a panic.
	stopCh chan struct{}
	// runFinished is closed when run has returned, or by stop if run was
	// never started.
	runFinished chan struct{}

	// lastSlowLog is when run last logged a slow batch; only run uses it.
	lastSlowLog time.Time

	// onStop, when set, is called once the listener stops; see
	// AddEventHandlerWithContext. guarded by mu.
	onStop func()

	// observer feeds the handler's run metrics; nil means none. Set before
	// the listener starts; only run uses it.
	observer *handlerObserver

	// delivering is true while run delivers a batch, from before it reads
	// dropping for the batch's first call until the end of its last call;
	// set only by run. The shutdown watch reads it (see shutdownWatch).
	delivering atomic.Bool
	// watch is the shutdown watch of the listener's informer, nil for a
	// listener of none; set before the listener starts.
	watch *shutdownWatch
	// watched is the watch's record of the listener. guarded by watch.mu.
	watched watchedListener
}

var (
	_ ResourceEventHandlerRegistration            = (*processorListener)(nil)
	_ interface{ ShutdownChan() <-chan struct{} } = (*processorListener)(nil)
)

// newProcessorListener returns a listener for handler; it delivers nothing
// until started.
// upstreamName names the informer's [DoneChecker]; the registration's checker
// is called "<upstreamName> + event handler <handler name>".
func newProcessorListener(logger klog.Logger, handler ResourceEventHandler, clk clock.Clock, upstreamName string) *processorListener {
	name := handlerName(handler)
	l := &processorListener{
		logger:      klog.LoggerWithValues(logger, "handler", name),
		handler:     handler,
		handlerName: name,
		clock:       clk,
		syncTracker: synctrack.NewSingleFileTracker(fmt.Sprintf("%s + event handler %s", upstreamName, name)),
		wake:        make(chan struct{}, 1),
		stopCh:      make(chan struct{}),
		runFinished: make(chan struct{}),
	}
	return l
}

// HasSynced reports whether the informer has synced and this handler has
// returned from every add of the initial list (or, for a handler added to a
// running informer, of the replay of the store).
func (l *processorListener) HasSynced() bool {
	return l.syncTracker.HasSynced()
}

// HasSyncedChecker returns a [DoneChecker] for the condition of HasSynced.
func (l *processorListener) HasSyncedChecker() DoneChecker {
	return l.syncTracker
}

// ShutdownChan returns a channel that is closed once the handler will not be
// called any more: after the handler was removed, or the informer stopped,
// and the call in progress, if any, returned.
func (l *processorListener) ShutdownChan() <-chan struct{} {
	return l.runFinished
}

// Done implements [ScopedHandlerRegistration.Done]; it is ShutdownChan.
func (l *processorListener) Done() <-chan struct{} {
	return l.runFinished
}

// setOnStop makes stop call f, or calls f at once if l has stopped already.
func (l *processorListener) setOnStop(f func()) {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		f()
		return
	}
	l.onStop = f
	l.mu.Unlock()
}

// add queues n for delivery. It never blocks on the handler. After stop it
// drops n.
func (l *processorListener) add(n notification) {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	if n.isInitialAdd() {
		l.syncTracker.Start()
	}
	l.enqueueLocked(n)
	l.unlockAndWake()
}

// addRun queues the notifications of run, in order, under one lock
// acquisition, skipping the syncs when skipSyncs is set. The run holds no
// initial add. After stop it drops them.
func (l *processorListener) addRun(run []heldChange, skipSyncs bool) {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	queued := false
	for i := range run {
		if !(skipSyncs && run[i].isSync) {
			l.enqueueLocked(run[i].n)
			queued = true
		}
	}
	if !queued {
		l.mu.Unlock()
		return
	}
	l.unlockAndWake()
}

// addInitial queues OnAdd(obj, true) for every object, in order, under one
// lock acquisition. It is the replay of the store for a handler added to a
// running informer.
func (l *processorListener) addInitial(objs []any) {
	if len(objs) == 0 {
		return
	}
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	for _, obj := range objs {
		l.syncTracker.Start()
		l.enqueueLocked(notification{kind: addNotification, isInInitialList: true, newObj: obj})
	}
	l.unlockAndWake()
}

// unlockAndWake unlocks mu and wakes run if it is waiting.
func (l *processorListener) unlockAndWake() {
	wake := l.idle
	l.idle = false
	l.mu.Unlock()
	if wake {
		select {
		case l.wake <- struct{}{}:
		default: // cannot happen: a wake-up is only sent to an idle run
		}
	}
}

// upstreamHasSynced records that the informer has synced.
func (l *processorListener) upstreamHasSynced() {
	l.syncTracker.UpstreamHasSynced()
}

// start starts the delivery goroutine in wg, unless it was started already
// or the listener is stopped. The goroutine exits after stop.
func (l *processorListener) start(wg *sync.WaitGroup) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started || l.stopped {
		return
	}
	l.started = true
	wg.Go(l.run) // exits once stop is called; the processor waits on wg
}

// stop makes the listener drop its pending and future notifications. The
// handler call in progress, if any, completes; ShutdownChan is closed once
// it has. It does not wait and may be called from any goroutine, including
// the listener's own. Calling it again does nothing.
func (l *processorListener) stop() {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	l.stopped = true
	l.dropping.Store(true)
	l.pending = notificationQueue{} // drop what is pending
	if l.keyed != nil {
		l.keyed = &coalescingBacklog{}
	}
	started := l.started
	onStop := l.onStop
	l.onStop = nil
	close(l.stopCh)
	l.unlockAndWake()
	if !started {
		close(l.runFinished)
	}
	if onStop != nil {
		onStop()
	}
}

// isStopped reports whether stop was called.
func (l *processorListener) isStopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopped
}

// run delivers notifications until the listener stops.
func (l *processorListener) run() {
	defer close(l.runFinished)
	l.watch.started(l)
	defer l.watch.finished(l)
	l.observer.begin()
	defer l.observer.end()

	batch := make([]notification, 0, deliveryBatchSize)
	for {
		var backlog int
		var state nextState
		batch, backlog, state = l.next(batch[:0])
		l.observer.backlog(backlog)
		switch state {
		case nextStopped:
			return
		case nextStale:
			var ok bool
			if batch, ok = l.takeStale(batch); !ok {
				return
			}
		}
		var start time.Time
		if backlog > slowHandlerBacklog {
			start = l.clock.Now()
		}
		l.delivering.Store(true) // before dropping is read: once stopped, a listener seen idle calls no one
		l.watch.batch(l, true)
		bounded := l.keyed != nil
		for i := range batch {
			if l.dropping.Load() || bounded && !l.flight.claim(i) {
				if !bounded { // next clears what a bounded listener leaves
					clear(batch[i:])
				}
				break
			}
			if l.deliverMeasured(&batch[i]) && !l.pause() {
				batch[i] = notification{}
				if !bounded {
					clear(batch[i+1:])
				}
				break
			}
			batch[i] = notification{} // let the objects go
		}
		l.delivering.Store(false)
		l.watch.batch(l, false)
		if !start.IsZero() {
			l.logIfSlow(start, len(batch), backlog)
		}
	}
}

// nextState is what next found.
type nextState uint8

const (
	nextBatch   nextState = iota // notifications were taken
	nextStale                    // the backlog's front is stale: see takeStale
	nextStopped                  // the listener has stopped
)

// next waits for notifications and moves up to cap(batch) of them into
// batch (for a listener whose backlog is bounded, see takeBoundedLocked). It
// also returns how many notifications were pending, those taken included,
// and nextStale when the oldest pending entry must first be refreshed from
// the store, or nextStopped once the listener has stopped.
func (l *processorListener) next(batch []notification) ([]notification, int, nextState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keyed != nil {
		clear(l.flight.items) // what the last batch left when the listener stopped
		l.flight.items = nil
	}
	for l.backlogLocked() == 0 && !l.stopped {
		l.idle = true
		l.mu.Unlock()
		l.observer.backlog(0)
		<-l.wake // sent by add or stop
		l.mu.Lock()
	}
	if l.stopped {
		return batch, 0, nextStopped
	}
	backlog := l.backlogLocked()
	if l.keyed != nil {
		var taken bool
		batch, taken = l.takeBoundedLocked(batch)
		l.flight.startLocked(batch)
		if !taken {
			return batch, backlog, nextStale
		}
		return batch, backlog, nextBatch
	}
	for len(batch) < cap(batch) {
		n, ok := l.pending.ReadOne()
		if !ok {
			break
		}
		batch = append(batch, n)
	}
	return batch, backlog, nextBatch
}

// logIfSlow logs a batch of handler calls, begun at start while backlog
// notifications were waiting, that took longer than slowHandlerThreshold.
func (l *processorListener) logIfSlow(start time.Time, calls, backlog int) {
	now := l.clock.Now()
	took := now.Sub(start)
	if took <= slowHandlerThreshold || now.Sub(l.lastSlowLog) < slowHandlerLogInterval {
		return
	}
	l.lastSlowLog = now
	l.logger.Info("Event handler is falling behind", "duration", took, "calls", calls, "pendingNotifications", backlog)
}

// deliver calls the handler for n. A panic in the handler is logged and
// recovered, unless utilruntime.ReallyCrash is set: then it propagates once
// logged. Either way an initial add counts as handled, so the registration
// can sync. deliver reports whether the handler panicked.
func (l *processorListener) deliver(n *notification) (panicked bool) {
	if n.isInitialAdd() {
		defer l.syncTracker.Finished()
	}
	panicked = true
	defer utilruntime.HandleCrashWithLogger(l.logger)
	switch n.kind {
	case addNotification:
		l.handler.OnAdd(n.newObj, n.isInInitialList)
	case updateNotification:
		l.handler.OnUpdate(n.oldObj, n.newObj)
	case deleteNotification:
		l.handler.OnDelete(n.oldObj)
	}
	return false
}

// pause waits crashPause after a handler panic, on the real clock, as
// client-go's listener does: an injected clock carries only client-go's
// timers. It reports false if the listener stopped meanwhile.
func (l *processorListener) pause() bool {
	t := realClock.NewTimer(crashPause)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-l.stopCh:
		return false
	}
}
