package cache

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	framework "github.com/informer-go/informer/cache/testing"
)

// livenessRequests sums up a server's requests: lists, and the resource
// versions of the watches after the first one.
func livenessRequests(srv *framework.Server[*metav1.PartialObjectMetadata]) (lists int, rewatches []string) {
	watches := 0
	for _, r := range srv.Requests() {
		switch r.Verb {
		case framework.VerbList:
			lists++
		case framework.VerbWatch:
			if watches++; watches > 1 {
				rv := r.Options.ResourceVersion
				if r.Options.SendInitialEvents != nil {
					rv += "+initial-events"
				}
				rewatches = append(rewatches, rv)
			}
		}
	}
	return lists, rewatches
}

// TestWatchLiveness checks that a watch that goes silent (a frozen stream on
// the fake server) is replaced, once the liveness timeout passes in real
// time, by a new watch from the last resource version without a list; that a
// watch that keeps receiving events is left alone however long it runs; and
// that the liveness timer stays off the informer's injected clock. It runs in
// a synctest bubble, whose real time is virtual.
func TestWatchLiveness(t *testing.T) {
	liveness := &WatchLivenessOptions{BookmarkInterval: 10 * time.Second}
	timeout := liveness.timeout()
	for _, lm := range listModes {
		for _, qm := range queueModes {
			t.Run(lm.name+"/"+qm.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					// The server runs on a fake clock nobody steps, so
					// that its own timers (bookmarks, watch timeouts)
					// never fire: only real time moves, for the
					// informer.
					opts := lm.opts
					opts.WatchBufferSize = 1000
					opts.Clock = testingclock.NewFakeClock(time.Now())
					srv := framework.NewServer(opts)
					defer srv.Close()
					create(t, srv, "a")
					clk := testingclock.NewFakeClock(time.Now())
					inf := newSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{
						InOrder:       qm.inOrder,
						WatchLiveness: liveness,
					}, clk)
					defer runSharedInformer(t, inf)()
					waitForSync(t, inf.HasSyncedChecker())
					// The bubble reports a wait that never ends.
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					// A streaming list leaves a stopped ticker among the
					// fake clock's waiters, as client-go's does.
					streamingLists := 0
					if !lm.opts.WatchListUnsupported {
						streamingLists = 1
					}
					// watchIdle waits until the reflector watches with
					// nothing waiting on the injected clock.
					watchIdle := func() {
						t.Helper()
						if err := srv.WaitForWatchStreams(ctx, 1); err != nil {
							t.Fatal(err)
						}
						synctest.Wait()
						if n := clk.Waiters(); n != streamingLists {
							t.Fatalf("%d waiters on the injected clock while watching, want %d", n, streamingLists)
						}
					}

					// Events keep the watch alive: three liveness
					// timeouts pass without a restart.
					for i := range 3 {
						watchIdle()
						time.Sleep(timeout - time.Second)
						obj := touch(t, srv, "a", fmt.Sprint(i))
						if err := inf.WaitForResourceVersion(ctx, obj.ResourceVersion); err != nil {
							t.Fatal(err)
						}
					}
					if lists, rewatches := livenessRequests(srv); len(rewatches) != 0 {
						t.Fatalf("watch restarted while events flowed: %d lists, rewatches at %v", lists, rewatches)
					}
					lists, _ := livenessRequests(srv)

					// A frozen stream is replaced after the timeout.
					last := srv.ResourceVersion()
					streams := srv.WatchStreams()
					streams[len(streams)-1].Freeze()
					touch(t, srv, "a", "lost in a frozen stream")
					watchIdle()
					time.Sleep(timeout - time.Second)
					synctest.Wait()
					if _, rewatches := livenessRequests(srv); len(rewatches) != 0 {
						t.Fatalf("watch restarted before its liveness timeout, at %v", rewatches)
					}
					time.Sleep(time.Second)
					synctest.Wait()
					gotLists, rewatches := livenessRequests(srv)
					if gotLists != lists || len(rewatches) != 1 || rewatches[0] != last {
						t.Errorf("after the timeout: %d lists (want %d), rewatches at %v (want one at %s)", gotLists, lists, rewatches, last)
					}
					// The new watch delivers what the frozen one held
					// back.
					if err := inf.WaitForResourceVersion(ctx, srv.ResourceVersion()); err != nil {
						t.Fatal(err)
					}
				})
			})
		}
	}
}

// TestWatchLivenessOptions checks the timeouts the options give.
func TestWatchLivenessOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *WatchLivenessOptions
		want time.Duration
	}{
		{name: "off", opts: nil, want: 0},
		{name: "defaults", opts: &WatchLivenessOptions{}, want: 3 * time.Minute},
		{name: "negative values are defaults", opts: &WatchLivenessOptions{BookmarkInterval: -1, Multiple: -1}, want: 3 * time.Minute},
		{name: "custom", opts: &WatchLivenessOptions{BookmarkInterval: 10 * time.Second, Multiple: 2}, want: 20 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.opts.timeout(); got != tc.want {
				t.Errorf("timeout = %v, want %v", got, tc.want)
			}
		})
	}
}
