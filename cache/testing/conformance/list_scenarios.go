package conformance

import (
	"slices"
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

// listResourceVersionSemantics: "" and N (not older than) see every write
// made before; "0" (any) succeeds.
func listResourceVersionSemantics(t *testing.T, target Target) {
	create(t, target, "a", nil)
	create(t, target, "b", nil)
	last := create(t, target, "c", nil)
	want := []string{"a", "b", "c"}

	for _, tc := range []struct {
		name string
		opts metav1.ListOptions
	}{
		{"most recent", metav1.ListOptions{}},
		{"not older than the last write", metav1.ListOptions{ResourceVersion: last.RV, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}},
		{"legacy not older than the last write", metav1.ListOptions{ResourceVersion: last.RV}},
	} {
		r := list(t, target, tc.opts)
		checkNames(t, tc.name, want, sortedNames(r.Items))
		if r.RV == "" || r.Continue != "" {
			t.Errorf("%s: resourceVersion %q, continue %q", tc.name, r.RV, r.Continue)
		}
	}
	// "Any" may be served from a cache that lags behind: only its shape is
	// guaranteed.
	r := list(t, target, metav1.ListOptions{ResourceVersion: "0"})
	for _, name := range r.names() {
		if !slices.Contains(want, name) {
			t.Errorf("list at resourceVersion 0 returned %q, never created", name)
		}
	}
	if r.RV == "" {
		t.Error("list at resourceVersion 0 has no resourceVersion")
	}
}

// listExact: Exact (and legacy N with a limit) returns the state at N, and
// reports N.
func listExact(t *testing.T, target Target) {
	a := create(t, target, "a", nil)
	b := create(t, target, "b", nil)
	update(t, target, "a", map[string]string{"l": "1"}, nil)
	remove(t, target, "b")
	create(t, target, "c", nil)

	exact := func(rv string) metav1.ListOptions {
		return metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact}
	}
	r := list(t, target, exact(a.RV))
	checkItems(t, "exact list after the first write", []item{a}, r.Items)
	if r.RV != a.RV {
		t.Errorf("exact list at %s reports resourceVersion %s", a.RV, r.RV)
	}
	r = list(t, target, exact(b.RV))
	checkItems(t, "exact list after the second write", []item{a, b}, r.Items)
	r = list(t, target, metav1.ListOptions{ResourceVersion: b.RV, Limit: 10})
	checkItems(t, "legacy list with a limit after the second write", []item{a, b}, r.Items)
	if r.RV != b.RV {
		t.Errorf("legacy list with a limit at %s reports resourceVersion %s", b.RV, r.RV)
	}
}

// listPagination: pages of at most limit items, a continue token while
// items remain, every page at the first page's resourceVersion, and the
// pages together are the state of the first page, whatever was written in
// between.
func listPagination(t *testing.T, target Target) {
	var created []item
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		created = append(created, create(t, target, name, nil))
	}

	first := list(t, target, metav1.ListOptions{Limit: 2})
	if len(first.Items) != 2 || first.Continue == "" {
		t.Fatalf("first page %+v, want 2 items and a continue token", first)
	}
	if first.Remaining != nil && *first.Remaining != 3 {
		t.Errorf("first page remainingItemCount %d, want 3", *first.Remaining)
	}
	// Writes between pages must not show in the later pages.
	create(t, target, "bb", nil)
	update(t, target, "c", map[string]string{"l": "changed"}, nil)
	remove(t, target, "d")

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
	slices.SortFunc(items, func(x, y item) int { return compareStrings(x.Name, y.Name) })
	checkItems(t, "all pages", created, items)
}

// listLabelSelector: equality, set and existence requirements.
func listLabelSelector(t *testing.T, target Target) {
	create(t, target, "a", map[string]string{"app": "x", "tier": "web"})
	create(t, target, "b", map[string]string{"app": "y"})
	create(t, target, "c", nil)
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
	create(t, target, "a", nil)
	create(t, target, "b", nil)
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
	create(t, target, "a", nil)
	create(t, target, "b", nil)
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
	future := futureResourceVersion(t, create(t, target, "a", nil).RV)
	for _, opts := range []metav1.ListOptions{
		{ResourceVersion: future, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
		{ResourceVersion: future},
	} {
		if _, err := tryList(t, target, opts); !isTooLargeResourceVersion(err) {
			t.Errorf("list %s: got error %v, want too large resource version", describe(opts), err)
		}
	}
}
