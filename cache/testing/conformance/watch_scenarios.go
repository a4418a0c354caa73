package conformance

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func watchScenarios() []Scenario {
	return []Scenario{
		{Name: "watch/from-resource-version", Run: watchFromResourceVersion},
		{Name: "watch/from-list", Run: watchFromList},
		{Name: "watch/initial-state", Run: watchInitialState},
		{Name: "watch/initial-events-end-bookmark", Run: watchInitialEventsEndBookmark},
		{Name: "watch/initial-events-without-bookmarks", Run: watchInitialEventsWithoutBookmarks},
		{Name: "watch/initial-events-not-older-than", Run: watchInitialEventsNotOlderThan},
		{Name: "watch/selector-transitions", Run: watchSelectorTransitions},
		{Name: "watch/field-selector", Run: watchFieldSelector},
		{Name: "watch/timeout", Run: watchTimeout},
		{Name: "watch/invalid-options", Run: watchInvalidOptions},
		{Name: "watch/too-large-resource-version", Run: watchTooLargeResourceVersion},
	}
}

// watchFromResourceVersion: a watch from N delivers every change after N,
// in order, each with the resourceVersion of its write; a deletion carries
// the last state with a new resourceVersion.
func watchFromResourceVersion(t *testing.T, target Target) {
	r := record(t, target)
	a := r.create("a", nil)
	r.create("b", map[string]string{"l": "1"})
	r.update("a", map[string]string{"l": "2"}, nil)
	s := r.watch(metav1.ListOptions{ResourceVersion: a.RV}, r.after(a.RV))
	r.remove("b")
	s.converge()
	s.check()
}

// watchFromList: a watch from the resourceVersion of a list (most recent)
// delivers exactly the later writes.
func watchFromList(t *testing.T, target Target) {
	r := record(t, target)
	r.create("a", nil)
	listed := r.mark()
	l := list(t, target, metav1.ListOptions{})
	r.checkList("list", l, all, listed, listed)
	s := r.watch(metav1.ListOptions{ResourceVersion: l.RV, AllowWatchBookmarks: true}, listed)
	r.create("b", nil)
	r.update("a", map[string]string{"l": "1"}, nil)
	s.converge()
	s.check()
}

// watchInitialState: a watch from "" (most recent) or "0" (any) first
// delivers a state as ADDED events (in any order) — from "", one that shows
// every write made before the watch; from "0", any — then the later writes.
func watchInitialState(t *testing.T, target Target) {
	r := record(t, target)
	r.create("a", nil)
	r.create("b", nil)
	for _, tc := range []struct {
		rv   string
		from int
	}{{"", r.mark()}, {"0", 0}} {
		s := r.watch(metav1.ListOptions{ResourceVersion: tc.rv}, tc.from)
		s.converge()
		r.create("sentinel"+tc.rv, nil)
		s.converge()
		s.check()
		s.stop()
	}
}

// watchInitialEventsEndBookmark: a streaming list (sendInitialEvents) from
// "" sends the current state as ADDED events, then a BOOKMARK annotated
// k8s.io/initial-events-end at that state's resourceVersion, then live
// events.
func watchInitialEventsEndBookmark(t *testing.T, target Target) {
	watchInitialEvents(t, target, true)
}

// watchInitialEventsWithoutBookmarks: without allowWatchBookmarks a
// streaming list sends no bookmark at all.
func watchInitialEventsWithoutBookmarks(t *testing.T, target Target) {
	watchInitialEvents(t, target, false)
}

