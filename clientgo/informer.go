package clientgo

import (
	"context"
	"time"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// AsSharedIndexInformer returns informer as a client-go
// toolscache.SharedIndexInformer, for code that takes client-go's type:
// controller-runtime, client-go's generated informer interfaces and
// listers, toolscache.WaitForCacheSync. Every call goes to informer:
//
//   - Handlers: a handler whose type is declared in this library's cache
//     package (ResourceEventHandlerFuncs and the other adapters) is
//     registered as it is and gets this library's
//     [cache.DeletedFinalStateUnknown] tombstones; any other handler
//     (client-go's adapters, controller-runtime's, a type of the program)
//     gets client-go's toolscache.DeletedFinalStateUnknown, so that its type
//     assertions match. Both libraries' DeletionHandlingMetaNamespaceKeyFunc
//     and DeletionHandlingObjectToName accept either from this library's
//     informers, but client-go's accept only client-go's.
//   - Registrations are this library's, seen through client-go's interface;
//     RemoveEventHandler takes only those an adapter of this package returned.
//   - GetStore and GetIndexer return [AsIndexer] of the informer's indexer;
//     AddIndexers, SetTransform and GetController convert between the
//     libraries' types.
//   - A watch error handler gets, instead of the running reflector (a type of
//     this library), a client-go Reflector that only carries its name and
//     type description: what client-go's DefaultWatchErrorHandler and
//     controller-runtime read.
//
// The result is safe for concurrent use; run it (or informer) once. A nil
// informer yields nil.
func AsSharedIndexInformer(informer cache.SharedIndexInformer) toolscache.SharedIndexInformer {
	if informer == nil {
		return nil
	}
	return informerAdapter{informer}
}

// informerAdapter is a cache.SharedIndexInformer seen through client-go's
// interface. Run, RunWithContext, HasSynced, LastSyncResourceVersion and
// IsStopped have the same signature in both and are promoted.
type informerAdapter struct {
	cache.SharedIndexInformer
}

var _ toolscache.SharedIndexInformer = informerAdapter{}

func (s informerAdapter) AddEventHandler(handler toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return toRegistration(s.SharedIndexInformer.AddEventHandler(toHandler(handler)))
}

func (s informerAdapter) AddEventHandlerWithResyncPeriod(handler toolscache.ResourceEventHandler, resyncPeriod time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return toRegistration(s.SharedIndexInformer.AddEventHandlerWithResyncPeriod(toHandler(handler), resyncPeriod))
}

func (s informerAdapter) AddEventHandlerWithOptions(handler toolscache.ResourceEventHandler, options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return toRegistration(s.SharedIndexInformer.AddEventHandlerWithOptions(toHandler(handler), toHandlerOptions(options)))
}

func (s informerAdapter) RemoveEventHandler(handle toolscache.ResourceEventHandlerRegistration) error {
	reg, err := fromRegistration(handle)
	if err != nil {
		return err
	}
	return s.SharedIndexInformer.RemoveEventHandler(reg)
}

func (s informerAdapter) GetStore() toolscache.Store {
	return AsIndexer(s.SharedIndexInformer.GetIndexer())
}

func (s informerAdapter) GetIndexer() toolscache.Indexer {
	return AsIndexer(s.SharedIndexInformer.GetIndexer())
}

func (s informerAdapter) AddIndexers(indexers toolscache.Indexers) error {
	return s.SharedIndexInformer.AddIndexers(fromClientGoIndexers(indexers))
}

func (s informerAdapter) GetController() toolscache.Controller {
	return controllerAdapter{s.SharedIndexInformer.GetController()} //lint:ignore SA1019 client-go's interface has the method
}

func (s informerAdapter) HasSyncedChecker() toolscache.DoneChecker {
	return s.SharedIndexInformer.HasSyncedChecker()
}

func (s informerAdapter) SetTransform(handler toolscache.TransformFunc) error {
	return s.SharedIndexInformer.SetTransform(cache.TransformFunc(handler))
}

func (s informerAdapter) SetWatchErrorHandler(handler toolscache.WatchErrorHandler) error {
	if handler == nil {
		return s.SharedIndexInformer.SetWatchErrorHandler(nil)
	}
	return s.SharedIndexInformer.SetWatchErrorHandler(func(r *cache.Reflector, err error) {
		handler(describingReflector(r), err)
	})
}

func (s informerAdapter) SetWatchErrorHandlerWithContext(handler toolscache.WatchErrorHandlerWithContext) error {
	if handler == nil {
		return s.SharedIndexInformer.SetWatchErrorHandlerWithContext(nil)
	}
	return s.SharedIndexInformer.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		handler(ctx, describingReflector(r), err)
	})
}

// describingReflector returns a client-go Reflector, never run, with the name
// and type description of r, for client-go watch error handlers.
func describingReflector(r *cache.Reflector) *toolscache.Reflector {
	var options toolscache.ReflectorOptions
	if r != nil {
		options.Name, options.TypeDescription = r.Name(), r.TypeDescription()
	}
	return toolscache.NewReflectorWithOptions(nil, nil, nil, options)
}

// controllerAdapter is a cache.Controller seen through client-go's
// interface.
type controllerAdapter struct {
	cache.Controller
}

var _ toolscache.Controller = controllerAdapter{}

func (c controllerAdapter) HasSyncedChecker() toolscache.DoneChecker {
	return c.Controller.HasSyncedChecker()
}
