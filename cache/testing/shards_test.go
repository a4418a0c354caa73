package framework_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// shardOf returns shard index of count on uids.
func shardOf(t *testing.T, index, count int) sharding.Selector {
	t.Helper()
	sel, err := cache.ShardSelectorFor(cache.ShardKeyUID, index, count)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// inShard returns the keys of objs that sel selects, sorted.
func inShard(t *testing.T, sel sharding.Selector, objs []runtime.Object) []string {
	t.Helper()
	var keys []string
	for _, obj := range objs {
		ok, err := sel.Matches(obj)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			keys = append(keys, keyOf(t, obj))
		}
	}
	slices.Sort(keys)
	return keys
}

// newShardServer returns a server holding 40 objects in two namespaces,
// and the objects.
func newShardServer(t *testing.T, opts framework.Options[*pom]) (*framework.Server[*pom], []runtime.Object) {
	t.Helper()
	srv := newServer(t, opts)
	var objs []runtime.Object
	for i := range 40 {
		objs = append(objs, mustCreate(t, srv, object(fmt.Sprintf("ns-%d", i%2), fmt.Sprintf("o-%02d", i), nil)))
	}
	return srv, objs
}

// TestListShards: each shard's list holds exactly the objects the
// apiserver's matcher puts in it, the shards together hold every object,
// and the list echoes the selector, for every kind of list request.
func TestListShards(t *testing.T) {
	srv, objs := newShardServer(t, framework.Options[*pom]{})
	for _, tc := range []struct {
		name string
		opts metav1.ListOptions
	}{
		{name: "most recent"},
		{name: "any", opts: metav1.ListOptions{ResourceVersion: "0"}},
		{name: "exact", opts: metav1.ListOptions{ResourceVersion: srv.ResourceVersion(), ResourceVersionMatch: metav1.ResourceVersionMatchExact}},
		{name: "paginated", opts: metav1.ListOptions{Limit: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var union []string
			for i := range 3 {
				sel := shardOf(t, i, 3)
				opts := tc.opts
				opts.ShardSelector = sel.String()
				var got []string
				for {
					obj, err := srv.ListWithContext(t.Context(), opts)
					if err != nil {
						t.Fatal(err)
					}
					if info := cache.ShardInfoOf(obj); info == nil || info.Selector != sel.String() {
						t.Errorf("shardInfo %+v, want the selector %q", info, sel.String())
					}
					p, token := summarizeList(t, obj)
					if opts.Limit > 0 && len(p.Names) > int(opts.Limit) {
						t.Errorf("page of %d items, limit %d", len(p.Names), opts.Limit)
					}
					if token != "" && p.Remaining == nil {
						t.Error("a sharded page has no remainingItemCount; kube-apiserver sets it as if unselected")
					}
					got = append(got, p.Names...)
					if token == "" {
						break
					}
					opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = token, "", ""
				}
				slices.Sort(got)
				if diff := cmp.Diff(inShard(t, sel, objs), got); diff != "" {
					t.Errorf("shard %d of 3 (-want +got):\n%s", i, diff)
				}
				union = append(union, got...)
			}
			slices.Sort(union)
			if len(slices.Compact(slices.Clone(union))) != len(union) || len(union) != len(objs) {
				t.Errorf("the shards hold %d objects (%d distinct), want %d", len(union), len(slices.Compact(slices.Clone(union))), len(objs))
			}
		})
	}
}

// TestListShardsByNamespace: a shard of namespaces holds whole namespaces.
func TestListShardsByNamespace(t *testing.T) {
	srv, objs := newShardServer(t, framework.Options[*pom]{})
	total := 0
	for i := range 2 {
		sel, err := cache.ShardSelectorFor(cache.ShardKeyNamespace, i, 2)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := mustList(t, srv, metav1.ListOptions{ShardSelector: sel.String()})
		if diff := cmp.Diff(inShard(t, sel, objs), p.Names); diff != "" {
			t.Errorf("shard %d of 2 (-want +got):\n%s", i, diff)
		}
		total += len(p.Names)
	}
	if total != len(objs) {
		t.Errorf("the shards hold %d objects, want %d", total, len(objs))
	}
}

