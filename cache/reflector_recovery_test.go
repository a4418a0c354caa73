package cache

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	framework "github.com/informer-go/informer/cache/testing"
)

// Recovery of whole informers, in both pipelines, from servers that are
// hostile but legal: each test pins one of the recovery bugs of the
// reflector that informers used to hang or spin on.

// TestInformerServerIgnoringSendInitialEventsUnderTraffic checks that an
// informer whose server ignores sendInitialEvents syncs at the first sign of
// it, long before the stall timeout, even though the resource keeps changing
// or the server keeps sending bookmarks: neither is progress of an initial
// list, and both show that no initial list is coming.
func TestInformerServerIgnoringSendInitialEventsUnderTraffic(t *testing.T) {
	for _, traffic := range []struct {
		name string
		opts framework.Options[*metav1.PartialObjectMetadata]
		// write changes the server every 10 seconds.
		write func(t *testing.T, srv *fakeServer, i int)
	}{
		{
			name:  "updates",
			opts:  framework.Options[*metav1.PartialObjectMetadata]{IgnoreSendInitialEvents: true},
			write: func(t *testing.T, srv *fakeServer, i int) { touch(t, srv, "a", fmt.Sprint(i)) },
		},
		{
			name: "creations and bookmarks",
			opts: framework.Options[*metav1.PartialObjectMetadata]{IgnoreSendInitialEvents: true, BookmarkInterval: 5 * time.Second},
			write: func(t *testing.T, srv *fakeServer, i int) {
				create(t, srv, fmt.Sprintf("new-%d", i))
			},
		},
	} {
		for _, mode := range queueModes {
			t.Run(traffic.name+"/"+mode.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := framework.NewServer(traffic.opts)
					defer srv.Close()
					names := []string{"a", "b"}
					for _, name := range names {
						create(t, srv, name)
					}
					start := time.Now()
					store, ctrl := startInformer(t, srv, mode.inOrder)
					// Without the fix the informer was still unsynced
					// after ten minutes of this.
					for i := 0; i < 60 && !ctrl.HasSynced(); i++ {
						time.Sleep(10 * time.Second)
						traffic.write(t, srv, i)
						if traffic.name != "updates" {
							names = append(names, fmt.Sprintf("new-%d", i))
						}
						synctest.Wait()
					}
					if !ctrl.HasSynced() {
						t.Fatalf("not synced %v after start", time.Since(start))
					}
					if took := time.Since(start); took > 30*time.Second {
						t.Errorf("synced %v after start, want it within 30s (the stall timeout is 1m)", took)
					}
					synctest.Wait()
					if diff := cmp.Diff(serverContents(t, srv, names), storeContents(store)); diff != "" {
						t.Errorf("store (-want +got):\n%s", diff)
					}
				})
			})
		}
	}
}

