package framework_test

import (
	"context"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	testingclock "k8s.io/utils/clock/testing"

	framework "github.com/informer-go/informer/cache/testing"
)

// initialEventsEnd is the annotation of the bookmark that ends the initial
// events of a streaming list.
var initialEventsEnd = map[string]string{metav1.InitialEventsAnnotationKey: "true"}

func TestWatchFromResourceVersion(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	a := mustCreate(t, srv, object("ns", "a", nil))
	b := mustCreate(t, srv, object("ns", "b", nil))
	a2 := mustUpdate(t, srv, object("ns", "a", map[string]string{"l": "1"}))

	fromA := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: a.ResourceVersion})
	fromNow := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: a2.ResourceVersion})
	gone := mustDelete(t, srv, "ns", "b")

	expectEvents(t, fromA,
		event{Type: watch.Added, Key: "ns/b", RV: b.ResourceVersion},
		event{Type: watch.Modified, Key: "ns/a", RV: a2.ResourceVersion, Label: "1"},
		event{Type: watch.Deleted, Key: "ns/b", RV: gone.ResourceVersion},
	)
	expectEvents(t, fromNow, event{Type: watch.Deleted, Key: "ns/b", RV: gone.ResourceVersion})
}

func TestWatchInitialEvents(t *testing.T) {
	notOlderThan := metav1.ResourceVersionMatchNotOlderThan
	tests := []struct {
		name   string
		ignore bool // Options.IgnoreSendInitialEvents
		opts   func(first string) metav1.ListOptions
		// want lists the events before the sentinel's ADDED; bookmarks
		// have RV "current".
		want []event
	}{
		{
			name: "legacy from empty is defaulted to initial events",
			opts: func(string) metav1.ListOptions { return metav1.ListOptions{} },
			want: []event{{Type: watch.Added, Key: "ns/a"}, {Type: watch.Added, Key: "ns/b"}},
		},
		{
			name: "legacy from empty with bookmarks ends with the bookmark",
			opts: func(string) metav1.ListOptions { return metav1.ListOptions{AllowWatchBookmarks: true} },
			want: []event{{Type: watch.Added, Key: "ns/a"}, {Type: watch.Added, Key: "ns/b"}, {Type: watch.Bookmark, RV: "current", Ann: initialEventsEnd}},
		},
		{
			name: "legacy from 0 with bookmarks",
			opts: func(string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersion: "0", AllowWatchBookmarks: true}
			},
			want: []event{{Type: watch.Added, Key: "ns/a"}, {Type: watch.Added, Key: "ns/b"}, {Type: watch.Bookmark, RV: "current", Ann: initialEventsEnd}},
		},
		{
			name: "streaming list not older than an old resourceVersion",
			opts: func(first string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersion: first, ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true), AllowWatchBookmarks: true}
			},
			want: []event{{Type: watch.Added, Key: "ns/a"}, {Type: watch.Added, Key: "ns/b"}, {Type: watch.Bookmark, RV: "current", Ann: initialEventsEnd}},
		},
		{
			name: "streaming list without bookmarks has no end marker",
			opts: func(string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true)}
			},
			want: []event{{Type: watch.Added, Key: "ns/a"}, {Type: watch.Added, Key: "ns/b"}},
		},
		{
			name: "no initial events from empty",
			opts: func(string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(false), AllowWatchBookmarks: true}
			},
		},
		{
			name: "no initial events from a resourceVersion replays history",
			opts: func(first string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersion: first, ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(false)}
			},
			want: []event{{Type: watch.Added, Key: "ns/a"}},
		},
		{
			name:   "server ignoring sendInitialEvents",
			ignore: true,
			opts: func(string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true), AllowWatchBookmarks: true}
			},
			want: []event{{Type: watch.Added, Key: "ns/a"}, {Type: watch.Added, Key: "ns/b"}},
		},
		{
			name:   "server ignoring sendInitialEvents replays history",
			ignore: true,
			opts: func(first string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersion: first, ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true), AllowWatchBookmarks: true}
			},
			want: []event{{Type: watch.Added, Key: "ns/a"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, framework.Options[*pom]{IgnoreSendInitialEvents: tc.ignore})
			first := mustCreate(t, srv, object("ns", "b", nil)).ResourceVersion
			mustCreate(t, srv, object("ns", "a", nil))
			current := srv.ResourceVersion()
			w := mustWatch(t, srv, tc.opts(first))
			sentinel := mustCreate(t, srv, object("ns", "sentinel", nil))

			var want []event
			for _, e := range tc.want {
				if e.RV == "current" {
					e.RV = current
				} else if e.RV == "" {
					got, err := srv.Get("ns", e.Key[len("ns/"):])
					if err != nil {
						t.Fatal(err)
					}
					e.RV = got.ResourceVersion
				}
				want = append(want, e)
			}
			want = append(want, event{Type: watch.Added, Key: "ns/sentinel", RV: sentinel.ResourceVersion})
			expectEvents(t, w, want...)
		})
	}
}

