package cache

import (
	"context"
	"fmt"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// The reflector's streaming list: a watch that starts with the current
// objects as ADDED events, which fill a temporary store, ended by a bookmark
// annotated "k8s.io/initial-events-end"; the reflector's store is then
// replaced and the same watch goes on as a plain watch (reflector_watch.go).
// Its helpers, below the reflector, are in watch_list.go.

// watchList streams the initial list into a temporary store and, once the
// initial-events-end bookmark arrived, replaces the store's contents and
// returns the still open watch. It makes at most maxWatchListAttempts
// requests, retrying as the retry policy says ([failure.decide]). When the
// policy says to list instead, it returns the error, with a nil watch, for
// the caller to fall back to a paginated list. It returns nil, nil when ctx
// ends.
func (r *Reflector) watchList(ctx context.Context) (watch.Interface, error) {
	var transform TransformFunc
	if ts, ok := r.store.(TransformingStore); ok {
		transform = ts.Transformer()
	}
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			return nil, nil
		}
		resourceVersion := r.versions.forStreamingList()
		r.observer.listStarted(ListMethodStreaming)
		w, err := r.streamList(ctx, resourceVersion, transform)
		if err == nil {
			return w, nil
		}
		if ctx.Err() == nil {
			r.observer.listFailed(ListMethodStreaming, err)
			r.cycleFailure = err
		}
		f := failure{step: stepStreamingList, resourceVersion: resourceVersion, attempt: attempt}
		switch d := r.judge(ctx, f, err); d.action {
		case actionStop:
			return nil, nil
		case actionRewatch:
			// At once: the next request asks for the most recent state.
		case actionRewatchAfterBackoff:
			if !r.backOff(ctx, d.onClock) {
				return nil, nil
			}
		default:
			if d.backOffFirst && !r.backOff(ctx, d.onClock) {
				return nil, nil
			}
			return nil, fmt.Errorf("stream list of %s (attempt %d): %w", r.typeDescription, attempt, err)
		}
	}
}

// streamList makes one streaming-list request at resourceVersion. On success
// the store holds the streamed objects and the returned watch is open past
// the initial-events-end bookmark. On failure the watch is stopped and the
// error says why (see handleInitialEvents); errStopRequested when ctx ended.
func (r *Reflector) streamList(ctx context.Context, resourceVersion string, transform TransformFunc) (watch.Interface, error) {
	acc := newWatchListAccumulator(transform)
	start := r.now()
	w, err := r.startWatch(ctx, watchListOptions(resourceVersion, r.watchTimeoutSeconds()))
	if err != nil {
		if ctx.Err() != nil {
			return nil, errStopRequested
		}
		return nil, err
	}
	listRV, err := r.handleInitialEvents(ctx, start, w, acc)
	if err != nil {
		return nil, err
	}
	if resourceVersion != "" {
		// As for lists, a stream from "" is taken whatever its version.
		if err := checkResourceVersion(listRV, "the initial-events-end bookmark"); err != nil {
			w.Stop()
			return nil, err
		}
	}
	if acc.replaced > 0 {
		utilruntime.HandleErrorWithContext(ctx, nil, "Streaming list holds objects more than once; keeping the last copy of each",
			"reflector", r.name, "type", r.typeDescription, "duplicates", acc.replaced)
	}
	r.versions.setUnavailable(false)
	if err := r.store.Replace(acc.List(), listRV); err != nil {
		w.Stop()
		return nil, fmt.Errorf("unable to sync result: %w", err)
	}
	r.observer.listed(ListMethodStreaming, acc.Len(), listRV)
	r.backoff.inContact(r.clock.Now())
	r.setLastSyncResourceVersion(listRV)
	klog.FromContext(ctx).V(4).Info("Streamed list", "reflector", r.name, "type", r.typeDescription,
		"resourceVersion", listRV, "items", acc.Len())
	return w, nil
}

// handleInitialEvents applies the initial events of a streaming list, the
// watch w requested at start, to store until the initial-events-end bookmark,
// and returns that bookmark's resource version, the list's, leaving w open.
// Otherwise it stops w and returns why, as handleWatch does (a stream closed
// too soon, an ERROR event, ctx, a watch that outlived its timeout) and also
// when the stream closes later than that before the bookmark
// (errWatchListClosedEarly), when an event shows that the server is not
// streaming an initial list (errInitialEventsNotStreamed, see
// checkInitialEvent), or when no object arrived for the stall timeout
// ([ReflectorOptions.WatchListStallTimeout]; errWatchListStalled). Until
// the bookmark it logs a warning every awaitingEndBookmarkAfter on the
// reflector's clock, as client-go does, when nothing arrived for that long.
func (r *Reflector) handleInitialEvents(ctx context.Context, start instant, w watch.Interface, store ReflectorStore) (listRV string, _ error) {
	stopWatch := true
	defer func() {
		if stopWatch {
			w.Stop()
		}
	}()
	rd := r.newWatchReader(start, w, r.watchListStallTimeout, errWatchListStalled)
	rd.awaiting = newAwaitingEndBookmark(r.clock, start.onClock, r.name, r.typeDescription)
	defer rd.stop()
	applied := 0
	for {
		event, open, err := rd.next(ctx)
		if err != nil {
			return "", err
		}
		if !open {
			break
		}
		if event.Type == watch.Error {
			return "", watchErrorEventError(event.Object)
		}
		m, ok := r.acceptEvent(ctx, event)
		if !ok {
			continue
		}
		if err := checkInitialEvent(event.Type, m); err != nil {
			return "", err
		}
		if event.Type == watch.Bookmark && !isInitialEventsEndBookmark(m) {
			// Annotated, but not the end yet: nothing to apply.
			continue
		}
		rv := m.GetResourceVersion()
		if !r.applyEvent(ctx, store, event, rv) {
			continue
		}
		applied++
		switch event.Type {
		case watch.Added:
			// Only objects of the initial list are progress.
			rd.progressed()
			r.observer.initialEventReceived()
		case watch.Bookmark:
			stopWatch = false
			klog.FromContext(ctx).V(4).Info("Received the bookmark ending the initial events", "reflector", r.name, "type", r.typeDescription,
				"items", applied, "duration", r.clock.Since(start.onClock))
			return rv, nil
		}
		rd.awaiting.received()
	}
	if err := r.closedTooSoon(start, applied); err != nil {
		return "", err
	}
	return "", errWatchListClosedEarly
}
