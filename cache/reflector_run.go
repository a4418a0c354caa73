package cache

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/wait"
)

// A reflector's run: cycles of a list (streamed, or paginated) that replaces
// the store's contents followed by watches, until the context ends.

// Run calls [Reflector.RunWithContext] with a context that ends when stopCh
// closes.
func (r *Reflector) Run(stopCh <-chan struct{}) {
	r.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext keeps the store in step until ctx ends: it runs ListAndWatch
// at once and again after each return, waiting one backoff delay in between,
// in real time as client-go does (not on [ReflectorOptions.Clock]). Errors go
// to the watch error handler ([DefaultWatchErrorHandler] unless the
// reflector's owner set another). It blocks until ctx ends and the current
// cycle has stopped.
func (r *Reflector) RunWithContext(ctx context.Context) {
	logger := r.loggerFor(ctx)
	ctx = klog.NewContext(ctx, logger)
	logger.V(3).Info("Starting reflector", "reflector", r.name, "type", r.typeDescription, "resyncPeriod", r.resyncPeriod)
	for ctx.Err() == nil {
		if err := r.ListAndWatchWithContext(ctx); err != nil {
			r.watchErrorHandler(ctx, r, err)
		}
		if !r.backOff(ctx, false) {
			break
		}
	}
	logger.V(3).Info("Stopping reflector", "reflector", r.name, "type", r.typeDescription, "resyncPeriod", r.resyncPeriod)
}

// loggerFor returns the reflector's own logger if it has one, else ctx's.
func (r *Reflector) loggerFor(ctx context.Context) klog.Logger {
	if r.hasLogger {
		return r.logger
	}
	return klog.FromContext(ctx)
}

// ListAndWatch calls [Reflector.ListAndWatchWithContext] with a context that
// ends when stopCh closes.
func (r *Reflector) ListAndWatch(stopCh <-chan struct{}) error {
	return r.ListAndWatchWithContext(wait.ContextForChannel(stopCh))
}

// ListAndWatchWithContext runs one cycle: a streaming or paginated list that
// replaces the store's contents, then watches (reopened as long as they end
// normally) until a watch fails or ctx ends. It returns an error only when the
// list failed or a watch could not be started; a failed watch stream returns
// nil, and the caller is expected to wait and call it again, as Run does.
func (r *Reflector) ListAndWatchWithContext(ctx context.Context) error {
	logger := r.loggerFor(ctx)
	ctx = klog.NewContext(ctx, logger)
	if r.listerWatcher == nil {
		return fmt.Errorf("list and watch %s: reflector %s has no ListerWatcher", r.typeDescription, r.name)
	}
	if r.store == nil || isNilObject(r.store) {
		return fmt.Errorf("list and watch %s: reflector %s has no store", r.typeDescription, r.name)
	}
	logger.V(3).Info("Listing and watching", "reflector", r.name, "type", r.typeDescription)
	r.observer.cycleStarted(classifyError(r.cycleFailure).relistReason())
	r.cycleFailure = nil
	if resumed, err := r.resumeWatch(ctx); resumed {
		return err
	}

	var w watch.Interface
	if r.useWatchList.Load() {
		var err error
		w, err = r.watchList(ctx)
		switch {
		case ctx.Err() != nil:
			if w != nil {
				w.Stop()
			}
			return nil
		case err != nil:
			logger.V(4).Info("Streaming list failed, falling back to a paginated list; expected when the server does not support streaming lists",
				"reflector", r.name, "type", r.typeDescription, "err", err)
		}
	}
	if w == nil {
		if err := r.list(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	logger.V(2).Info("Caches populated", "reflector", r.name, "type", r.typeDescription)
	return r.watchWithResync(ctx, w)
}
