package informer_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

// TestInitialSync fills a namespace with 10,000 ConfigMaps and syncs
// informers over it by plain lists and by a streaming list (watch-list), in
// both pipelines: the store and the handler get every object exactly once,
// as initial-list adds, and the informer then follows the watch.
//
// A plain first list asks for resourceVersion "0" in pages of 500, and the
// watch cache answers it in one response, ignoring the limit. To sync
// through real pages and continue tokens, the "quorum" case fails the
// first list with 410 Gone: the reflector then relists at resourceVersion
// "", which the server paginates.
func TestInitialSync(t *testing.T) {
	const n = 10_000
	cluster := env.Cluster(t)
	client := cluster.Client()
	ns := cluster.CreateNamespace(t)
	start := time.Now()
	createConfigMaps(t, client, ns, n, 0)
	t.Logf("created %d ConfigMaps in %v", n, time.Since(start).Round(time.Millisecond))

	for _, list := range []struct {
		name      string
		paginated bool
		// quorum fails the first list with 410, forcing a relist at "".
		quorum bool
	}{
		{name: "list-rv0", paginated: true},
		{name: "list-quorum", paginated: true, quorum: true},
		{name: "watch-list"},
	} {
		for _, p := range pipelines {
			t.Run(list.name+"/"+p.name, func(t *testing.T) {
				ctx := testContext(t)
				want := serverState(t, client, ns, metav1.ListOptions{})
				rec := newRecordingListWatch(configMapListWatch(client, ns, nil))
				var lw cache.ListerWatcher = rec
				if list.paginated {
					lw = paginatedOnly{rec}
				}
				if list.quorum {
					rec.failNextList(apierrors.NewResourceExpired("injected by the test: relist at \"\""))
				}
				informer := cache.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{InOrder: p.inOrder})
				handler := newRecorder()
				reg, err := informer.AddEventHandler(handler)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				startInformer(t, ctx, informer)
				waitForSync(t, ctx, informer)
				t.Logf("informer synced %d objects in %v", len(want), time.Since(start).Round(time.Millisecond))
				if diff := cmp.Diff(want, storeState(informer.GetStore())); diff != "" {
					t.Errorf("store at sync (-want +got):\n%s", diff)
				}
				waitUntil(t, "handler synced", reg.HasSynced)
				events, state := handler.snapshot()
				if diff := cmp.Diff(want, state); diff != "" {
					t.Errorf("handler state at sync (-want +got):\n%s", diff)
				}
				if len(events) != len(want) {
					t.Errorf("handler got %d notifications, want %d", len(events), len(want))
				}
				for _, e := range events {
					if e.Type != "add" || !e.Initial {
						t.Errorf("handler got %+v before any write, want only initial-list adds", e)
						break
					}
				}

				r := rec.record()
				streamed := 0
				for _, w := range r.watches {
					if w.SendInitialEvents != nil && *w.SendInitialEvents {
						streamed++
					}
				}
				if list.paginated {
					if streamed != 0 || len(r.lists) == 0 {
						t.Errorf("%d streaming lists and %d lists, want only lists", streamed, len(r.lists))
					}
					for _, l := range r.lists {
						if l.Limit != 500 {
							t.Errorf("list with limit %d, want pages of 500", l.Limit)
						}
					}
					t.Logf("list requests: %d, items per response: %v", len(r.lists), r.pages)
					continued := 0
					for _, l := range r.lists {
						if l.Continue != "" {
							continued++
						}
					}
					if wantPages := (len(want) + 499) / 500; list.quorum && continued != wantPages-1 {
						t.Errorf("%d lists with a continue token, want %d (%d objects in pages of 500)", continued, wantPages-1, len(want))
					}
				} else if streamed != 1 || len(r.lists) != 0 {
					t.Errorf("%d streaming lists and %d lists, want one streaming list", streamed, len(r.lists))
				}

				// The informer goes on watching from where the list ended.
				name := fmt.Sprintf("after-sync-%d", time.Now().UnixNano())
				cm := create(t, client, ns, name, nil)
				handler.waitForEvent(t, "add of "+name, func(e event) bool {
					return e.Type == "add" && e.Name == name && e.RV == cm.ResourceVersion && !e.Initial
				})
			})
		}
	}
}
