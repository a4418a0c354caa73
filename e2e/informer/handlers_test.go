package informer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

// TestHandlers checks the handler registrations of a SharedIndexInformer
// against the real server: a handler added after the sync gets the current
// objects as initial-list adds and then the live changes, a removed handler
// gets nothing more, and a handler with a resync period gets every object
// again and again while a handler without one does not.
func TestHandlers(t *testing.T) {
	cluster := env.Cluster(t)
	client := cluster.Client()
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			ctx := testContext(t)
			ns := cluster.CreateNamespace(t)
			for i := range 5 {
				create(t, client, ns, fmt.Sprintf("cm-%d", i), nil)
			}
			// The informer checks for resyncs every second; only the
			// handler that asks for it gets them.
			informer := cache.NewSharedIndexInformerWithOptions(configMapListWatch(client, ns, nil), &corev1.ConfigMap{},
				cache.SharedIndexInformerOptions{ResyncPeriod: time.Second, InOrder: p.inOrder})
			noResync := time.Duration(0)
			first, resyncing, removed := newRecorder(), newRecorder(), newRecorder()
			if _, err := informer.AddEventHandlerWithOptions(first, cache.HandlerOptions{ResyncPeriod: &noResync}); err != nil {
				t.Fatal(err)
			}
			if _, err := informer.AddEventHandler(resyncing); err != nil {
				t.Fatal(err)
			}
			removedReg, err := informer.AddEventHandlerWithOptions(removed, cache.HandlerOptions{ResyncPeriod: &noResync})
			if err != nil {
				t.Fatal(err)
			}
			startInformer(t, ctx, informer)
			waitForSync(t, ctx, informer)
			want := serverState(t, client, ns, metav1.ListOptions{})

			late := newRecorder()
			lateReg, err := informer.AddEventHandlerWithOptions(late, cache.HandlerOptions{ResyncPeriod: &noResync})
			if err != nil {
				t.Fatal(err)
			}
			waitUntil(t, "late handler synced", lateReg.HasSynced)
			events, state := late.snapshot()
			if diff := cmp.Diff(want, state); diff != "" {
				t.Errorf("late handler at sync (-want +got):\n%s", diff)
			}
			for _, e := range events {
				if e.Type != "add" || !e.Initial {
					t.Errorf("late handler got %+v, want only initial-list adds", e)
				}
			}

			if err := informer.RemoveEventHandler(removedReg); err != nil {
				t.Fatal(err)
			}
			removedEvents, _ := removed.snapshot()
			cm := create(t, client, ns, "after-remove", nil)
			isNew := func(e event) bool { return e.Name == cm.Name && e.RV == cm.ResourceVersion }
			first.waitForEvent(t, "add of "+cm.Name+" to the first handler", isNew)
			late.waitForEvent(t, "add of "+cm.Name+" to the late handler", isNew)
			if got, _ := removed.snapshot(); len(got) != len(removedEvents) {
				t.Errorf("the removed handler got %v after its removal", got[len(removedEvents):])
			}

			// Two rounds of resync for every object.
			want = serverState(t, client, ns, metav1.ListOptions{})
			waitUntil(t, "two resyncs of every object", func() bool {
				events, _ := resyncing.snapshot()
				rounds := map[string]int{}
				for _, e := range events {
					if e.Type == "update" && e.Resync && e.RV == want[e.Name] {
						rounds[e.Name]++
					}
				}
				for name := range want {
					if rounds[name] < 2 {
						return false
					}
				}
				return true
			})
			for name, r := range map[string]*recorder{"first": first, "late": late} {
				events, _ := r.snapshot()
				for _, e := range events {
					if e.Resync {
						t.Errorf("%s handler without a resync period got a resync: %+v", name, e)
						break
					}
				}
			}
		})
	}
}

// TestWaitForCacheSync starts an informer while kube-apiserver is down:
// WaitForCacheSync returns false once its stop channel closes, and true
// after the server is back and the informer has synced.
func TestWaitForCacheSync(t *testing.T) {
	cluster := env.Cluster(t)
	client := cluster.Client()
	ctx := testContext(t)
	ns := cluster.CreateNamespace(t)
	create(t, client, ns, "a", nil)

	rec := newRecordingListWatch(configMapListWatch(client, ns, nil))
	informer := cache.NewSharedIndexInformer(rec, &corev1.ConfigMap{}, 0, cache.Indexers{})
	reg, err := informer.AddEventHandler(newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	cluster.StopAPIServer()
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			// Leave the cluster usable for the next test.
			if err := cluster.StartAPIServer(t.Context()); err != nil {
				t.Error(err)
			}
		}
	})
	startInformer(t, ctx, informer)
	waitUntil(t, "a failed list or watch", func() bool { return len(rec.record().errorEvents) > 0 })

	stop := make(chan struct{})
	close(stop)
	if cache.WaitForCacheSync(stop, informer.HasSynced, reg.HasSynced) {
		t.Error("WaitForCacheSync with a closed stop channel = true while the server is down, want false")
	}
	if informer.HasSynced() {
		t.Error("informer synced while the server is down")
	}

	if err := cluster.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	restarted = true
	waitCtx, cancel := context.WithTimeout(ctx, convergeTimeout)
	defer cancel()
	if !cache.WaitForCacheSync(waitCtx.Done(), informer.HasSynced, reg.HasSynced) {
		t.Fatalf("WaitForCacheSync = false: not synced within %v after the server came back", convergeTimeout)
	}
	if diff := cmp.Diff(serverState(t, client, ns, metav1.ListOptions{}), storeState(informer.GetStore())); diff != "" {
		t.Errorf("store (-want +got):\n%s", diff)
	}
}
