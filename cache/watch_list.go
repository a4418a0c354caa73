package cache

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// The helpers of the reflector's streaming list (reflector_watch_list.go),
// which know nothing of the reflector: the request's options, the check that
// the server streams an initial list, the warnings while its end bookmark is
// awaited, and the temporary store its objects fill.

// watchListOptions returns the options of a streaming list (a watch that
// starts with the current state as synthetic ADDED events, ended by a
// bookmark annotated with [metav1.InitialEventsAnnotationKey]) starting at
// resourceVersion, "" meaning the most recent state read from a quorum.
func watchListOptions(resourceVersion string, timeoutSeconds int64) metav1.ListOptions {
	return metav1.ListOptions{
		ResourceVersion:      resourceVersion,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		SendInitialEvents:    ptr.To(true),
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       ptr.To(timeoutSeconds),
	}
}

// isInitialEventsEndBookmark reports whether the bookmark metadata m marks the
// end of a streaming list's initial events.
func isInitialEventsEndBookmark(m metav1.Object) bool {
	return m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}

// hasInitialEventsAnnotation reports whether the bookmark metadata m carries
// [metav1.InitialEventsAnnotationKey], whatever its value.
func hasInitialEventsAnnotation(m metav1.Object) bool {
	_, ok := m.GetAnnotations()[metav1.InitialEventsAnnotationKey]
	return ok
}

// checkInitialEvent returns an error wrapping [errInitialEventsNotStreamed]
// when an event of type t, whose object has metadata m, shows that the server
// is not streaming the initial list the reflector asked for. A server that
// streams it sends the current objects as ADDED events and then the bookmark
// annotated with [metav1.InitialEventsAnnotationKey]; kube-apiserver sends no
// other bookmark before that one. A MODIFIED or DELETED event, or a bookmark
// that does not carry the annotation at all, before it comes from a server
// that ignored sendInitialEvents and is sending a plain watch, as aggregated
// API servers that forward a backend's watch do. A bookmark that carries the
// annotation with another value than "true" comes from a server that streams
// initial events and is not the end yet: it passes, as on client-go.
// (kube-apiservers before 1.32, where streaming lists were alpha, sent that
// bookmark from a timer and could deliver a change first; for them the
// paginated list this leads to merely costs more.)
func checkInitialEvent(t watch.EventType, m metav1.Object) error {
	switch {
	case t == watch.Modified || t == watch.Deleted:
		return fmt.Errorf("%w: %s event before the initial-events-end bookmark", errInitialEventsNotStreamed, t)
	case t == watch.Bookmark && !hasInitialEventsAnnotation(m):
		return fmt.Errorf("%w: bookmark without the %s annotation before the initial-events-end bookmark",
			errInitialEventsNotStreamed, metav1.InitialEventsAnnotationKey)
	}
	return nil
}

// awaitingEndBookmarkAfter is how long a streaming list may receive no object
// before the reflector warns that it is still awaiting the initial-events-end
// bookmark, and before an informer's phase is reported as
// SyncPhaseWaitingForEndBookmark.
const awaitingEndBookmarkAfter = 10 * time.Second

// awaitingEndBookmark logs a warning, as client-go does, at each tick of a
// streaming list's awaitingEndBookmarkAfter ticker that finds no event
// applied since the previous tick (or since the request, at the first)
// before its initial-events-end bookmark. It ticks on the reflector's clock,
// as client-go's warning does, when that clock has tickers; otherwise it is
// nil. A nil *awaitingEndBookmark does nothing. It is used by one goroutine.
type awaitingEndBookmark struct {
	clock           clock.PassiveClock
	ticker          clock.Ticker
	reflector, kind string
	start           time.Time // when the streaming list was requested
	// events counts the applied events; atTick is its value at the
	// previous tick.
	events, atTick int
}

// newAwaitingEndBookmark starts the warnings of a streaming list of the given
// reflector and type, requested at start on clk, the reflector's clock; nil
// if clk has no tickers.
func newAwaitingEndBookmark(clk clock.Clock, start time.Time, reflector, kind string) *awaitingEndBookmark {
	c, ok := clk.(clock.WithTicker)
	if !ok {
		return nil
	}
	return &awaitingEndBookmark{
		clock: c, ticker: c.NewTicker(awaitingEndBookmarkAfter),
		reflector: reflector, kind: kind, start: start,
	}
}

