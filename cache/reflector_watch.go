package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// The reflector's watches: the plain watch that follows a list, reopened as
// the retry policy says with the periodic resync alongside (handleWatch), and
// the reading of an open watch's events that it shares with the initial
// events of a streaming list (watchReader, acceptEvent, applyEvent; the
// streaming list is in reflector_watch_list.go).

const (
	// internalErrorRetryReset is the quiet period after which a new watch
	// internal error starts a fresh MaxInternalErrorRetryDuration window.
	internalErrorRetryReset = time.Minute
	// watchTimeoutGrace is how long a watch may stay open past the longest
	// timeout the reflector asks the server for before the reflector closes
	// it itself.
	watchTimeoutGrace = time.Minute
)

// watchOptions returns the options of a plain watch resuming at
// resourceVersion.
func watchOptions(resourceVersion string, timeoutSeconds int64) metav1.ListOptions {
	return metav1.ListOptions{
		ResourceVersion:     resourceVersion,
		AllowWatchBookmarks: true,
		TimeoutSeconds:      ptr.To(timeoutSeconds),
	}
}

// startWatch opens a watch, turning a nil watch without error, and a panic
// of the ListerWatcher, into an error.
func (r *Reflector) startWatch(ctx context.Context, options metav1.ListOptions) (w watch.Interface, err error) {
	defer func() {
		if p := recover(); p != nil {
			w, err = nil, fmt.Errorf("watch panicked: %v", p)
		}
	}()
	w, err = r.listerWatcher.WatchWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	if w == nil || isNilObject(w) {
		return nil, errors.New("watch returned neither a watch nor an error")
	}
	return w, nil
}

// watchWithResync runs watch with the periodic resync alongside.
func (r *Reflector) watchWithResync(ctx context.Context, w watch.Interface) error {
	resyncErrs := make(chan error, 1)
	resyncCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() { r.resyncLoop(resyncCtx, resyncErrs) }) // exits on resyncCtx.Done(); the deferred wg.Wait waits
	return r.watch(ctx, w, resyncErrs)
}

// resyncLoop calls the store's Resync every resync period (when ShouldResync
// agrees) until ctx ends or a Resync fails; the failure goes to errs.
func (r *Reflector) resyncLoop(ctx context.Context, errs chan<- error) {
	if r.resyncPeriod <= 0 {
		return
	}
	logger := klog.FromContext(ctx)
	for {
		if !sleepOn(ctx, r.clock, r.resyncPeriod) {
			return
		}
		if r.ShouldResync != nil && !r.ShouldResync() {
			continue
		}
		logger.V(4).Info("Forcing resync", "reflector", r.name, "type", r.typeDescription)
		if err := r.store.Resync(); err != nil {
			errs <- fmt.Errorf("resync: %w", err)
			return
		}
	}
}

// watch consumes w (or, when w is nil, a new watch from the last resource
// version), and keeps reopening watches as the retry policy says
// ([failure.decide]). It returns nil when a watch ended in a way that needs a
// relist, or ctx ended; it returns the error of a watch that could not be
// started. w is always stopped.
func (r *Reflector) watch(ctx context.Context, w watch.Interface, resyncErrs <-chan error) error {
	internalErrors := NewRetryWithDeadline(r.MaxInternalErrorRetryDuration, internalErrorRetryReset, apierrors.IsInternalError, r.clock)
	defer func() {
		if w != nil {
			w.Stop()
		}
	}()
	// shortWatches counts the watches in a row that closed normally less
	// than veryShortWatch after they were requested.
	shortWatches := 0
	for ctx.Err() == nil {
		// Measure from before the request: some proxies only send headers
		// with the first event.
		start := r.now()
		// A watch handed over by the streaming list is past its initial
		// events.
		versions := eventVersions{open: true}
		if w == nil {
			resourceVersion := r.LastSyncResourceVersion()
			versions = eventVersionsFrom(resourceVersion)
			var err error
			w, err = r.startWatch(ctx, watchOptions(resourceVersion, r.watchTimeoutSeconds()))
			if ctx.Err() == nil {
				r.observer.watchStarted(err)
				if err != nil {
					r.cycleFailure = err
				}
			}
			if err != nil {
				f := failure{step: stepWatchStart, resourceVersion: resourceVersion, resumed: r.resumingFrom(resourceVersion)}
				switch d := r.judge(ctx, f, err); d.action {
				case actionStop:
					return nil
				case actionRewatchAfterBackoff:
					if !r.backOff(ctx, d.onClock) {
						return nil
					}
					continue
				case actionRelistNow:
					return errResumedVersionGone
				default:
					return err
				}
			}
			if r.resume != nil && ctx.Err() == nil {
				r.deliverResumed(ctx)
			}
		}

		err := r.handleWatch(ctx, watchSession{start: start, w: w, versions: versions, resyncErrs: resyncErrs})
		w = nil // handleWatch stopped it
		r.reportWatchEnd(err)
		internalErrors.After(err)
		lasted := r.clock.Since(start.onClock)
		if lasted >= healthyContact {
			r.backoff.inContact(start.onClock)
		}
		if err == nil && lasted < veryShortWatch {
			shortWatches++
		} else {
			shortWatches = 0
		}
		rv := r.LastSyncResourceVersion()
		f := failure{step: stepWatchEnd, resourceVersion: rv, shortWatches: shortWatches, internalErrors: internalErrors, resumed: r.resumingFrom(rv)}
		switch d := r.judge(ctx, f, err); d.action {
		case actionRewatch:
		case actionRewatchAfterBackoff:
			if !r.backOff(ctx, d.onClock) {
				return nil
			}
		case actionRelistNow:
			return errResumedVersionGone
		default: // stop, or relist after the backoff delay of Run
			return nil
		}
	}
	return nil
}

