package cache

import "k8s.io/apimachinery/pkg/watch"

// ListMethod says how a reflector lists: with a paginated list, or with a
// streaming list (a watch that starts with the current objects and a bookmark
// that ends them). It labels list metrics ([InformerRunMetrics]).
type ListMethod string

const (
	// ListMethodPaginated is a list request, paginated or not.
	ListMethodPaginated ListMethod = "paginated"
	// ListMethodStreaming is a streaming list.
	ListMethodStreaming ListMethod = "streaming"
)

// RelistReason says why an informer lists again; it labels
// [InformerRunMetrics.IncRelists].
type RelistReason string

const (
	// RelistExpired: the resource version the informer watched or listed
	// from was too old for the server (410 Expired or Gone).
	RelistExpired RelistReason = "expired"
	// RelistTooLargeResourceVersion: the server had not reached the
	// resource version the informer asked for.
	RelistTooLargeResourceVersion RelistReason = "too_large_resource_version"
	// RelistError: any other failure of a list or watch.
	RelistError RelistReason = "error"
)

// WatchRestartCause says why a watch ended; it labels
// [InformerRunMetrics.IncWatchRestarts].
type WatchRestartCause string

const (
	// WatchRestartClosed: the server closed the watch normally, as at the
	// end of the watch timeout.
	WatchRestartClosed WatchRestartCause = "closed"
	// WatchRestartExpired: the server said the watch's resource version
	// was too old (410); the informer relists.
	WatchRestartExpired WatchRestartCause = "expired"
	// WatchRestartLiveness: the watch received nothing within its liveness
	// timeout ([WatchLivenessOptions]).
	WatchRestartLiveness WatchRestartCause = "liveness"
	// WatchRestartTimeout: the watch was still open well past the timeout
	// the informer asked the server for, and the informer closed it.
	WatchRestartTimeout WatchRestartCause = "timeout"
	// WatchRestartThrottled: the server throttled the watch (429).
	WatchRestartThrottled WatchRestartCause = "throttled"
	// WatchRestartError: any other error.
	WatchRestartError WatchRestartCause = "error"
)

// reflectorObserver follows a reflector's run: it is told, by the goroutine
// running the reflector's ListAndWatch, about the outcome of every request at
// the points where the reflector learns it, in the reflector's own words
// (the labels above), so that it never needs to look into the reflector. An
// informer's monitor is one: it keeps the informer's sync status, run metrics
// and resource-version waiters up to date, and is handed to the reflector at
// construction (newReflector). The calls are made in the order the events
// happen and must return quickly; none is made with a lock of the reflector
// held.
type reflectorObserver interface {
	// cycleStarted: a ListAndWatch cycle begins (the first, or a relist).
	// relist labels the last failure reported during the previous cycle,
	// the one that ended it; RelistError when there was none, as before
	// the first cycle.
	cycleStarted(relist RelistReason)
	// listStarted: a list request of the given method goes out.
	listStarted(method ListMethod)
	// initialEventReceived: a streaming list received one object of its
	// initial list.
	initialEventReceived()
	// listFailed: a list request failed with err (not because the
	// reflector's context ended).
	listFailed(method ListMethod, err error)
	// listed: a list of items objects at resourceVersion replaced the
	// store's contents. After a streaming list its watch goes on.
	listed(method ListMethod, items int, resourceVersion string)
	// resumed: the objects of a snapshot, items of them at
	// resourceVersion, replaced the store's contents as a list would,
	// once a watch from that version opened (see reflector_resume.go).
	resumed(items int, resourceVersion string)
	// watchStarted: a watch request returned; err is nil when the watch is
	// open.
	watchStarted(err error)
	// watchEventReceived: an open watch (not the initial list of a
	// streaming list) delivered an event of type t that the reflector
	// handed to the store.
	watchEventReceived(t watch.EventType)
	// watchEnded: a watch that was open ended with err, nil when the
	// server closed it normally; cause labels the restart.
	watchEnded(err error, cause WatchRestartCause)
	// watchStopped: a watch that was open ended because the reflector's
	// context ended.
	watchStopped()
	// resourceVersionReached: the store was handed everything up to
	// resourceVersion, from a list, a watch event or a bookmark.
	resourceVersionReached(resourceVersion string)
}

// noopObserver is the observer of reflectors nobody observes.
type noopObserver struct{}

var _ reflectorObserver = noopObserver{}

func (noopObserver) cycleStarted(RelistReason)           {}
func (noopObserver) listStarted(ListMethod)              {}
func (noopObserver) initialEventReceived()               {}
func (noopObserver) listFailed(ListMethod, error)        {}
func (noopObserver) listed(ListMethod, int, string)      {}
func (noopObserver) resumed(int, string)                 {}
func (noopObserver) watchStarted(error)                  {}
func (noopObserver) watchEventReceived(watch.EventType)  {}
func (noopObserver) watchEnded(error, WatchRestartCause) {}
func (noopObserver) watchStopped()                       {}
func (noopObserver) resourceVersionReached(string)       {}
