package cache

import (
	"time"

	"k8s.io/klog/v2"
)

// SharedIndexInformerOptions configures [NewSharedIndexInformerWithOptions].
// The zero value is valid: no resync, no indexes, the classic queue.
type SharedIndexInformerOptions struct {
	// ResyncPeriod is the default resync period of the handlers and the
	// informer's resync check period; see [NewSharedIndexInformer]. Zero
	// disables resyncs for every handler, whatever period it asks for.
	ResyncPeriod time.Duration

	// Indexers are the indexes of the informer's [Indexer]. More can be
	// added later with AddIndexers.
	Indexers Indexers

	// ObjectDescription describes the objects in logs, instead of the type
	// of the example object.
	ObjectDescription string

	// Identifier names the informer's queue and store for logs and
	// metrics; metrics are published only for a reserved identifier (see
	// [InformerNameAndResource.Reserved]).
	Identifier InformerNameAndResource

	// InformerMetricsProvider provides the queue and store metrics; nil
	// means the process-wide provider ([SetInformerMetricsProvider]), if
	// any.
	InformerMetricsProvider InformerMetricsProvider

	// InOrder selects the queue between the reflector and the store. It is
	// not part of client-go's API.
	//
	// False, the default of this library, is the classic pipeline: a
	// [DeltaFIFO] that knows the store's objects and reports relists as
	// Replaced deltas. The changes to one object that pile up while the
	// informer is busy are processed together, at the queue position of
	// the oldest one, so handlers see every change of an object in order,
	// but changes of different objects not necessarily in watch order. A
	// deletion of an object the informer never stored, and that is not
	// queued, is dropped; two consecutive deletions of an object collapse
	// into one. After a relist, every listed object is processed as an add
	// or an update, one object at a time, and the objects that disappeared
	// follow as deletions of [DeletedFinalStateUnknown] tombstones. A
	// resync queues every stored object that has no pending change. Watch
	// bookmarks do not reach the store, so
	// GetIndexer().LastStoreSyncResourceVersion() follows the objects.
	//
	// True is client-go v0.37.2's default pipeline: a [RealFIFO] with atomic
	// events. Every watch event is processed on its own, in watch order,
	// deletions of objects never seen included. A relist is applied to the
	// store in one step (the store then holds exactly the listed objects),
	// after which handlers get the tombstone deletions first and then the
	// adds and updates in list order; a resync is a single step that
	// updates every stored object. Bookmarks reach the store. Up to 1000
	// events for distinct objects are written to the store in one
	// transaction before the handlers hear about any of them, and the
	// queue does not block the reflector while it processes (as long as
	// fewer than 2000 events wait).
	//
	// In both modes the informer reports synced only once the last object
	// of the initial list is in the store and queued for every handler, a
	// handler is called from one goroutine at a time with the changes of an
	// object in order, and handlers run asynchronously: a handler reading
	// the store may see a newer state than the notification it is
	// handling.
	InOrder bool

	// MutationDetector, when set, is given every object the informer
	// stores and runs while the informer runs, to catch handlers that
	// modify cached objects; see [NewCacheMutationDetectorWithOptions]. It
	// is not part of client-go's API. Nil means the detector of
	// [NewCacheMutationDetector], which detects nothing unless the
	// environment variable KUBE_CACHE_MUTATION_DETECTOR was true at process
	// start, as in client-go.
	MutationDetector MutationDetector
}

// HandlerOptions configures one handler registration; see
// [SharedInformer.AddEventHandlerWithOptions]. The zero value uses the
// informer's defaults.
type HandlerOptions struct {
	// Logger is the handler's logger: it logs the handler's panics and
	// slow calls. Nil means klog.Background().
	Logger *klog.Logger

	// ResyncPeriod is how often the handler wants every object again as an
	// update (see [SharedInformer.AddEventHandlerWithResyncPeriod]). Nil
	// means the informer's default period; zero means no resync.
	ResyncPeriod *time.Duration
}

// minimumResyncPeriod is the smallest positive resync period a handler can
// get; smaller requests are raised to it.
const minimumResyncPeriod = 1 * time.Second

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
