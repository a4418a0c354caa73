package cache

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	framework "github.com/informer-go/informer/cache/testing"
	"github.com/informer-go/informer/wait"
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
// the fake server) is replaced, once the liveness timeout passes on the
// informer's fake clock, by a new watch from the last resource version
// without a list; and that a watch that keeps receiving events is left
// alone however long it runs.
func TestWatchLiveness(t *testing.T) {
	const timeout = DefaultWatchLivenessMultiple * DefaultBookmarkInterval
	for _, lm := range listModes {
		for _, qm := range queueModes {
			t.Run(lm.name+"/"+qm.name, func(t *testing.T) {
				// The server runs on the real clock, so that its own
				// timers (bookmarks, watch timeouts) never fire: only
				// the informer's clock moves.
				opts := lm.opts
				opts.WatchBufferSize = 1000
				srv := framework.NewServer(opts)
				defer srv.Close()
				create(t, srv, "a")
				clk := testingclock.NewFakeClock(time.Now())
				inf := newSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{
					InOrder:       qm.inOrder,
					WatchLiveness: &WatchLivenessOptions{},
				}, clk)
				defer runSharedInformer(t, inf)()
				waitForSync(t, inf.HasSyncedChecker())
				ctx, cancel := context.WithTimeout(context.Background(), wait.ForeverTestTimeout)
				defer cancel()
				// watchIdle waits until the reflector watches and has
				// armed its two watch timers (liveness and outlived),
				// nothing else of the informer waiting on its clock.
				watchIdle := func() {
					t.Helper()
					if err := srv.WaitForWatchStreams(ctx, 1); err != nil {
						t.Fatal(err)
					}
					waitFor(t, "the watch timers", func() bool { return clk.Waiters() == 2 })
				}

				// Events keep the watch alive: three liveness timeouts
				// pass without a restart (and within the 11 minutes
				// after which the reflector closes a watch the server
				// should have closed).
				for i := range 3 {
					watchIdle()
					clk.Step(timeout - time.Second)
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
				clk.Step(timeout - time.Second)
				if _, rewatches := livenessRequests(srv); len(rewatches) != 0 {
					t.Fatalf("watch restarted before its liveness timeout, at %v", rewatches)
				}
				clk.Step(time.Second)
				waitFor(t, "a new watch", func() bool { _, rewatches := livenessRequests(srv); return len(rewatches) > 0 })
				gotLists, rewatches := livenessRequests(srv)
				if gotLists != lists || len(rewatches) != 1 || rewatches[0] != last {
					t.Errorf("after the timeout: %d lists (want %d), rewatches at %v (want one at %s)", gotLists, lists, rewatches, last)
				}
				// The new watch delivers what the frozen one held back.
				if err := inf.WaitForResourceVersion(ctx, srv.ResourceVersion()); err != nil {
					t.Fatal(err)
				}
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
