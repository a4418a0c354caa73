package framework_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	framework "github.com/informer-go/informer/cache/testing"
)

// FuzzServerAgainstModel applies random writes to a server and to a naive
// model (a map per resourceVersion), then checks exact paginated lists at
// every resourceVersion, selector lists, and a watch replaying the whole
// history against the model.
func FuzzServerAgainstModel(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 1, 0, 5, 2, 1, 3, 0, 4, 2, 0})
	f.Add([]byte{0, 2, 0, 3, 1, 2, 7, 2, 2, 0, 2, 2, 3, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 400 {
			ops = ops[:400]
		}
		srv := framework.NewServer(framework.Options[*pom]{WatchBufferSize: 1000})
		defer srv.Close()

		type state = map[string]string // key -> resourceVersion + "/" + label
		model := state{}
		rvs := []string{srv.ResourceVersion()}
		snapshots := map[string]state{rvs[0]: {}}
		keys := []struct{ ns, name string }{{"ns1", "a"}, {"ns1", "b"}, {"ns1", "c"}, {"ns2", "a"}, {"ns2", "b"}, {"", "c"}}
		labelOf := func(b byte) string { return []string{"x", "y", ""}[b%3] }
		labels := func(l string) map[string]string {
			if l == "" {
				return nil
			}
			return map[string]string{"l": l}
		}

		for i := 0; i+2 < len(ops); i += 3 {
			k := keys[int(ops[i+1])%len(keys)]
			key := k.name
			if k.ns != "" {
				key = k.ns + "/" + k.name
			}
			label := labelOf(ops[i+2])
			var out *pom
			var err error
			switch ops[i] % 3 {
			case 0:
				out, err = srv.Create(object(k.ns, k.name, labels(label)))
			case 1:
				out, err = srv.Update(object(k.ns, k.name, labels(label)))
			case 2:
				out, err = srv.Delete(k.ns, k.name)
			}
			_, exists := model[key]
			switch {
			case ops[i]%3 == 0 && exists, ops[i]%3 != 0 && !exists:
				if err == nil {
					t.Fatalf("op %d on %s succeeded, want an error", ops[i]%3, key)
				}
				continue
			case err != nil:
				t.Fatalf("op %d on %s: %v", ops[i]%3, key, err)
			}
			if ops[i]%3 == 1 && model[key] == out.ResourceVersion+"/"+label {
				continue // a no-op update keeps the resourceVersion
			}
			if ops[i]%3 == 2 {
				delete(model, key)
			} else {
				model[key] = out.ResourceVersion + "/" + label
			}
			rvs = append(rvs, out.ResourceVersion)
			snapshots[out.ResourceVersion] = maps.Clone(model)
		}

		listAll := func(opts metav1.ListOptions) (state, string) {
			got := state{}
			var rv string
			for {
				obj, err := srv.ListWithContext(t.Context(), opts)
				if err != nil {
					t.Fatalf("list %+v: %v", opts, err)
				}
				items, _ := meta.ExtractList(obj)
				listMeta, _ := meta.ListAccessor(obj)
				if rv == "" {
					rv = listMeta.GetResourceVersion()
				} else if rv != listMeta.GetResourceVersion() {
					t.Fatalf("page at %s, first page at %s", listMeta.GetResourceVersion(), rv)
				}
				if opts.Limit > 0 && int64(len(items)) > opts.Limit {
					t.Fatalf("page of %d items with limit %d", len(items), opts.Limit)
				}
				for _, item := range items {
					o := item.(*pom)
					key := keyOf(t, o)
					if _, dup := got[key]; dup {
						t.Fatalf("%s listed twice", key)
					}
					got[key] = o.ResourceVersion + "/" + o.Labels["l"]
				}
				if listMeta.GetContinue() == "" {
					return got, rv
				}
				opts = metav1.ListOptions{Limit: opts.Limit, LabelSelector: opts.LabelSelector, Continue: listMeta.GetContinue()}
			}
		}
		for i, rv := range rvs {
			limit := int64(i%4) + 1
			got, listRV := listAll(metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact, Limit: limit})
			if diff := cmp.Diff(snapshots[rv], got); diff != "" || listRV != rv {
				t.Fatalf("exact list at %s (limit %d) at %s (-want +got):\n%s", rv, limit, listRV, diff)
			}
		}
		wantX := state{}
		for k, v := range model {
			if strings.HasSuffix(v, "/x") {
				wantX[k] = v
			}
		}
		if got, _ := listAll(metav1.ListOptions{LabelSelector: "l=x", Limit: 2}); !maps.Equal(wantX, got) {
			t.Fatalf("list l=x: want %v, got %v", wantX, got)
		}

		// Replaying the history from the start rebuilds the current state.
		w, err := srv.WatchWithContext(t.Context(), metav1.ListOptions{ResourceVersion: rvs[0]})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		replayed := state{}
		for _, rv := range rvs[1:] {
			e := <-w.ResultChan()
			o, ok := e.Object.(*pom)
			if !ok || o.ResourceVersion != rv {
				t.Fatalf("event %s %#v, want resourceVersion %s", e.Type, e.Object, rv)
			}
			if e.Type == watch.Deleted {
				delete(replayed, keyOf(t, o))
			} else {
				replayed[keyOf(t, o)] = o.ResourceVersion + "/" + o.Labels["l"]
			}
		}
		if diff := cmp.Diff(model, replayed); diff != "" {
			t.Fatalf("replayed state (-want +got):\n%s", diff)
		}
	})
}
