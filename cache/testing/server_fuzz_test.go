package framework_test

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache/internal/shard"
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

// fuzzedRequest is a list or watch request built from fuzz input.
type fuzzedRequest struct {
	namespace string
	opts      metav1.ListOptions
	watch     bool
}

// newFuzzedRequest builds a request: flags chooses a watch (bit 0),
// sendInitialEvents unset, true or false (bits 1-2), bookmarks (bit 3) and
// the namespace ns1 (bit 4); timeout 0 means none.
func newFuzzedRequest(rv, match string, limit int64, cont, labelSel, fieldSel, shardSel string, flags byte, timeout int64) fuzzedRequest {
	r := fuzzedRequest{watch: flags&1 == 1, opts: metav1.ListOptions{
		ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatch(match), Limit: limit, Continue: cont,
		LabelSelector: labelSel, FieldSelector: fieldSel, ShardSelector: shardSel, AllowWatchBookmarks: flags&8 != 0,
	}}
	switch flags >> 1 & 3 {
	case 1:
		r.opts.SendInitialEvents = ptr(true)
	case 2:
		r.opts.SendInitialEvents = ptr(false)
	}
	if flags&16 != 0 {
		r.namespace = "ns1"
	}
	if timeout != 0 {
		r.opts.TimeoutSeconds = ptr(timeout)
	}
	return r
}

// FuzzServerListOptions sends lists and watches with arbitrary options to
// a server holding a short history, and checks that it never panics, that
// it refuses what it refuses with an API status of the apiserver's codes,
// and that what it returns is what the options select: objects of the state
// at the list's resourceVersion, in the namespace, matching the label,
// field and shard selectors, within the limit, and all of them when the
// list is complete.
func FuzzServerListOptions(f *testing.F) {
	f.Add("", "", int64(0), "", "", "", "", byte(0), int64(0))
	f.Add("0", "", int64(2), "", "l=x", "metadata.name=a", "", byte(16), int64(0))
	f.Add("3", "Exact", int64(1), "", "l in (x,y)", "spec.color!=y", "", byte(0), int64(0))
	f.Add("5", "NotOlderThan", int64(0), "", "!l", "metadata.namespace=ns2", "", byte(0), int64(0))
	f.Add("", "", int64(0), "", "", "", "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", byte(0), int64(0))
	f.Add("", "", int64(2), "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NCwic3RhcnQiOiJuczEvYlx1MDAwMCJ9", "", "", "", byte(0), int64(0))
	f.Add("", "NotOlderThan", int64(0), "", "", "", "", byte(1|2|8), int64(30))
	f.Add("4", "", int64(0), "", "l=x", "", "", byte(1|8), int64(0))
	f.Add("99", "", int64(0), "", "", "", "", byte(1|2|8), int64(0))
	f.Add("abc", "Exact", int64(-1), "x", "l=", "a=b", "shardRange(", byte(1|4), int64(-5))
	f.Fuzz(func(t *testing.T, rv, match string, limit int64, cont, labelSel, fieldSel, shardSel string, flags byte, timeout int64) {
		req := newFuzzedRequest(rv, match, limit, cont, labelSel, fieldSel, shardSel, flags, timeout)
		synctest.Test(t, func(t *testing.T) {
			srv := framework.NewServer(framework.Options[*pom]{
				Fields: map[string]func(*pom) string{"spec.color": func(o *pom) string { return o.Labels["l"] }},
			})
			defer srv.Close()
			snapshots := writeFuzzHistory(t, srv)
			var lw listerWatcher = srv
			if req.namespace != "" {
				lw = srv.Namespace(req.namespace)
			}
			if req.watch {
				checkFuzzedWatch(t, lw, req)
			} else {
				checkFuzzedList(t, lw, req, snapshots)
			}
		})
	})
}

// writeFuzzHistory writes a few objects, updates and deletes, and returns
// the state after each write by resourceVersion (the state of "1" is
// empty).
func writeFuzzHistory(t *testing.T, srv *framework.Server[*pom]) map[string]map[string]*pom {
	snapshots := map[string]map[string]*pom{srv.ResourceVersion(): {}}
	state := map[string]*pom{}
	record := func(o *pom, deleted bool) {
		if deleted {
			delete(state, keyOf(t, o))
		} else {
			state[keyOf(t, o)] = o
		}
		snapshots[o.ResourceVersion] = maps.Clone(state)
	}
	for _, o := range []*pom{
		object("ns1", "a", map[string]string{"l": "x"}), object("ns1", "b", map[string]string{"l": "y"}),
		object("ns2", "a", map[string]string{"l": "x"}), object("ns2", "c", nil), object("ns1", "c", map[string]string{"l": "z"}),
	} {
		record(mustCreate(t, srv, o), false)
	}
	record(mustUpdate(t, srv, object("ns1", "b", map[string]string{"l": "x"})), false)
	record(mustDelete(t, srv, "ns2", "a"), true)
	record(mustUpdate(t, srv, object("ns2", "c", map[string]string{"l": "y"})), false)
	return snapshots
}

