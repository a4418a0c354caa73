package framework_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"

	framework "github.com/informer-go/informer/cache/testing"
)

func TestFailNextRequests(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "widgets"}, "", errors.New("no"))
	srv.FailNextLists(2, forbidden)
	for i := range 2 {
		if _, err := srv.ListWithContext(t.Context(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("list %d: %v, want 403", i, err)
		}
	}
	mustList(t, srv, metav1.ListOptions{})

	srv.FailNextWatches(1, framework.NewConnectionRefusedError())
	if _, err := srv.WatchWithContext(t.Context(), metav1.ListOptions{}); !utilnet.IsConnectionRefused(err) {
		t.Errorf("watch: %v, want connection refused", err)
	}
	srv.FailNextWatchStreams(1, apierrors.NewTooManyRequests("slow down", 1))
	w := mustWatch(t, srv, metav1.ListOptions{})
	expectEvents(t, w, event{Type: watch.Error, Code: 429})
	expectClosed(t, w)
	srv.FailNextWatchStreams(1, errors.New("plain"))
	w = mustWatch(t, srv, metav1.ListOptions{ResourceVersion: "1"})
	expectEvents(t, w, event{Type: watch.Error, Code: 500})
	expectClosed(t, w)

	// Disarmed.
	srv.FailNextLists(5, forbidden)
	srv.FailNextLists(0, nil)
	mustList(t, srv, metav1.ListOptions{})

	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.Verb+" "+r.Options.ResourceVersion)
	}
	want := []string{"list ", "list ", "list ", "watch ", "watch ", "watch 1", "list "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	srv.ResetRequests()
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests after ResetRequests", n)
	}
}

func TestListLatency(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv := newServer(t, framework.Options[*pom]{Clock: clk})
	srv.SetListLatency(time.Second)
	done := make(chan error, 1)
	go func() {
		_, err := srv.ListWithContext(context.Background(), metav1.ListOptions{})
		done <- err
	}()
	waitFor(t, "the list to wait", clk.HasWaiters)
	select {
	case err := <-done:
		t.Fatalf("list returned %v before its latency passed", err)
	default:
	}
	clk.Step(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestModes(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{WatchListUnsupported: true})
	if !srv.IsWatchListSemanticsUnSupported() || !srv.Namespace("ns").IsWatchListSemanticsUnSupported() {
		t.Error("watch-list is not declared unsupported")
	}
	if newServer(t, framework.Options[*pom]{}).IsWatchListSemanticsUnSupported() {
		t.Error("watch-list is declared unsupported by default")
	}
}

func TestWaitForWatchStreamsAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*pom]{})
		defer srv.Close()
		opened := make(chan error, 1)
		go func() { opened <- srv.WaitForWatchStreams(context.Background(), 2) }()
		mustWatch(t, srv, metav1.ListOptions{})
		synctest.Wait()
		select {
		case <-opened:
			t.Fatal("WaitForWatchStreams returned with one stream open")
		default:
		}
		w := mustWatch(t, srv.Namespace("ns"), metav1.ListOptions{})
		if err := <-opened; err != nil {
			t.Fatal(err)
		}

		srv.Close()
		expectClosed(t, w)
		if _, err := srv.ListWithContext(t.Context(), metav1.ListOptions{}); !apierrors.IsServiceUnavailable(err) {
			t.Errorf("list after Close: %v, want 503", err)
		}
		if _, err := srv.WatchWithContext(t.Context(), metav1.ListOptions{}); !apierrors.IsServiceUnavailable(err) {
			t.Errorf("watch after Close: %v, want 503", err)
		}
		if _, err := srv.Create(object("ns", "a", nil)); !apierrors.IsServiceUnavailable(err) {
			t.Errorf("create after Close: %v, want 503", err)
		}
	})
}

// TestSynctest runs the server's timed behaviour on the default clock inside
// a synctest bubble, where time advances when every goroutine is blocked.
func TestSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, ctx := ktesting.NewTestContext(t)
		srv := framework.NewServer(framework.Options[*pom]{Logger: klog.FromContext(ctx)})
		defer srv.Close()
		start := time.Now()
		_, err := srv.ListWithContext(t.Context(), metav1.ListOptions{ResourceVersion: "10"})
		if !apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
			t.Errorf("list at a future resourceVersion: %v", err)
		}
		if waited := time.Since(start); waited != framework.DefaultResourceVersionTimeout {
			t.Errorf("waited %v, want %v", waited, framework.DefaultResourceVersionTimeout)
		}

		a := mustCreate(t, srv, object("ns", "a", nil))
		w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: "1", AllowWatchBookmarks: true, TimeoutSeconds: ptr[int64](150)})
		start = time.Now()
		// Bookmarks only report a resourceVersion newer than where the
		// watch started (after replaying a).
		b := mustCreate(t, srv, object("ns", "b", nil))
		want := []struct {
			event event
			after time.Duration
		}{
			{event{Type: watch.Added, Key: "ns/a", RV: a.ResourceVersion}, 0},
			{event{Type: watch.Added, Key: "ns/b", RV: b.ResourceVersion}, 0},
			{event{Type: watch.Bookmark, RV: b.ResourceVersion}, time.Minute},
			{event{Type: watch.Bookmark, RV: b.ResourceVersion}, 2 * time.Minute},
			{event{Type: watch.Bookmark, RV: b.ResourceVersion}, 148 * time.Second}, // 2s before the timeout
		}
		for _, w2 := range want {
			got := summarizeEvent(t, nextEventWithin(t, w, 10*time.Minute))
			if diff := cmp.Diff(w2.event, got); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
			if got := time.Since(start); got != w2.after {
				t.Errorf("%s after %v, want %v", w2.event.Type, got, w2.after)
			}
		}
		expectClosed(t, w)
		if got, want := time.Since(start), 150*time.Second; got != want {
			t.Errorf("closed after %v, want %v", got, want)
		}
	})
}

func TestSetIgnoreSendInitialEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*pom]{})
		defer srv.Close()
		a := mustCreate(t, srv, object("ns", "a", nil))
		streaming := metav1.ListOptions{
			SendInitialEvents: ptr(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
		}
		added := event{Type: watch.Added, Key: "ns/a", RV: a.ResourceVersion}
		end := event{Type: watch.Bookmark, RV: a.ResourceVersion, Ann: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}
		before := []event{added, end}
		for _, tc := range []struct {
			ignore bool
			want   []event
		}{
			{ignore: true, want: []event{added}},
			{ignore: false, want: []event{added, end}},
		} {
			earlier := mustWatch(t, srv, streaming) // opened before the change
			srv.SetIgnoreSendInitialEvents(tc.ignore)
			w := mustWatch(t, srv, streaming)
			expectEvents(t, w, tc.want...)
			synctest.Wait()
			select {
			case e := <-w.ResultChan():
				t.Fatalf("ignore %v: unexpected %+v", tc.ignore, summarizeEvent(t, e))
			default:
			}
			expectEvents(t, earlier, before...)
			before = tc.want
		}
	})
}
