package cache

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// ScopedHandlerRegistration is the registration of a handler added with
// [AddEventHandlerWithContext]. It is not part of client-go's API. It is also
// a handle for [SharedInformer.RemoveEventHandler] and
// [ShutDownEventHandler]; its methods are safe for concurrent use.
type ScopedHandlerRegistration interface {
	ResourceEventHandlerRegistration

	// Done returns a channel that is closed once the handler was removed
	// (its context ended, RemoveEventHandler was called, or the informer
	// stopped) and will not be called again: its last call, if any, has
	// returned. Waiting on it from inside the handler never ends; cancel
	// the context and return instead.
	Done() <-chan struct{}
}

var _ ScopedHandlerRegistration = (*processorListener)(nil)

// AddEventHandlerWithContext adds handler to informer, with options, for as
// long as ctx lasts: once ctx ends the handler is removed, as by
// [SharedInformer.RemoveEventHandler], and the registration's Done channel
// closes after the handler's last call has returned. It is not part of
// client-go's API; client-go's registrations last until they are removed.
//
// Nothing waits for the handler when ctx ends, so the context may be
// cancelled from inside the handler; the removal then takes effect when the
// call returns: no later notification reaches the handler, and Done closes.
// When ctx ends on another goroutine, at most the notification being
// delivered at that moment may still reach the handler.
// A registration removed otherwise (RemoveEventHandler, or the informer
// stopping) lets go of ctx at once: ctx may outlive many registrations.
// Without options.Logger, the handler logs through ctx's logger.
//
// It returns an error, and adds nothing, when ctx has already ended, when ctx
// or informer is nil, when AddEventHandlerWithOptions fails, and for an
// informer that is not of this package (or a wrapper of one that hands out
// its registrations).
func AddEventHandlerWithContext(ctx context.Context, informer SharedInformer, handler ResourceEventHandler, options HandlerOptions) (ScopedHandlerRegistration, error) {
	switch {
	case ctx == nil:
		return nil, errors.New("add event handler with context: nil context")
	case informer == nil:
		return nil, errors.New("add event handler with context: nil informer")
	}
	if err := checkHandler(handler); err != nil {
		return nil, fmt.Errorf("add event handler with context: %w", err)
	}
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("add event handler with context: the context has ended: %w", err)
	}
	if options.Logger == nil {
		logger := klog.FromContext(ctx)
		options.Logger = &logger
	}
	scoped := &scopedHandler{handler: handler, ctx: ctx, done: ctx.Done(), informer: informer}
	reg, err := informer.AddEventHandlerWithOptions(scoped, options)
	if err != nil {
		return nil, err
	}
	l, ok := reg.(*processorListener)
	if !ok {
		err := fmt.Errorf("add event handler with context: %T does not hand out this package's registrations", informer)
		if rmErr := informer.RemoveEventHandler(reg); rmErr != nil {
			err = errors.Join(err, rmErr)
		}
		return nil, err
	}
	scoped.listener.Store(l)
	stop := context.AfterFunc(ctx, scoped.remove) // runs once ctx ends, in a goroutine of its own
	l.setOnStop(func() { stop() })
	return l, nil
}

// scopedHandler is the handler of a registration made by
// AddEventHandlerWithContext: it calls handler until ctx ends. It checks ctx
// before and after every call, on the listener's goroutine, and removes the
// registration itself when it finds ctx ended, so that a handler that
// cancels ctx is not called again, whether or not the removal that
// context.AfterFunc starts on another goroutine has run.
type scopedHandler struct {
	handler  ResourceEventHandler
	ctx      context.Context
	done     <-chan struct{}
	informer SharedInformer
	// listener is the registration, set once AddEventHandlerWithOptions
	// returned it; until then an ended ctx only skips calls.
	listener atomic.Pointer[processorListener]
}

func (h *scopedHandler) OnAdd(obj any, isInInitialList bool) {
	if h.ended() {
		return
	}
	h.handler.OnAdd(obj, isInInitialList)
	h.ended()
}

func (h *scopedHandler) OnUpdate(oldObj, newObj any) {
	if h.ended() {
		return
	}
	h.handler.OnUpdate(oldObj, newObj)
	h.ended()
}

func (h *scopedHandler) OnDelete(obj any) {
	if h.ended() {
		return
	}
	h.handler.OnDelete(obj)
	h.ended()
}

// name names the registration after the handler it wraps.
func (h *scopedHandler) name() string { return handlerName(h.handler) }

// ended reports whether ctx has ended, and then removes the registration.
func (h *scopedHandler) ended() bool {
	select {
	case <-h.done:
		h.remove()
		return true
	default:
		return false
	}
}

// remove removes the registration from the informer, if it is known yet;
// removing it again does nothing.
func (h *scopedHandler) remove() {
	l := h.listener.Load()
	if l == nil || l.isStopped() {
		return
	}
	if err := h.informer.RemoveEventHandler(l); err != nil {
		utilruntime.HandleErrorWithContext(h.ctx, err, "Failed to remove an event handler whose context ended")
	}
}
