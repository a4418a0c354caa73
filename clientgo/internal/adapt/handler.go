// Package adapt shows informer-go's informers, stores and controllers
// through client-go's tools/cache interfaces. Package clientgo's As*
// functions and the drop-in package clientgo/cache both build on it; they
// differ only in which handlers get client-go's tombstones ([Tombstones]).
//
// Nothing here starts goroutines; every adapter forwards each call to the
// value it wraps and is safe for concurrent use as that value is.
package adapt

import (
	"errors"
	"reflect"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// Tombstones says which handlers registered through an adapter receive
// client-go's toolscache.DeletedFinalStateUnknown in place of informer-go's
// tombstone.
type Tombstones int

const (
	// ClientGoUnlessNative gives client-go's tombstone to every handler but
	// those whose type is declared in informer-go's cache package, which
	// are written against informer-go's tombstone. The clientgo package's
	// adapters use it.
	ClientGoUnlessNative Tombstones = iota
	// ClientGoAlways gives client-go's tombstone to every handler. The
	// drop-in package clientgo/cache uses it: there, every tombstone type a
	// program can name is client-go's.
	ClientGoAlways
)

// Handler returns the handler to register with an informer-go informer for
// h, given through client-go's interface: h itself when it gets informer-go's
// tombstones under policy, else h behind a wrapper that hands it client-go's
// tombstone instead. A nil h, or a nil pointer, yields nil, which informer-go's
// informers reject (AddEventHandler) or ignore (InformerOptions.Handler).
func Handler(h toolscache.ResourceEventHandler, policy Tombstones) cache.ResourceEventHandler {
	if h == nil || isNilPointer(h) {
		return nil
	}
	if policy == ClientGoUnlessNative && declaredInCache(h) {
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

// handlerOptions converts client-go's handler options.
func handlerOptions(o toolscache.HandlerOptions) cache.HandlerOptions {
	return cache.HandlerOptions{Logger: o.Logger, ResyncPeriod: o.ResyncPeriod}
}

// registration is a handler registration of informer-go seen through
// client-go's interface. ShutdownChan, which client-go's ShutDownEventHandler
// waits on, is the wrapped registration's.
type registration struct {
	cache.ResourceEventHandlerRegistration
}

var _ toolscache.ResourceEventHandlerRegistration = registration{}

// HasSyncedChecker returns the registration's [cache.DoneChecker].
func (r registration) HasSyncedChecker() toolscache.DoneChecker {
	return r.ResourceEventHandlerRegistration.HasSyncedChecker()
}

// closedChan is returned by ShutdownChan for a registration without one.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// ShutdownChan returns a channel closed once the handler will not be called
// again after its removal. Every registration of informer-go's informers has
// one; for any other it is closed at once.
func (r registration) ShutdownChan() <-chan struct{} {
	if s, ok := r.ResourceEventHandlerRegistration.(interface{ ShutdownChan() <-chan struct{} }); ok {
		return s.ShutdownChan()
	}
	return closedChan
}

// toRegistration wraps a registration, or returns nil with err.
func toRegistration(r cache.ResourceEventHandlerRegistration, err error) (toolscache.ResourceEventHandlerRegistration, error) {
	if err != nil {
		return nil, err
	}
	return registration{r}, nil
}

// errForeignRegistration is returned by RemoveEventHandler for a
// registration no adapter returned.
var errForeignRegistration = errors.New("the registration was not returned by an informer of this library")

// fromRegistration unwraps a registration an adapter returned.
func fromRegistration(r toolscache.ResourceEventHandlerRegistration) (cache.ResourceEventHandlerRegistration, error) {
	reg, ok := r.(registration)
	if !ok {
		return nil, errForeignRegistration
	}
	return reg.ResourceEventHandlerRegistration, nil
}

// isNilPointer reports whether v holds a nil pointer.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
