package cache

import (
	"fmt"
	"sync"

	"k8s.io/utils/clock"
)

// sharedProcessor fans the notifications of a shared informer out to its
// listeners, one per registered handler. Distributing only appends to each
// listener's buffer, so it never waits for a handler. Notifications
// distributed before the processor runs wait in the listeners' buffers.
//
// The processor's lifecycle is: listeners may be added at any time; run
// starts their goroutines; stop stops and forgets every listener, waits for
// their goroutines and refuses new listeners from then on. It also keeps
// each listener's resync schedule (see resync.go).
type sharedProcessor struct {
	clock clock.Clock

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

	// holdWakeups makes distribution leave idle listeners asleep until
	// releaseWakeups, so that a listener gets the notifications of a run of
	// changes in one wake-up instead of one wake-up per change. Set at
	// construction by an informer whose queue calls releaseWakeups before
	// it waits for more changes.
	holdWakeups bool

	heldMu sync.Mutex
	// held are the listeners that distribution left asleep with
	// notifications queued. guarded by heldMu.
	held []*processorListener
	// heldChanges counts the changes distributed since the last release.
	// guarded by heldMu.
	heldChanges int
}

// maxHeldChanges is how many changes distribution may hold wake-ups back
// for: a queue that never drains still has its listeners woken this often.
const maxHeldChanges = 64

// registeredListener is a listener and its resync schedule.
type registeredListener struct {
	*processorListener
	resync resyncSchedule
}

func newSharedProcessor(clk clock.Clock) *sharedProcessor {
	return &sharedProcessor{clock: clk, index: map[*processorListener]int{}}
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

// distribute queues n, an add or a delete, for every listener. It never
// blocks on a handler.
func (p *sharedProcessor) distribute(n notification) {
	p.mu.RLock()
	for i := range p.listeners {
		p.addTo(p.listeners[i].processorListener, n)
	}
	p.mu.RUnlock()
	p.distributed()
}

// distributeUpdate queues an update from oldObj to newObj for every listener
// or, when it is a sync (see isResync), only for the listeners that do not
// skip syncs (see shouldResync). Whether it is a sync is only worked out when
// some listener skips syncs: it reads the old object, which is seldom in the
// CPU's cache. It never blocks on a handler.
func (p *sharedProcessor) distributeUpdate(oldObj, newObj any) {
	n := notification{kind: updateNotification, oldObj: oldObj, newObj: newObj}
	p.mu.RLock()
	isSync := p.someSkipSyncs && isResync(oldObj, newObj)
	for i := range p.listeners {
		if isSync && p.listeners[i].resync.skipsSyncs {
			continue
		}
		p.addTo(p.listeners[i].processorListener, n)
	}
	p.mu.RUnlock()
	p.distributed()
}

// addTo queues n for l, holding back its wake-up when the processor holds
// wake-ups.
func (p *sharedProcessor) addTo(l *processorListener, n notification) {
	if !l.addHeld(n, p.holdWakeups) {
		return
	}
	p.heldMu.Lock()
	p.held = append(p.held, l)
	p.heldMu.Unlock()
}

// distributed counts a distributed change and releases the held wake-ups
// every maxHeldChanges changes.
func (p *sharedProcessor) distributed() {
	if !p.holdWakeups {
		return
	}
	p.heldMu.Lock()
	p.heldChanges++
	release := p.heldChanges >= maxHeldChanges
	p.heldMu.Unlock()
	if release {
		p.releaseWakeups()
	}
}

// releaseWakeups wakes the listeners that distribution left asleep. It
// never blocks.
func (p *sharedProcessor) releaseWakeups() {
	p.heldMu.Lock()
	defer p.heldMu.Unlock()
	for i, l := range p.held {
		l.wakeUp()
		p.held[i] = nil
	}
	p.held = p.held[:0]
	p.heldChanges = 0
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