// reportWatchEnd tells the observer how an open watch ended, with err: it was
// stopped by the reflector's context, or it restarts for a cause. A failure
// is kept as the one that ended the cycle, should a relist follow.
func (r *Reflector) reportWatchEnd(err error) {
	kind := classifyError(err)
	if kind == failureStopped {
		r.observer.watchStopped()
		return
	}
	r.observer.watchEnded(err, kind.watchRestartCause())
	if err != nil {
		r.cycleFailure = err
	}
}

// watchSession is one plain watch: w, requested at start, whose events go to
// the reflector's store, their resource versions recorded as versions says,
// until a failed resync arriving on resyncErrs (nil for none) ends it.
type watchSession struct {
	start      instant
	w          watch.Interface
	versions   eventVersions
	resyncErrs <-chan error
}

// handleWatch applies the events of s.w to the reflector's store, reports
// them to the observer and records their resource versions, until the stream
// closes (nil, or a [VeryShortWatchError], see closedTooSoon), an ERROR event
// arrives (the error it carries), ctx ends (errStopRequested), a resync fails
// (its error), the watch outlives the longest timeout the reflector asks for
// by watchTimeoutGrace (errWatchOutlivedTimeout), or, with a liveness
// timeout ([WatchLivenessOptions]), neither an event nor a bookmark arrived
// for that long (errWatchLivenessLost). s.w is stopped on return.
func (r *Reflector) handleWatch(ctx context.Context, s watchSession) error {
	defer s.w.Stop()
	rd := r.newWatchReader(s.start, s.w, r.livenessTimeout, errWatchLivenessLost)
	rd.failures = s.resyncErrs
	rd.checkpoints = r.snapshots.checkpointDue()
	rd.checkpoint = func(ctx context.Context) { r.snapshots.checkpoint(ctx, r.LastSyncResourceVersion()) }
	defer rd.stop()
	applied := 0
	for {
		event, open, err := rd.next(ctx)
		if err != nil {
			return err
		}
		if !open {
			break
		}
		// Anything the server sends, even an event dropped below, shows
		// that the connection is alive.
		rd.progressed()
		if event.Type == watch.Error {
			return watchErrorEventError(event.Object)
		}
		m, ok := r.acceptEvent(ctx, event)
		if !ok {
			continue
		}
		rv := m.GetResourceVersion()
		if !r.applyEvent(ctx, r.store, event, rv) {
			continue
		}
		applied++
		r.observer.watchEventReceived(event.Type)
		if s.versions.admits(event.Type) {
			r.recordWatchEventVersion(rv)
		}
	}
	if err := r.closedTooSoon(s.start, applied); err != nil {
		return err
	}
	klog.FromContext(ctx).V(4).Info("Watch closed", "reflector", r.name, "type", r.typeDescription, "items", applied)
	return nil
}

// watchReader waits for the next event of one open watch, or for whatever
// ends the watch first. A plain watch (handleWatch) and the initial events of
// a streaming list (handleInitialEvents) each read through one, in a loop of
// their own. Its timers run in real time: they are safety timers client-go
// does not have (see [ReflectorOptions.Clock]). It is used by one goroutine.
type watchReader struct {
	w watch.Interface
	// outlived ends a watch still open watchTimeoutGrace after the longest
	// timeout the reflector asks the server for: the server closes a watch
	// when its timeout passes, so one still open is hanging (a dead
	// connection, or a source that ignores timeouts) and would keep the
	// store stale forever.
	outlived clock.Timer
	// quiet, when not nil, ends the watch with quietErr unless progressed
	// is called within quietTimeout: the liveness timeout of a plain watch,
	// the stall timeout of a streaming list.
	quiet        clock.Timer
	quietTimeout time.Duration
	quietErr     error
	// failures carries a failure from alongside the watch (a failed
	// resync), which ends it; nil for none.
	failures <-chan error
	// awaiting warns while a streaming list awaits its initial-events-end
	// bookmark; nil for none.
	awaiting *awaitingEndBookmark
	// checkpoints receives when a snapshot is due (see
	// reflectorSnapshots); next then calls checkpoint, between two events.
	// Nil for none.
	checkpoints <-chan time.Time
	checkpoint  func(ctx context.Context)
}

