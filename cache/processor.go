package cache

import (
	"fmt"
	"sync"

	"k8s.io/utils/clock"
)

// sharedProcessor fans the notifications of a shared informer out to its
// listeners, one per registered handler. Distributing only appends to each
// listener's buffer (or, in a shared informer, to a run of changes handed to
// the listeners together, see holdRuns), so it never waits for a handler. Notifications
// distributed before the processor runs wait in the listeners' buffers.
//
// The processor's lifecycle is: listeners may be added at any time; run
// starts their goroutines; stop stops and forgets every listener, waits for
// their goroutines and refuses new listeners from then on. It also keeps
// each listener's resync schedule (see resync.go).
type sharedProcessor struct {
	clock clock.Clock

	// mu guards the listener set. Lock order: after the informer's
	// blockDeltas, before runMu and the listeners' locks (see
	// sharedIndexInformer.startedLock).
	mu sync.RWMutex
	// listeners are the registered listeners with their resync schedules,
	// in no particular order. guarded by mu; a listener is in listeners if
	// and only if index maps it to its position there.
	listeners []registeredListener
	index     map[*processorListener]int // guarded by mu
	// someSkipSyncs is set when a listener skips syncs (never, unless some
	// handler has a resync period). guarded by mu.
	someSkipSyncs bool
	// running is set by run and cleared by stop. guarded by mu.
	running bool
	// stopped is set by stop. guarded by mu.
	stopped bool
	// upstreamSynced records that the informer has synced, for listeners
	// added later. guarded by mu.
	upstreamSynced bool

	// wg tracks the listeners' goroutines.
	wg sync.WaitGroup

	// watch recognises ShutDownEventHandler waits among the listeners
	// that may never end; every listener added gets it.
	watch *shutdownWatch

	// holdRuns makes distribution hold the changes back from the
	// listeners whose backlog is not bounded, in a run that releaseRun
	// hands to each listener under one lock acquisition, with one wake-up:
	// cheaper than a lock and a wake-up per change and listener. Set at
	// construction by an informer whose queue calls releaseRun before it
	// waits for more changes. Initial adds are never held (they count
	// towards the listeners' sync, which must see them before the queue
	// counts them processed); a change of the listener set, or of who
	// skips syncs, first releases the run, so that it reaches exactly the
	// listeners it would have reached at once.
	holdRuns bool

	// runMu guards held. Lock order: after mu, before the listeners'
	// locks, which releaseRun takes to hand the run over.
	runMu sync.Mutex
	// held is the run: the changes distributed since the last release,
	// oldest first, at most maxRunLength. guarded by runMu.
	held []heldChange
}

// maxRunLength is how many changes distribution may hold back: a queue that
// never drains still has them released this often.
const maxRunLength = 64

// registeredListener is a listener and its resync schedule.
type registeredListener struct {
	*processorListener
	resync resyncSchedule
}

func newSharedProcessor(clk clock.Clock) *sharedProcessor {
	return &sharedProcessor{clock: clk, index: map[*processorListener]int{}, watch: newShutdownWatch()}
}

// addListener registers l with its resync schedule, starts its goroutine if
// the processor runs, and tells it if the informer has synced already. A
// caller that queues initial adds for l must do so before, so that they
// count towards its sync. It returns false, and does nothing, once the
// processor has stopped.
func (p *sharedProcessor) addListener(l *processorListener, resync resyncSchedule) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return false
	}
	p.releaseRunLocked() // the held changes are older than l
	l.watch = p.watch
	p.index[l] = len(p.listeners)
	p.listeners = append(p.listeners, registeredListener{l, resync})
	p.someSkipSyncs = p.someSkipSyncs || resync.skipsSyncs
	if p.running {
		l.start(&p.wg)
	}
	if p.upstreamSynced {
		l.upstreamHasSynced()
	}
	return true
}

