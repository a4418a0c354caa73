package cache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
)

// informerMonitor follows one informer for what this package offers beyond
// client-go: its sync status ([SyncStatus]), its run metrics
// ([RunMetricsProvider]) and its resource-version waiters
// ([ResourceVersionWaiter]). The informer creates it at construction and
// hands it to its controller (controllerOptions.monitor), which builds its
// reflector with it as the reflector's observer (reflectorObserver), calls
// popped after every Pop, synced when the queue syncs, and start and stop
// around the run. It learns about the reflector's run only from the observer
// calls and the reflector's exported methods.
//
// The observer methods are called by the reflector's ListAndWatch goroutine
// only; the fields marked so are touched by it alone. Everything else is safe
// for concurrent use.
type informerMonitor struct {
	clock    clock.Clock
	labels   InformerMetricLabels
	provider RunMetricsProvider // nil: no run metrics

	status   *syncStatusRecorder
	versions resourceVersionTracker

	// reflector is the running reflector, nil before start.
	reflector atomic.Pointer[Reflector]
	// queueSynced is the queue's DoneChecker, nil before start.
	queueSynced atomic.Pointer[DoneChecker]

	// storeLen returns the size of the informer's store; nil when the
	// store is unknown.
	storeLen func() int
	// snapshot is the informer's snapshot keeper, nil without
	// [SnapshotOptions]; it reports what it does in the sync status. Set
	// at construction.
	snapshot *snapshotKeeper

	// Set by start before the run's goroutines start; read by them.
	metrics    InformerRunMetrics // never nil
	metricsOn  bool               // metrics is not the no-op
	runStarted time.Time
	// firstSync reports the first sync, at most once: when the queue
	// syncs, or at stop if it had synced unreported; stop uses it up.
	firstSync sync.Once

	// Reflector goroutine only.
	cycles      int
	listStart   time.Time
	watchOpen   bool
	watchStart  time.Time
	watchEvents int
}

var _ reflectorObserver = (*informerMonitor)(nil)

// newInformerMonitor returns the monitor of an informer of objectType
// (described by description, if not empty) with the given identifier, whose
// store has storeLen objects (nil if unknown); its run metrics come from
// provider, else from the process-wide provider.
func newInformerMonitor(clk clock.Clock, objectType any, description string, identifier InformerNameAndResource, provider RunMetricsProvider, storeLen func() int) *informerMonitor {
	if description == "" {
		description = newExpectedObjects(objectType).description()
	}
	labels := InformerMetricLabels{
		Name:     identifier.Name(),
		Resource: identifier.GroupVersionResource().GroupResource().String(),
		Type:     description,
	}
	m := &informerMonitor{
		clock:    clk,
		labels:   labels,
		provider: resolveRunMetricsProvider(provider),
		status:   newSyncStatusRecorder(clk, description),
		metrics:  noopRunMetrics{},
		storeLen: storeLen,
	}
	return m
}

// start records the run's reflector, built with m as its observer, and queue,
// and creates the run's metrics. It is called once, before the reflector
// runs.
func (m *informerMonitor) start(r *Reflector, queue Queue) {
	m.runStarted = m.clock.Now()
	if m.provider != nil {
		m.metrics, m.metricsOn = m.provider.NewInformerRunMetrics(m.labels), true
	}
	m.versions.start(queueProgress(queue))
	m.status.started(r.Name(), m.labels.Type)
	m.reflector.Store(r)
	checker := queue.HasSyncedChecker()
	m.queueSynced.Store(&checker)
}

// stop ends the run, after every goroutine of the run has returned: a sync
// not reported yet is, the status says Stopped, waiters for resource versions
// return, metrics are released.
func (m *informerMonitor) stop() {
	// The goroutine that waits for the sync may have taken the stop
	// although the queue had synced, or the queue may have synced as the
	// run stopped: report that sync now. Once stop has passed here, no
	// sync is reported, so none follows Release.
	m.firstSync.Do(func() {
		if c := m.queueSynced.Load(); c != nil && IsDone(*c) {
			m.reportSynced()
		}
	})
	m.status.stopped()
	m.versions.stop()
	m.metrics.Release()
}

// monitorReports gives the informers and controllers of this package the
// methods that report what their monitor follows: [SyncStatusReporter] and
// [ResourceVersionWaiter]. They embed it.
type monitorReports struct{ m *informerMonitor }

