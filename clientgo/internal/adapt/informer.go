package adapt

import (
	"context"
	"time"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// Informer returns informer seen through client-go's SharedIndexInformer
// interface; handlers registered through it get client-go's tombstones as
// policy says. Registrations are informer-go's, seen through client-go's
// interface; RemoveEventHandler takes only those an adapter returned.
// GetStore and GetIndexer return [Indexer] of the informer's indexer. A
// watch error handler gets [DescribingReflector] of the running reflector.
// A nil informer yields nil.
func Informer(informer cache.SharedIndexInformer, policy Tombstones) toolscache.SharedIndexInformer {
	if informer == nil {
		return nil
	}
	return informerAdapter{informer, policy}
}

// informerAdapter is a cache.SharedIndexInformer seen through client-go's
// interface. Run, RunWithContext, HasSynced, LastSyncResourceVersion and
// IsStopped have the same signature in both and are promoted.
type informerAdapter struct {
	cache.SharedIndexInformer
	policy Tombstones
}

var _ toolscache.SharedIndexInformer = informerAdapter{}

func (s informerAdapter) AddEventHandler(handler toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return toRegistration(s.SharedIndexInformer.AddEventHandler(Handler(handler, s.policy)))
}

func (s informerAdapter) AddEventHandlerWithResyncPeriod(handler toolscache.ResourceEventHandler, resyncPeriod time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return toRegistration(s.SharedIndexInformer.AddEventHandlerWithResyncPeriod(Handler(handler, s.policy), resyncPeriod))
}

func (s informerAdapter) AddEventHandlerWithOptions(handler toolscache.ResourceEventHandler, options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return toRegistration(s.SharedIndexInformer.AddEventHandlerWithOptions(Handler(handler, s.policy), handlerOptions(options)))
}

func (s informerAdapter) RemoveEventHandler(handle toolscache.ResourceEventHandlerRegistration) error {
	reg, err := fromRegistration(handle)
	if err != nil {
		return err
	}
	return s.SharedIndexInformer.RemoveEventHandler(reg)
}

func (s informerAdapter) GetStore() toolscache.Store {
	return Indexer(s.SharedIndexInformer.GetIndexer())
}

func (s informerAdapter) GetIndexer() toolscache.Indexer {
	return Indexer(s.SharedIndexInformer.GetIndexer())
}

func (s informerAdapter) AddIndexers(indexers toolscache.Indexers) error {
	return s.SharedIndexInformer.AddIndexers(FromClientGoIndexers(indexers))
}

func (s informerAdapter) GetController() toolscache.Controller {
	return Controller(s.SharedIndexInformer.GetController()) //lint:ignore SA1019 client-go's interface has the method
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
		handler(DescribingReflector(r), err)
	})
}

func (s informerAdapter) SetWatchErrorHandlerWithContext(handler toolscache.WatchErrorHandlerWithContext) error {
	if handler == nil {
		return s.SharedIndexInformer.SetWatchErrorHandlerWithContext(nil)
	}
	return s.SharedIndexInformer.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		handler(ctx, DescribingReflector(r), err)
	})
}

// DescribingReflector returns a client-go Reflector, never run, with the
// name and type description of r, for client-go watch error handlers: what
// client-go's DefaultWatchErrorHandler and controller-runtime read.
func DescribingReflector(r *cache.Reflector) *toolscache.Reflector {
	var options toolscache.ReflectorOptions
	if r != nil {
		options.Name, options.TypeDescription = r.Name(), r.TypeDescription()
	}
	return toolscache.NewReflectorWithOptions(nil, nil, nil, options)
}

// Controller returns controller seen through client-go's interface; a nil
// controller yields nil.
func Controller(controller cache.Controller) toolscache.Controller {
	if controller == nil {
		return nil
	}
	return controllerAdapter{controller}
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
