package cache

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	framework "github.com/informer-go/informer/cache/testing"
	"github.com/informer-go/informer/wait"
)

// serverModes are the servers the sharded informers run against: one that
// honours shard selectors, one that ignores them (the client filters),
// each with streaming lists and with paginated lists.
var serverModes = []struct {
	name string
	opts framework.Options[*metav1.PartialObjectMetadata]
}{
	{name: "server-side/streaming"},
	{name: "server-side/paginated", opts: framework.Options[*metav1.PartialObjectMetadata]{WatchListUnsupported: true, IgnoreSendInitialEvents: true}},
	{name: "client-side/streaming", opts: framework.Options[*metav1.PartialObjectMetadata]{IgnoreShardSelector: true}},
	{name: "client-side/paginated", opts: framework.Options[*metav1.PartialObjectMetadata]{IgnoreShardSelector: true, WatchListUnsupported: true, IgnoreSendInitialEvents: true}},
}

// newShardTestServer returns a server of the given mode holding n objects
// named obj-000, obj-001, ...
func newShardTestServer(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], n int) *fakeServer {
	t.Helper()
	opts.WatchBufferSize = 100_000
	srv := framework.NewServer(opts)
	t.Cleanup(srv.Close)
	for i := range n {
		create(t, srv, fmt.Sprintf("obj-%03d", i))
	}
	return srv
}

// shardKeys returns the keys of the server's objects that sel selects.
func shardKeys(t *testing.T, srv *fakeServer, sel sharding.Selector) []string {
	t.Helper()
	list, err := srv.ListWithContext(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, obj := range list.(*metav1.PartialObjectMetadataList).Items {
		if ok, err := sel.Matches(&obj); err != nil || ok {
			keys = append(keys, obj.Namespace+"/"+obj.Name)
		}
	}
	slices.Sort(keys)
	return keys
}

// startShardedInformer runs, until the test ends, an informer of the given
// pipeline on srv's shard sel with a recording handler, and waits for its
// sync.
func startShardedInformer(t *testing.T, srv *fakeServer, sel sharding.Selector, inOrder bool) (*ShardedListWatch, *sharedIndexInformer, *recorder) {
	t.Helper()
	lw, err := NewShardedListWatch(srv, sel, ShardedListWatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inf := newTestInformer(lw, SharedIndexInformerOptions{InOrder: inOrder})
	rec := newRecorder()
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	runSharedInformer(t, inf)
	waitForSync(t, inf.HasSyncedChecker())
	return lw, inf, rec
}

// waitForShard waits until the informer's store holds exactly want, and
// its handler's view equals its store; it returns the handler's calls.
func waitForShard(t *testing.T, inf *sharedIndexInformer, rec *recorder, want []string) []event {
	t.Helper()
	rec.waitFor(t, "the shard", func([]event) bool {
		return slices.Equal(want, keysOf(inf.GetStore()))
	})
	return rec.waitFor(t, "the handler to catch up with the store", func(events []event) bool {
		return slices.Equal(handlerView(events), storeContents(inf.GetStore()))
	})
}

// keysOf returns the sorted keys of store.
func keysOf(store Store) []string {
	keys := store.ListKeys()
	slices.Sort(keys)
	return keys
}

// minus returns the elements of a not in b; both sorted.
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); !found {
			out = append(out, s)
		}
	}
	return out
}

