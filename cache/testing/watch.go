package framework

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// watch serves a WATCH of namespace ("" for all) with opts.
//
// Semantics, as the apiserver's watch cache with watch-list enabled:
//   - a watch from "" or "0" without sendInitialEvents and
//     resourceVersionMatch is defaulted to sendInitialEvents=true with
//     resourceVersionMatch=NotOlderThan (unless IgnoreSendInitialEvents);
//   - sendInitialEvents=true: ADDED for every selected object of a state
//     (from "": the current one; from "0" or N: the watch cache's, see
//     Options.WatchCacheLag, after waiting for a future N), then, if
//     bookmarks are allowed, a BOOKMARK annotated k8s.io/initial-events-end
//     at that state's resourceVersion, then the changes after that state
//     and live events;
//   - sendInitialEvents=false from "": live events only; from "0": the
//     changes after the watch cache's state, then live events;
//   - legacy "" or "0" (IgnoreSendInitialEvents): as sendInitialEvents=true
//     without the bookmark;
//   - from N: every change after N in order, then live events; if N is
//     compacted the stream opens and delivers one ERROR event with a 410
//     Expired status, then closes.
func (s *Server[T]) watch(ctx context.Context, namespace string, opts metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errClosed()
	}
	s.recordLocked(VerbWatch, namespace, opts)
	if err := s.faults.watches.take(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	streamErr := s.faults.watchStreams.take()
	ignoreInitial := s.ignoreInitial
	s.mu.Unlock()

	received := opts // as the client sent them, for WatchStream.Options
	if ignoreInitial {
		opts.SendInitialEvents = nil
		opts.ResourceVersionMatch = ""
	}
	internal := internalOptions(opts)
	internal.Watch = true
	if !ignoreInitial {
		internalversion.SetListOptionsDefaults(&internal, true)
	}
	if errs := validation.ValidateListOptions(&internal, true); len(errs) > 0 {
		return nil, newInvalidOptions(errs)
	}
	if opts.Continue != "" {
		return nil, apierrors.NewBadRequest("continue is not supported for watch")
	}
	f, err := s.newFilter(namespace, opts)
	if err != nil {
		return nil, err
	}
	rv, err := parseRV(opts.ResourceVersion)
	if err != nil {
		return nil, newInvalidResourceVersion(s.cfg.resource, opts.ResourceVersion, err)
	}
	sendInitial := internal.SendInitialEvents

	if streamErr != nil {
		return s.openErrorStream(ctx, namespace, received, f, streamErr)
	}
	if sendInitial != nil && *sendInitial && rv > 0 {
		if err := s.waitForResourceVersion(ctx, rv); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return s.openErrorStream(ctx, namespace, received, f, err)
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed()
	}
	w := s.newStreamLocked(namespace, received, f)
	switch {
	case sendInitial != nil && *sendInitial:
		s.startFromStateLocked(w, opts.ResourceVersion, rv, true, w.bookmarks)
	case rv == 0 && sendInitial != nil:
		s.startFromStateLocked(w, opts.ResourceVersion, 0, false, false)
	case rv == 0:
		s.startFromStateLocked(w, opts.ResourceVersion, 0, true, false)
	default:
		if !s.replayLocked(w, rv) {
			w.initial = []delivery{errorDelivery(apierrors.NewResourceExpired(
				fmt.Sprintf("too old resource version: %d (%d)", rv, s.hist.compacted)))}
			w.finishAfterInitial = true
		}
	}
	s.startStreamLocked(ctx, w)
	return w, nil
}

// startFromStateLocked starts w at the state a watch from resourceVersion
// requested (parsed: rv) reads: the newest one for "", else the watch
// cache's state not older than rv ([Server.cachedStateLocked]). With
// initialEvents, w first sends ADDED for the selected objects of that state
// and, with endBookmark, the initial-events-end bookmark at its
// resourceVersion; then the changes after it, then live events.
func (s *Server[T]) startFromStateLocked(w *WatchStream, requested string, rv uint64, initialEvents, endBookmark bool) {
	stateRV, state := s.rv, s.items
	if requested != "" {
		stateRV, state = s.cachedStateLocked(rv)
	}
	if initialEvents {
		w.initial = s.initialEventsLocked(state, w.filter)
		if endBookmark {
			w.initial = append(w.initial, delivery{typ: watch.Bookmark, obj: s.bookmarkObject(stateRV, true)})
		}
	}
	s.replayLocked(w, stateRV)
}

// replayLocked queues on w the changes after rv that its filter passes and
// starts its live events after them. It returns false, queuing nothing, if
// some of those changes were compacted away.
func (s *Server[T]) replayLocked(w *WatchStream, rv uint64) bool {
	changes, ok := s.hist.since(rv)
	if !ok {
		return false
	}
	for _, c := range changes {
		if d, ok := convertChange(c, w.filter); ok {
			w.initial = append(w.initial, d)
		}
	}
	w.startRV = max(rv, s.rv)
	return true
}

// openErrorStream opens a stream that delivers one ERROR event with err's
// status and closes, as the apiserver reports errors found after a watch
// request was accepted.
func (s *Server[T]) openErrorStream(ctx context.Context, namespace string, opts metav1.ListOptions, f filter, err error) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed()
	}
	w := s.newStreamLocked(namespace, opts, f)
	w.initial = []delivery{errorDelivery(err)}
	w.finishAfterInitial = true
	s.startStreamLocked(ctx, w)
	return w, nil
}

// errorDelivery turns err into an ERROR event carrying its status; an error
// without one becomes a 500 Internal Error.
func errorDelivery(err error) delivery {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		status = apierrors.NewInternalError(err)
	}
	st := status.Status()
	return delivery{typ: watch.Error, obj: &st}
}

