package cache

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/klog/v2"
)

// Periodic resync of a shared informer, in one place.
//
// A resync hands every cached object again, as OnUpdate(obj, obj), to the
// handlers that asked for one, so that they can correct what they keep
// outside the cluster. It takes five steps:
//
//  1. Periods (this file, and the informer's handlerResyncPeriodLocked in
//     shared_informer.go, which normalizes a handler's period). The period
//     becomes the resyncSchedule that the processor keeps for its
//     listener, under the processor's lock. The
//     informer checks for due resyncs every resync check period: its
//     default period, lowered by the handlers added before Run that ask
//     for less.
//  2. Trigger. The reflector's resync timer fires every check period
//     (Config.FullResyncPeriod, see Reflector's resyncLoop) and calls the
//     processor's shouldResync (Config.ShouldResync), which marks the
//     listeners whose period has elapsed as due and reports whether any is.
//  3. Queue. If one is due, the reflector calls the queue's Resync. The
//     RealFIFO of the InOrder pipeline queues one SyncAll. The DeltaFIFO
//     queues a Sync delta with the stored object for every key with nothing
//     queued, or, when nothing is queued at all (the usual case), one item
//     that stands for all of them (a bulk), which it pops as one SyncAll.
//  4. Processing (processDeltas). A Sync delta is stored and reported as an
//     update from the stored object to itself; a SyncAll reports
//     OnUpdate(obj, obj) for every stored object, reading the store without
//     writing it.
//  5. Fan-out (processor.distributeUpdate). An update that keeps the
//     resource version is a sync (isResync), whatever caused it: a resync,
//     or, as in client-go, a relist or watch event of an unchanged object.
//     The processor hands a sync only to the due listeners.

// minimumResyncPeriod is the smallest positive resync period a handler can
// get; smaller requests are raised to it.
const minimumResyncPeriod = 1 * time.Second

// resyncSchedule is when the handler of one listener is resynced. The
// processor keeps one per listener and guards it with its lock.
type resyncSchedule struct {
	// requested is the period the handler asked for (after the minimum
	// was applied), kept to recompute period when the informer's check
	// period changes before Run.
	requested time.Duration
	// period is the effective period; 0 means no resync.
	period time.Duration
	// next is when the next resync is due.
	next time.Time
	// skipsSyncs is set by a resync check that found the listener not
	// due: until a check finds it due, syncs (the updates of a resync, and
	// the other updates that keep the resource version) skip it. It starts
	// false, so that before the first check syncs reach every handler, as
	// after a relist when resyncs are disabled.
	skipsSyncs bool
}

// newResyncSchedule returns the schedule of a handler that asked for
// requested and gets period, added at now.
func newResyncSchedule(now time.Time, requested, period time.Duration) resyncSchedule {
	return resyncSchedule{requested: requested, period: period, next: now.Add(period)}
}

// determineResyncPeriod returns the effective resync period of a handler that
// asks for desired in an informer that checks for resyncs every check: no
// resync if either is zero, otherwise at least check.
func determineResyncPeriod(logger klog.Logger, desired, check time.Duration) time.Duration {
	if desired == 0 {
		return desired
	}
	if check == 0 {
		logger.Info("Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing", "desired", desired)
		return 0
	}
	if desired < check {
		logger.Info("Warning: the specified resyncPeriod is being increased to the minimum resyncCheckPeriod", "desired", desired, "resyncCheckPeriod", check)
		return check
	}
	return desired
}

// shouldResync is the informer's [ShouldResyncFunc]: it marks the listeners
// whose resync is due (the others skip syncs until the next check),
// schedules their next resync, and reports whether any is due.
func (p *sharedProcessor) shouldResync() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.releaseRunLocked() // before who skips syncs changes
	now := p.clock.Now()
	anyDue := false
	for i := range p.listeners {
		r := &p.listeners[i].resync
		due := r.period != 0 && !now.Before(r.next)
		r.skipsSyncs = !due
		if due {
			anyDue = true
			r.next = now.Add(r.period)
		}
	}
	p.someSkipSyncs = p.someSkipSyncsLocked()
	return anyDue
}

// someSkipSyncsLocked reports whether some listener skips syncs.
func (p *sharedProcessor) someSkipSyncsLocked() bool {
	for i := range p.listeners {
		if p.listeners[i].resync.skipsSyncs {
			return true
		}
	}
	return false
}

// resyncCheckPeriodChanged recomputes every listener's effective resync
// period for a new informer check period.
func (p *sharedProcessor) resyncCheckPeriodChanged(logger klog.Logger, checkPeriod time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.releaseRunLocked() // before who skips syncs changes
	for i := range p.listeners {
		r := &p.listeners[i].resync
		r.period = determineResyncPeriod(logger, r.requested, checkPeriod)
	}
}

// isResync reports whether an update from oldObj to newObj keeps the
// resource version, which makes it a sync: only the listeners whose resync
// is due get it. Objects without metadata are never syncs.
func isResync(oldObj, newObj any) bool {
	newMeta, err := meta.Accessor(newObj)
	if err != nil {
		return false
	}
	oldMeta, err := meta.Accessor(oldObj)
	if err != nil {
		return false
	}
	return newMeta.GetResourceVersion() == oldMeta.GetResourceVersion()
}
