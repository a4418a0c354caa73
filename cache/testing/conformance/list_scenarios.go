package conformance

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func listScenarios() []Scenario {
	return []Scenario{
		{Name: "list/empty", Run: listEmpty},
		{Name: "list/resource-version-semantics", Run: listResourceVersionSemantics},
		{Name: "list/exact", Run: listExact},
		{Name: "list/pagination", Run: listPagination},
		{Name: "list/label-selector", Run: listLabelSelector},
		{Name: "list/field-selector", Run: listFieldSelector},
		{Name: "list/invalid-options", Run: listInvalidOptions},
		{Name: "list/too-large-resource-version", Run: listTooLargeResourceVersion},
	}
}

// listEmpty: an empty namespace lists no items, with a resourceVersion.
func listEmpty(t *testing.T, target Target) {
	r := list(t, target, metav1.ListOptions{})
	if len(r.Items) != 0 || r.RV == "" || r.Continue != "" {
		t.Errorf("list of an empty namespace: %+v, want no items and a resourceVersion", r)
	}
}

// listResourceVersionSemantics: "" (most recent) shows every write made
// before it; N not older than (resourceVersionMatch NotOlderThan, or legacy
// N without a limit) shows every write up to N and may show later ones; "0"
// (any) shows the state after any number of the writes, even none — all
// with a resourceVersion in the span of the state they show.
func listResourceVersionSemantics(t *testing.T, target Target) {
	r := record(t, target)
	first := r.create("a", nil)
	r.create("b", nil)
	last := r.create("c", nil)
	notOlderThan := func(rv string) metav1.ListOptions {
		return metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}
	}
	for _, tc := range []struct {
		name string
		opts metav1.ListOptions
		from int
	}{
		{"most recent", metav1.ListOptions{}, r.mark()},
		{"not older than the first write", notOlderThan(first.RV), r.after(first.RV)},
		{"not older than the last write", notOlderThan(last.RV), r.after(last.RV)},
		{"legacy not older than the first write", metav1.ListOptions{ResourceVersion: first.RV}, r.after(first.RV)},
		{"legacy not older than the last write", metav1.ListOptions{ResourceVersion: last.RV}, r.after(last.RV)},
		{"any", metav1.ListOptions{ResourceVersion: "0"}, 0},
	} {
		got := list(t, target, tc.opts)
		r.checkList(tc.name, got, all, tc.from, r.mark())
		if got.Continue != "" {
			t.Errorf("%s: continue %q on a list without a limit", tc.name, got.Continue)
		}
	}
}

// listExact: Exact (and legacy N with a limit) shows the state at N and
// reports N.
func listExact(t *testing.T, target Target) {
	r := record(t, target)
	a := r.create("a", nil)
	b := r.create("b", nil)
	r.update("a", map[string]string{"l": "1"}, nil)
	r.remove("b")
	r.create("c", nil)

	for _, tc := range []struct {
		name string
		opts metav1.ListOptions
	}{
		{"exact after the first write", metav1.ListOptions{ResourceVersion: a.RV, ResourceVersionMatch: metav1.ResourceVersionMatchExact}},
		{"exact after the second write", metav1.ListOptions{ResourceVersion: b.RV, ResourceVersionMatch: metav1.ResourceVersionMatchExact}},
		{"legacy list with a limit after the second write", metav1.ListOptions{ResourceVersion: b.RV, Limit: 10}},
	} {
		got := list(t, target, tc.opts)
		cut := r.after(tc.opts.ResourceVersion)
		r.checkList(tc.name, got, all, cut, cut)
		if got.RV != tc.opts.ResourceVersion {
			t.Errorf("%s: resourceVersion %s, want %s", tc.name, got.RV, tc.opts.ResourceVersion)
		}
	}
}

// listPagination: pages of at most limit items, a continue token while
// items remain, every page at the first page's resourceVersion, and the
// pages together are the state of the first page, whatever was written in
// between.
func listPagination(t *testing.T, target Target) {
	r := record(t, target)
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		r.create(name, nil)
	}
	created := r.mark()

	first := list(t, target, metav1.ListOptions{Limit: 2})
	if len(first.Items) != 2 || first.Continue == "" {
		t.Fatalf("first page %+v, want 2 items and a continue token", first)
	}
	if first.Remaining != nil && *first.Remaining != 3 {
		t.Errorf("first page remainingItemCount %d, want 3", *first.Remaining)
	}
	// Writes between pages must not show in the later pages.
	r.create("bb", nil)
	r.update("c", map[string]string{"l": "changed"}, nil)
	r.remove("d")

	items := first.Items
	token := first.Continue
	for pages := 1; token != ""; pages++ {
		if pages > 10 {
			t.Fatal("more than 10 pages for 5 items")
		}
		r := list(t, target, metav1.ListOptions{Limit: 2, Continue: token})
		if len(r.Items) > 2 {
			t.Errorf("page of %d items with limit 2", len(r.Items))
		}
		if r.RV != first.RV {
			t.Errorf("page at resourceVersion %s, want the first page's %s", r.RV, first.RV)
		}
		items = append(items, r.Items...)
		token = r.Continue
	}
	r.checkList("all pages", listResult{Items: items, RV: first.RV}, all, created, created)
}

