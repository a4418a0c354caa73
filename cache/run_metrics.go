package cache

import (
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// RunMetricsProvider creates the metrics of running informers and of their
// handlers, covering every stage: lists and watches, relists and watch
// restarts with their causes, events, the store, the first sync, and each
// handler's backlog, latency and panics. It is not part of client-go's API;
// client-go's [MetricsProvider] and [InformerMetricsProvider] keep working
// alongside it, unchanged.
//
// Metrics live exactly as long as what they measure: an informer asks for
// its [InformerRunMetrics] when it starts running and calls Release when it
// stops; a handler's [HandlerRunMetrics] are asked for when its delivery
// starts (the informer runs and the handler is registered) and released when
// it stops (the handler was removed or the informer stopped). No call is
// made on a handle after its Release. An implementation that keeps series
// per label set deletes them on Release, so that starting and stopping
// informers leaves no series behind.
//
// Labels are bounded: the informer's name and resource, as configured, its
// object type, the handler's name (derived from its type or functions, as
// in client-go's logs) and small fixed sets of values ([ListMethod],
// [RelistReason], [WatchRestartCause], event types). Nothing derived from
// the objects, such as keys, becomes a label. Informers, or handlers, with
// the same labels running at the same time get a handle each for the same
// label set: an implementation that keeps series per label set counts the
// handles and deletes the series when the last one is released.
//
// Implementations must be safe for concurrent use and quick: the calls are
// made on the informer's and the handlers' goroutines.
type RunMetricsProvider interface {
	// NewInformerRunMetrics returns the metrics of one run of an informer.
	NewInformerRunMetrics(labels InformerMetricLabels) InformerRunMetrics
	// NewHandlerRunMetrics returns the metrics of one handler's delivery.
	NewHandlerRunMetrics(labels HandlerMetricLabels) HandlerRunMetrics
}

// InformerMetricLabels identify an informer's metrics.
type InformerMetricLabels struct {
	// Name is the name of the informer's identifier
	// ([InformerNameAndResource]), "" when it has none.
	Name string
	// Resource is the resource of the informer's identifier, as
	// "resource.group" ("pods", "deployments.apps"), "" when it has none.
	Resource string
	// Type describes the informer's objects, as [SyncStatus.Type].
	Type string
}

// HandlerMetricLabels identify the metrics of a handler of an informer.
type HandlerMetricLabels struct {
	InformerMetricLabels
	// Handler names the handler: the name its registration logs under,
	// derived from its type or functions.
	Handler string
}

// InformerRunMetrics records what one run of an informer does. See
// [RunMetricsProvider] for the lifecycle.
type InformerRunMetrics interface {
	// ObserveList records a list request of the given method that took
	// duration and stored items objects, or failed with err (items is then
	// zero).
	ObserveList(method ListMethod, duration time.Duration, items int, err error)
	// ObserveWatchStart records a watch request, which opened the watch or
	// failed with err. A streaming list's watch is counted by ObserveList.
	ObserveWatchStart(err error)
	// ObserveWatch records a watch, plain or following a streaming list,
	// that ended after duration, having delivered events events.
	ObserveWatch(duration time.Duration, events int)
	// IncRelists counts a list after the informer's first one, by why the
	// previous cycle ended.
	IncRelists(reason RelistReason)
	// IncWatchRestarts counts a watch that ended while the informer went
	// on, by why it ended.
	IncWatchRestarts(cause WatchRestartCause)
	// IncEvents counts a watch event of type t (ADDED, MODIFIED, DELETED,
	// BOOKMARK) handed to the store. The objects of a streaming list's
	// initial list are counted by ObserveList, not here.
	IncEvents(t watch.EventType)
	// SetStoreObjects sets the number of objects in the informer's store.
	SetStoreObjects(n int)
	// SetLastSyncResourceVersion sets the newest resource version the
	// informer received (its last 15 digits, so that a float64 holds it
	// exactly).
	SetLastSyncResourceVersion(rv float64)
	// SetFirstSyncDuration sets how long the informer took from starting
	// to run until it first synced. It is called exactly once, before
	// Release, when the informer synced (also when it stopped right
	// after), and never when it did not.
	SetFirstSyncDuration(d time.Duration)
	// Release ends the run: every series of this handle goes.
	Release()
}

// HandlerRunMetrics records the delivery of notifications to one handler.
// See [RunMetricsProvider] for the lifecycle.
type HandlerRunMetrics interface {
	// SetBacklog sets the number of notifications waiting for the
	// handler. It is sampled when the handler's goroutine takes a batch of
	// notifications and when it runs out of them.
	SetBacklog(n int)
	// ObserveDelivery records one call of the handler that took d,
	// including one that panicked.
	ObserveDelivery(d time.Duration)
	// IncPanics counts a call of the handler that panicked.
	IncPanics()
	// Release ends the delivery: every series of this handle goes.
	Release()
}

var runMetrics processWideProvider[RunMetricsProvider]

// SetRunMetricsProvider sets the process-wide [RunMetricsProvider], used by
// informers created afterwards without one of their own. Only the first call
// has an effect, as for [SetInformerMetricsProvider]. It is safe for
// concurrent use. It is not part of client-go's API.
func SetRunMetricsProvider(provider RunMetricsProvider) {
	runMetrics.setOnce(provider)
}

// resolveRunMetricsProvider returns provider, or the process-wide one when
// provider is nil. The result may be nil.
func resolveRunMetricsProvider(provider RunMetricsProvider) RunMetricsProvider {
	if provider != nil && !isNilObject(provider) {
		return provider
	}
	if p := runMetrics.get(); p != nil && !isNilObject(p) {
		return p
	}
	return nil
}

// noopRunMetrics records nothing.
type noopRunMetrics struct{}

var _ InformerRunMetrics = noopRunMetrics{}

func (noopRunMetrics) ObserveList(ListMethod, time.Duration, int, error) {}
func (noopRunMetrics) ObserveWatchStart(error)                           {}
func (noopRunMetrics) ObserveWatch(time.Duration, int)                   {}
func (noopRunMetrics) IncRelists(RelistReason)                           {}
func (noopRunMetrics) IncWatchRestarts(WatchRestartCause)                {}
func (noopRunMetrics) IncEvents(watch.EventType)                         {}
func (noopRunMetrics) SetStoreObjects(int)                               {}
func (noopRunMetrics) SetLastSyncResourceVersion(float64)                {}
func (noopRunMetrics) SetFirstSyncDuration(time.Duration)                {}
func (noopRunMetrics) Release()                                          {}
