package informer_test

import (
	"cmp"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

// TestSelectorInformers runs a label-selector informer and a field-selector
// informer over one namespace. Objects that come to match a selector arrive
// as adds and those that stop matching leave as deletes, writes to objects
// outside the selector never reach the handler, and each store ends up
// equal to a list with the same selector.
func TestSelectorInformers(t *testing.T) {
	cluster := env.Cluster(t)
	client := cluster.Client()
	team := func(name string) map[string]string { return map[string]string{"team": name} }
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			ctx := testContext(t)
			ns := cluster.CreateNamespace(t)
			create(t, client, ns, "a1", team("a"))
			create(t, client, ns, "a2", team("a"))
			create(t, client, ns, "b1", team("b"))
			create(t, client, ns, "other", nil)

			selectors := []struct {
				name string
				opts metav1.ListOptions
				// want are the notifications after the sync, sorted.
				want []event
			}{
				{
					name: "label",
					opts: metav1.ListOptions{LabelSelector: "team=a"},
					want: []event{{Type: "add", Name: "a3"}, {Type: "add", Name: "b1"}, {Type: "delete", Name: "a1"}, {Type: "delete", Name: "a2"}},
				},
				{
					name: "field",
					opts: metav1.ListOptions{FieldSelector: "metadata.name=b1"},
					want: []event{{Type: "update", Name: "b1"}},
				},
			}
			informers := make([]cache.SharedIndexInformer, len(selectors))
			handlers := make([]*recorder, len(selectors))
			for i, sel := range selectors {
				lw := configMapListWatch(client, ns, func(opts *metav1.ListOptions) {
					opts.LabelSelector = sel.opts.LabelSelector
					opts.FieldSelector = sel.opts.FieldSelector
				})
				informers[i] = cache.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{InOrder: p.inOrder})
				handlers[i] = newRecorder()
				if _, err := informers[i].AddEventHandler(handlers[i]); err != nil {
					t.Fatal(err)
				}
				startInformer(t, ctx, informers[i])
			}
			synced := make([]int, len(selectors))
			for i, sel := range selectors {
				waitForSync(t, ctx, informers[i])
				want := serverState(t, client, ns, sel.opts)
				waitForState(t, sel.name+" store at sync", want, func() map[string]string { return storeState(informers[i].GetStore()) })
				waitForState(t, sel.name+" handler at sync", want, handlers[i].getState)
				events, _ := handlers[i].snapshot()
				synced[i] = len(events)
			}

			update(t, client, ns, "b1", team("a"))    // enters team=a
			update(t, client, ns, "a1", team("b"))    // leaves team=a
			remove(t, client, ns, "a2")               // deleted inside team=a
			create(t, client, ns, "a3", team("a"))    // created inside team=a
			create(t, client, ns, "b2", team("b"))    // outside both selectors
			update(t, client, ns, "other", team("c")) // outside both selectors

			for i, sel := range selectors {
				want := serverState(t, client, ns, sel.opts)
				waitForState(t, sel.name+" store", want, func() map[string]string { return storeState(informers[i].GetStore()) })
				waitForState(t, sel.name+" handler", want, handlers[i].getState)
				events, _ := handlers[i].snapshot()
				var got []event
				for _, e := range events[synced[i]:] {
					got = append(got, event{Type: e.Type, Name: e.Name})
				}
				slices.SortFunc(got, func(x, y event) int { return cmp.Or(cmp.Compare(x.Type, y.Type), cmp.Compare(x.Name, y.Name)) })
				wantEvents := slices.Clone(sel.want)
				slices.SortFunc(wantEvents, func(x, y event) int { return cmp.Or(cmp.Compare(x.Type, y.Type), cmp.Compare(x.Name, y.Name)) })
				if diff := gocmp.Diff(wantEvents, got); diff != "" {
					t.Errorf("%s selector: notifications after sync (-want +got):\n%s", sel.name, diff)
				}
			}
		})
	}
}