// TestListShardsUnstructured: an unstructured list carries the echo in
// metadata.shardInfo, as decoded from kube-apiserver's JSON.
func TestListShardsUnstructured(t *testing.T) {
	srv := framework.NewServer(framework.Options[*unstructured.Unstructured]{})
	defer srv.Close()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetName("a")
	if _, err := srv.Create(u); err != nil {
		t.Fatal(err)
	}
	sel := shardOf(t, 1, 2)
	obj, err := srv.ListWithContext(t.Context(), metav1.ListOptions{ShardSelector: sel.String()})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := unstructured.NestedString(obj.(*unstructured.UnstructuredList).Object, "metadata", "shardInfo", "selector")
	if err != nil || got != sel.String() {
		t.Errorf("metadata.shardInfo.selector = %q (%v), want %q", got, err, sel.String())
	}
}

// TestWatchShards: watches from a resourceVersion and streaming lists
// deliver the shard's objects only.
func TestWatchShards(t *testing.T) {
	srv, objs := newShardServer(t, framework.Options[*pom]{})
	sel := shardOf(t, 0, 2)
	from := srv.ResourceVersion()

	stream := mustWatch(t, srv, metav1.ListOptions{ShardSelector: sel.String(), SendInitialEvents: ptr(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	var initial []string
	for {
		e := nextEvent(t, stream)
		if e.Type == watch.Bookmark {
			break
		}
		initial = append(initial, keyOf(t, e.Object))
	}
	slices.Sort(initial)
	if diff := cmp.Diff(inShard(t, sel, objs), initial); diff != "" {
		t.Errorf("streaming list (-want +got):\n%s", diff)
	}

	live := mustWatch(t, srv, metav1.ListOptions{ShardSelector: sel.String(), ResourceVersion: from})
	var later []runtime.Object
	for i := range 20 {
		later = append(later, mustCreate(t, srv, object("ns-0", fmt.Sprintf("later-%02d", i), nil)))
	}
	want := inShard(t, sel, later)
	for _, w := range []watch.Interface{stream, live} {
		var got []string
		for range want {
			e := nextEvent(t, w)
			if e.Type != watch.Added {
				t.Fatalf("got %s, want ADDED", e.Type)
			}
			got = append(got, keyOf(t, e.Object))
		}
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("live events (-want +got):\n%s", diff)
		}
	}
}

// TestMalformedShardSelector: list and watch refuse it as kube-apiserver
// does, with a 500 and the parser's message.
func TestMalformedShardSelector(t *testing.T) {
	srv, _ := newShardServer(t, framework.Options[*pom]{})
	for _, tc := range []struct {
		selector string
		want     string
	}{
		{selector: "bogus", want: "invalid shard selector: unexpected expression kind 3; expected shardRange() call or || operator"},
		{selector: "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", want: `invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`},
		{selector: " ", want: "invalid shard selector: empty shard selector is not allowed; omit the parameter for unfiltered lists"},
	} {
		t.Run(tc.selector, func(t *testing.T) {
			_, listErr := srv.ListWithContext(t.Context(), metav1.ListOptions{ShardSelector: tc.selector})
			_, watchErr := srv.WatchWithContext(t.Context(), metav1.ListOptions{ShardSelector: tc.selector, ResourceVersion: srv.ResourceVersion()})
			for _, err := range []error{listErr, watchErr} {
				var status apierrors.APIStatus
				if !errors.As(err, &status) {
					t.Fatalf("error %v, want an API status", err)
				}
				got := status.Status()
				if got.Code != http.StatusInternalServerError || got.Reason != metav1.StatusReasonUnknown || got.Message != tc.want {
					t.Errorf("status %d %q %q, want 500 without reason and %q", got.Code, got.Reason, got.Message, tc.want)
				}
			}
		})
	}
}

// TestIgnoreShardSelector: a server without the feature gate returns
// everything, echoes nothing and refuses nothing.
func TestIgnoreShardSelector(t *testing.T) {
	srv, objs := newShardServer(t, framework.Options[*pom]{IgnoreShardSelector: true})
	for _, selector := range []string{shardOf(t, 0, 2).String(), "bogus"} {
		obj, err := srv.ListWithContext(t.Context(), metav1.ListOptions{ShardSelector: selector})
		if err != nil {
			t.Fatal(err)
		}
		if n := meta.LenList(obj); n != len(objs) {
			t.Errorf("list with %q: %d items, want all %d", selector, n, len(objs))
		}
		if info := cache.ShardInfoOf(obj); info != nil {
			t.Errorf("list with %q: shardInfo %+v, want none", selector, info)
		}
		w := mustWatch(t, srv, metav1.ListOptions{ShardSelector: selector})
		for range objs {
			if e := nextEvent(t, w); e.Type != watch.Added {
				t.Fatalf("got %s, want ADDED", e.Type)
			}
		}
	}
}
