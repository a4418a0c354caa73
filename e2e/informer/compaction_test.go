package informer_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

// TestCompactionForcesRelist holds an informer's watch while the namespace
// changes, etcd compacts its history and kube-apiserver restarts (so that
// its watch cache forgets the old resourceVersions too). The informer's
// watch then resumes from a compacted resourceVersion, gets 410 Gone, and
// the informer relists: its store and handler end up equal to the server,
// with the changes it missed delivered as an add, an update and a delete.
func TestCompactionForcesRelist(t *testing.T) {
	cluster := env.Cluster(t)
	client := cluster.Client()
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			ctx := testContext(t)
			ns := cluster.CreateNamespace(t)
			for _, name := range []string{"keep", "upd", "del"} {
				create(t, client, ns, name, nil)
			}
			rec := newRecordingListWatch(configMapListWatch(client, ns, nil))
			informer := cache.NewSharedIndexInformerWithOptions(rec, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{InOrder: p.inOrder})
			handler := newRecorder()
			if _, err := informer.AddEventHandler(handler); err != nil {
				t.Fatal(err)
			}
			startInformer(t, ctx, informer)
			waitForSync(t, ctx, informer)
			// An event on the current watch, so that ending it is a normal
			// end of a watch and not a suspiciously short one.
			tick := create(t, client, ns, "tick", nil)
			handler.waitForEvent(t, "add of tick", func(e event) bool { return e.Name == "tick" && e.RV == tick.ResourceVersion })

			rec.holdWatches()
			rec.stopCurrentWatch()
			waitUntil(t, "the reflector's next watch waits at the gate", func() bool { return rec.gated.Load() > 0 })
			created := create(t, client, ns, "new", nil)
			updated := update(t, client, ns, "upd", map[string]string{"updated": "true"})
			remove(t, client, ns, "del")
			rev, err := cluster.CompactEtcd(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := cluster.RestartAPIServer(ctx); err != nil {
				t.Fatal(err)
			}
			t.Logf("compacted etcd at revision %d; the held watch resumes from %s", rev, tick.ResourceVersion)
			rec.releaseWatches()

			want := serverState(t, client, ns, metav1.ListOptions{})
			waitForState(t, "store", want, func() map[string]string { return storeState(informer.GetStore()) })
			waitForState(t, "handler", want, handler.getState)

			expired := false
			for _, err := range rec.record().errorEvents {
				expired = expired || apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
			}
			if !expired {
				t.Errorf("the reflector's watches saw errors %v, want a 410", rec.record().errorEvents)
			}
			handler.waitForEvent(t, "add of new", func(e event) bool {
				return e.Type == "add" && e.Name == "new" && e.RV == created.ResourceVersion && !e.Initial
			})
			handler.waitForEvent(t, "update of upd", func(e event) bool {
				return e.Type == "update" && e.Name == "upd" && e.RV == updated.ResourceVersion
			})
			handler.waitForEvent(t, "delete of del", func(e event) bool { return e.Type == "delete" && e.Name == "del" })
		})
	}
}
