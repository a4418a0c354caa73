package cache

import (
	"fmt"
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

	// WatchLiveness, when not nil, restarts watches that go silent; see
	// [WatchLivenessOptions]. Nil, the default, does not. It is not part
	// of client-go's API.
	WatchLiveness *WatchLivenessOptions

	// RunMetricsProvider provides the metrics of the informer's run and of
	// its handlers (see [RunMetricsProvider]); nil means the process-wide
	// provider ([SetRunMetricsProvider]), if any. It is not part of
	// client-go's API.
	RunMetricsProvider RunMetricsProvider

	// MutationDetector, when set, is given every object the informer
	// stores and runs while the informer runs, to catch handlers that
	// modify cached objects; see [NewCacheMutationDetectorWithOptions]. It
	// is not part of client-go's API. Nil means the detector of
	// [NewCacheMutationDetector], which detects nothing unless the
	// environment variable KUBE_CACHE_MUTATION_DETECTOR was true at process
	// start, as in client-go.
	MutationDetector MutationDetector

	// Memory, when not nil, selects how the informer keeps its objects in
	// memory (trimmed, shared, encoded); see [MemoryOptions]. Nil, the
	// default, keeps them as decoded, as client-go does. It is not part of
	// client-go's API.
	Memory *MemoryOptions

	// Snapshot, when not nil, keeps the informer's cache in a file and
	// resumes from it on Run, watching from the snapshot's resource
	// version instead of listing; see [SnapshotOptions]. It is not part
	// of client-go's API.
	Snapshot *SnapshotOptions
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

	// Coalesce bounds the handler's backlog by the number of distinct
	// objects instead of the number of events: once more than
	// CoalesceAfter notifications wait for the handler, later ones are
	// merged per object key (the informer's key function) until the
	// backlog has drained. It is not part of client-go's API; client-go
	// keeps every notification until the handler takes it.
	//
	// The notifications of one object, merged, take the handler from its
	// view of the object (what it was last told) to the latest state:
	//   - the latest state wins: an add or update followed by updates is
	//     one add or update carrying the latest object;
	//   - the old object of a merged update is the oldest pending one, the
	//     state the handler last saw;
	//   - an add followed by a delete cancels out: the handler hears of
	//     neither;
	//   - a delete wins over earlier updates, and carries the object (or
	//     [DeletedFinalStateUnknown]) of the first deletion;
	//   - a delete followed by an add stays a delete and an add, so the
	//     handler never gets an update for an object it was told was
	//     deleted unless it was told it was added again.
	// A merged notification keeps the place of the object's oldest pending
	// one, so the changes of one object reach the handler in order, and
	// at most two notifications per object wait. Resyncs merge like
	// updates. An add of the initial list that merges into a later state
	// still counts towards the registration's HasSynced; one cancelled by
	// a delete counts as handled.
	Coalesce bool

	// CoalesceAfter is how many notifications may wait, one per event,
	// before Coalesce merges them; zero merges from the first one the
	// handler has not taken. It must not be negative, and needs Coalesce.
	CoalesceAfter int

	// MaxBacklog, when positive, caps the notifications held for the
	// handler. It is not part of client-go's API; client-go holds them
	// without limit. When a new notification would exceed the cap, the
	// pending notifications are dropped: the handler's backlog keeps, per
	// object they were about, only the object's key and the state the
	// handler last saw (nothing when it had none), and further changes
	// only add keys: one entry per changed object, however many events.
	// When the handler gets to a key, it is told the
	// difference between that state and the informer's current store: an
	// update from the state it saw to the stored one, an add of what it
	// did not have, a delete (of a [DeletedFinalStateUnknown] carrying the
	// state it saw) of what is gone, or a delete and an add when the
	// stored object has another uid. So the handler converges to the store
	// without the events being held; intermediate states are skipped. Once
	// those keys are handled the cap applies again. Objects that did not
	// change are not replayed. The registration's HasSynced still means
	// that the handler saw every object of the initial list that still
	// exists. Zero means no cap; it must not be negative.
	MaxBacklog int
}

// backlogBounds returns the backlog limits of o, or an error for malformed
// ones.
func (o HandlerOptions) backlogBounds() (backlogBounds, error) {
	switch {
	case o.CoalesceAfter < 0:
		return backlogBounds{}, fmt.Errorf("handler options: CoalesceAfter is %d, must not be negative", o.CoalesceAfter)
	case o.CoalesceAfter > 0 && !o.Coalesce:
		return backlogBounds{}, fmt.Errorf("handler options: CoalesceAfter is %d but Coalesce is false", o.CoalesceAfter)
	case o.MaxBacklog < 0:
		return backlogBounds{}, fmt.Errorf("handler options: MaxBacklog is %d, must not be negative", o.MaxBacklog)
	}
	return backlogBounds{coalesce: o.Coalesce, coalesceAfter: o.CoalesceAfter, max: o.MaxBacklog}, nil
}