func (s *Server[T]) newStreamLocked(namespace string, opts metav1.ListOptions, f filter) *WatchStream {
	s.nextStreamID++
	var timeout time.Duration
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds > 0 {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	return &WatchStream{
		id:               s.nextStreamID,
		namespace:        namespace,
		options:          *opts.DeepCopy(),
		filter:           f,
		bookmarks:        opts.AllowWatchBookmarks,
		bookmarkInterval: s.cfg.bookmarkEvery,
		bufferSize:       s.cfg.bufferSize,
		timeout:          timeout,
		clock:            s.cfg.clock,
		logger:           s.cfg.logger,
		onBookmark:       s.sendBookmark,
		onExit:           s.removeStream,
		result:           make(chan watch.Event),
		wake:             make(chan struct{}, 1),
		stopCh:           make(chan struct{}),
		done:             make(chan struct{}),
	}
}

// startStreamLocked registers w and starts its goroutine, which exits when
// the stream ends; Close waits for it through s.wg.
func (s *Server[T]) startStreamLocked(ctx context.Context, w *WatchStream) {
	s.streams[w.id] = w
	s.signalStreamsLocked()
	s.cfg.logger.V(4).Info("Watch opened", "watch", w.id, "namespace", w.namespace,
		"resourceVersion", w.options.ResourceVersion, "initialEvents", len(w.initial))
	s.wg.Go(func() { w.run(ctx) })
}

// removeStream unregisters w once its goroutine is exiting.
func (s *Server[T]) removeStream(w *WatchStream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.streams, w.id)
	s.signalStreamsLocked()
	s.cfg.logger.V(4).Info("Watch closed", "watch", w.id)
}

func (s *Server[T]) signalStreamsLocked() {
	close(s.streamsChanged)
	s.streamsChanged = make(chan struct{})
}

// streamsLocked returns the open streams in the order they were opened.
func (s *Server[T]) streamsLocked() []*WatchStream {
	streams := make([]*WatchStream, 0, len(s.streams))
	for _, w := range s.streams {
		streams = append(streams, w)
	}
	sort.Slice(streams, func(i, j int) bool { return streams[i].id < streams[j].id })
	return streams
}

// dispatchLocked offers c to every open stream, closing those that cannot
// keep up.
func (s *Server[T]) dispatchLocked(c change) {
	if s.faults.dropEvents > 0 {
		s.faults.dropEvents--
		s.cfg.logger.V(5).Info("Dropping event for all watches", "resourceVersion", c.rv)
		return
	}
	for _, w := range s.streams {
		if !w.offer(c) {
			s.cfg.logger.V(1).Info("Closing watch that cannot keep up", "watch", w.id, "bufferSize", w.bufferSize)
			w.terminate()
		}
	}
}

// sendBookmark queues a periodic bookmark at the current resourceVersion on
// w. Holding s.mu orders it after every change already offered.
func (s *Server[T]) sendBookmark(w *WatchStream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.offerBookmark(s.bookmarkObject(s.rv, false), s.rv)
}

// initialEventsLocked returns ADDED events for the objects of state that f
// selects, in key order.
func (s *Server[T]) initialEventsLocked(state map[string]*stored, f filter) []delivery {
	selected := make([]*stored, 0, len(state))
	for _, st := range state {
		if f.matches(st) {
			selected = append(selected, st)
		}
	}
	sort.Slice(selected, func(i, j int) bool { return selected[i].key < selected[j].key })
	events := make([]delivery, len(selected))
	for i, st := range selected {
		events[i] = delivery{typ: watch.Added, obj: st.obj}
	}
	return events
}

// bookmarkObject returns an empty object of the server's type carrying only
// its kind and resourceVersion rv, and the initial-events-end annotation if
// initialEventsEnd.
func (s *Server[T]) bookmarkObject(rv uint64, initialEventsEnd bool) runtime.Object {
	obj := s.cfg.newEmptyObject()
	if gvk := s.gvkLocked(); !gvk.Empty() {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	if accessor, err := meta.Accessor(obj); err == nil {
		accessor.SetResourceVersion(formatRV(rv))
		if initialEventsEnd {
			accessor.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
		}
	}
	return obj
}

// gvkLocked returns the configured or inferred kind of the objects.
func (s *Server[T]) gvkLocked() schema.GroupVersionKind {
	if !s.cfg.gvk.Empty() {
		return s.cfg.gvk
	}
	return s.inferredGVK
}

// waitForResourceVersion blocks until the server reaches rv, failing with
// "Too large resource version" after the configured timeout or with ctx's
// error.
func (s *Server[T]) waitForResourceVersion(ctx context.Context, rv uint64) error {
	timer := s.cfg.clock.NewTimer(s.cfg.rvTimeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		cur, changed, closed := s.rv, s.rvChanged, s.closed
		s.mu.Unlock()
		switch {
		case closed:
			return errClosed()
		case cur >= rv:
			return nil
		}
		select {
		case <-changed:
		case <-timer.C():
			return NewTooLargeResourceVersionError(rv, cur)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// parseRV parses a resourceVersion; "" is 0.
func parseRV(rv string) (uint64, error) {
	if rv == "" {
		return 0, nil
	}
	return strconv.ParseUint(rv, 10, 64)
}

// internalOptions carries the fields of opts that the apiserver's option
// defaulting and validation read.
func internalOptions(opts metav1.ListOptions) internalversion.ListOptions {
	return internalversion.ListOptions{
		Watch:                opts.Watch,
		AllowWatchBookmarks:  opts.AllowWatchBookmarks,
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: opts.ResourceVersionMatch,
		TimeoutSeconds:       opts.TimeoutSeconds,
		Limit:                opts.Limit,
		Continue:             opts.Continue,
		SendInitialEvents:    opts.SendInitialEvents,
	}
}
