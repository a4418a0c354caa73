package cache

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo/internal/adapt"
)

// NewSharedInformer returns a shared informer of the objects lw lists and
// watches, running on informer-go's engine in client-go's default order; it
// is [NewSharedIndexInformer] with no indexes, as client-go's is (so the
// result is also a [SharedIndexInformer]).
func NewSharedInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration) SharedInformer {
	return NewSharedIndexInformer(lw, exampleObject, defaultEventHandlerResyncPeriod, Indexers{})
}

// NewSharedIndexInformer returns a shared index informer of the objects lw
// lists and watches, with the indexes indexers and
// defaultEventHandlerResyncPeriod as the handlers' default resync period:
// [NewSharedIndexInformerWithOptions] with those options.
func NewSharedIndexInformer(lw ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration, indexers Indexers) SharedIndexInformer {
	return NewSharedIndexInformerWithOptions(lw, exampleObject, SharedIndexInformerOptions{
		ResyncPeriod: defaultEventHandlerResyncPeriod,
		Indexers:     indexers,
	})
}

// NewSharedIndexInformerWithOptions returns a shared index informer of the
// objects lw lists and watches, configured by options as client-go's is.
// It is informer-go's informer (github.com/informer-go/informer/cache) in
// client-go v0.37.2's default order (InOrder), seen through client-go's
// interface: every handler receives client-go's [DeletedFinalStateUnknown]
// for a deletion noticed only by a relist; GetStore and GetIndexer return
// informer-go's indexer; registrations are informer-go's (RemoveEventHandler
// takes only those the informer returned, and [ShutDownEventHandler] waits
// for them); a watch error handler gets a [Reflector] that only carries the
// name and type description of the running reflector, which is
// informer-go's. Metrics of a reserved options.Identifier go to
// options.InformerMetricsProvider, or to the provider of
// [SetInformerMetricsProvider]. Nothing runs until Run or RunWithContext.
func NewSharedIndexInformerWithOptions(lw ListerWatcher, exampleObject runtime.Object, options SharedIndexInformerOptions) SharedIndexInformer {
	id, provider := informerMetrics(options.Identifier, options.InformerMetricsProvider)
	informer := cache.NewSharedIndexInformerWithOptions(lw, exampleObject, cache.SharedIndexInformerOptions{
		ResyncPeriod:            options.ResyncPeriod,
		Indexers:                adapt.FromClientGoIndexers(options.Indexers),
		ObjectDescription:       options.ObjectDescription,
		Identifier:              id,
		InformerMetricsProvider: provider,
		InOrder:                 true,
	})
	return adapt.Informer(informer, adapt.ClientGoAlways)
}

// NewInformer returns a store of the objects lw lists and watches, and the
// controller that keeps it in step and tells h about every change:
// [NewInformerWithOptions] with those options.
//
// Deprecated: as in client-go, use [NewInformerWithOptions].
func NewInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler) (Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h})
}

// NewIndexerInformer returns an indexer with the indexes indexers of the
// objects lw lists and watches, and the controller that keeps it in step
// and tells h about every change: [NewInformerWithOptions] with those
// options.
//
// Deprecated: as in client-go, use [NewInformerWithOptions].
func NewIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers) (Indexer, Controller) {
	return NewTransformingIndexerInformer(lw, objType, resyncPeriod, h, indexers, nil)
}

// NewTransformingInformer is [NewInformer] with transformer applied to every
// object before it is stored and handed to h.
//
// Deprecated: as in client-go, use [NewInformerWithOptions].
func NewTransformingInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, transformer TransformFunc) (Store, Controller) {
	return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Transform: transformer})
}

// NewTransformingIndexerInformer is [NewIndexerInformer] with transformer
// applied to every object before it is stored and handed to h.
//
// Deprecated: as in client-go, use [NewInformerWithOptions].
func NewTransformingIndexerInformer(lw ListerWatcher, objType runtime.Object, resyncPeriod time.Duration, h ResourceEventHandler, indexers Indexers, transformer TransformFunc) (Indexer, Controller) {
	store, controller := newInformer(InformerOptions{ListerWatcher: lw, ObjectType: objType, ResyncPeriod: resyncPeriod, Handler: h, Indexers: indexers, Transform: transformer})
	return adapt.Indexer(store), adapt.Controller(controller)
}

// NewInformerWithOptions returns a store of the objects
// options.ListerWatcher lists and watches, and the controller that keeps it
// in step and tells options.Handler about every change, configured as
// client-go's is. They are informer-go's (github.com/informer-go/informer/cache),
// in client-go v0.37.2's default order (InOrder), seen through client-go's
// interfaces: the handler receives client-go's [DeletedFinalStateUnknown] for
// a deletion noticed only by a relist; the store is also an [Indexer], as
// client-go's is. Use the store for reads only. Nothing runs until the
// controller runs.
func NewInformerWithOptions(options InformerOptions) (Store, Controller) {
	store, controller := newInformer(options)
	return adapt.Indexer(store), adapt.Controller(controller)
}

// newInformer builds informer-go's store and controller for options. The
// store is an indexer (with no indexes when options.Indexers is nil), as
// client-go's stores are.
func newInformer(options InformerOptions) (cache.Indexer, cache.Controller) {
	indexers := adapt.FromClientGoIndexers(options.Indexers)
	if indexers == nil {
		indexers = cache.Indexers{}
	}
	id, provider := informerMetrics(options.Identifier, options.InformerMetricsProvider)
	store, controller := cache.NewInformerWithOptions(cache.InformerOptions{
		Logger:                  options.Logger,
		ListerWatcher:           options.ListerWatcher,
		ObjectType:              options.ObjectType,
		Handler:                 adapt.Handler(options.Handler, adapt.ClientGoAlways),
		ResyncPeriod:            options.ResyncPeriod,
		MinWatchTimeout:         options.MinWatchTimeout,
		Indexers:                indexers,
		Transform:               cache.TransformFunc(options.Transform),
		Identifier:              id,
		InformerMetricsProvider: provider,
		InOrder:                 true,
	})
	return store.(cache.Indexer), controller // a store with indexers is an Indexer
}