// removeListener stops and forgets handle's listener. Unknown handles are
// ignored; a handle that is not a registration of this package is an error.
// It never waits for the handler.
func (p *sharedProcessor) removeListener(handle ResourceEventHandlerRegistration) error {
	l, ok := handle.(*processorListener)
	if !ok {
		return fmt.Errorf("invalid key type %T", handle)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	i, ok := p.index[l]
	if !ok {
		return nil
	}
	p.releaseRunLocked() // the others' share of the run is theirs
	last := len(p.listeners) - 1
	p.listeners[i] = p.listeners[last]
	p.index[p.listeners[i].processorListener] = i
	p.listeners[last] = registeredListener{}
	p.listeners = p.listeners[:last]
	delete(p.index, l)
	p.someSkipSyncs = p.someSkipSyncsLocked()
	l.stop()
	return nil
}

// distribute queues n, an add or a delete, for every listener, or holds it
// in the run (see holdRuns). It never blocks on a handler.
func (p *sharedProcessor) distribute(n notification) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.holdRuns && !n.isInitialAdd() {
		p.holdLocked(heldChange{n: n})
		return
	}
	p.releaseRunLocked() // what was held comes first
	for i := range p.listeners {
		p.listeners[i].add(n)
	}
}

// distributeUpdate queues an update from oldObj to newObj for every listener
// or, when it is a sync (see isResync), only for the listeners that do not
// skip syncs (see shouldResync). Whether it is a sync is only worked out when
// some listener skips syncs: it reads the old object, which is seldom in the
// CPU's cache. It never blocks on a handler.
func (p *sharedProcessor) distributeUpdate(oldObj, newObj any) {
	n := notification{kind: updateNotification, oldObj: oldObj, newObj: newObj}
	p.mu.RLock()
	defer p.mu.RUnlock()
	isSync := p.someSkipSyncs && isResync(oldObj, newObj)
	if p.holdRuns {
		p.holdLocked(heldChange{n: n, isSync: isSync})
		return
	}
	for i := range p.listeners {
		if isSync && p.listeners[i].resync.skipsSyncs {
			continue
		}
		p.listeners[i].add(n)
	}
}

// holdLocked queues c at once for the listeners whose backlog is bounded
// (what they coalesce depends on when changes arrive) and holds it in the
// run for the others, releasing the run once it is maxRunLength long. mu
// must be held for reading.
func (p *sharedProcessor) holdLocked(c heldChange) {
	for i := range p.listeners {
		l := &p.listeners[i]
		if l.bounds.bounded() && !(c.isSync && l.resync.skipsSyncs) {
			l.add(c.n)
		}
	}
	p.runMu.Lock()
	p.held = append(p.held, c)
	full := len(p.held) >= maxRunLength
	p.runMu.Unlock()
	if full {
		p.releaseRunLocked()
	}
}

// releaseRun hands the held changes to the listeners. It never blocks on a
// handler.
func (p *sharedProcessor) releaseRun() {
	p.mu.RLock()
	defer p.mu.RUnlock()
	p.releaseRunLocked()
}

// releaseRunLocked is releaseRun with mu held, for reading or writing.
func (p *sharedProcessor) releaseRunLocked() {
	p.runMu.Lock()
	defer p.runMu.Unlock()
	if len(p.held) == 0 {
		return
	}
	for i := range p.listeners {
		if l := &p.listeners[i]; !l.bounds.bounded() {
			l.addRun(p.held, l.resync.skipsSyncs)
		}
	}
	clear(p.held) // let the objects go
	p.held = p.held[:0]
}

// run starts the goroutines of the registered listeners, and of listeners
// added later, until stop.
func (p *sharedProcessor) run() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || p.running {
		return
	}
	p.running = true
	for _, l := range p.listeners {
		l.start(&p.wg)
	}
}

// stop stops every listener, dropping their pending notifications, forgets
// them, and waits for their goroutines to exit (each finishes the handler
// call in progress). Later addListener calls are refused.
func (p *sharedProcessor) stop() {
	p.mu.Lock()
	p.runMu.Lock()
	clear(p.held) // the listeners drop what is pending anyway
	p.held = nil
	p.runMu.Unlock()
	p.stopped = true
	p.running = false
	for _, l := range p.listeners {
		l.stop()
	}
	clear(p.listeners)
	p.listeners = nil
	clear(p.index)
	p.mu.Unlock()
	p.wg.Wait()
}

// upstreamHasSynced tells every listener, present and future, that the
// informer has synced.
func (p *sharedProcessor) upstreamHasSynced() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.upstreamSynced = true
	for _, l := range p.listeners {
		l.upstreamHasSynced()
	}
}

// listenerCount returns the number of registered listeners.
func (p *sharedProcessor) listenerCount() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.listeners)
}