// SyncStatus implements [SyncStatusReporter].
func (r monitorReports) SyncStatus() SyncStatus {
	st, _ := r.syncStatusChanges()
	return st
}

// syncStatusChanges returns the status and a channel closed at its next
// significant change, for WaitForSync.
func (r monitorReports) syncStatusChanges() (SyncStatus, <-chan struct{}) {
	m := r.m
	synced := false
	if c := m.queueSynced.Load(); c != nil {
		synced = IsDone(*c)
	}
	st, changed := m.status.snapshot(synced)
	if reflector := m.reflector.Load(); reflector != nil {
		st.LastSyncResourceVersion = reflector.LastSyncResourceVersion()
	}
	if m.snapshot != nil {
		st.Snapshot = m.snapshot.snapshotStatus()
	}
	return st, changed
}

// WaitForResourceVersion implements [ResourceVersionWaiter].
func (r monitorReports) WaitForResourceVersion(ctx context.Context, resourceVersion string) error {
	return r.m.versions.wait(ctx, resourceVersion)
}

// popped is called after every Pop of the informer's queue.
func (m *informerMonitor) popped() {
	if m.metricsOn && m.storeLen != nil {
		m.metrics.SetStoreObjects(m.storeLen())
	}
	m.versions.popped() // after the metrics, so that a waiter sees them
}

// synced is called when the informer's queue has synced.
func (m *informerMonitor) synced() {
	m.firstSync.Do(m.reportSynced)
}

// reportSynced records the first sync of the run. firstSync calls it, once.
func (m *informerMonitor) reportSynced() {
	m.status.synced()
	m.metrics.SetFirstSyncDuration(m.clock.Since(m.runStarted))
	if m.metricsOn && m.storeLen != nil {
		m.metrics.SetStoreObjects(m.storeLen())
	}
}

func (m *informerMonitor) cycleStarted(relist RelistReason) {
	if m.cycles > 0 {
		m.metrics.IncRelists(relist)
	}
	m.cycles++
	m.status.cycleStarted()
}

func (m *informerMonitor) listStarted(method ListMethod) {
	m.listStart = m.clock.Now()
	m.status.listStarted(method)
}

func (m *informerMonitor) initialEventReceived() {
	m.status.initialEventReceived()
}

func (m *informerMonitor) listFailed(method ListMethod, err error) {
	m.metrics.ObserveList(method, m.clock.Since(m.listStart), 0, err)
	m.status.failed(err)
}

func (m *informerMonitor) listed(method ListMethod, items int, _ string) {
	now := m.clock.Now()
	m.metrics.ObserveList(method, now.Sub(m.listStart), items, nil)
	m.status.listed()
	if method == ListMethodStreaming {
		m.watchOpen, m.watchStart, m.watchEvents = true, now, 0
	}
	if m.snapshot != nil {
		m.snapshot.listed()
	}
}

func (m *informerMonitor) resumed(_ int, resourceVersion string) {
	m.status.listed()
	if m.snapshot != nil {
		m.snapshot.resumed(resourceVersion)
	}
}

func (m *informerMonitor) watchStarted(err error) {
	m.metrics.ObserveWatchStart(err)
	if err != nil {
		m.status.failed(err)
		return
	}
	m.status.watchStarted()
	m.watchOpen, m.watchStart, m.watchEvents = true, m.clock.Now(), 0
}

func (m *informerMonitor) watchEventReceived(t watch.EventType) {
	m.metrics.IncEvents(t)
	m.watchEvents++
	if t == watch.Bookmark && m.snapshot != nil {
		m.snapshot.bookmarked()
	}
}

func (m *informerMonitor) watchEnded(err error, cause WatchRestartCause) {
	m.watchClosed()
	m.metrics.IncWatchRestarts(cause)
	if err != nil {
		m.status.failed(err)
	}
}

func (m *informerMonitor) watchStopped() {
	m.watchClosed()
}

// watchClosed records the life of the open watch, if one is open.
func (m *informerMonitor) watchClosed() {
	if m.watchOpen {
		m.metrics.ObserveWatch(m.clock.Since(m.watchStart), m.watchEvents)
		m.watchOpen = false
	}
}

func (m *informerMonitor) resourceVersionReached(rv string) {
	m.versions.resourceVersionReached(rv)
	if m.metricsOn {
		if n, err := parseRVForMetricsWithTruncation(rv); err == nil {
			m.metrics.SetLastSyncResourceVersion(float64(n))
		}
	}
}