func TestWatchValidation(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	tests := []struct {
		name string
		opts metav1.ListOptions
		is   func(error) bool
	}{
		{"match without sendInitialEvents", metav1.ListOptions{ResourceVersion: "1", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, apierrors.IsInvalid},
		{"sendInitialEvents without match", metav1.ListOptions{SendInitialEvents: ptr(true)}, apierrors.IsInvalid},
		{"sendInitialEvents with exact", metav1.ListOptions{ResourceVersion: "1", SendInitialEvents: ptr(true), ResourceVersionMatch: metav1.ResourceVersionMatchExact}, apierrors.IsInvalid},
		{"malformed resourceVersion", metav1.ListOptions{ResourceVersion: "x"}, apierrors.IsInvalid},
		{"continue", metav1.ListOptions{ResourceVersion: "1", Continue: "abc"}, apierrors.IsBadRequest},
		{"malformed label selector", metav1.ListOptions{LabelSelector: "=x"}, apierrors.IsBadRequest},
		{"unsupported field", metav1.ListOptions{FieldSelector: "status.phase=Running"}, apierrors.IsBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := srv.WatchWithContext(t.Context(), tc.opts)
			if err == nil {
				w.Stop()
			}
			if !tc.is(err) {
				t.Errorf("got error %v", err)
			}
		})
	}
}

func TestWatchExpired(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{HistoryLimit: 2})
	a := mustCreate(t, srv, object("ns", "a", nil))
	b := mustCreate(t, srv, object("ns", "b", nil))
	c := mustCreate(t, srv, object("ns", "c", nil))
	d := mustCreate(t, srv, object("ns", "d", nil))

	// Dropped by the history limit: a and b are gone, the state after b is
	// still reachable.
	w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: a.ResourceVersion})
	expectEvents(t, w, event{Type: watch.Error, Code: 410})
	expectClosed(t, w)
	w = mustWatch(t, srv, metav1.ListOptions{ResourceVersion: b.ResourceVersion})
	expectEvents(t, w,
		event{Type: watch.Added, Key: "ns/c", RV: c.ResourceVersion},
		event{Type: watch.Added, Key: "ns/d", RV: d.ResourceVersion})

	// Compacted explicitly.
	current := srv.ResourceVersion()
	mustCreate(t, srv, object("ns", "e", nil))
	srv.Compact()
	w = mustWatch(t, srv, metav1.ListOptions{ResourceVersion: current, AllowWatchBookmarks: true})
	expectEvents(t, w, event{Type: watch.Error, Code: 410})
	expectClosed(t, w)
}

