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

// reflectorObserver is told, by the goroutine running a reflector's
// ListAndWatch, about the outcome of every request at the points where the
// reflector learns it. An informer passes one in at construction to keep its
// sync status, its metrics and its resource-version waiters up to date. The
// calls are made in the order the events happen and must return quickly;
// none is made with a lock of the reflector held.
type reflectorObserver interface {
	// cycleStarted: a ListAndWatch cycle begins (the first, or a relist).
	cycleStarted()
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
	// watchStarted: a watch request returned; err is nil when the watch is
	// open.
	watchStarted(err error)
	// watchEventReceived: an open watch (not the initial list of a
	// streaming list) delivered an event of type t that the reflector
	// handed to the store.
	watchEventReceived(t watch.EventType)
	// watchEnded: a watch that was open ended with err; nil means the
	// server closed it normally, errStopRequested that the reflector's
	// context ended.
	watchEnded(err error)
	// resourceVersionReached: the store was handed everything up to
	// resourceVersion, from a list, a watch event or a bookmark.
	resourceVersionReached(resourceVersion string)
}

// noopObserver is the observer of reflectors nobody observes.
type noopObserver struct{}

var _ reflectorObserver = noopObserver{}

func (noopObserver) cycleStarted()                      {}
func (noopObserver) listStarted(ListMethod)             {}
func (noopObserver) initialEventReceived()              {}
func (noopObserver) listFailed(ListMethod, error)       {}
func (noopObserver) listed(ListMethod, int, string)     {}
func (noopObserver) watchStarted(error)                 {}
func (noopObserver) watchEventReceived(watch.EventType) {}
func (noopObserver) watchEnded(error)                   {}
func (noopObserver) resourceVersionReached(string)      {}