// checkFuzzedError checks that a refusal is an API status with one of the
// codes the apiserver answers requests with.
func checkFuzzedError(t *testing.T, what string, err error) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("%s: %v is not an API status", what, err)
	}
	switch code := status.Status().Code; code {
	case 400, 410, 422, 500, 504:
	default:
		t.Fatalf("%s: %v has code %d", what, err, code)
	}
}

// selects reports whether the request selects o: namespace, label, field
// and shard selectors, parsed independently of the server. The selectors
// must parse, since the server accepted the request.
func (r fuzzedRequest) selects(t *testing.T, o *pom) bool {
	t.Helper()
	if r.namespace != "" && o.Namespace != r.namespace {
		return false
	}
	ls, err := labels.Parse(r.opts.LabelSelector)
	if err != nil {
		t.Fatalf("the server accepted label selector %q: %v", r.opts.LabelSelector, err)
	}
	fs, err := fields.ParseSelector(r.opts.FieldSelector)
	if err != nil {
		t.Fatalf("the server accepted field selector %q: %v", r.opts.FieldSelector, err)
	}
	if !ls.Matches(labels.Set(o.Labels)) || !fs.Matches(fields.Set{"metadata.name": o.Name, "metadata.namespace": o.Namespace, "spec.color": o.Labels["l"]}) {
		return false
	}
	if r.opts.ShardSelector == "" {
		return true
	}
	ss, err := shard.Parse(r.opts.ShardSelector)
	if err != nil {
		t.Fatalf("the server accepted shard selector %q: %v", r.opts.ShardSelector, err)
	}
	ok, err := ss.Matches(o)
	return err == nil && ok
}

func checkFuzzedList(t *testing.T, lw listerWatcher, req fuzzedRequest, snapshots map[string]map[string]*pom) {
	obj, err := lw.ListWithContext(t.Context(), req.opts)
	if err != nil {
		checkFuzzedError(t, "list", err)
		return
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		t.Fatalf("extract list %T: %v", obj, err)
	}
	listMeta, err := meta.ListAccessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	state, ok := snapshots[listMeta.GetResourceVersion()]
	if !ok {
		t.Fatalf("list at resourceVersion %q, which the server never had", listMeta.GetResourceVersion())
	}
	if req.opts.Limit > 0 && req.opts.ResourceVersion != "0" && int64(len(items)) > req.opts.Limit {
		t.Fatalf("%d items with limit %d", len(items), req.opts.Limit)
	}
	got := map[string]bool{}
	for _, item := range items {
		o := item.(*pom)
		key := keyOf(t, o)
		if got[key] {
			t.Fatalf("%s listed twice", key)
		}
		got[key] = true
		if was, ok := state[key]; !ok || was.ResourceVersion != o.ResourceVersion {
			t.Fatalf("listed %s@%s, not in the state at %s", key, o.ResourceVersion, listMeta.GetResourceVersion())
		}
		if !req.selects(t, o) {
			t.Fatalf("listed %s %v, which %+v does not select", key, o.Labels, req.opts)
		}
	}
	if req.opts.Continue != "" || listMeta.GetContinue() != "" {
		return // one page of several
	}
	for key, o := range state {
		if req.selects(t, o) && !got[key] {
			t.Fatalf("complete list at %s lacks %s, which %+v selects", listMeta.GetResourceVersion(), key, req.opts)
		}
	}
}

func checkFuzzedWatch(t *testing.T, lw listerWatcher, req fuzzedRequest) {
	w, err := lw.WatchWithContext(t.Context(), req.opts)
	if err != nil {
		checkFuzzedError(t, "watch", err)
		return
	}
	defer w.Stop()
	for range 20 {
		synctest.Wait()
		var e watch.Event
		select {
		case e = <-w.ResultChan():
		default:
			return // nothing more now
		}
		switch e.Type {
		case "":
			return // closed
		case watch.Error:
			status, ok := e.Object.(*metav1.Status)
			if !ok {
				t.Fatalf("ERROR event with a %T", e.Object)
			}
			checkFuzzedError(t, "watch stream", &apierrors.StatusError{ErrStatus: *status})
		case watch.Bookmark:
			if !req.opts.AllowWatchBookmarks {
				t.Fatalf("bookmark on a watch that does not allow them")
			}
		default:
			if o := e.Object.(*pom); !req.selects(t, o) {
				t.Fatalf("%s event for %s %v, which %+v does not select", e.Type, keyOf(t, o), o.Labels, req.opts)
			}
		}
	}
}