func TestWatchSelectorTransitions(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	start := mustCreate(t, srv, object("ns", "a", map[string]string{"l": "x"})).ResourceVersion
	w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: start, LabelSelector: "l=x"})

	leave := mustUpdate(t, srv, object("ns", "a", map[string]string{"l": "y"}))
	mustCreate(t, srv, object("ns", "other", map[string]string{"l": "y"}))
	enter := mustUpdate(t, srv, object("ns", "a", map[string]string{"l": "x"}))
	stayObj := object("ns", "a", map[string]string{"l": "x"})
	stayObj.Annotations = map[string]string{"k": "v"}
	stay := mustUpdate(t, srv, stayObj)
	gone := mustDelete(t, srv, "ns", "a")

	expectEvents(t, w,
		// Leaving: the previous state with the event's resourceVersion.
		event{Type: watch.Deleted, Key: "ns/a", RV: leave.ResourceVersion, Label: "x"},
		event{Type: watch.Added, Key: "ns/a", RV: enter.ResourceVersion, Label: "x"},
		event{Type: watch.Modified, Key: "ns/a", RV: stay.ResourceVersion, Label: "x", Ann: map[string]string{"k": "v"}},
		event{Type: watch.Deleted, Key: "ns/a", RV: gone.ResourceVersion, Label: "x", Ann: map[string]string{"k": "v"}},
	)
}

func TestWatchNamespaceAndFields(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	w := mustWatch(t, srv.Namespace("ns"), metav1.ListOptions{ResourceVersion: srv.ResourceVersion(), FieldSelector: "metadata.name!=skip"})
	mustCreate(t, srv, object("other", "a", nil))
	mustCreate(t, srv, object("ns", "skip", nil))
	want := mustCreate(t, srv, object("ns", "a", nil))
	expectEvents(t, w, event{Type: watch.Added, Key: "ns/a", RV: want.ResourceVersion})
	stream := w.(*framework.WatchStream)
	if got := stream.Namespace(); got != "ns" {
		t.Errorf("stream namespace %q, want ns", got)
	}
	if got := stream.Options().FieldSelector; got != "metadata.name!=skip" {
		t.Errorf("stream options have field selector %q", got)
	}
	requests := srv.Requests()
	if len(requests) != 1 || requests[0].Verb != framework.VerbWatch || requests[0].Namespace != "ns" {
		t.Errorf("requests %+v, want one watch of ns", requests)
	}
}

func TestWatchFutureResourceVersion(t *testing.T) {
	t.Run("legacy watch skips events up to it", func(t *testing.T) {
		srv := newServer(t, framework.Options[*pom]{})
		w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: "3"})
		mustCreate(t, srv, object("ns", "a", nil)) // 2
		mustCreate(t, srv, object("ns", "b", nil)) // 3
		c := mustCreate(t, srv, object("ns", "c", nil))
		expectEvents(t, w, event{Type: watch.Added, Key: "ns/c", RV: c.ResourceVersion})
	})

	opts := metav1.ListOptions{ResourceVersion: "3", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, SendInitialEvents: ptr(true)}
	watchAsync := func(srv *framework.Server[*pom]) <-chan watch.Interface {
		ch := make(chan watch.Interface, 1)
		go func() {
			w, err := srv.WatchWithContext(context.Background(), opts)
			if err != nil {
				t.Errorf("watch: %v", err)
				close(ch)
				return
			}
			ch <- w
		}()
		return ch
	}
	receive := func(t *testing.T, ch <-chan watch.Interface) watch.Interface {
		t.Helper()
		select {
		case w, ok := <-ch:
			if !ok {
				t.FailNow()
			}
			t.Cleanup(w.Stop)
			return w
		case <-time.After(testTimeout):
			t.Fatal("watch did not return")
		}
		return nil
	}

	t.Run("streaming list waits for it", func(t *testing.T) {
		clk := testingclock.NewFakeClock(time.Now())
		srv := newServer(t, framework.Options[*pom]{Clock: clk})
		ch := watchAsync(srv)
		waitFor(t, "the watch to wait", clk.HasWaiters)
		mustCreate(t, srv, object("ns", "a", nil))
		b := mustCreate(t, srv, object("ns", "b", nil))
		w := receive(t, ch)
		expectEvents(t, w, event{Type: watch.Added, Key: "ns/a", RV: "2"}, event{Type: watch.Added, Key: "ns/b", RV: b.ResourceVersion})
	})
	t.Run("streaming list times out", func(t *testing.T) {
		clk := testingclock.NewFakeClock(time.Now())
		srv := newServer(t, framework.Options[*pom]{Clock: clk, ResourceVersionTimeout: time.Second})
		ch := watchAsync(srv)
		waitFor(t, "the watch to wait", clk.HasWaiters)
		clk.Step(time.Second)
		w := receive(t, ch)
		e := nextEvent(t, w)
		if err := apierrors.FromObject(e.Object); e.Type != watch.Error || !apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
			t.Errorf("got %s %v, want an ERROR with a too large resource version", e.Type, err)
		}
		expectClosed(t, w)
	})
}

