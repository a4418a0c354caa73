package cache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/informer-go/informer/wait"
)

// SharedInformer keeps a local cache of a collection of objects, fed by a
// [ListerWatcher], and tells any number of handlers about every change.
//
// The cache (GetStore) is eventually consistent with the authoritative
// state: after the initial list (HasSynced), it reflects every change the
// watch delivered, and a relist repairs what a broken watch missed. Objects
// in the cache, and the objects handed to handlers, are shared: treat them as
// read-only.
//
// Each handler has its own unbounded buffer and its own goroutine. A handler
// is called for one notification at a time, in the order the informer
// processed them, so the changes of one object arrive in order; it may lag
// behind the cache and behind other handlers, and a slow handler delays no
// one but itself; it may bound its buffer instead (see
// [HandlerOptions.Coalesce] and [HandlerOptions.MaxBacklog]). Intermediate
// states of an object may be skipped, but the last notification about an
// object carries its latest state. A handler
// whose resync period is due (see AddEventHandlerWithResyncPeriod) also gets
// an update for every cached object, changed or not.
//
// Handlers may be added and removed at any time, before or after Run, also
// from inside a handler. A handler added to a running informer first gets an
// OnAdd(obj, true) for every cached object, before any later notification.
// Once stopped, an informer refuses new handlers and cannot be run again.
//
// All methods are safe for concurrent use.
type SharedInformer interface {
	// AddEventHandler adds handler with the informer's default resync
	// period. It returns the handler's registration, which reports when
	// the handler has seen the initial list and is needed to remove the
	// handler. It fails once the informer has stopped, and for a nil
	// handler or a nil pointer to a handler type with value receivers,
	// which could only panic.
	AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error)

	// AddEventHandlerWithResyncPeriod adds handler asking for a resync
	// every resyncPeriod; zero means the handler does not want resyncs. A
	// positive period below one second is raised to one second. Resyncs
	// are checked every resync check period of the informer: its default
	// period, lowered by the handlers added before Run that ask for less
	// (see [NewSharedIndexInformer]). A handler added after Run gets at
	// least that period; a handler's resyncs happen at the first check at
	// or after its period elapsed. An informer whose default period is
	// zero has no check period and resyncs no handler.
	AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error)

	// AddEventHandlerWithOptions is AddEventHandlerWithResyncPeriod with
	// its optional settings in a struct.
	AddEventHandlerWithOptions(handler ResourceEventHandler, options HandlerOptions) (ResourceEventHandlerRegistration, error)

	// RemoveEventHandler removes the handler of handle: the handler is not
	// called again once the call in progress, if any, returns, and its
	// pending notifications are dropped. It does not wait for that call;
	// use [ShutDownEventHandler] to wait. Removing an unknown or already
	// removed handle does nothing; a handle not returned by an informer of
	// this package is an error. It may be called from inside a handler.
	RemoveEventHandler(handle ResourceEventHandlerRegistration) error

	// GetStore returns the informer's cache. It is for reading only:
	// writing to it corrupts the informer's notifications.
	GetStore() Store

	// GetController returns a stand-in for the informer's controller whose
	// Run and RunWithContext do nothing.
	//
	// Deprecated: the informer's controller is internal; use the
	// informer's own methods.
	GetController() Controller

	// Run is RunWithContext with a stop channel.
	//
	// Contextual logging: prefer RunWithContext.
	Run(stopCh <-chan struct{})

	// RunWithContext lists, watches and notifies handlers until ctx ends,
	// then stops every handler (dropping their pending notifications) and
	// returns once every goroutine it started has exited, handler calls in
	// progress included. It blocks. An informer runs once: further calls
	// log a warning and return at once. If a panic in processing (in an
	// index function, say) reaches Run, Run stops the same way and then
	// re-raises it.
	RunWithContext(ctx context.Context)

	// HasSynced reports whether the cache holds the complete initial list
	// (or streamed list): every object of it has been stored and queued
	// for the handlers. It says nothing about whether handlers have
	// handled them; ask their registrations for that.
	HasSynced() bool

	// HasSyncedChecker returns a [DoneChecker] for the condition of
	// HasSynced, to wait without polling (see [WaitFor]).
	HasSyncedChecker() DoneChecker

	// LastSyncResourceVersion returns the resource version of the last
	// list or watch event the informer received, or "" before Run.
	LastSyncResourceVersion() string

	// SetWatchErrorHandler sets the function called when a list, or the
	// start of a watch, fails; the default is [DefaultWatchErrorHandler].
	// It fails once the informer has started.
	SetWatchErrorHandler(handler WatchErrorHandler) error

	// SetWatchErrorHandlerWithContext is SetWatchErrorHandler with a
	// handler that also receives the informer's context.
	SetWatchErrorHandlerWithContext(handler WatchErrorHandlerWithContext) error

	// SetTransform sets a function applied to every object before it is
	// cached and handed to handlers, for example to drop fields the
	// handlers do not need. It must be idempotent (see [TransformFunc]).
	// It fails once the informer has started.
	SetTransform(handler TransformFunc) error

	// IsStopped reports whether the informer has stopped.
	IsStopped() bool
}