// tick returns the channel of the ticks; nil, which never delivers, for a
// nil a.
func (a *awaitingEndBookmark) tick() <-chan time.Time {
	if a == nil {
		return nil
	}
	return a.ticker.C()
}

// received records that an event was applied.
func (a *awaitingEndBookmark) received() {
	if a != nil {
		a.events++
	}
}

// warnIfSilent logs the warning, at a tick, if no event was applied since
// the previous one.
func (a *awaitingEndBookmark) warnIfSilent(logger klog.Logger) {
	switch {
	case a.events == 0:
		logger.Info("Warning: streaming list has received no event yet; still awaiting the initial-events-end bookmark",
			"reflector", a.reflector, "type", a.kind, "waited", a.clock.Since(a.start))
	case a.events == a.atTick:
		logger.Info("Warning: streaming list has received no event for a while; still awaiting the initial-events-end bookmark",
			"reflector", a.reflector, "type", a.kind, "silentForAtLeast", awaitingEndBookmarkAfter, "events", a.events)
	}
	a.atTick = a.events
}

// stop stops the ticker.
func (a *awaitingEndBookmark) stop() {
	if a != nil {
		a.ticker.Stop()
	}
}

// watchListAccumulator collects the initial events of a streaming list before
// they are handed to the reflector's store in one Replace. It keeps objects in
// arrival order, keyed by [DeletionHandlingMetaNamespaceKeyFunc] applied to
// the objects as received, and applies the destination store's transform on
// Add and Update so that the list carries transformed objects, as client-go's
// temporary store does. It is used by one goroutine only.
type watchListAccumulator struct {
	transform TransformFunc // may be nil
	index     map[string]int
	objects   []any // nil entries are deleted objects
	live      int   // number of non-nil entries in objects
	// replaced counts the objects added in place of an earlier one of the
	// same key.
	replaced int
}

func newWatchListAccumulator(transform TransformFunc) *watchListAccumulator {
	return &watchListAccumulator{transform: transform, index: map[string]int{}}
}

// Add records obj, replacing an earlier object of the same key in place. The
// key is computed before the transform, as a store with a transformer does.
func (a *watchListAccumulator) Add(obj any) error {
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	if a.transform != nil {
		transformed, err := a.transform(obj)
		if err != nil {
			return err
		}
		obj = transformed
	}
	if i, ok := a.index[key]; ok && a.objects[i] != nil {
		a.objects[i] = obj
		a.replaced++
		return nil
	}
	a.index[key] = len(a.objects)
	a.objects = append(a.objects, obj)
	a.live++
	return nil
}

// Update is Add.
func (a *watchListAccumulator) Update(obj any) error {
	return a.Add(obj)
}

// Delete forgets the object with obj's key.
func (a *watchListAccumulator) Delete(obj any) error {
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return KeyError{Obj: obj, Err: err}
	}
	if i, ok := a.index[key]; ok {
		delete(a.index, key)
		a.objects[i] = nil
		a.live--
	}
	return nil
}

// Replace is never called on an accumulator; it exists to satisfy
// [ReflectorStore].
func (a *watchListAccumulator) Replace(list []any, _ string) error {
	clear(a.index)
	a.objects, a.live = a.objects[:0], 0
	for _, obj := range list {
		if err := a.Add(obj); err != nil {
			return err
		}
	}
	return nil
}

// Resync does nothing.
func (a *watchListAccumulator) Resync() error { return nil }

// List returns the collected objects in arrival order. The slice is new; the
// objects are shared.
func (a *watchListAccumulator) List() []any {
	out := make([]any, 0, a.live)
	for _, obj := range a.objects {
		if obj != nil {
			out = append(out, obj)
		}
	}
	return out
}

// Len returns the number of collected objects.
func (a *watchListAccumulator) Len() int { return a.live }
