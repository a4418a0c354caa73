package clientgo

import (
	"errors"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// toHandler returns the handler to register with this library's informer for
// a handler given through client-go's interface. A handler whose type is
// declared in this library's cache package (ResourceEventHandlerFuncs,
// FilteringResourceEventHandler and the other adapters) is registered as it
// is and receives this library's tombstones; any other handler, such as
// client-go's adapters, controller-runtime's or a type of the program, is
// wrapped so that it receives client-go's toolscache.DeletedFinalStateUnknown
// instead. A nil handler stays nil, for the informer to reject.
func toHandler(h toolscache.ResourceEventHandler) cache.ResourceEventHandler {
	if h == nil || declaredInCache(h) {
		return h
	}
	return clientGoHandler{h}
}

// clientGoHandler delivers to a handler written against client-go: deletions
// noticed only by a relist arrive as client-go's tombstone.
type clientGoHandler struct {
	handler toolscache.ResourceEventHandler
}

func (h clientGoHandler) OnAdd(obj any, isInInitialList bool) { h.handler.OnAdd(obj, isInInitialList) }

func (h clientGoHandler) OnUpdate(oldObj, newObj any) { h.handler.OnUpdate(oldObj, newObj) }

func (h clientGoHandler) OnDelete(obj any) { h.handler.OnDelete(toClientGoTombstone(obj)) }

// toHandlerOptions converts client-go's handler options.
func toHandlerOptions(o toolscache.HandlerOptions) cache.HandlerOptions {
	return cache.HandlerOptions{Logger: o.Logger, ResyncPeriod: o.ResyncPeriod}
}

// registration is a handler registration of this library seen through
// client-go's interface.
type registration struct {
	cache.ResourceEventHandlerRegistration
}

var _ toolscache.ResourceEventHandlerRegistration = registration{}

// HasSyncedChecker returns the registration's [cache.DoneChecker].
func (r registration) HasSyncedChecker() toolscache.DoneChecker {
	return r.ResourceEventHandlerRegistration.HasSyncedChecker()
}

// toRegistration wraps a registration, or returns nil with err.
func toRegistration(r cache.ResourceEventHandlerRegistration, err error) (toolscache.ResourceEventHandlerRegistration, error) {
	if err != nil {
		return nil, err
	}
	return registration{r}, nil
}

// errForeignRegistration is returned by RemoveEventHandler for a
// registration no adapter of this package returned.
var errForeignRegistration = errors.New("the registration was not returned by an informer of this library")

// fromRegistration unwraps a registration an adapter returned.
func fromRegistration(r toolscache.ResourceEventHandlerRegistration) (cache.ResourceEventHandlerRegistration, error) {
	reg, ok := r.(registration)
	if !ok {
		return nil, errForeignRegistration
	}
	return reg.ResourceEventHandlerRegistration, nil
}