// SharedIndexInformer is a [SharedInformer] whose cache is an [Indexer].
type SharedIndexInformer interface {
	SharedInformer

	// AddIndexers adds indexes to the cache, indexing the cached objects
	// at once. It works before and after Run and fails once the informer
	// has stopped, or when an index name is taken.
	AddIndexers(indexers Indexers) error

	// GetIndexer returns the informer's cache. It is for reading only.
	GetIndexer() Indexer
}

// NewSharedInformer returns a [SharedInformer] for the objects lw lists and
// watches: NewSharedIndexInformer without indexes.
func NewSharedInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration) SharedInformer {
	return NewSharedIndexInformer(lw, exampleObject, defaultEventHandlerResyncPeriod, Indexers{})
}

// NewSharedIndexInformer returns a [SharedIndexInformer] for the objects lw
// lists and watches, with the given indexes; see
// [NewSharedIndexInformerWithOptions].
//
// defaultEventHandlerResyncPeriod is the resync period of handlers added
// without one, and the initial resync check period. Handlers added before
// Run with a smaller period lower the check period; handlers added after Run
// with a smaller period get the check period. A handler's resync thus
// happens every period rounded up to a multiple of the check period, plus
// processing delays. Zero disables resyncs for every handler, whatever period
// it asks for.
func NewSharedIndexInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration, indexers Indexers) SharedIndexInformer {
	return NewSharedIndexInformerWithOptions(lw, exampleObject, SharedIndexInformerOptions{
		ResyncPeriod: defaultEventHandlerResyncPeriod,
		Indexers:     indexers,
	})
}

// NewSharedIndexInformerWithOptions returns a [SharedIndexInformer] for the
// objects lw lists and watches, which must be of the type of exampleObject
// (others are dropped; a nil example accepts anything). The cache is keyed by
// [DeletionHandlingMetaNamespaceKeyFunc]. Nothing happens until Run. A
// negative ResyncPeriod is treated as zero.
func NewSharedIndexInformerWithOptions(lw ListerWatcher, exampleObject runtime.Object, options SharedIndexInformerOptions) SharedIndexInformer {
	return newSharedIndexInformer(lw, exampleObject, options, realClock)
}

