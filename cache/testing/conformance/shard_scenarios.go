package conformance

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"

	"github.com/informer-go/informer/cache"
)

func shardScenarios() []Scenario {
	return []Scenario{
		{Name: "shard/list", Run: shardList},
		{Name: "shard/paginated-list", Run: shardPaginatedList},
		{Name: "shard/namespace", Run: shardNamespace},
		{Name: "shard/watch", Run: shardWatch},
		{Name: "shard/streaming-list", Run: shardStreamingList},
		{Name: "shard/malformed-selector", Run: shardMalformedSelector},
	}
}

// shardObjects is how many objects the shard scenarios create: enough for
// every shard of three to hold some.
const shardObjects = 24

// createSharded creates shardObjects objects and returns their names by
// uid hash: the shard of count each belongs to, as cache.ShardIndex
// computes it.
func createSharded(t *testing.T, r *recorder, prefix string, count int) [][]string {
	t.Helper()
	shards := make([][]string, count)
	for i := range shardObjects {
		obj := r.create(fmt.Sprintf("%s%02d", prefix, i), nil)
		index, err := cache.ShardIndex(cache.ShardHash(string(obj.UID)), count)
		if err != nil {
			t.Fatal(err)
		}
		shards[index] = append(shards[index], obj.Name)
	}
	return shards
}

