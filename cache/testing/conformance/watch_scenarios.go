package conformance

import (
	"slices"
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

// watchFromResourceVersion: a watch from N delivers every change after N, in
// order, each with the resourceVersion of its write; a deletion carries the
// last state with a new resourceVersion.
func watchFromResourceVersion(t *testing.T, target Target) {
	a := create(t, target, "a", nil)
	b := create(t, target, "b", map[string]string{"l": "1"})
	a2 := update(t, target, "a", map[string]string{"l": "2"}, nil)
	w := openWatch(t, target, metav1.ListOptions{ResourceVersion: a.RV})
	remove(t, target, "b")

	got := objectEvents(t, w, 3)
	want := []event{{Type: watch.Added, item: b}, {Type: watch.Modified, item: a2}}
	checkEvents(t, want, got[:2])
	deleted := got[2]
	if deleted.Type != watch.Deleted || deleted.Name != "b" || deleted.Labels["l"] != "1" {
		t.Errorf("got %v, want DELETED b with its last labels", deleted)
	}
	if deleted.RV == b.RV || deleted.RV == "" {
		t.Errorf("DELETED b carries resourceVersion %q, want the deletion's own (b was written at %s)", deleted.RV, b.RV)
	}
}

// watchFromList: a watch from a list's resourceVersion delivers exactly the
// later writes.
func watchFromList(t *testing.T, target Target) {
	create(t, target, "a", nil)
	r := list(t, target, metav1.ListOptions{})
	w := openWatch(t, target, metav1.ListOptions{ResourceVersion: r.RV, AllowWatchBookmarks: true})
	b := create(t, target, "b", nil)
	a := update(t, target, "a", map[string]string{"l": "1"}, nil)
	checkEvents(t, []event{{Type: watch.Added, item: b}, {Type: watch.Modified, item: a}}, objectEvents(t, w, 2))
}

// watchInitialState: a watch from "" or "0" first delivers the current state
// as ADDED events (in any order), then live events.
func watchInitialState(t *testing.T, target Target) {
	create(t, target, "a", nil)
	create(t, target, "b", nil)
	for _, rv := range []string{"", "0"} {
		current := list(t, target, metav1.ListOptions{})
		w := openWatch(t, target, metav1.ListOptions{ResourceVersion: rv})
		sentinel := create(t, target, "sentinel"+rv, nil)
		events := eventsUntil(t, w, sentinel.Name)
		checkEvents(t, []event{{Type: watch.Added, item: sentinel}}, events[len(events)-1:])
		var initial []item
		for _, e := range events[:len(events)-1] {
			if e.Type != watch.Added {
				t.Errorf("watch from %q: got %v before the sentinel, want only ADDED", rv, e)
			}
			initial = append(initial, e.item)
		}
		checkNames(t, "ADDED before the sentinel, watching from "+strconvQuote(rv), sortedNames(current.Items), sortedNames(initial))
		w.Stop()
	}
}

// watchInitialEventsEndBookmark: a streaming list (sendInitialEvents) sends
// the current state as ADDED events, then a BOOKMARK annotated
// k8s.io/initial-events-end, then live events.
func watchInitialEventsEndBookmark(t *testing.T, target Target) {
	a := create(t, target, "a", nil)
	b := create(t, target, "b", nil)
	w, err := target.ListerWatcher().WatchWithContext(t.Context(), metav1.ListOptions{
		SendInitialEvents:    ptr(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	skipIfWatchListUnsupported(t, err)
	if err != nil {
		t.Fatalf("streaming list: %v", err)
	}
	t.Cleanup(w.Stop)
	sentinel := create(t, target, "sentinel", nil)
	events := eventsUntil(t, w, sentinel.Name)
	if len(events) != 4 {
		t.Fatalf("got %s, want ADDED a and b, the initial-events-end BOOKMARK and ADDED sentinel", formatEvents(events))
	}
	initial := []item{events[0].item, events[1].item}
	slices.SortFunc(initial, func(x, y item) int { return compareStrings(x.Name, y.Name) })
	checkItems(t, "initial events", []item{a, b}, initial)
	if events[0].Type != watch.Added || events[1].Type != watch.Added {
		t.Errorf("initial events %s, want ADDED", formatEvents(events[:2]))
	}
	if !isInitialEventsEnd(events[2]) || events[2].RV == "" {
		t.Errorf("got %v after the initial events, want the initial-events-end BOOKMARK with a resourceVersion", events[2])
	}
	checkEvents(t, []event{{Type: watch.Added, item: sentinel}}, events[3:])
}

// watchInitialEventsWithoutBookmarks: without allowWatchBookmarks a
// streaming list sends no bookmark at all.
func watchInitialEventsWithoutBookmarks(t *testing.T, target Target) {
	create(t, target, "a", nil)
	w, err := target.ListerWatcher().WatchWithContext(t.Context(), metav1.ListOptions{
		SendInitialEvents:    ptr(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	})
	skipIfWatchListUnsupported(t, err)
	if err != nil {
		t.Fatalf("streaming list: %v", err)
	}
	t.Cleanup(w.Stop)
	sentinel := create(t, target, "sentinel", nil)
	var got []watch.EventType
	for {
		e := mustNextEvent(t, w)
		got = append(got, e.Type)
		if e.Name == sentinel.Name {
			break
		}
	}
	if want := []watch.EventType{watch.Added, watch.Added}; !slices.Equal(want, got) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// watchInitialEventsNotOlderThan: a streaming list from an old
// resourceVersion sends the current state, not the old one.
func watchInitialEventsNotOlderThan(t *testing.T, target Target) {
	a := create(t, target, "a", nil)
	b := create(t, target, "b", nil)
	a2 := update(t, target, "a", map[string]string{"l": "1"}, nil)
	w, err := target.ListerWatcher().WatchWithContext(t.Context(), metav1.ListOptions{
		ResourceVersion:      a.RV,
		SendInitialEvents:    ptr(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	skipIfWatchListUnsupported(t, err)
	if err != nil {
		t.Fatalf("streaming list: %v", err)
	}
	t.Cleanup(w.Stop)
	events := objectEvents(t, w, 2)
	initial := []item{events[0].item, events[1].item}
	slices.SortFunc(initial, func(x, y item) int { return compareStrings(x.Name, y.Name) })
	checkItems(t, "initial events", []item{a2, b}, initial)
	for {
		if e := mustNextEvent(t, w); isInitialEventsEnd(e) {
			break
		} else if e.Type != watch.Bookmark {
			t.Fatalf("got %v, want the initial-events-end BOOKMARK", e)
		}
	}
}

// watchSelectorTransitions: with a label selector, an object entering the
// selection is ADDED, one leaving it is DELETED (with its previous state and
// the update's resourceVersion), one staying is MODIFIED; non-matching
// objects are not seen.
func watchSelectorTransitions(t *testing.T, target Target) {
	start := create(t, target, "a", map[string]string{"l": "x"})
	w := openWatch(t, target, metav1.ListOptions{ResourceVersion: start.RV, LabelSelector: "l=x"})

	leave := update(t, target, "a", map[string]string{"l": "y"}, nil)
	create(t, target, "other", map[string]string{"l": "y"})
	enter := update(t, target, "a", map[string]string{"l": "x"}, nil)
	stay := update(t, target, "a", map[string]string{"l": "x"}, map[string]string{"k": "v"})
	sentinel := create(t, target, "sentinel", map[string]string{"l": "x"})

	want := []event{
		{Type: watch.Deleted, item: item{Name: "a", RV: leave.RV, Labels: map[string]string{"l": "x"}}},
		{Type: watch.Added, item: enter},
		{Type: watch.Modified, item: stay},
		{Type: watch.Added, item: sentinel},
	}
	checkEvents(t, want, eventsUntil(t, w, sentinel.Name))
}

// watchFieldSelector: a watch selecting metadata.name sees only that
// object.
func watchFieldSelector(t *testing.T, target Target) {
	start := create(t, target, "a", nil)
	w := openWatch(t, target, metav1.ListOptions{ResourceVersion: start.RV, FieldSelector: "metadata.name=sentinel"})
	create(t, target, "b", nil)
	update(t, target, "a", map[string]string{"l": "1"}, nil)
	sentinel := create(t, target, "sentinel", nil)
	checkEvents(t, []event{{Type: watch.Added, item: sentinel}}, eventsUntil(t, w, sentinel.Name))
}

// watchTimeout: a watch with timeoutSeconds ends by itself, without an
// error.
func watchTimeout(t *testing.T, target Target) {
	start := create(t, target, "a", nil)
	w := openWatch(t, target, metav1.ListOptions{ResourceVersion: start.RV, TimeoutSeconds: ptr[int64](1)})
	expectClosed(t, w)
}

// watchInvalidOptions: option combinations the apiserver rejects on watch.
func watchInvalidOptions(t *testing.T, target Target) {
	start := create(t, target, "a", nil)
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
	future := futureResourceVersion(t, create(t, target, "a", nil).RV)
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

func compareStrings(x, y string) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func strconvQuote(s string) string {
	return `"` + s + `"`
}