// newWatchReader returns the reader of w, requested at start. A positive
// quietTimeout ends the watch with quietErr when it passes without progress
// (see watchReader.quiet).
func (r *Reflector) newWatchReader(start instant, w watch.Interface, quietTimeout time.Duration, quietErr error) watchReader {
	rd := watchReader{w: w, quietTimeout: quietTimeout, quietErr: quietErr}
	rd.outlived = r.realTime.NewTimer(r.maxWatchTimeout + watchTimeoutGrace - r.realTime.Since(start.real))
	if quietTimeout > 0 {
		rd.quiet = r.realTime.NewTimer(quietTimeout)
	}
	return rd
}

// next returns the next event of the watch, open false once its stream has
// closed; an ERROR event is returned like any other. It returns the error of
// what ended the watch first instead: errStopRequested when ctx ends, a
// failure from alongside it, quietErr, or errWatchOutlivedTimeout. While it
// waits, a streaming list's warnings are logged.
func (rd *watchReader) next(ctx context.Context) (event watch.Event, open bool, err error) {
	var quiet <-chan time.Time
	if rd.quiet != nil {
		quiet = rd.quiet.C()
	}
	for {
		select {
		case <-ctx.Done():
			return event, false, errStopRequested
		case err := <-rd.failures:
			return event, false, err
		case <-quiet:
			return event, false, rd.quietErr
		case <-rd.outlived.C():
			return event, false, errWatchOutlivedTimeout
		case <-rd.awaiting.tick():
			rd.awaiting.warnIfSilent(klog.FromContext(ctx))
		case <-rd.checkpoints:
			rd.checkpoint(ctx)
		case event, open = <-rd.w.ResultChan():
			return event, open, nil
		}
	}
}

// progressed restarts the quiet timeout.
func (rd *watchReader) progressed() {
	if rd.quiet != nil {
		rd.quiet.Reset(rd.quietTimeout)
	}
}

// stop stops the reader's timers and ticker. The watch is its owner's to
// stop.
func (rd *watchReader) stop() {
	rd.awaiting.stop()
	if rd.quiet != nil {
		rd.quiet.Stop()
	}
	rd.outlived.Stop()
}

// acceptEvent returns the metadata of the object of event, which is not an
// ERROR event, and true when the reflector accepts the object; otherwise it
// logs why not and returns false: the event is dropped.
func (r *Reflector) acceptEvent(ctx context.Context, event watch.Event) (metav1.Object, bool) {
	m, err := r.expected.check(event.Object, fromWatchEvent)
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Dropping watch event", "reflector", r.name, "type", r.typeDescription, "eventType", event.Type)
		return nil, false
	}
	return m, true
}

// applyEvent hands event, whose object was accepted with resource version
// rv, to store, and reports true; an event of an unknown type is logged and
// dropped, and reports false. A failure of the store is logged: the event is
// lost for the store, but its resource version still counts, since relisting
// would not bring it back either.
func (r *Reflector) applyEvent(ctx context.Context, store ReflectorStore, event watch.Event, rv string) bool {
	var err error
	switch event.Type {
	case watch.Added:
		err = store.Add(event.Object)
	case watch.Modified:
		err = store.Update(event.Object)
	case watch.Deleted:
		// The store gets the deleted object's last state, as sent.
		err = store.Delete(event.Object)
	case watch.Bookmark:
		if bs, ok := store.(ReflectorBookmarkStore); ok {
			err = bs.Bookmark(rv)
		}
	default:
		utilruntime.HandleErrorWithContext(ctx, nil, "Dropping watch event of unknown type", "reflector", r.name, "type", r.typeDescription, "eventType", event.Type)
		return false
	}
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Unable to apply watch event to the store", "reflector", r.name, "type", r.typeDescription, "eventType", event.Type)
	}
	return true
}

// closedTooSoon returns a [VeryShortWatchError] for a watch requested at
// start whose stream closed without an applied event less than
// veryShortWatch later, on the reflector's clock; otherwise nil.
func (r *Reflector) closedTooSoon(start instant, applied int) error {
	if applied == 0 && r.clock.Since(start.onClock) < veryShortWatch {
		return &VeryShortWatchError{Name: r.name}
	}
	return nil
}

// watchErrorEventError returns the error an ERROR watch event carries: the
// API status it holds, or an [apierrors.UnexpectedObjectError] for anything
// else. A nil object, which apierrors.FromObject would dereference, yields a
// plain error.
func watchErrorEventError(obj runtime.Object) error {
	if isNilObject(obj) {
		return fmt.Errorf("watch error event with a nil %T instead of a status", obj)
	}
	return apierrors.FromObject(obj)
}