// newSharedIndexInformer is NewSharedIndexInformerWithOptions with the clock
// used for resyncs, the reflector and the handlers' crash pauses.
func newSharedIndexInformer(lw ListerWatcher, exampleObject runtime.Object, options SharedIndexInformerOptions, clk clock.Clock) *sharedIndexInformer {
	resync := max(options.ResyncPeriod, 0)
	detector, detectMutations := informerMutationDetector(options.MutationDetector, exampleObject)
	indexer, memory := newInformerCache(exampleObject, options.Indexers, []StoreOption{WithStoreMetrics(options.Identifier, options.InformerMetricsProvider)}, options.Memory)
	processor := newSharedProcessor(clk)
	processor.holdRuns = true // start has the queue release the run when it drains
	monitor := newInformerMonitor(clk, exampleObject, options.ObjectDescription, options.Identifier, options.RunMetricsProvider, indexer.len)
	if options.Snapshot != nil {
		monitor.snapshot = newSnapshotKeeper(*options.Snapshot, exampleObject, lw, indexer, &monitor.versions)
	}
	return &sharedIndexInformer{
		indexer:                         indexer,
		monitor:                         monitor,
		monitorReports:                  monitorReports{monitor},
		watchLiveness:                   options.WatchLiveness,
		memory:                          memory,
		processor:                       processor,
		mutationDetector:                detector,
		detectMutations:                 detectMutations,
		synced:                          make(chan struct{}),
		listerWatcher:                   lw,
		objectType:                      exampleObject,
		objectDescription:               options.ObjectDescription,
		identifier:                      options.Identifier,
		metricsProvider:                 options.InformerMetricsProvider,
		inOrder:                         options.InOrder,
		resyncCheckPeriod:               resync,
		defaultEventHandlerResyncPeriod: resync,
		clock:                           clk,
		keyFunc:                         DeletionHandlingMetaNamespaceKeyFunc,
		creator:                         callSite(),
	}
}

// sharedIndexInformer implements SharedIndexInformer: a controller (reflector
// and queue) whose processing stores each change in indexer and hands it to
// processor, which fans it out to the handlers' listeners.
type sharedIndexInformer struct {
	indexer   *cache
	processor *sharedProcessor
	// monitor keeps the sync status, the run metrics and the waits for
	// resource versions.
	monitor *informerMonitor
	// monitorReports are the informer's SyncStatus and
	// WaitForResourceVersion, from monitor.
	monitorReports

	watchLiveness    *WatchLivenessOptions
	memory           *memoryMode // nil without memory options
	mutationDetector MutationDetector
	detectMutations  bool // false for the no-op detector

	// synced is closed once the queue has processed the initial list.
	synced chan struct{}

	listerWatcher     ListerWatcher
	objectType        runtime.Object
	objectDescription string
	identifier        InformerNameAndResource
	metricsProvider   InformerMetricsProvider
	inOrder           bool
	keyFunc           KeyFunc // the indexer's
	clock             clock.Clock
	// realTime, when not nil, replaces the reflector's real clock; see
	// controllerOptions.realTime.
	realTime clock.Clock
	creator  string // the code that built the informer; see controllerOptions.creator

	// startedLock guards the fields below it.
	//
	// Lock order of an informer, outermost first; a goroutine holding one
	// of these takes only those after it, and leaf locks:
	//  1. startedLock (AddEventHandler, RemoveEventHandler, the setters)
	//  2. resourceVersionTracker.mu (a wait reads the queue's progress)
	//  3. the queue's lock, queueState.mu: a DeltaFIFO processes under it,
	//     and so does a RealFIFO holding 2000 deltas or more
	//  4. blockDeltas, held while processing stores a change and hands it
	//     to the processor, and while a handler is added or removed
	//  5. sharedProcessor.mu
	//  6. sharedProcessor.runMu
	//  7. processorListener.mu
	// Every other lock is a leaf, which takes nothing while held: the
	// store's, the listeners' sync trackers', the mutation detector's,
	// shutdownWatch.mu, the sync status recorder's, the reflector's; the
	// controller's takes only the reflector's.
	// No lock is held while a handler runs. The queue calls the
	// processor's releaseRun (5, 6, 7) after releasing its lock.
	startedLock      sync.Mutex
	started, stopped bool
	controller       Controller // set by Run
	// resyncCheckPeriod is how often the reflector asks the processor
	// whether a resync is due.
	resyncCheckPeriod time.Duration
	// defaultEventHandlerResyncPeriod is the resync period of handlers
	// added without one.
	defaultEventHandlerResyncPeriod time.Duration
	watchErrorHandler               WatchErrorHandlerWithContext
	transform                       TransformFunc

	// blockDeltas is held while a change is stored and distributed, and
	// while a handler added to a running informer gets the cache's
	// contents, so that the two never interleave. Lock order: after the
	// queue's lock, before the processor's (see startedLock).
	blockDeltas sync.Mutex
}