// TestShardedInformerResharding moves a running informer from shard 1 of 2
// to shard 1 of 3 and checks, in both pipelines and against servers that
// honour and ignore shard selectors, that its handler gets a delete for
// every object that left, an add for every object that entered and nothing
// else, and that it follows writes afterwards.
func TestShardedInformerResharding(t *testing.T) {
	for _, qm := range queueModes {
		for _, sm := range serverModes {
			t.Run(qm.name+"/"+sm.name, func(t *testing.T) {
				srv := newShardTestServer(t, sm.opts, 300)
				from, to := mustShard(t, 1, 2), mustShard(t, 1, 3)
				lw, inf, rec := startShardedInformer(t, srv, from, qm.inOrder)

				wantFrom := shardKeys(t, srv, from)
				if diff := cmp.Diff(wantFrom, keysOf(inf.GetStore())); diff != "" {
					t.Fatalf("store on shard 1 of 2 (-want +got):\n%s", diff)
				}
				before := len(rec.waitForCount(t, len(wantFrom)))

				if err := lw.SetShardSelector(to); err != nil {
					t.Fatal(err)
				}
				wantTo := shardKeys(t, srv, to)
				leaving, entering := minus(wantFrom, wantTo), minus(wantTo, wantFrom)
				if len(leaving) == 0 || len(entering) == 0 {
					t.Fatalf("test data: %d objects leave and %d enter; want some of each", len(leaving), len(entering))
				}
				// A sentinel written after the handover marks the end of its
				// calls: handlers see the changes in order.
				handover := rec.waitFor(t, "the handover", func(events []event) bool {
					return len(events) >= before+len(leaving)+len(entering)
				})[before:]
				var deleted, added []string
				for _, e := range handover[:len(leaving)+len(entering)] {
					switch e.Kind {
					case "delete":
						deleted = append(deleted, e.Key)
					case "add":
						added = append(added, e.Key)
					default:
						t.Errorf("handover call %v, want only deletes and adds", e)
					}
				}
				slices.Sort(deleted)
				slices.Sort(added)
				if diff := cmp.Diff(leaving, deleted); diff != "" {
					t.Errorf("deletes for the objects that left (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(entering, added); diff != "" {
					t.Errorf("adds for the objects that entered (-want +got):\n%s", diff)
				}

				// Traffic after the handover: the informer follows its new
				// shard only.
				for i := range 30 {
					create(t, srv, fmt.Sprintf("new-%03d", i))
				}
				for i := 0; i < 300; i += 7 {
					touch(t, srv, fmt.Sprintf("obj-%03d", i), "x")
				}
				for i := 1; i < 300; i += 11 {
					remove(t, srv, fmt.Sprintf("obj-%03d", i))
				}
				wantTo = shardKeys(t, srv, to)
				events := waitForShard(t, inf, rec, wantTo)
				for _, e := range events[before:] {
					if e.Kind == "update" && e.RV == e.OldRV {
						t.Errorf("update without a change after the handover: %v", e)
					}
				}
				if got, want := lw.ClientSideFiltering(), sm.opts.IgnoreShardSelector; got != want {
					t.Errorf("ClientSideFiltering() = %v, want %v", got, want)
				}
			})
		}
	}
}

// TestShardedListWatchFallback checks the detection of a server that
// ignores shard selectors: through a list without shardInfo and through a
// watch event outside the shard, and its report in the metric.
func TestShardedListWatchFallback(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ignore     bool
		streaming  bool
		wantMetric []float64
	}{
		{name: "honoured list", wantMetric: nil},
		{name: "honoured streaming list", streaming: true, wantMetric: nil},
		{name: "ignored list", ignore: true, wantMetric: []float64{1}},
		{name: "ignored streaming list", ignore: true, streaming: true, wantMetric: []float64{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newShardTestServer(t, framework.Options[*metav1.PartialObjectMetadata]{IgnoreShardSelector: tc.ignore}, 40)
			sel := mustShard(t, 1, 2)
			metric := &storeGauge{}
			lw, err := NewShardedListWatch(srv, sel, ShardedListWatchOptions{FallbackMetric: metric})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			if tc.streaming {
				w, err := lw.WatchWithContext(t.Context(), metav1.ListOptions{SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
				if err != nil {
					t.Fatal(err)
				}
				defer w.Stop()
				for ev := nextShardEvent(t, w); ev.Type != watch.Bookmark; ev = nextShardEvent(t, w) {
					m := ev.Object.(*metav1.PartialObjectMetadata)
					got = append(got, m.Namespace+"/"+m.Name)
				}
			} else {
				list, err := lw.ListWithContext(t.Context(), metav1.ListOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range list.(*metav1.PartialObjectMetadataList).Items {
					got = append(got, m.Namespace+"/"+m.Name)
				}
				if info := ShardInfoOf(list); (info == nil) != tc.ignore {
					t.Errorf("ShardInfoOf(list) = %v with a server that ignores selectors: %v", info, tc.ignore)
				}
			}
			requests := srv.Requests()
			slices.Sort(got)
			if diff := cmp.Diff(shardKeys(t, srv, sel), got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			if lw.ClientSideFiltering() != tc.ignore {
				t.Errorf("ClientSideFiltering() = %v, want %v", lw.ClientSideFiltering(), tc.ignore)
			}
			if diff := cmp.Diff(tc.wantMetric, metric.get()); diff != "" {
				t.Errorf("fallback metric (-want +got):\n%s", diff)
			}
			for _, r := range requests {
				if r.Options.ShardSelector != sel.String() {
					t.Errorf("request %+v: shardSelector %q, want %q", r, r.Options.ShardSelector, sel.String())
				}
			}
		})
	}
}

// TestShardedListWatchChangeDuringStreamingList: a shard change before the
// initial-events-end bookmark cannot hand over; the stream ends with 410
// Expired for the reflector to list again.
func TestShardedListWatchChangeDuringStreamingList(t *testing.T) {
	srv := newShardTestServer(t, framework.Options[*metav1.PartialObjectMetadata]{}, 60)
	lw, err := NewShardedListWatch(srv, mustShard(t, 0, 2), ShardedListWatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := lw.WatchWithContext(t.Context(), metav1.ListOptions{SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := lw.SetShardSelector(mustShard(t, 1, 2)); err != nil {
		t.Fatal(err)
	}
	for {
		switch ev := nextShardEvent(t, w); ev.Type {
		case watch.Error:
			if err := apierrors.FromObject(ev.Object); !apierrors.IsResourceExpired(err) {
				t.Fatalf("error event %v, want 410 Expired", err)
			}
			return
		case watch.Bookmark:
			t.Fatal("the streaming list completed on the old shard")
		}
	}
}

// TestShardedListWatchHandoverAtWatchStart: a shard change between the
// list and the watch is handed over before the watch's first event, from
// the list's resourceVersion.
func TestShardedListWatchHandoverAtWatchStart(t *testing.T) {
	srv := newShardTestServer(t, framework.Options[*metav1.PartialObjectMetadata]{}, 100)
	from, to := mustShard(t, 0, 2), mustShard(t, 1, 3)
	lw, err := NewShardedListWatch(srv, from, ShardedListWatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := lw.ListWithContext(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv := list.(*metav1.PartialObjectMetadataList).ResourceVersion
	if err := lw.SetShardSelector(to); err != nil {
		t.Fatal(err)
	}
	later := create(t, srv, "later") // in the new shard or not: the watch decides
	w, err := lw.WatchWithContext(t.Context(), metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	wantFrom, wantTo := shardKeys(t, srv, from), shardKeys(t, srv, to)
	leaving := minus(wantFrom, wantTo)
	entering := minus(minus(wantTo, wantFrom), []string{testNamespace + "/later"})
	var deleted, added []string
	for {
		ev := nextShardEvent(t, w)
		m := ev.Object.(*metav1.PartialObjectMetadata)
		key := m.Namespace + "/" + m.Name
		switch {
		case ev.Type == watch.Deleted:
			if m.ResourceVersion != rv {
				t.Errorf("DELETED %s stamped %s, want the handover's %s", key, m.ResourceVersion, rv)
			}
			deleted = append(deleted, key)
		case ev.Type == watch.Added && m.Name != "later":
			added = append(added, key)
		case ev.Type == watch.Bookmark:
			if m.ResourceVersion != rv {
				t.Errorf("BOOKMARK at %s, want the handover's %s", m.ResourceVersion, rv)
			}
		default:
			t.Fatalf("%s %s before the handover's bookmark", ev.Type, key)
		}
		if ev.Type == watch.Bookmark {
			break
		}
	}
	slices.Sort(deleted)
	slices.Sort(added)
	if diff := cmp.Diff(leaving, deleted); diff != "" {
		t.Errorf("DELETED (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(entering, added); diff != "" {
		t.Errorf("ADDED (-want +got):\n%s", diff)
	}
	if ok, _ := to.Matches(later); ok {
		if ev := nextShardEvent(t, w); ev.Type != watch.Added || ev.Object.(*metav1.PartialObjectMetadata).Name != "later" {
			t.Errorf("after the handover: %s %v, want ADDED later", ev.Type, ev.Object)
		}
	}
}

// nextShardEvent receives one event, failing the test if the watch closes
// or none comes within a generous deadline.
func nextShardEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch closed, want an event")
		}
		return ev
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("no watch event")
	}
	return watch.Event{}
}

// TestShardedInformerRelistsWhenHandoverImpossible: a change of the hashed
// field, or a resourceVersion the server no longer has, makes the watch
// end with 410 and the reflector relist the new shard.
func TestShardedInformerRelistsWhenHandoverImpossible(t *testing.T) {
	nsShard, err := ShardSelectorFor(ShardKeyNamespace, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, qm := range queueModes {
		for _, tc := range []struct {
			name    string
			to      sharding.Selector
			compact bool
		}{
			{name: "other field", to: nsShard},
			{name: "compacted", to: mustShard(t, 0, 3), compact: true},
		} {
			t.Run(qm.name+"/"+tc.name, func(t *testing.T) {
				srv := newShardTestServer(t, framework.Options[*metav1.PartialObjectMetadata]{}, 100)
				lw, inf, rec := startShardedInformer(t, srv, mustShard(t, 1, 2), qm.inOrder)
				if tc.compact {
					touch(t, srv, "obj-000", "x")
					srv.Compact()
				}
				if err := lw.SetShardSelector(tc.to); err != nil {
					t.Fatal(err)
				}
				want := shardKeys(t, srv, tc.to)
				waitForShard(t, inf, rec, want)
			})
		}
	}
}

// TestShardedInformerReshardsUnderTraffic moves an informer through several
// shards, each while objects are written, and checks that its store and its
// handler's view end equal to the last shard.
func TestShardedInformerReshardsUnderTraffic(t *testing.T) {
	for _, qm := range queueModes {
		t.Run(qm.name, func(t *testing.T) {
			srv := newShardTestServer(t, framework.Options[*metav1.PartialObjectMetadata]{}, 200)
			lw, inf, rec := startShardedInformer(t, srv, mustShard(t, 0, 2), qm.inOrder)

			shards := []sharding.Selector{mustShard(t, 1, 3), mustShard(t, 2, 5), sharding.Everything(), mustShard(t, 3, 4), mustShard(t, 0, 3)}
			written := 0
			for _, sel := range shards {
				if err := lw.SetShardSelector(sel); err != nil {
					t.Fatal(err)
				}
				for range 10 {
					create(t, srv, fmt.Sprintf("new-%03d", written))
					touch(t, srv, fmt.Sprintf("obj-%03d", written*3%200), "x")
					written++
				}
			}
			want := shardKeys(t, srv, shards[len(shards)-1])
			waitForShard(t, inf, rec, want)
		})
	}
}

// TestShardedListWatchOnEveryInformer runs the low-level, shared and typed
// informers on a shard.
func TestShardedListWatchOnEveryInformer(t *testing.T) {
	srv := newShardTestServer(t, framework.Options[*metav1.PartialObjectMetadata]{}, 50)
	sel := mustShard(t, 2, 3)
	want := shardKeys(t, srv, sel)
	newLW := func() *ShardedListWatch {
		lw, err := NewShardedListWatch(srv, sel, ShardedListWatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return lw
	}

	store, ctrl := NewInformerWithOptions(InformerOptions{ListerWatcher: newLW(), ObjectType: &metav1.PartialObjectMetadata{}, Handler: ResourceEventHandlerFuncs{}})
	stopCtrl := make(chan struct{})
	ctrlDone := make(chan struct{})
	go func() {
		defer close(ctrlDone)
		ctrl.Run(stopCtrl)
	}()
	defer func() {
		close(stopCtrl)
		<-ctrlDone
	}()
	waitForSync(t, ctrl.HasSyncedChecker())
	if diff := cmp.Diff(want, keysOf(store)); diff != "" {
		t.Errorf("low-level informer (-want +got):\n%s", diff)
	}

	typed := NewTypedSharedIndexInformer[*metav1.PartialObjectMetadata](NewSharedIndexInformer(newLW(), &metav1.PartialObjectMetadata{}, 0, Indexers{}))
	runSharedInformer(t, typed)
	waitForSync(t, typed.HasSyncedChecker())
	if diff := cmp.Diff(want, keysOf(typed.GetTypedIndexer())); diff != "" {
		t.Errorf("typed informer (-want +got):\n%s", diff)
	}
}

func TestShardedListWatchInvalid(t *testing.T) {
	srv := newShardTestServer(t, framework.Options[*metav1.PartialObjectMetadata]{}, 0)
	bad := sharding.NewSelector(sharding.ShardRangeRequirement{Key: ShardKeyUID, Start: "0x8000000000000000", End: "0x0000000000000000"})
	if _, err := NewShardedListWatch(nil, mustShard(t, 0, 2), ShardedListWatchOptions{}); err == nil {
		t.Error("NewShardedListWatch accepted a nil ListerWatcher")
	}
	if _, err := NewShardedListWatch((*ListWatch)(nil), mustShard(t, 0, 2), ShardedListWatchOptions{}); err == nil {
		t.Error("NewShardedListWatch accepted a nil *ListWatch")
	}
	if _, err := NewShardedListWatch(srv, bad, ShardedListWatchOptions{}); err == nil || !strings.Contains(err.Error(), "must be less than end") {
		t.Errorf("NewShardedListWatch with an empty range: %v", err)
	}
	lw, err := NewShardedListWatch(srv, nil, ShardedListWatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := lw.SetShardSelector(bad); err == nil {
		t.Error("SetShardSelector accepted an empty range")
	}
	if !lw.ShardSelector().Empty() {
		t.Errorf("ShardSelector() = %q after a refused change, want everything", lw.ShardSelector())
	}
	if _, err := lw.ListWithContext(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Options.ShardSelector; got != "" {
		t.Errorf("an unsharded ListerWatcher sent shardSelector %q", got)
	}
}

// TestShardedListWatchOpaqueWatch: a watch from "" whose synthetic events
// carry no usable resourceVersion ends with 410 when the shard changes.
func TestShardedListWatchOpaqueWatch(t *testing.T) {
	srv := newShardTestServer(t, framework.Options[*metav1.PartialObjectMetadata]{IgnoreSendInitialEvents: true}, 10)
	lw, err := NewShardedListWatch(srv, mustShard(t, 0, 2), ShardedListWatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := lw.WatchWithContext(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := lw.SetShardSelector(mustShard(t, 1, 2)); err != nil {
		t.Fatal(err)
	}
	for {
		if ev := nextShardEvent(t, w); ev.Type == watch.Error {
			if err := apierrors.FromObject(ev.Object); !apierrors.IsResourceExpired(err) {
				t.Fatalf("error event %v, want 410 Expired", err)
			}
			return
		}
	}
}

// TestShardedInformerReshardingKeepsTheCallersSelectors moves an informer
// whose ListerWatcher sets a label and a field selector in front of the
// ShardedListWatch, in both pipelines and against servers that honour and
// ignore shard selectors, and checks that the handover lists only the
// selected objects: it used to list every object that left or entered the
// shard, adding unselected objects to the store for good (and, in the
// InOrder pipeline, deleting objects the handler never had). Found by
// TestChaos, seed 527.
func TestShardedInformerReshardingKeepsTheCallersSelectors(t *testing.T) {
	for _, qm := range queueModes {
		for _, sm := range serverModes {
			t.Run(qm.name+"/"+sm.name, func(t *testing.T) {
				srv := newShardTestServer(t, sm.opts, 0)
				for i := range 300 {
					obj := pom(fmt.Sprintf("obj-%03d", i), "")
					obj.Labels = map[string]string{"keep": fmt.Sprint(i%2 == 0)}
					if _, err := srv.Create(obj); err != nil {
						t.Fatal(err)
					}
				}
				from, to := mustShard(t, 1, 2), mustShard(t, 1, 3)
				sharded, err := NewShardedListWatch(srv, from, ShardedListWatchOptions{})
				if err != nil {
					t.Fatal(err)
				}
				selecting := func(options metav1.ListOptions) metav1.ListOptions {
					options.LabelSelector, options.FieldSelector = "keep=true", "metadata.name!=obj-000"
					return options
				}
				lw := &ListWatch{
					ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
						return sharded.ListWithContext(ctx, selecting(options))
					},
					WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
						return sharded.WatchWithContext(ctx, selecting(options))
					},
				}
				inf := newTestInformer(ToListWatcherWithWatchListSemantics(lw, srv), SharedIndexInformerOptions{InOrder: qm.inOrder})
				rec := newRecorder()
				if _, err := inf.AddEventHandler(rec); err != nil {
					t.Fatal(err)
				}
				runSharedInformer(t, inf)
				waitForSync(t, inf.HasSyncedChecker())
				selected := func(sel sharding.Selector) []string {
					var keys []string
					for _, key := range shardKeys(t, srv, sel) {
						if i, _ := strconv.Atoi(strings.TrimPrefix(key, testNamespace+"/obj-")); i%2 == 0 && i != 0 {
							keys = append(keys, key)
						}
					}
					return keys
				}
				waitForShard(t, inf, rec, selected(from))

				if err := sharded.SetShardSelector(to); err != nil {
					t.Fatal(err)
				}
				want := selected(to)
				rec.waitFor(t, "the handover", func([]event) bool {
					return len(minus(want, keysOf(inf.GetStore()))) == 0
				})
				// A write after the handover marks the end of its calls.
				sentinel, err := srv.Get(testNamespace, strings.TrimPrefix(want[0], testNamespace+"/"))
				if err != nil {
					t.Fatal(err)
				}
				sentinel.Labels["after"] = "handover"
				if sentinel, err = srv.Update(sentinel); err != nil {
					t.Fatal(err)
				}
				events := rec.waitFor(t, "the write after the handover", func(events []event) bool {
					return slices.ContainsFunc(events, func(e event) bool { return e.Key == want[0] && e.RV == sentinel.ResourceVersion })
				})
				if diff := cmp.Diff(want, keysOf(inf.GetStore())); diff != "" {
					t.Errorf("store after the handover (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(storeContents(inf.GetStore()), handlerView(events)); diff != "" {
					t.Errorf("the handler's view (-store +view):\n%s", diff)
				}
				checkNotifications(t, events)
				for i, e := range events {
					if e.Kind == "delete" && !slices.ContainsFunc(events[:i], func(prev event) bool { return prev.Key == e.Key && prev.Kind == "add" }) {
						t.Errorf("call %d, %s: a delete of an object the handler never had", i, e)
					}
				}
			})
		}
	}
}
