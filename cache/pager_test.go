package cache

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestListPager(t *testing.T) {
	a, b, c := pom("a", "1"), pom("b", "2"), pom("c", "3")
	errBoom := errors.New("boom")
	type page struct {
		obj runtime.Object
		err error
	}
	tests := []struct {
		name          string
		pageSize      int64
		options       metav1.ListOptions
		pages         []page
		wantRequests  []metav1.ListOptions
		wantItems     []string
		wantRV        string
		wantPaginated bool
		wantErr       error
		wantSamePage  bool // the single page is returned as sent
	}{
		{
			name:         "a single page is returned as sent",
			pageSize:     500,
			options:      metav1.ListOptions{ResourceVersion: "0"},
			pages:        []page{{obj: pomList("10", "", a, b)}},
			wantRequests: []metav1.ListOptions{{ResourceVersion: "0", Limit: 500}},
			wantItems:    []string{"ns/a@1", "ns/b@2"},
			wantRV:       "10",
			wantSamePage: true,
		},
		{
			name:     "pages are merged with the first page's resource version",
			pageSize: 500,
			options:  metav1.ListOptions{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			pages: []page{
				{obj: pomList("10", "t1", a)},
				{obj: pomList("11", "t2", b)},
				{obj: pomList("12", "", c)},
			},
			wantRequests: []metav1.ListOptions{
				{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Limit: 500},
				{Limit: 500, Continue: "t1"},
				{Limit: 500, Continue: "t2"},
			},
			wantItems:     []string{"ns/a@1", "ns/b@2", "ns/c@3"},
			wantRV:        "10",
			wantPaginated: true,
		},
		{
			name:     "an expired continue token falls back to a full list at the original version",
			pageSize: 2,
			options:  metav1.ListOptions{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			pages: []page{
				{obj: pomList("10", "t1", a)},
				{err: errExpired},
				{obj: pomList("13", "", a, b, c)},
			},
			wantRequests: []metav1.ListOptions{
				{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Limit: 2},
				{Limit: 2, Continue: "t1"},
				{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			},
			wantItems:     []string{"ns/a@1", "ns/b@2", "ns/c@3"},
			wantRV:        "13",
			wantPaginated: true,
			wantSamePage:  true,
		},
		{
			name:         "an expired first page is an error",
			pageSize:     500,
			pages:        []page{{err: errExpired}},
			wantRequests: []metav1.ListOptions{{Limit: 500}},
			wantErr:      errExpired,
		},
		{
			name:          "other errors of continuation pages are errors",
			pageSize:      500,
			pages:         []page{{obj: pomList("10", "t1", a)}, {err: errBoom}},
			wantRequests:  []metav1.ListOptions{{Limit: 500}, {Limit: 500, Continue: "t1"}},
			wantErr:       errBoom,
			wantPaginated: true,
		},
		{
			name:         "page size zero asks for everything",
			pageSize:     0,
			options:      metav1.ListOptions{ResourceVersion: "7"},
			pages:        []page{{obj: pomList("10", "", a)}},
			wantRequests: []metav1.ListOptions{{ResourceVersion: "7"}},
			wantItems:    []string{"ns/a@1"},
			wantRV:       "10",
			wantSamePage: true,
		},
		{
			name:         "a limit in the options wins over the page size",
			pageSize:     500,
			options:      metav1.ListOptions{Limit: 7},
			pages:        []page{{obj: pomList("10", "", a)}},
			wantRequests: []metav1.ListOptions{{Limit: 7}},
			wantItems:    []string{"ns/a@1"},
			wantRV:       "10",
			wantSamePage: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var requests []metav1.ListOptions
			p := newListPager(func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				requests = append(requests, opts)
				pg := tc.pages[0]
				tc.pages = tc.pages[1:]
				return pg.obj, pg.err
			})
			p.pageSize = tc.pageSize
			got, paginated, err := p.list(context.Background(), tc.options)
			if diff := cmp.Diff(tc.wantRequests, requests); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if paginated != tc.wantPaginated {
				t.Errorf("paginated = %v, want %v", paginated, tc.wantPaginated)
			}
			if err != nil {
				return
			}
			if _, merged := got.(*metainternalversion.List); merged == tc.wantSamePage {
				t.Errorf("got a %T, want the page as sent: %v", got, tc.wantSamePage)
			}
			listMeta, err := meta.ListAccessor(got)
			if err != nil {
				t.Fatal(err)
			}
			if rv := listMeta.GetResourceVersion(); rv != tc.wantRV {
				t.Errorf("resource version %q, want %q", rv, tc.wantRV)
			}
			items, err := meta.ExtractList(got)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, item := range items {
				names = append(names, testObjString(item))
			}
			if diff := cmp.Diff(tc.wantItems, names); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListPagerRejectsNonLists checks that nil results and objects that are
// not lists are errors, whether they come as the first page or as the
// unpaginated fallback after an expired continue token.
func TestListPagerRejectsNonLists(t *testing.T) {
	for _, obj := range []runtime.Object{nil, (*metav1.PartialObjectMetadataList)(nil), pom("a", "1")} {
		for _, fallback := range []bool{false, true} {
			var answers []runtime.Object
			var errs []error
			if fallback {
				answers, errs = []runtime.Object{pomList("10", "t1", pom("a", "1")), nil}, []error{nil, errExpired}
			}
			answers, errs = append(answers, obj), append(errs, nil)
			p := newListPager(func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				obj, err := answers[0], errs[0]
				answers, errs = answers[1:], errs[1:]
				return obj, err
			})
			if got, _, err := p.list(context.Background(), metav1.ListOptions{}); err == nil {
				t.Errorf("fallback %v: list of %T succeeded with %#v, want an error", fallback, obj, got)
			}
		}
	}
}

func TestListPagerStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	p := newListPager(func(context.Context, metav1.ListOptions) (runtime.Object, error) {
		calls++
		cancel()
		return pomList("10", "t1"), nil
	})
	if _, _, err := p.list(ctx, metav1.ListOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if calls != 1 {
		t.Errorf("%d pages fetched after cancel, want 1", calls)
	}
}