var (
	_ SharedIndexInformer   = (*sharedIndexInformer)(nil)
	_ SyncStatusReporter    = (*sharedIndexInformer)(nil)
	_ ResourceVersionWaiter = (*sharedIndexInformer)(nil)
)

// informerSyncedChecker is the informer's DoneChecker.
type informerSyncedChecker struct{ s *sharedIndexInformer }

func (c informerSyncedChecker) Name() string {
	return fmt.Sprintf("SharedIndexInformer %T", c.s.objectType)
}
func (c informerSyncedChecker) Done() <-chan struct{} { return c.s.synced }

// errInformerStarted is returned by the setters that only work before Run.
var errInformerStarted = errors.New("informer has already started")

// SetWatchErrorHandler implements [SharedInformer.SetWatchErrorHandler].
func (s *sharedIndexInformer) SetWatchErrorHandler(handler WatchErrorHandler) error {
	if handler == nil {
		return s.SetWatchErrorHandlerWithContext(nil)
	}
	return s.SetWatchErrorHandlerWithContext(func(_ context.Context, r *Reflector, err error) {
		handler(r, err)
	})
}

// SetWatchErrorHandlerWithContext implements
// [SharedInformer.SetWatchErrorHandlerWithContext]. A nil handler restores
// the default.
func (s *sharedIndexInformer) SetWatchErrorHandlerWithContext(handler WatchErrorHandlerWithContext) error {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.started {
		return errInformerStarted
	}
	s.watchErrorHandler = handler
	return nil
}

// SetTransform implements [SharedInformer.SetTransform]. A nil function
// removes the transform.
func (s *sharedIndexInformer) SetTransform(handler TransformFunc) error {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.started {
		return errInformerStarted
	}
	s.transform = handler
	return nil
}

// Run implements [SharedInformer.Run].
func (s *sharedIndexInformer) Run(stopCh <-chan struct{}) {
	s.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext implements [SharedInformer.RunWithContext].
func (s *sharedIndexInformer) RunWithContext(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)

	controller, ok := s.start(logger)
	if !ok {
		logger.Info("Warning: the sharedIndexInformer has started, run more than once is not allowed")
		return
	}

	// Every goroutine started here exits once Run is returning (the
	// processor's listeners once stop is called) and is waited for before
	// Run returns, also when processing panics and the panic unwinds Run.
	var wg sync.WaitGroup
	defer wg.Wait()
	stopping := make(chan struct{})
	defer close(stopping) // after the processor has stopped, before wg.Wait
	wg.Go(func() {
		select {
		case <-controller.HasSyncedChecker().Done():
			close(s.synced)
			s.processor.upstreamHasSynced()
		case <-ctx.Done():
		case <-stopping:
		}
	})
	if s.detectMutations {
		wg.Go(func() { s.mutationDetector.Run(stopping) })
	}
	s.processor.run()
	defer s.processor.stop() // after stopped is set: no listener is added once the processor stopped

	defer func() {
		s.startedLock.Lock()
		defer s.startedLock.Unlock()
		s.stopped = true
	}()
	controller.RunWithContext(ctx)
}