func shardSelector(t *testing.T, key string, index, count int) sharding.Selector {
	t.Helper()
	sel, err := cache.ShardSelectorFor(key, index, count)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// listShard lists one page with sel, skipping the scenario when the
// server ignores shard selectors (no shardInfo: the ShardedListAndWatch
// feature gate is off, or the server predates it) and checking the echo
// otherwise.
func listShard(t *testing.T, target Target, sel sharding.Selector, opts metav1.ListOptions) listResult {
	t.Helper()
	opts.ShardSelector = sel.String()
	obj, err := target.ListerWatcher().ListWithContext(t.Context(), opts)
	if err != nil {
		t.Fatalf("list %s: %v", describe(opts), err)
	}
	info := cache.ShardInfoOf(obj)
	if info == nil {
		t.Skip("the server ignores shard selectors (feature gate ShardedListAndWatch off?)")
	}
	if info.Selector != sel.String() {
		t.Errorf("shardInfo.selector %q, want the request's %q", info.Selector, sel.String())
	}
	r, err := tryList(t, target, opts)
	if err != nil {
		t.Fatalf("list %s: %v", describe(opts), err)
	}
	return r
}

// shardList: the shards of two and of three split the objects
// exactly as cache.ShardIndex places them, and each list echoes its
// selector.
func shardList(t *testing.T, target Target) {
	r := record(t, target)
	for _, count := range []int{2, 3} {
		want := createSharded(t, r, fmt.Sprintf("n%d-", count), count)
		prefix := fmt.Sprintf("n%d-", count)
		for index := range count {
			r := listShard(t, target, shardSelector(t, cache.ShardKeyUID, index, count), metav1.ListOptions{})
			var got []string
			for _, name := range sortedNames(r.Items) {
				if strings.HasPrefix(name, prefix) {
					got = append(got, name)
				}
			}
			checkNames(t, fmt.Sprintf("shard %d of %d", index, count), want[index], got)
		}
	}
}

// shardPaginatedList: pages of a sharded list hold at most limit items of
// the shard and together the whole shard.
func shardPaginatedList(t *testing.T, target Target) {
	want := createSharded(t, record(t, target), "p-", 2)
	sel := shardSelector(t, cache.ShardKeyUID, 1, 2)
	var got []string
	opts := metav1.ListOptions{Limit: 3}
	for pages := 0; ; pages++ {
		if pages > shardObjects {
			t.Fatal("more pages than objects")
		}
		r := listShard(t, target, sel, opts)
		if len(r.Items) > 3 {
			t.Errorf("page of %d items, limit 3", len(r.Items))
		}
		got = append(got, r.names()...)
		if r.Continue == "" {
			break
		}
		opts.Continue = r.Continue
	}
	slices.Sort(got)
	slices.Sort(want[1])
	checkNames(t, "the pages of shard 1 of 2", want[1], got)
}

// shardNamespace: a shard of namespaces holds every object of the
// namespace or none.
func shardNamespace(t *testing.T, target Target) {
	createSharded(t, record(t, target), "ns-", 1)
	ns := target.Namespace()
	index, err := cache.ShardIndex(cache.ShardHash(ns), 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		r := listShard(t, target, shardSelector(t, cache.ShardKeyNamespace, i, 2), metav1.ListOptions{})
		want := 0
		if i == index {
			want = shardObjects
		}
		if len(r.Items) != want {
			t.Errorf("namespace shard %d of 2 holds %d objects of namespace %s, want %d", i, len(r.Items), ns, want)
		}
	}
}

// shardWatch: a watch from a resourceVersion delivers the changes of the
// shard's objects only.
func shardWatch(t *testing.T, target Target) {
	r := record(t, target)
	sel := shardSelector(t, cache.ShardKeyUID, 0, 2)
	start := listShard(t, target, sel, metav1.ListOptions{})
	s := r.watch(metav1.ListOptions{ResourceVersion: start.RV, ShardSelector: sel.String()}, r.mark())
	want := createSharded(t, r, "w-", 2)
	if len(want[0]) == 0 || len(want[1]) == 0 {
		t.Fatalf("the objects are not in both shards: %v", want)
	}
	s.converge()
	r.update(want[1][0], map[string]string{"l": "1"}, nil)
	r.update(want[0][0], map[string]string{"l": "1"}, nil)
	s.converge()
	s.check()
}

// shardStreamingList: a streaming list delivers the shard's objects, then
// the initial-events-end bookmark, then the changes of the shard's objects.
func shardStreamingList(t *testing.T, target Target) {
	r := record(t, target)
	want := createSharded(t, r, "s-", 2)
	if len(want[0]) == 0 || len(want[1]) == 0 {
		t.Fatalf("the objects are not in both shards: %v", want)
	}
	sel := shardSelector(t, cache.ShardKeyUID, 1, 2)
	listShard(t, target, sel, metav1.ListOptions{}) // skips if ignored
	s, err := r.openStream(metav1.ListOptions{ShardSelector: sel.String(), SendInitialEvents: ptr(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true}, r.mark())
	skipIfWatchListUnsupported(t, err)
	if err != nil {
		t.Fatalf("streaming list of a shard: %v", err)
	}
	s.converge()
	r.update(want[0][0], map[string]string{"l": "1"}, nil)
	r.update(want[1][0], map[string]string{"l": "1"}, nil)
	s.converge()
	s.check()
}

// shardMalformedSelector: list and watch refuse a selector the apiserver
// cannot parse with a 500 without reason and the parser's message.
func shardMalformedSelector(t *testing.T, target Target) {
	listShard(t, target, shardSelector(t, cache.ShardKeyUID, 0, 2), metav1.ListOptions{}) // skips if ignored
	for _, tc := range []struct {
		selector string
		message  string
	}{
		{selector: "object.metadata.uid", message: "unexpected expression kind 7; expected shardRange() call or || operator"},
		{selector: "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')", message: `unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace`},
		{selector: "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", message: `hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`},
		{selector: "shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')", message: "shard range start 0x8000000000000000 must be less than end 0x8000000000000000"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')", message: `all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"`},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && true", message: `unsupported function "_&&_"; only shardRange() and || are allowed`},
		{selector: "shardRange(object.metadata.uid", message: "CEL parse error: Syntax error: "},
	} {
		_, listErr := target.ListerWatcher().ListWithContext(t.Context(), metav1.ListOptions{ShardSelector: tc.selector})
		checkShardRefusal(t, "list", tc.selector, tc.message, listErr)
		w, watchErr := target.ListerWatcher().WatchWithContext(t.Context(), metav1.ListOptions{ShardSelector: tc.selector, ResourceVersion: "0"})
		if watchErr == nil {
			w.Stop()
		}
		checkShardRefusal(t, "watch", tc.selector, tc.message, watchErr)
	}
}

// checkShardRefusal checks the apiserver's answer to a malformed shard
// selector: 500, no reason, "invalid shard selector: " and the message (a
// prefix of it for syntax errors, whose wording is CEL's).
func checkShardRefusal(t *testing.T, verb, selector, message string, err error) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Errorf("%s with shard selector %q: %v, want a 500", verb, selector, err)
		return
	}
	s := status.Status()
	want := "invalid shard selector: " + message
	matches := s.Message == want || (strings.HasSuffix(message, ": ") && strings.HasPrefix(s.Message, want))
	if s.Code != http.StatusInternalServerError || s.Reason != metav1.StatusReasonUnknown || !matches {
		t.Errorf("%s with shard selector %q: %d %q %q, want 500 without reason and %q", verb, selector, s.Code, s.Reason, s.Message, want)
	}
}
