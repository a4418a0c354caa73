package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	testingclock "k8s.io/utils/clock/testing"

	framework "github.com/informer-go/informer/cache/testing"
)

func TestListResourceVersionSemantics(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	a := mustCreate(t, srv, object("ns", "a", nil))
	b := mustCreate(t, srv, object("ns", "b", nil))
	mustUpdate(t, srv, object("ns", "a", map[string]string{"l": "1"}))
	mustDelete(t, srv, "ns", "b")
	c := mustCreate(t, srv, object("ns", "c", nil))
	current := c.ResourceVersion

	tests := []struct {
		name string
		opts metav1.ListOptions
		want page
	}{
		{"most recent", metav1.ListOptions{}, page{Names: []string{"ns/a", "ns/c"}, RV: current}},
		{"any", metav1.ListOptions{ResourceVersion: "0"}, page{Names: []string{"ns/a", "ns/c"}, RV: current}},
		{"any not older than", metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			page{Names: []string{"ns/a", "ns/c"}, RV: current}},
		{"not older than an old one", metav1.ListOptions{ResourceVersion: a.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			page{Names: []string{"ns/a", "ns/c"}, RV: current}},
		{"legacy without limit is not older than", metav1.ListOptions{ResourceVersion: a.ResourceVersion},
			page{Names: []string{"ns/a", "ns/c"}, RV: current}},
		{"exact first", metav1.ListOptions{ResourceVersion: a.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact},
			page{Names: []string{"ns/a"}, RV: a.ResourceVersion}},
		{"exact second", metav1.ListOptions{ResourceVersion: b.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact},
			page{Names: []string{"ns/a", "ns/b"}, RV: b.ResourceVersion}},
		{"legacy with limit is exact", metav1.ListOptions{ResourceVersion: b.ResourceVersion, Limit: 10},
			page{Names: []string{"ns/a", "ns/b"}, RV: b.ResourceVersion}},
		{"exact current", metav1.ListOptions{ResourceVersion: current, ResourceVersionMatch: metav1.ResourceVersionMatchExact},
			page{Names: []string{"ns/a", "ns/c"}, RV: current}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := mustList(t, srv, tc.opts)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
		})
	}

	// The exact state carries the objects as they were.
	obj, err := srv.ListWithContext(t.Context(), metav1.ListOptions{ResourceVersion: b.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatal(err)
	}
	if items := obj.(*metav1.PartialObjectMetadataList).Items; items[0].ResourceVersion != a.ResourceVersion || items[0].Labels != nil {
		t.Errorf("exact list gave %+v, want a as created", items[0].ObjectMeta)
	}
}

func TestListValidation(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	mustCreate(t, srv, object("ns", "a", nil))
	mustCreate(t, srv, object("ns", "b", nil))
	first, token := mustList(t, srv, metav1.ListOptions{Limit: 1})
	mustCreate(t, srv, object("ns", "c", nil))
	if !first.Continue {
		t.Fatalf("no continue token in %+v", first)
	}

	tests := []struct {
		name string
		opts metav1.ListOptions
		is   func(error) bool
	}{
		{"match without resourceVersion", metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, apierrors.IsInvalid},
		{"exact 0", metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, apierrors.IsInvalid},
		{"unknown match", metav1.ListOptions{ResourceVersion: "1", ResourceVersionMatch: "Newest"}, apierrors.IsInvalid},
		{"match with continue", metav1.ListOptions{Continue: token, ResourceVersion: "1", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, apierrors.IsInvalid},
		{"sendInitialEvents", metav1.ListOptions{SendInitialEvents: ptr(true)}, apierrors.IsInvalid},
		{"malformed resourceVersion", metav1.ListOptions{ResourceVersion: "abc"}, apierrors.IsInvalid},
		{"continue with resourceVersion", metav1.ListOptions{Continue: token, ResourceVersion: "1"}, apierrors.IsBadRequest},
		{"malformed continue", metav1.ListOptions{Continue: "!!"}, apierrors.IsBadRequest},
		{"malformed label selector", metav1.ListOptions{LabelSelector: "a in (b"}, apierrors.IsBadRequest},
		{"malformed field selector", metav1.ListOptions{FieldSelector: "metadata.name"}, apierrors.IsBadRequest},
		{"unsupported field", metav1.ListOptions{FieldSelector: "spec.nodeName=n"}, apierrors.IsBadRequest},
		{"watch", metav1.ListOptions{Watch: true}, apierrors.IsBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := srv.ListWithContext(t.Context(), tc.opts)
			if !tc.is(err) {
				t.Errorf("got error %v", err)
			}
		})
	}

	t.Run("continue with resourceVersion 0 is accepted", func(t *testing.T) {
		got, _ := mustList(t, srv, metav1.ListOptions{Continue: token, ResourceVersion: "0"})
		if diff := cmp.Diff(page{Names: []string{"ns/b"}, RV: first.RV}, got); diff != "" {
			t.Errorf("continued page (-want +got):\n%s", diff)
		}
	})
}

func TestListPagination(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		mustCreate(t, srv, object("ns", name, map[string]string{"l": "x"}))
	}
	mustCreate(t, srv, object("other", "a", map[string]string{"l": "x"}))
	ns := srv.Namespace("ns")

	p1, token := mustList(t, ns, metav1.ListOptions{Limit: 2})
	if diff := cmp.Diff(page{Names: []string{"ns/a", "ns/b"}, RV: srv.ResourceVersion(), Continue: true, Remaining: ptr[int64](3)}, p1); diff != "" {
		t.Errorf("first page (-want +got):\n%s", diff)
	}
	// Writes between pages are invisible to the rest of the list.
	mustCreate(t, srv, object("ns", "bb", nil))
	mustDelete(t, srv, "ns", "d")
	mustUpdate(t, srv, object("ns", "c", map[string]string{"l": "changed"}))

	p2, token := mustList(t, ns, metav1.ListOptions{Limit: 2, Continue: token})
	if diff := cmp.Diff(page{Names: []string{"ns/c", "ns/d"}, RV: p1.RV, Continue: true, Remaining: ptr[int64](1)}, p2); diff != "" {
		t.Errorf("second page (-want +got):\n%s", diff)
	}
	p3, _ := mustList(t, ns, metav1.ListOptions{Limit: 2, Continue: token})
	if diff := cmp.Diff(page{Names: []string{"ns/e"}, RV: p1.RV}, p3); diff != "" {
		t.Errorf("last page (-want +got):\n%s", diff)
	}

	t.Run("exact pages", func(t *testing.T) {
		got, token := mustList(t, ns, metav1.ListOptions{Limit: 4, ResourceVersion: p1.RV, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		if diff := cmp.Diff(page{Names: []string{"ns/a", "ns/b", "ns/c", "ns/d"}, RV: p1.RV, Continue: true, Remaining: ptr[int64](1)}, got); diff != "" {
			t.Errorf("exact page (-want +got):\n%s", diff)
		}
		rest, _ := mustList(t, ns, metav1.ListOptions{Continue: token})
		if diff := cmp.Diff(page{Names: []string{"ns/e"}, RV: p1.RV}, rest); diff != "" {
			t.Errorf("rest (-want +got):\n%s", diff)
		}
	})
	t.Run("resourceVersion 0 ignores limit", func(t *testing.T) {
		got, _ := mustList(t, ns, metav1.ListOptions{Limit: 2, ResourceVersion: "0"})
		if diff := cmp.Diff(page{Names: []string{"ns/a", "ns/b", "ns/bb", "ns/c", "ns/e"}, RV: srv.ResourceVersion()}, got); diff != "" {
			t.Errorf("list (-want +got):\n%s", diff)
		}
	})
	t.Run("all namespaces", func(t *testing.T) {
		got, _ := mustList(t, srv, metav1.ListOptions{Limit: 5})
		if diff := cmp.Diff(page{Names: []string{"ns/a", "ns/b", "ns/bb", "ns/c", "ns/e"}, RV: srv.ResourceVersion(), Continue: true, Remaining: ptr[int64](1)}, got); diff != "" {
			t.Errorf("list (-want +got):\n%s", diff)
		}
	})
	t.Run("selector pages have no remaining count", func(t *testing.T) {
		// Like etcd, a page ends after limit matches and a token is given
		// while keys remain, even if none of them matches.
		got, token := mustList(t, ns, metav1.ListOptions{Limit: 2, LabelSelector: "l=x"})
		if diff := cmp.Diff(page{Names: []string{"ns/a", "ns/b"}, RV: srv.ResourceVersion(), Continue: true}, got); diff != "" {
			t.Errorf("first page (-want +got):\n%s", diff)
		}
		got, token = mustList(t, ns, metav1.ListOptions{Limit: 2, LabelSelector: "l=x", Continue: token})
		if diff := cmp.Diff(page{Names: []string{"ns/e"}, RV: srv.ResourceVersion()}, got); diff != "" {
			t.Errorf("second page (-want +got):\n%s", diff)
		}
		if token != "" {
			t.Errorf("continue token %q after the last key", token)
		}
	})
}

func TestListExpired(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{HistoryLimit: 2})
	var rvs []string
	for _, name := range []string{"a", "b", "c", "d"} {
		rvs = append(rvs, mustCreate(t, srv, object("ns", name, nil)).ResourceVersion)
	}
	exact := func(rv string) metav1.ListOptions {
		return metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact}
	}

	// The history holds the last two changes: the state after b is the
	// oldest still readable.
	if _, err := srv.ListWithContext(t.Context(), exact(rvs[0])); !apierrors.IsResourceExpired(err) {
		t.Errorf("exact list at a dropped resourceVersion: %v, want 410", err)
	}
	got, _ := mustList(t, srv, exact(rvs[1]))
	if diff := cmp.Diff(page{Names: []string{"ns/a", "ns/b"}, RV: rvs[1]}, got); diff != "" {
		t.Errorf("exact list (-want +got):\n%s", diff)
	}

	first, token := mustList(t, srv, metav1.ListOptions{Limit: 2})
	mustCreate(t, srv, object("ns", "bb", nil))
	srv.Compact()
	_, err := srv.ListWithContext(t.Context(), metav1.ListOptions{Limit: 2, Continue: token})
	if !apierrors.IsResourceExpired(err) {
		t.Fatalf("continue after compaction: %v, want 410", err)
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().ListMeta.Continue == "" {
		t.Fatalf("410 for a continue token carries no fresh token: %v", err)
	}
	// The fresh token continues from the same key at the current state.
	rest, _ := mustList(t, srv, metav1.ListOptions{Continue: status.Status().ListMeta.Continue})
	if diff := cmp.Diff(page{Names: []string{"ns/bb", "ns/c", "ns/d"}, RV: srv.ResourceVersion()}, rest); diff != "" {
		t.Errorf("inconsistent continuation after %+v (-want +got):\n%s", first, diff)
	}
	if _, err := srv.ListWithContext(t.Context(), exact(rvs[3])); !apierrors.IsResourceExpired(err) {
		t.Errorf("exact list at a compacted resourceVersion: %v, want 410", err)
	}
}

func TestListFutureResourceVersion(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv := newServer(t, framework.Options[*pom]{Clock: clk})
	next := "3" // the server starts at 1; the second write reaches 3

	type result struct {
		page page
		err  error
	}
	list := func(ctx context.Context, opts metav1.ListOptions) <-chan result {
		ch := make(chan result, 1)
		go func() {
			obj, err := srv.ListWithContext(ctx, opts)
			if err != nil {
				ch <- result{err: err}
				return
			}
			p, _ := summarizeList(t, obj)
			ch <- result{page: p}
		}()
		return ch
	}
	receive := func(ch <-chan result) result {
		t.Helper()
		select {
		case r := <-ch:
			return r
		case <-time.After(testTimeout):
			t.Fatal("list did not return")
		}
		return result{}
	}

	t.Run("reached in time", func(t *testing.T) {
		ch := list(t.Context(), metav1.ListOptions{ResourceVersion: next, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
		waitFor(t, "the list to wait", clk.HasWaiters)
		mustCreate(t, srv, object("ns", "a", nil))
		mustCreate(t, srv, object("ns", "b", nil))
		r := receive(ch)
		if r.err != nil || r.page.RV != next {
			t.Errorf("got %+v, want the list at %s", r, next)
		}
	})
	t.Run("never reached", func(t *testing.T) {
		ch := list(t.Context(), metav1.ListOptions{ResourceVersion: "100"})
		waitFor(t, "the list to wait", clk.HasWaiters)
		clk.Step(framework.DefaultResourceVersionTimeout)
		r := receive(ch)
		if !apierrors.IsTimeout(r.err) || !apierrors.HasStatusCause(r.err, metav1.CauseTypeResourceVersionTooLarge) {
			t.Errorf("got %+v, want a too large resource version error", r)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		ch := list(ctx, metav1.ListOptions{ResourceVersion: "100", ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		waitFor(t, "the list to wait", clk.HasWaiters)
		cancel()
		if r := receive(ch); !errors.Is(r.err, context.Canceled) {
			t.Errorf("got %+v, want context.Canceled", r)
		}
	})
}

func TestListSelectors(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	mustCreate(t, srv, object("ns", "a", map[string]string{"l": "x", "tier": "web"}))
	mustCreate(t, srv, object("ns", "b", map[string]string{"l": "y"}))
	mustCreate(t, srv, object("other", "a", map[string]string{"l": "x"}))
	mustCreate(t, srv, object("", "cluster", nil))

	tests := []struct {
		name string
		lw   listerWatcher
		opts metav1.ListOptions
		want []string
	}{
		{"everything", srv, metav1.ListOptions{}, []string{"cluster", "ns/a", "ns/b", "other/a"}},
		{"namespace view", srv.Namespace("ns"), metav1.ListOptions{}, []string{"ns/a", "ns/b"}},
		{"all-namespaces view", srv.Namespace(""), metav1.ListOptions{}, []string{"cluster", "ns/a", "ns/b", "other/a"}},
		{"equality label", srv, metav1.ListOptions{LabelSelector: "l=x"}, []string{"ns/a", "other/a"}},
		{"set label", srv, metav1.ListOptions{LabelSelector: "l in (x,y),tier!=web"}, []string{"ns/b", "other/a"}},
		{"exists label", srv, metav1.ListOptions{LabelSelector: "!l"}, []string{"cluster"}},
		{"name", srv, metav1.ListOptions{FieldSelector: "metadata.name=a"}, []string{"ns/a", "other/a"}},
		{"namespace", srv, metav1.ListOptions{FieldSelector: "metadata.namespace=other"}, []string{"other/a"}},
		{"namespace and label in a view", srv.Namespace("ns"), metav1.ListOptions{FieldSelector: "metadata.name!=a", LabelSelector: "l"}, []string{"ns/b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := mustList(t, tc.lw, tc.opts)
			if diff := cmp.Diff(tc.want, got.Names); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListTypes(t *testing.T) {
	t.Run("unstructured", func(t *testing.T) {
		gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
		srv := framework.NewServer(framework.Options[*unstructured.Unstructured]{})
		defer srv.Close()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		u.SetName("a")
		if _, err := srv.Create(u); err != nil {
			t.Fatal(err)
		}
		obj, err := srv.ListWithContext(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		list, ok := obj.(*unstructured.UnstructuredList)
		if !ok {
			t.Fatalf("list is a %T", obj)
		}
		if got, want := list.GroupVersionKind(), gvk.GroupVersion().WithKind("WidgetList"); got != want {
			t.Errorf("list kind %v, want %v", got, want)
		}
		if len(list.Items) != 1 || list.Items[0].GroupVersionKind() != gvk {
			t.Errorf("items %+v", list.Items)
		}

		// Bookmarks carry the kind, which reflectors of unstructured
		// objects check.
		w, err := srv.WatchWithContext(t.Context(), metav1.ListOptions{AllowWatchBookmarks: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		nextEvent(t, w) // ADDED a
		e := nextEvent(t, w)
		bookmark, ok := e.Object.(*unstructured.Unstructured)
		if e.Type != "BOOKMARK" || !ok || bookmark.GroupVersionKind() != gvk || bookmark.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
			t.Errorf("got %s %#v, want the initial-events-end bookmark of kind %v", e.Type, e.Object, gvk)
		}
	})
	t.Run("unusable list type", func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*pom]{NewList: func() runtime.Object { return &pom{} }})
		defer srv.Close()
		if _, err := srv.ListWithContext(t.Context(), metav1.ListOptions{}); err == nil {
			t.Error("list with a list type without Items succeeded")
		}
	})
}

func TestExpireNextContinues(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	for _, name := range []string{"a", "b", "c", "d"} {
		mustCreate(t, srv, object("ns", name, nil))
	}
	// Lists without a token do not count.
	srv.ExpireNextContinues(1)
	first, token := mustList(t, srv, metav1.ListOptions{Limit: 2})
	mustCreate(t, srv, object("ns", "bb", nil))
	_, err := srv.ListWithContext(t.Context(), metav1.ListOptions{Limit: 2, Continue: token})
	var status apierrors.APIStatus
	if !apierrors.IsResourceExpired(err) || !errors.As(err, &status) || status.Status().ListMeta.Continue == "" {
		t.Fatalf("continued list: %v, want 410 with a fresh token", err)
	}
	// The fresh token continues from the same key at the current state;
	// the old one works again once the fault is used up.
	rest, _ := mustList(t, srv, metav1.ListOptions{Continue: status.Status().ListMeta.Continue})
	if diff := cmp.Diff(page{Names: []string{"ns/bb", "ns/c", "ns/d"}, RV: srv.ResourceVersion()}, rest); diff != "" {
		t.Errorf("continuation after %+v (-want +got):\n%s", first, diff)
	}
	again, _ := mustList(t, srv, metav1.ListOptions{Limit: 2, Continue: token})
	if diff := cmp.Diff(page{Names: []string{"ns/c", "ns/d"}, RV: first.RV}, again); diff != "" {
		t.Errorf("old token after the fault (-want +got):\n%s", diff)
	}
	// Disarmed.
	srv.ExpireNextContinues(3)
	srv.ExpireNextContinues(0)
	mustList(t, srv, metav1.ListOptions{Limit: 2, Continue: token})
}

func TestMaxPageSize(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{MaxPageSize: 2})
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		mustCreate(t, srv, object("ns", name, nil))
	}
	rv := srv.ResourceVersion()
	for _, tc := range []struct {
		name string
		opts metav1.ListOptions
		want page
	}{
		{name: "larger limit", opts: metav1.ListOptions{Limit: 500}, want: page{Names: []string{"ns/a", "ns/b"}, RV: rv, Continue: true, Remaining: ptr[int64](3)}},
		{name: "smaller limit", opts: metav1.ListOptions{Limit: 1}, want: page{Names: []string{"ns/a"}, RV: rv, Continue: true, Remaining: ptr[int64](4)}},
		{name: "no limit", want: page{Names: []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"}, RV: rv}},
		{name: "resourceVersion 0", opts: metav1.ListOptions{Limit: 500, ResourceVersion: "0"}, want: page{Names: []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"}, RV: rv}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := mustList(t, srv, tc.opts)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
		})
	}
	// Continued pages are capped too.
	_, token := mustList(t, srv, metav1.ListOptions{Limit: 500})
	got, _ := mustList(t, srv, metav1.ListOptions{Limit: 500, Continue: token})
	if diff := cmp.Diff(page{Names: []string{"ns/c", "ns/d"}, RV: rv, Continue: true, Remaining: ptr[int64](1)}, got); diff != "" {
		t.Errorf("continued page (-want +got):\n%s", diff)
	}
}