// start builds the queue and the controller and marks the informer started.
// It reports false if it had started already.
func (s *sharedIndexInformer) start(logger klog.Logger) (Controller, bool) {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.started {
		return nil, false
	}
	p := newInformerPipeline(pipelineConfig{
		logger:             logger,
		objectType:         s.objectType,
		clock:              s.clock,
		store:              s.indexer,
		handler:            (*informerEvents)(s),
		drained:            s.processor.releaseRun,
		lock:               &s.blockDeltas,
		transform:          s.memory.transform(s.transform, s.indexer.GetIndexers()),
		transformKeepsKeys: s.transform == nil,
		identifier:         s.identifier,
		metricsProvider:    s.metricsProvider,
		inOrder:            s.inOrder,
	})
	s.controller = newController(Config{
		Queue:                        p.queue,
		ListerWatcher:                s.listerWatcher,
		ObjectType:                   s.objectType,
		ObjectDescription:            s.objectDescription,
		FullResyncPeriod:             s.resyncCheckPeriod,
		ShouldResync:                 s.processor.shouldResync,
		WatchErrorHandlerWithContext: s.watchErrorHandler,
		WatchLiveness:                s.watchLiveness,
	}, controllerOptions{
		clock:     s.clock,
		realTime:  s.realTime,
		creator:   s.creator,
		monitor:   s.monitor,
		pop:       p.pop,
		snapshots: s.monitor.snapshot,
	})
	s.started = true
	return s.controller, true
}

// HasSynced implements [SharedInformer.HasSynced].
func (s *sharedIndexInformer) HasSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

// HasSyncedChecker implements [SharedInformer.HasSyncedChecker]. The checker
// is named "SharedIndexInformer <type of the example object>".
func (s *sharedIndexInformer) HasSyncedChecker() DoneChecker {
	return informerSyncedChecker{s}
}

// LastSyncResourceVersion implements [SharedInformer.LastSyncResourceVersion].
func (s *sharedIndexInformer) LastSyncResourceVersion() string {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.controller == nil {
		return ""
	}
	return s.controller.LastSyncResourceVersion()
}

// GetStore implements [SharedInformer.GetStore].
func (s *sharedIndexInformer) GetStore() Store {
	return s.indexer
}

// GetIndexer implements [SharedIndexInformer.GetIndexer].
func (s *sharedIndexInformer) GetIndexer() Indexer {
	return s.indexer
}

// AddIndexers implements [SharedIndexInformer.AddIndexers].
func (s *sharedIndexInformer) AddIndexers(indexers Indexers) error {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.stopped {
		return errors.New("indexer was not added because it has stopped already")
	}
	return s.indexer.AddIndexers(indexers)
}

// GetController implements [SharedInformer.GetController].
func (s *sharedIndexInformer) GetController() Controller {
	return &dummyController{informer: s}
}

// IsStopped implements [SharedInformer.IsStopped].
func (s *sharedIndexInformer) IsStopped() bool {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	return s.stopped
}