// TestInformerStreamingListRetriesAreBounded runs informers for ten minutes
// of virtual time against a server whose streaming lists fail the same way
// every time, and counts the requests: every retry waits a backoff delay,
// except the one at once from the most recent state after an expired
// resource version, and after three failed attempts the informer lists with
// pagination. Plain watches either work, so that the informer settles after
// one cycle, or expire at once, so that cycles keep coming back to streaming
// lists. The reflector used to retry the first three kinds of failure at
// once, without end.
func TestInformerStreamingListRetriesAreBounded(t *testing.T) {
	expired := errorEvent(errExpired)
	for _, failure := range []struct {
		name   string
		stream func(context.Context, metav1.ListOptions) (watch.Interface, error)
	}{
		{name: "closed after one event", stream: scriptedWatchOf(true, added("a", "1"))},
		{name: "410 when opened", stream: failingWatch(errExpired)},
		{name: "410 in the stream", stream: scriptedWatchOf(false, expired)},
		{name: "429 when opened", stream: failingWatch(errTooMany)},
	} {
		for _, plain := range []struct {
			name  string
			watch func(context.Context, metav1.ListOptions) (watch.Interface, error)
		}{
			{name: "working watches"},
			{name: "expiring watches", watch: scriptedWatchOf(false, expired)},
		} {
			for _, mode := range queueModes {
				t.Run(failure.name+"/"+plain.name+"/"+mode.name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						names := []string{"a", "b"}
						srv := serverWith(t, names...)
						lw := newHostileLW(srv, hostileHooks{stream: failure.stream, watch: plain.watch})
						store, ctrl := startInformer(t, lw, mode.inOrder)
						time.Sleep(10 * time.Minute)
						synctest.Wait()

						calls := lw.recorded()
						if len(calls) > lw.spinLimit {
							t.Fatalf("%d requests in ten minutes: the reflector spins", len(calls))
						}
						// Three streaming requests per cycle at most.
						inARow := 0
						for i, c := range calls {
							if c.kind != "stream" {
								inARow = 0
								continue
							}
							if inARow++; inARow > maxWatchListAttempts {
								t.Fatalf("request %d is streaming request %d of a cycle, want at most %d", i, inARow, maxWatchListAttempts)
							}
						}
						// Backoff delays are at least 800ms, doubling to
						// 30s: fewer than 25 of them fit in ten minutes,
						// and each cycle makes at most five requests.
						if len(calls) > 100 {
							t.Errorf("%d requests in ten minutes, want at most 100", len(calls))
						}
						if plain.watch == nil {
							// One cycle, then watches that the server
							// ends after their 5 to 10 minute timeout.
							want := []string{"stream", "stream", "stream", "list", "watch"}
							var got []string
							for _, c := range calls {
								if len(got) < len(want) || c.kind != "watch" {
									got = append(got, c.kind)
								}
							}
							if diff := cmp.Diff(want, got); diff != "" {
								t.Errorf("requests (-want +got):\n%s", diff)
							}
						}
						if !ctrl.HasSynced() {
							t.Fatal("not synced after ten minutes")
						}
						if diff := cmp.Diff(serverContents(t, srv, names), storeContents(store)); diff != "" {
							t.Errorf("store (-want +got):\n%s", diff)
						}
					})
				})
			}
		}
	}
}

// TestInformerRecoversFromMalformedResourceVersion gives informers, in both
// pipelines, one malformed resource version from a glitching server or proxy,
// which the server refuses ever after, and checks that they keep following
// the server. The reflector used to keep the version and ask for it again on
// every later request, and the informer stopped receiving changes for good.
func TestInformerRecoversFromMalformedResourceVersion(t *testing.T) {
	for _, tc := range []struct {
		name string
		// noWatchList makes the informer list with pagination.
		noWatchList bool
		// hooks returns the hook answering one call; it calls heal first,
		// so that the server answers every later call.
		hooks func(srv *fakeServer, heal func()) hostileHooks
	}{
		{
			name:        "in a list",
			noWatchList: true,
			hooks: func(srv *fakeServer, heal func()) hostileHooks {
				list := rewrittenLists(srv, func(l *metav1.PartialObjectMetadataList) runtime.Object {
					l.ResourceVersion = "abc"
					return l
				})
				return hostileHooks{list: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
					heal()
					return list(ctx, opts)
				}}
			},
		},
		{
			name: "in the end bookmark of a streaming list",
			hooks: func(srv *fakeServer, heal func()) hostileHooks {
				return hostileHooks{stream: func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
					heal()
					events, err := initialEvents(ctx, srv, "abc")
					if err != nil {
						return nil, err
					}
					return newScriptedWatch(events, true), nil
				}}
			},
		},
		{
			name:        "in a watch event",
			noWatchList: true,
			hooks: func(_ *fakeServer, heal func()) hostileHooks {
				return hostileHooks{watch: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
					heal()
					return newScriptedWatch([]watch.Event{bookmarkEvent("abc", false)}, true), nil
				}}
			},
		},
	} {
		for _, mode := range queueModes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					names := []string{"a", "b"}
					srv := serverWith(t, names...)
					lw := newHostileLW(srv, hostileHooks{})
					lw.noWatchList = tc.noWatchList
					lw.setHooks(tc.hooks(srv, func() { lw.setHooks(hostileHooks{}) }))
					store, ctrl := startInformer(t, lw, mode.inOrder)
					time.Sleep(time.Minute)
					touch(t, srv, "a", "1")
					create(t, srv, "c")
					names = append(names, "c")
					time.Sleep(2 * time.Minute)
					synctest.Wait()
					if !ctrl.HasSynced() {
						t.Fatal("not synced")
					}
					if diff := cmp.Diff(serverContents(t, srv, names), storeContents(store)); diff != "" {
						t.Errorf("store (-want +got):\n%s", diff)
					}
					if n := len(lw.recorded()); n > 20 {
						t.Errorf("%d requests in three minutes, want at most 20", n)
					}
				})
			})
		}
	}
}
