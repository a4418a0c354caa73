package cache

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
