package cache

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
)

// InformerOptions configures [NewInformerWithOptions].
type InformerOptions struct {
	// Logger is used instead of klog.Background() when not nil.
	Logger *klog.Logger

	// ListerWatcher is the source of the objects.
	ListerWatcher ListerWatcher

	// ObjectType is an example of the objects expected; see
	// [NewReflectorWithOptions].
	ObjectType runtime.Object

	// Handler is told about every change. Nil, or a nil pointer, ignores
	// them.
	Handler ResourceEventHandler

	// ResyncPeriod, when positive, makes the informer deliver every stored
	// object to Handler.OnUpdate this often, changed or not, which helps
	// handlers that keep something outside the cluster in step.
	ResyncPeriod time.Duration

	// MinWatchTimeout is the lower bound of the random watch timeout; see
	// [ReflectorOptions.MinWatchTimeout].
	MinWatchTimeout time.Duration

	// Indexers, when not nil, makes the store an [Indexer] with these
	// indexes.
	Indexers Indexers

	// Transform, when set, rewrites every object before it is stored and
	// handed to Handler. It must be idempotent (see [TransformFunc]).
	Transform TransformFunc

	// Identifier names the informer's queue and store for logs and metrics;
	// metrics are published only for a reserved identifier.
	Identifier InformerNameAndResource

	// InformerMetricsProvider provides the queue and store metrics; nil
	// means the process-wide provider ([SetInformerMetricsProvider]), if any.
	InformerMetricsProvider InformerMetricsProvider

	// InOrder selects the queue. False (the default of this library) is the
	// classic pipeline: a [DeltaFIFO] that compresses the changes of each
	// object, knows the store's objects and reports relists as Replaced
	// deltas. True is client-go v0.37.2's default pipeline: a [RealFIFO] in
	// atomic mode that delivers every event in order (deletes included), a
	// relist as one ReplacedAll and a resync as one SyncAll, propagates
	// bookmarks to the store, releases its lock while processing, and
	// writes batches of up to 1000 events to the store in one transaction
	// before calling the handler for them.
	InOrder bool

	// WatchLiveness, when not nil, restarts watches that go silent; see
	// [WatchLivenessOptions]. Nil, the default, does not. It is not part
	// of client-go's API.
	WatchLiveness *WatchLivenessOptions

	// RunMetricsProvider provides the metrics of the informer's run (see
	// [RunMetricsProvider]); nil means the process-wide provider
	// ([SetRunMetricsProvider]), if any. It is not part of client-go's
	// API.
	RunMetricsProvider RunMetricsProvider

	// Memory, when not nil, selects how the store keeps its objects in
	// memory (trimmed, shared, encoded); see [MemoryOptions]. Nil, the
	// default, keeps them as decoded. Transform runs before it. It is not
	// part of client-go's API.
	Memory *MemoryOptions
}

// NewInformerWithOptions returns a store, kept in step with
// options.ListerWatcher, and the controller that does it while telling
// options.Handler about every change. The store is an [Indexer] when
// options.Indexers is not nil, keyed by
// [DeletionHandlingMetaNamespaceKeyFunc], with the metrics of
// options.Identifier. Use the store for reads only: writing to it would make
// the notifications wrong. Nothing happens until the controller runs.
func NewInformerWithOptions(options InformerOptions) (Store, Controller) {
	metrics := WithStoreMetrics(options.Identifier, options.InformerMetricsProvider)
	clientState, memory := newInformerCache(options.ObjectType, options.Indexers, []StoreOption{metrics}, options.Memory)
	return clientState, newInformer(clientState, options, memory)
}

// NewInformer returns a store and a controller that keeps it in step with lw
// while telling h about every change; resyncPeriod is as in
// [InformerOptions.ResyncPeriod]. The store is for reads only.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler) (Store, Controller) {
	clientState := newCache(DeletionHandlingMetaNamespaceKeyFunc, nil, nil)
	return clientState, newInformer(clientState, InformerOptions{
		ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod,
	}, nil)
}

// NewIndexerInformer is [NewInformer] with an [Indexer] built with indexers.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers) (Indexer, Controller) {
	clientState := newCache(DeletionHandlingMetaNamespaceKeyFunc, indexers, nil)
	return clientState, newInformer(clientState, InformerOptions{
		ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Indexers: indexers,
	}, nil)
}

// NewTransformingInformer is [NewInformer] with a transform applied to every
// object before it is stored and handed to h.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewTransformingInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, transformer TransformFunc) (Store, Controller) {
	clientState := newCache(DeletionHandlingMetaNamespaceKeyFunc, nil, nil)
	return clientState, newInformer(clientState, InformerOptions{
		ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Transform: transformer,
	}, nil)
}

// NewTransformingIndexerInformer is [NewIndexerInformer] with a transform
// applied to every object before it is stored and handed to h.
//
// Deprecated: Use NewInformerWithOptions instead.
func NewTransformingIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers, transformer TransformFunc) (Indexer, Controller) {
	clientState := newCache(DeletionHandlingMetaNamespaceKeyFunc, indexers, nil)
	return clientState, newInformer(clientState, InformerOptions{
		ListerWatcher: lw, ObjectType: objType, Handler: h, ResyncPeriod: resyncPeriod, Indexers: indexers, Transform: transformer,
	}, nil)
}

// NewNamespaceKeyedIndexerAndReflector returns an [Indexer] keyed by
// [MetaNamespaceKeyFunc] with a namespace index, and a reflector that keeps it
// in step with lw.
func NewNamespaceKeyedIndexerAndReflector(lw ListerWatcher, expectedType any, resyncPeriod time.Duration) (indexer Indexer, reflector *Reflector) {
	indexer = NewIndexer(MetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	reflector = NewReflector(lw, expectedType, indexer, resyncPeriod)
	return indexer, reflector
}

// newInformer returns the controller of an informer that keeps clientState in
// step and tells options.Handler, with the write step of memory (nil for
// none) after options.Transform.
func newInformer(clientState *cache, options InformerOptions, memory *memoryMode) Controller {
	logger := klog.Background()
	if options.Logger != nil {
		logger = *options.Logger
	}
	handler := options.Handler
	if handler == nil || isNilObject(handler) {
		// A nil pointer handler (say a nil *ResourceEventHandlerFuncs,
		// whose value methods panic through it) counts as no handler.
		handler = ResourceEventHandlerFuncs{}
	}
	p := newInformerPipeline(pipelineConfig{
		logger:             logger,
		objectType:         options.ObjectType,
		clock:              realClock,
		store:              clientState,
		handler:            handler,
		transform:          memory.transform(options.Transform, options.Indexers),
		transformKeepsKeys: options.Transform == nil,
		identifier:         options.Identifier,
		metricsProvider:    options.InformerMetricsProvider,
		inOrder:            options.InOrder,
	})
	return newController(Config{
		Queue:            p.queue,
		ListerWatcher:    options.ListerWatcher,
		ObjectType:       options.ObjectType,
		FullResyncPeriod: options.ResyncPeriod,
		MinWatchTimeout:  options.MinWatchTimeout,
		WatchLiveness:    options.WatchLiveness,
	}, controllerOptions{
		monitor: newInformerMonitor(realClock, options.ObjectType, "", options.Identifier, options.RunMetricsProvider, clientState.len),
		pop:     p.pop,
	})
}