// watchInitialEvents opens a streaming list from "" after two writes and
// writes a sentinel once it delivered them (and, with bookmarks, the
// initial-events-end bookmark): the sentinel is a live event.
func watchInitialEvents(t *testing.T, target Target, bookmarks bool) {
	r := record(t, target)
	r.create("a", nil)
	r.create("b", nil)
	s, err := r.openStream(metav1.ListOptions{
		SendInitialEvents:    ptr(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  bookmarks,
	}, r.mark())
	skipIfWatchListUnsupported(t, err)
	if err != nil {
		t.Fatalf("streaming list: %v", err)
	}
	s.converge()
	r.create("sentinel", nil)
	s.converge()
	s.check()
}

// watchInitialEventsNotOlderThan: a streaming list not older than N sends
// a state that shows every write up to N and perhaps later ones (a watch
// cache that has not caught up serves an older state than the newest),
// then the initial-events-end bookmark at that state's resourceVersion,
// then the writes after that state.
func watchInitialEventsNotOlderThan(t *testing.T, target Target) {
	r := record(t, target)
	a := r.create("a", nil)
	r.create("b", nil)
	r.update("a", map[string]string{"l": "1"}, nil)
	s, err := r.openStream(metav1.ListOptions{
		ResourceVersion:      a.RV,
		SendInitialEvents:    ptr(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	}, r.after(a.RV))
	skipIfWatchListUnsupported(t, err)
	if err != nil {
		t.Fatalf("streaming list: %v", err)
	}
	s.converge()
	r.update("b", map[string]string{"l": "1"}, nil)
	s.converge()
	s.check()
}

// watchSelectorTransitions: with a label selector, an object entering the
// selection is ADDED, one leaving it is DELETED (with its previous state and
// the update's resourceVersion), one staying is MODIFIED; non-matching
// objects are not seen.
func watchSelectorTransitions(t *testing.T, target Target) {
	r := record(t, target)
	start := r.create("a", map[string]string{"l": "x"})
	s := r.watch(metav1.ListOptions{ResourceVersion: start.RV, LabelSelector: "l=x"}, r.after(start.RV))
	r.update("a", map[string]string{"l": "y"}, nil)
	r.create("other", map[string]string{"l": "y"})
	r.update("a", map[string]string{"l": "x"}, nil)
	r.update("a", map[string]string{"l": "x"}, map[string]string{"k": "v"})
	r.create("sentinel", map[string]string{"l": "x"})
	s.converge()
	s.check()
}

// watchFieldSelector: a watch selecting metadata.name sees only that
// object.
func watchFieldSelector(t *testing.T, target Target) {
	r := record(t, target)
	start := r.create("a", nil)
	s := r.watch(metav1.ListOptions{ResourceVersion: start.RV, FieldSelector: "metadata.name=sentinel"}, r.after(start.RV))
	r.create("b", nil)
	r.update("a", map[string]string{"l": "1"}, nil)
	r.create("sentinel", nil)
	s.converge()
	s.check()
}

// watchTimeout: a watch with timeoutSeconds ends by itself, without an
// error.
func watchTimeout(t *testing.T, target Target) {
	start := record(t, target).create("a", nil)
	w := openWatch(t, target, metav1.ListOptions{ResourceVersion: start.RV, TimeoutSeconds: ptr[int64](1)})
	expectClosed(t, w)
}

// watchInvalidOptions: option combinations the apiserver rejects on watch.
func watchInvalidOptions(t *testing.T, target Target) {
	start := record(t, target).create("a", nil)
	for _, tc := range []struct {
		name string
		opts metav1.ListOptions
		is   func(error) bool
	}{
		{"resourceVersionMatch without sendInitialEvents", metav1.ListOptions{ResourceVersion: start.RV, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, apierrors.IsInvalid},
		{"sendInitialEvents with Exact", metav1.ListOptions{ResourceVersion: start.RV, SendInitialEvents: ptr(true), ResourceVersionMatch: metav1.ResourceVersionMatchExact}, apierrors.IsInvalid},
		{"malformed label selector", metav1.ListOptions{ResourceVersion: start.RV, LabelSelector: "app in (x"}, apierrors.IsBadRequest},
		{"unsupported field label", metav1.ListOptions{ResourceVersion: start.RV, FieldSelector: "no.such.field=x"}, apierrors.IsBadRequest},
	} {
		w, err := target.ListerWatcher().WatchWithContext(t.Context(), tc.opts)
		if err == nil {
			w.Stop()
		}
		if !tc.is(err) {
			t.Errorf("%s: got error %v", tc.name, err)
		}
	}
}

// watchTooLargeResourceVersion: a streaming list not older than a
// resourceVersion the server never reaches fails after the server's wait
// with "Too large resource version", either from the call or as the one
// ERROR event of the stream.
func watchTooLargeResourceVersion(t *testing.T, target Target) {
	future := futureResourceVersion(t, record(t, target).create("a", nil).RV)
	w, err := target.ListerWatcher().WatchWithContext(t.Context(), metav1.ListOptions{
		ResourceVersion:      future,
		SendInitialEvents:    ptr(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	skipIfWatchListUnsupported(t, err)
	if err != nil {
		if !isTooLargeResourceVersion(err) {
			t.Errorf("got error %v, want too large resource version", err)
		}
		return
	}
	t.Cleanup(w.Stop)
	e := mustNextEvent(t, w)
	if e.Type != watch.Error || !isTooLargeResourceVersion(e.Err) {
		t.Errorf("got %v, want an ERROR with too large resource version", e)
	}
	expectClosed(t, w)
}