// AddEventHandler implements [SharedInformer.AddEventHandler].
func (s *sharedIndexInformer) AddEventHandler(handler ResourceEventHandler) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod implements
// [SharedInformer.AddEventHandlerWithResyncPeriod].
func (s *sharedIndexInformer) AddEventHandlerWithResyncPeriod(handler ResourceEventHandler, resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions implements
// [SharedInformer.AddEventHandlerWithOptions]. A nil handler, or a nil
// pointer that cannot handle anything (see checkHandler), is an error; a
// negative resync period is treated as zero.
func (s *sharedIndexInformer) AddEventHandlerWithOptions(handler ResourceEventHandler, options HandlerOptions) (ResourceEventHandlerRegistration, error) {
	if err := checkHandler[ResourceEventHandler](handler); err != nil {
		return nil, err
	}
	bounds, err := options.backlogBounds()
	if err != nil {
		return nil, err
	}
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	if s.stopped {
		return nil, fmt.Errorf("handler %v was not added to shared informer because it has stopped already", handler)
	}

	logger := klog.Background()
	if options.Logger != nil {
		logger = *options.Logger
	}
	resyncPeriod := s.handlerResyncPeriodLocked(logger, options)
	resync := newResyncSchedule(s.clock.Now(), resyncPeriod, determineResyncPeriod(logger, resyncPeriod, s.resyncCheckPeriod))
	l := newProcessorListener(logger, handler, s.clock, s.HasSyncedChecker().Name())
	l.setBacklog(bounds, s.keyFunc, (*informerStore)(s))
	l.observer = s.monitor.newHandlerObserver(l.handlerName)
	if s.started {
		// Replay the cache while no change can be stored or distributed,
		// so that the handler sees every object exactly once before any
		// later notification. The adds are queued before the listener is
		// registered, so they count towards its sync even if the
		// informer has synced.
		s.blockDeltas.Lock()
		defer s.blockDeltas.Unlock()
		l.addInitial(s.indexer.List())
	}
	if !s.processor.addListener(l, resync) {
		// Not expected: the processor stops only after stopped was set,
		// and stopped is checked above under the same lock.
		return nil, fmt.Errorf("handler %v was not added to shared informer because its processor has stopped", handler)
	}
	return l, nil
}

// handlerResyncPeriodLocked returns the resync period a handler added with
// options asks for, normalized: the informer's default when it names none,
// no resync for a negative one, at least minimumResyncPeriod, and at least
// the resync check period once the informer has started. Before Run, a
// smaller period lowers the check period instead. It is called with
// startedLock held.
func (s *sharedIndexInformer) handlerResyncPeriodLocked(logger klog.Logger, options HandlerOptions) time.Duration {
	period := s.defaultEventHandlerResyncPeriod
	if options.ResyncPeriod != nil {
		period = max(*options.ResyncPeriod, 0)
	}
	if period <= 0 {
		return period
	}
	if period < minimumResyncPeriod {
		logger.Info("Warning: resync period is too small. Changing it to the minimum allowed value", "resyncPeriod", period, "minimumResyncPeriod", minimumResyncPeriod)
		period = minimumResyncPeriod
	}
	if period < s.resyncCheckPeriod {
		if s.started {
			logger.Info("Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period", "resyncPeriod", period, "resyncCheckPeriod", s.resyncCheckPeriod)
			return s.resyncCheckPeriod
		}
		s.resyncCheckPeriod = period
		s.processor.resyncCheckPeriodChanged(logger, period)
	}
	return period
}

// checkHandler returns an error for a handler of interface type H that would
// panic on every call: nil, or a nil pointer to a type whose methods have
// value receivers (such as a nil *ResourceEventHandlerFuncs). A nil pointer
// whose methods have pointer receivers may work and is accepted.
func checkHandler[H any](handler H) error {
	v := reflect.ValueOf(handler)
	switch {
	case !v.IsValid():
		return errors.New("event handler is nil")
	case v.Kind() == reflect.Pointer && v.IsNil() && v.Type().Elem().Implements(reflect.TypeFor[H]()):
		return fmt.Errorf("event handler is a nil %T", handler)
	}
	return nil
}

// RemoveEventHandler implements [SharedInformer.RemoveEventHandler].
func (s *sharedIndexInformer) RemoveEventHandler(handle ResourceEventHandlerRegistration) error {
	s.startedLock.Lock()
	defer s.startedLock.Unlock()
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	return s.processor.removeListener(handle)
}

// informerEvents is the [ResourceEventHandler] that processDeltas tells about
// every change once it is stored: it hands the change to the processor. It
// is a distinct type so that the informer itself does not expose these
// methods.
type informerEvents sharedIndexInformer

// OnAdd distributes an add to every handler.
func (e *informerEvents) OnAdd(obj any, isInInitialList bool) {
	if e.detectMutations {
		e.mutationDetector.AddObject(obj)
	}
	e.processor.distribute(notification{kind: addNotification, isInInitialList: isInInitialList, newObj: obj})
}

// OnUpdate distributes an update. An update that does not change the
// resource version (a relist or resync of an unchanged object) is a sync: it
// only goes to the handlers whose resync is due (see resync.go).
func (e *informerEvents) OnUpdate(oldObj, newObj any) {
	if e.detectMutations {
		e.mutationDetector.AddObject(newObj)
	}
	e.processor.distributeUpdate(oldObj, newObj)
}

// OnDelete distributes a delete to every handler.
func (e *informerEvents) OnDelete(obj any) {
	e.processor.distribute(notification{kind: deleteNotification, oldObj: obj})
}

// informerStore is the [backlogSource] of the informer's listeners.
type informerStore sharedIndexInformer

// whileQuiet holds blockDeltas, under which every change is stored and
// distributed, while fn reads the indexer.
func (s *informerStore) whileQuiet(fn func(get func(key string) (any, bool))) {
	s.blockDeltas.Lock()
	defer s.blockDeltas.Unlock()
	fn(func(key string) (any, bool) {
		obj, exists, err := s.indexer.GetByKey(key)
		return obj, exists && err == nil
	})
}

// ShutDownEventHandler removes handle's handler from informer, like
// RemoveEventHandler, and then waits until the handler will not be called
// again: the call in progress, if any, has returned. The handle must have a
// ShutdownChan() <-chan struct{} method, as the registrations of this
// package do. A handle registered with another informer is an error.
//
// It waits as client-go does, however long the call takes, also when called
// from inside another handler, except where the wait may be part of a
// deadlock: there, where client-go can hang (a handler shutting itself
// down, handlers shutting each other down in a cycle), it gives up. Per
// informer, the waits involve the handler calls waited for and those that
// began before the latest wait (a later call cannot be an earlier wait's
// caller). While the involved calls outnumber the waits for calls in
// progress, one of them is not waiting and can return. Once they do not,
// each may be blocked in a wait, and none may ever return: when that has
// lasted 90 seconds (real time) with none of the involved calls returning,
// the oldest wait returns an error. Its handler stays removed and is not
// called again once its call returns; if the caller was a handler, the
// waits for it can then end. Goroutines have no identity, so a caller that
// is not one of the informer's handlers (a handler of another informer
// included) counts as if it might be: it gets that error when it waits more
// than 90 seconds in such a state, as when the call it waits for is the
// only one of its informer in progress. RemoveEventHandler, or cancelling
// the context of [AddEventHandlerWithContext], never waits.
func ShutDownEventHandler(informer SharedInformer, handle ResourceEventHandlerRegistration) error {
	if informer == nil {
		return errors.New("shut down event handler: informer is nil")
	}
	if err := informer.RemoveEventHandler(handle); err != nil {
		return err
	}
	if l, ok := handle.(*processorListener); ok {
		if !l.isStopped() {
			// The handler is still registered: with another informer.
			return errors.New("handle was not registered with this informer; nothing was shut down")
		}
		return l.waitShutdown()
	}
	s, ok := handle.(interface{ ShutdownChan() <-chan struct{} })
	if !ok {
		return errors.New("handle does not support ShutdownChan()")
	}
	<-s.ShutdownChan()
	return nil
}

// dummyController is what GetController returns: it reports the informer's
// state and does not run anything.
type dummyController struct {
	informer *sharedIndexInformer
}

func (v *dummyController) RunWithContext(context.Context) {}

func (v *dummyController) Run(<-chan struct{}) {}

func (v *dummyController) HasSynced() bool {
	return v.informer.HasSynced()
}

func (v *dummyController) HasSyncedChecker() DoneChecker {
	return v.informer.HasSyncedChecker()
}

func (v *dummyController) LastSyncResourceVersion() string {
	return v.informer.LastSyncResourceVersion()
}