// listLabelSelector: equality, set and existence requirements.
func listLabelSelector(t *testing.T, target Target) {
	r := record(t, target)
	r.create("a", map[string]string{"app": "x", "tier": "web"})
	r.create("b", map[string]string{"app": "y"})
	r.create("c", nil)
	for _, tc := range []struct {
		selector string
		want     []string
	}{
		{"app=x", []string{"a"}},
		{"app in (x,y)", []string{"a", "b"}},
		{"app,tier!=web", []string{"b"}},
		{"!app", []string{"c"}},
		{"app=z", []string{}},
	} {
		r := list(t, target, metav1.ListOptions{LabelSelector: tc.selector})
		checkNames(t, "labelSelector "+tc.selector, tc.want, sortedNames(r.Items))
	}
}

// listFieldSelector: metadata.name and metadata.namespace.
func listFieldSelector(t *testing.T, target Target) {
	r := record(t, target)
	r.create("a", nil)
	r.create("b", nil)
	for _, tc := range []struct {
		selector string
		want     []string
	}{
		{"metadata.name=b", []string{"b"}},
		{"metadata.name!=b", []string{"a"}},
		{"metadata.namespace=" + target.Namespace(), []string{"a", "b"}},
		{"metadata.namespace=" + target.Namespace() + "-other", []string{}},
	} {
		r := list(t, target, metav1.ListOptions{FieldSelector: tc.selector})
		checkNames(t, "fieldSelector "+tc.selector, tc.want, sortedNames(r.Items))
	}
}

// listInvalidOptions: option combinations the apiserver rejects.
func listInvalidOptions(t *testing.T, target Target) {
	r := record(t, target)
	r.create("a", nil)
	r.create("b", nil)
	first := list(t, target, metav1.ListOptions{Limit: 1})
	if first.Continue == "" {
		t.Fatalf("no continue token from a list of 2 with limit 1: %+v", first)
	}
	badRequestOrInvalid := func(err error) bool { return apierrors.IsBadRequest(err) || apierrors.IsInvalid(err) }
	for _, tc := range []struct {
		name string
		opts metav1.ListOptions
		is   func(error) bool
	}{
		{"resourceVersionMatch without resourceVersion", metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, apierrors.IsInvalid},
		{"Exact at 0", metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, apierrors.IsInvalid},
		{"unknown resourceVersionMatch", metav1.ListOptions{ResourceVersion: first.RV, ResourceVersionMatch: "Latest"}, apierrors.IsInvalid},
		{"sendInitialEvents on a list", metav1.ListOptions{SendInitialEvents: ptr(true)}, apierrors.IsInvalid},
		{"continue with resourceVersionMatch", metav1.ListOptions{Continue: first.Continue, ResourceVersion: first.RV, ResourceVersionMatch: metav1.ResourceVersionMatchExact}, apierrors.IsInvalid},
		{"continue with resourceVersion", metav1.ListOptions{Continue: first.Continue, ResourceVersion: first.RV}, badRequestOrInvalid},
		{"malformed continue", metav1.ListOptions{Continue: "not-a-token"}, badRequestOrInvalid},
		{"malformed label selector", metav1.ListOptions{LabelSelector: "app in (x"}, apierrors.IsBadRequest},
		{"malformed field selector", metav1.ListOptions{FieldSelector: "metadata.name"}, apierrors.IsBadRequest},
		{"unsupported field label", metav1.ListOptions{FieldSelector: "no.such.field=x"}, apierrors.IsBadRequest},
		{"malformed resourceVersion", metav1.ListOptions{ResourceVersion: "not-a-number"}, badRequestOrInvalid},
	} {
		if _, err := tryList(t, target, tc.opts); !tc.is(err) {
			t.Errorf("%s: got error %v", tc.name, err)
		}
	}
}

// listTooLargeResourceVersion: a list not older than a resourceVersion the
// server never reaches fails, after the server's wait, with "Too large
// resource version".
func listTooLargeResourceVersion(t *testing.T, target Target) {
	future := futureResourceVersion(t, record(t, target).create("a", nil).RV)
	for _, opts := range []metav1.ListOptions{
		{ResourceVersion: future, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
		{ResourceVersion: future},
	} {
		if _, err := tryList(t, target, opts); !isTooLargeResourceVersion(err) {
			t.Errorf("list %s: got error %v, want too large resource version", describe(opts), err)
		}
	}
}