func TestWatchTimeoutAndBookmarks(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv := newServer(t, framework.Options[*pom]{Clock: clk, BookmarkInterval: 10 * time.Second})
	w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: srv.ResourceVersion(), AllowWatchBookmarks: true, TimeoutSeconds: ptr[int64](25)})
	waitFor(t, "the timeout and bookmark timers", func() bool { return clk.Waiters() == 2 })

	// Nothing changed since the watch started: no bookmark is due.
	clk.Step(10 * time.Second)
	waitFor(t, "the bookmark timer to be re-armed", func() bool { return clk.Waiters() == 2 })
	a := mustCreate(t, srv, object("ns", "a", nil))
	expectEvents(t, w, event{Type: watch.Added, Key: "ns/a", RV: a.ResourceVersion})

	// The next tick reports the current resourceVersion.
	clk.Step(10 * time.Second)
	expectEvents(t, w, event{Type: watch.Bookmark, RV: a.ResourceVersion})

	// The last bookmark comes 2s before the timeout, then the watch ends.
	waitFor(t, "the bookmark timer to be re-armed", func() bool { return clk.Waiters() == 2 })
	clk.Step(3 * time.Second)
	expectEvents(t, w, event{Type: watch.Bookmark, RV: a.ResourceVersion})
	waitFor(t, "the timeout timer alone", func() bool { return clk.Waiters() == 1 })
	clk.Step(2 * time.Second)
	expectClosed(t, w)
}

func TestWatchContextCancelled(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	ctx, cancel := context.WithCancel(t.Context())
	w, err := srv.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: srv.ResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	expectClosed(t, w)
	<-w.(*framework.WatchStream).Done()
	if n := srv.NumWatchStreams(); n != 0 {
		t.Errorf("%d open streams after the watch ended", n)
	}
}

func TestAdvanceResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*pom]{BookmarkInterval: 10 * time.Second})
		defer srv.Close()
		a := mustCreate(t, srv, object("ns", "a", nil))
		w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: a.ResourceVersion, AllowWatchBookmarks: true})
		rv, err := srv.AdvanceResourceVersion()
		if err != nil {
			t.Fatal(err)
		}
		before, err := strconv.ParseUint(a.ResourceVersion, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.FormatUint(before+1, 10); rv != want || srv.ResourceVersion() != want {
			t.Fatalf("AdvanceResourceVersion() = %s, ResourceVersion() = %s, want %s", rv, srv.ResourceVersion(), want)
		}
		// No event, but the next bookmark carries the new version; lists
		// and watches from it work, and nothing changed in between.
		expectEvents(t, w, event{Type: watch.Bookmark, RV: rv})
		got, _ := mustList(t, srv, metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		if diff := cmp.Diff(page{Names: []string{"ns/a"}, RV: rv}, got); diff != "" {
			t.Errorf("exact list at the new version (-want +got):\n%s", diff)
		}
		from := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: a.ResourceVersion})
		b := mustCreate(t, srv, object("ns", "b", nil))
		expectEvents(t, from, event{Type: watch.Added, Key: "ns/b", RV: b.ResourceVersion})
		srv.Close()
		if _, err := srv.AdvanceResourceVersion(); !apierrors.IsServiceUnavailable(err) {
			t.Errorf("after Close: %v, want 503", err)
		}
	})
}
