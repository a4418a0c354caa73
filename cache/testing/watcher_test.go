package framework_test

import (
	"errors"
	"testing"
	"testing/synctest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	framework "github.com/informer-go/informer/cache/testing"
)

func TestSlowWatcherIsClosed(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{WatchBufferSize: 2})
	start := srv.ResourceVersion()
	w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: start})
	const n = 10
	var created []string
	for i := range n {
		created = append(created, mustCreate(t, srv, object("ns", string(rune('a'+i)), nil)).ResourceVersion)
	}

	// The client receives a prefix of the events, then the stream closes.
	var received []string
	for e := range w.ResultChan() {
		received = append(received, summarizeEvent(t, e).RV)
	}
	if len(received) >= n {
		t.Fatalf("received all %d events through a buffer of 2", n)
	}
	for i, rv := range received {
		if rv != created[i] {
			t.Fatalf("event %d has resourceVersion %s, want %s", i, rv, created[i])
		}
	}

	// Resuming from the last received resourceVersion delivers the rest.
	last := start
	if len(received) > 0 {
		last = received[len(received)-1]
	}
	resumed := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: last})
	for _, rv := range created[len(received):] {
		if got := summarizeEvent(t, nextEvent(t, resumed)).RV; got != rv {
			t.Fatalf("resumed watch gave resourceVersion %s, want %s", got, rv)
		}
	}
}

func TestWatchStreamFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*pom]{})
		defer srv.Close()
		w1 := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: srv.ResourceVersion()})
		w2 := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: srv.ResourceVersion()})
		streams := srv.WatchStreams()
		if len(streams) != 2 || streams[0] != w1 || streams[1] != w2 {
			t.Fatalf("WatchStreams() = %v, want both streams in order", streams)
		}

		// One stream loses one event.
		streams[0].DropNextEvents(1)
		a := mustCreate(t, srv, object("ns", "a", nil))
		b := mustCreate(t, srv, object("ns", "b", nil))
		expectEvents(t, w1, event{Type: watch.Added, Key: "ns/b", RV: b.ResourceVersion})
		expectEvents(t, w2, event{Type: watch.Added, Key: "ns/a", RV: a.ResourceVersion}, event{Type: watch.Added, Key: "ns/b", RV: b.ResourceVersion})

		// Every stream loses one event; history keeps it.
		srv.DropNextEvents(1)
		mustCreate(t, srv, object("ns", "c", nil))
		d := mustCreate(t, srv, object("ns", "d", nil))
		expectEvents(t, w1, event{Type: watch.Added, Key: "ns/d", RV: d.ResourceVersion})
		expectEvents(t, w2, event{Type: watch.Added, Key: "ns/d", RV: d.ResourceVersion})
		replay := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: b.ResourceVersion})
		expectEvents(t, replay, event{Type: watch.Added, Key: "ns/c", RV: "4"}, event{Type: watch.Added, Key: "ns/d", RV: d.ResourceVersion})

		// A frozen stream stays open and silent.
		streams[0].Freeze()
		e := mustCreate(t, srv, object("ns", "e", nil))
		synctest.Wait()
		select {
		case ev := <-w1.ResultChan():
			t.Fatalf("frozen stream delivered %+v", summarizeEvent(t, ev))
		default:
		}
		expectEvents(t, w2, event{Type: watch.Added, Key: "ns/e", RV: e.ResourceVersion})
		streams[0].Thaw()
		expectEvents(t, w1, event{Type: watch.Added, Key: "ns/e", RV: e.ResourceVersion})

		// Closing from the server side.
		srv.CloseWatchStreams()
		expectClosed(t, w1)
		expectClosed(t, w2)
		expectClosed(t, replay)
		synctest.Wait()
		if n := srv.NumWatchStreams(); n != 0 {
			t.Errorf("%d open streams after CloseWatchStreams", n)
		}
	})
}

func TestWatchStreamFail(t *testing.T) {
	expired := apierrors.NewResourceExpired("too old resource version")
	for _, tc := range []struct {
		name   string
		err    error
		frozen bool
		want   int32
	}{
		{name: "status error", err: expired, want: 410},
		{name: "plain error", err: errors.New("watch cache reinitialized"), want: 500},
		{name: "frozen stream", err: expired, frozen: true, want: 410},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := framework.NewServer(framework.Options[*pom]{})
				defer srv.Close()
				w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: srv.ResourceVersion()})
				stream := srv.WatchStreams()[0]
				if tc.frozen {
					stream.Freeze()
				}
				a := mustCreate(t, srv, object("ns", "a", nil))
				stream.Fail(tc.err)
				stream.Fail(errors.New("second failure"))  // ignored
				mustCreate(t, srv, object("ns", "b", nil)) // not sent
				if tc.frozen {
					synctest.Wait()
					stream.Thaw()
				}
				// Queued events first, then the error, then the end.
				expectEvents(t, w,
					event{Type: watch.Added, Key: "ns/a", RV: a.ResourceVersion},
					event{Type: watch.Error, Code: tc.want})
				expectClosed(t, w)
				synctest.Wait()
				if n := srv.NumWatchStreams(); n != 0 {
					t.Errorf("%d open streams after a failed one closed", n)
				}
				stream.Fail(tc.err) // on an ended stream: nothing
			})
		})
	}
}
