package informer_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache"
)

// change is a notification or a watch event reduced to what the order test
// compares.
type change struct {
	Type string
	Name string
	RV   string
}

// TestEventOrder writes a burst of creates, updates and deletes (objects
// created and deleted at once, deleted and created again) and compares what
// the handler hears with a plain watch opened at the informer's
// resourceVersion. The in-order pipeline delivers exactly the watch's
// events, in the watch's order; the DeltaFIFO pipeline delivers each
// object's events in order, but may interleave objects differently.
func TestEventOrder(t *testing.T) {
	cluster := env.Cluster(t)
	client := cluster.Client()
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			ctx := testContext(t)
			ns := cluster.CreateNamespace(t)
			var names []string
			for i := range 10 {
				names = append(names, create(t, client, ns, fmt.Sprintf("cm-%02d", i), nil).Name)
			}
			informer := cache.NewSharedIndexInformerWithOptions(configMapListWatch(client, ns, nil), &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{InOrder: p.inOrder})
			handler := newRecorder()
			if _, err := informer.AddEventHandler(handler); err != nil {
				t.Fatal(err)
			}
			startInformer(t, ctx, informer)
			waitForSync(t, ctx, informer)
			initial, _ := handler.snapshot()

			// Nothing was written since the informer's list: a watch from its
			// resourceVersion sees what the informer's watch sees.
			raw, err := client.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: informer.LastSyncResourceVersion()})
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Stop()

			rng := rand.New(rand.NewPCG(1, 2))
			next := 0
			for range 100 {
				switch op := rng.IntN(10); {
				case op < 2 || len(names) == 0:
					name := fmt.Sprintf("new-%03d", next)
					next++
					create(t, client, ns, name, nil)
					if rng.IntN(3) == 0 {
						remove(t, client, ns, name) // created and deleted at once
						break
					}
					names = append(names, name)
				case op < 4:
					i := rng.IntN(len(names))
					remove(t, client, ns, names[i])
					if rng.IntN(2) == 0 {
						create(t, client, ns, names[i], nil) // deleted and created again
						break
					}
					names = slices.Delete(names, i, i+1)
				default:
					update(t, client, ns, names[rng.IntN(len(names))], map[string]string{"n": fmt.Sprint(rng.IntN(1000))})
				}
			}
			sentinel := create(t, client, ns, "sentinel", nil)

			var want []change
			for done := false; !done; {
				select {
				case e, ok := <-raw.ResultChan():
					if !ok {
						t.Fatal("the plain watch closed early")
					}
					c := watchChange(t, e)
					want = append(want, c)
					done = c.Name == sentinel.Name
				case <-time.After(convergeTimeout):
					t.Fatalf("the plain watch saw no sentinel within %v", convergeTimeout)
				}
			}
			handler.waitForEvent(t, "add of the sentinel", func(e event) bool { return e.Name == sentinel.Name })
			events, _ := handler.snapshot()
			var got []change
			for _, e := range events[len(initial):] {
				got = append(got, change{Type: e.Type, Name: e.Name, RV: e.RV})
			}
			if p.inOrder {
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("notifications differ from the watch (-want +got):\n%s", diff)
				}
			} else if diff := cmp.Diff(byObject(want), byObject(got)); diff != "" {
				t.Errorf("notifications of each object differ from the watch (-want +got):\n%s", diff)
			}
			waitForState(t, "store", serverState(t, client, ns, metav1.ListOptions{}), func() map[string]string { return storeState(informer.GetStore()) })
		})
	}
}

func watchChange(t *testing.T, e watch.Event) change {
	t.Helper()
	types := map[watch.EventType]string{watch.Added: "add", watch.Modified: "update", watch.Deleted: "delete"}
	typ, ok := types[e.Type]
	if !ok {
		t.Fatalf("plain watch: unexpected %s event: %v", e.Type, e.Object)
	}
	m, err := meta.Accessor(e.Object)
	if err != nil {
		t.Fatalf("plain watch: %T without metadata: %v", e.Object, err)
	}
	return change{Type: typ, Name: m.GetName(), RV: m.GetResourceVersion()}
}

// byObject groups changes by object name, keeping their order.
func byObject(changes []change) map[string][]change {
	out := map[string][]change{}
	for _, c := range changes {
		out[c.Name] = append(out[c.Name], c)
	}
	return out
}
