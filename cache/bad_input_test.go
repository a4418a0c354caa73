package cache

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// badInput is one row of the "Bad input" table of the package documentation
// (doc.go): a source that misbehaves in one way for ten minutes.
type badInput struct {
	// row is the first column of the row, verbatim.
	row string
	// noWatchList makes the source opt out of streaming lists, so that the
	// informer lists with pagination from the start; optOutPanics makes its
	// opt-out method panic.
	noWatchList, optOutPanics bool
	// hooks returns the misbehaviour, given the server behind it.
	hooks func(srv *fakeServer) hostileHooks
	// poke, when set, hands the running informer the bad input a minute
	// after start, for input that does not come from a ListerWatcher.
	poke func(t *testing.T, inf *sharedIndexInformer)
	// synced says that the informer syncs, and holds what the server holds
	// (but deleted), while the input is bad; otherwise it stays unsynced
	// with an empty store.
	synced  bool
	deleted []string
	// reported says that errors reach utilruntime.HandleErrorWithContext,
	// directly or through the default watch error handler.
	reported bool
	// memory are the informer's memory options.
	memory *MemoryOptions
}

// badInputs are the rows of the table, in its order.
var badInputs = []badInput{
	{
		row:         "nil list",
		reported:    true,
		noWatchList: true,
		hooks: func(*fakeServer) hostileHooks {
			n := 0
			return hostileHooks{list: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				// Untyped and typed nils, in turn.
				if n++; n%2 == 0 {
					return (*metav1.PartialObjectMetadataList)(nil), nil
				}
				return nil, nil
			}}
		},
	},
	{
		row:      "nil watch",
		reported: true,
		hooks: func(*fakeServer) hostileHooks {
			return everyWatch(func(context.Context, metav1.ListOptions) (watch.Interface, error) { return nil, nil })
		},
		synced: true,
	},
	{
		row:    "watch closed at once, forever",
		hooks:  func(*fakeServer) hostileHooks { return everyWatch(scriptedWatchOf(true)) },
		synced: true,
	},
	{
		row: "watch closed after each event, forever",
		hooks: func(srv *fakeServer) hostileHooks {
			return everyWatch(func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				return newScriptedWatch([]watch.Event{bookmarkEvent(srv.ResourceVersion(), false)}, true), nil
			})
		},
		synced: true,
	},
	{
		row:    "watch that never sends and never closes",
		hooks:  func(*fakeServer) hostileHooks { return everyWatch(scriptedWatchOf(false)) },
		synced: true,
	},
	{
		row:    "error events without a status",
		hooks:  func(*fakeServer) hostileHooks { return everyWatch(scriptedWatchOf(false, badErrorEvents...)) },
		synced: true,
	},
	{
		row:         "duplicate objects in a list",
		reported:    true,
		noWatchList: true,
		hooks: func(srv *fakeServer) hostileHooks {
			return hostileHooks{list: rewrittenLists(srv, func(l *metav1.PartialObjectMetadataList) runtime.Object {
				// A stale copy of every object first.
				var copies []metav1.PartialObjectMetadata
				for _, item := range l.Items {
					stale := item.DeepCopy()
					stale.ResourceVersion = staleResourceVersion
					copies = append(copies, *stale)
				}
				l.Items = append(copies, l.Items...)
				return l
			})}
		},
		synced: true,
	},
	{
		row:      "duplicate objects in a streaming list",
		reported: true,
		hooks: func(srv *fakeServer) hostileHooks {
			return hostileHooks{stream: func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
				events, err := initialEvents(ctx, srv, "")
				if err != nil {
					return nil, err
				}
				// A stale copy of every object first.
				var copies []watch.Event
				for _, e := range events[:len(events)-1] {
					stale := e.Object.(*metav1.PartialObjectMetadata).DeepCopy()
					stale.ResourceVersion = staleResourceVersion
					copies = append(copies, watch.Event{Type: watch.Added, Object: stale})
				}
				return newScriptedWatch(append(copies, events...), false), nil
			}}
		},
		synced: true,
	},
	{
		row:         "objects without metadata, of the wrong type or nil",
		reported:    true,
		noWatchList: true,
		hooks: func(srv *fakeServer) hostileHooks {
			return hostileHooks{
				list: rewrittenLists(srv, func(l *metav1.PartialObjectMetadataList) runtime.Object {
					out := &metainternalversion.List{ListMeta: l.ListMeta, Items: slices.Clone(badObjects)}
					for i := range l.Items {
						out.Items = append(out.Items, &l.Items[i])
					}
					return out
				}),
				watch: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
					var events []watch.Event
					for _, obj := range badObjects {
						for _, t := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted, watch.Bookmark} {
							events = append(events, watch.Event{Type: t, Object: obj})
						}
					}
					return newScriptedWatch(events, true), nil
				},
			}
		},
		synced: true,
	},
	{
		row:   "tombstones with nil objects",
		hooks: func(*fakeServer) hostileHooks { return hostileHooks{} },
		poke: func(t *testing.T, inf *sharedIndexInformer) {
			inf.startedLock.Lock()
			queue := inf.controller.(*controller).config.Queue
			inf.startedLock.Unlock()
			if err := queue.Delete(DeletedFinalStateUnknown{Key: testNamespace + "/a"}); err != nil {
				t.Errorf("queue a tombstone without object: %v", err)
			}
		},
		synced:  true,
		deleted: []string{"a"},
	},
	{
		row:         "malformed resource versions",
		reported:    true,
		noWatchList: true,
		hooks: func(srv *fakeServer) hostileHooks {
			// Every list answers at "abc", which the server refuses.
			return hostileHooks{list: rewrittenLists(srv, func(l *metav1.PartialObjectMetadataList) runtime.Object {
				l.ResourceVersion = "abc"
				return l
			})}
		},
		synced: true,
	},
	{
		row:    "streaming lists closed before their end bookmark",
		hooks:  func(*fakeServer) hostileHooks { return hostileHooks{stream: scriptedWatchOf(true, added("a", "1"))} },
		synced: true,
	},
	{
		row: "streaming lists answering 410 Gone",
		hooks: func(*fakeServer) hostileHooks {
			return hostileHooks{stream: scriptedWatchOf(false, errorEvent(errGone))}
		},
		synced: true,
	},
	{
		row:          "ListerWatcher that panics",
		reported:     true,
		optOutPanics: true,
		hooks: func(*fakeServer) hostileHooks {
			hooks := everyWatch(func(context.Context, metav1.ListOptions) (watch.Interface, error) { panic("watch exploded") })
			hooks.list = func(context.Context, metav1.ListOptions) (runtime.Object, error) { panic("list exploded") }
			return hooks
		},
	},
	{
		row:      "invalid memory options",
		reported: true,
		hooks:    func(*fakeServer) hostileHooks { return hostileHooks{} },
		memory:   &MemoryOptions{DropManagedFields: true, Keep: []string{"spec.nodeName"}, Share: true},
		synced:   true,
	},
}

// staleResourceVersion marks the stale copies of duplicated objects: a
// version the server never reached, so that a handler that sees a stale copy
// before the real one sees its resource version go down.
const staleResourceVersion = "999999"

// badObjects are objects a reflector cannot take.
var badObjects = []runtime.Object{&metav1.Status{}, &metav1.List{}, (*metav1.PartialObjectMetadata)(nil), nil}

// badErrorEvents are ERROR events that carry no status.
var badErrorEvents = []watch.Event{
	{Type: watch.Error, Object: nil},
	{Type: watch.Error, Object: (*metav1.Status)(nil)},
	{Type: watch.Error, Object: pom("x", "1")},
}

// TestBadInput runs every row of the "Bad input" table in both pipelines: an
// informer with one handler meets the bad input for ten minutes of virtual
// time, then the source heals and the server changes. Nothing may panic; the
// requests of the ten minutes are counted (no spinning); the store must hold
// what the server holds, or nothing before the first sync (no corruption);
// and after healing the store, and the handler's view of it, must converge
// on the server (recovery).
func TestBadInput(t *testing.T) {
	for _, tc := range badInputs {
		for _, mode := range queueModes {
			t.Run(tc.row+"/"+mode.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := serverWith(t, "a", "b")
					lw := newHostileLW(srv, tc.hooks(srv))
					handled := storeHandledErrors(t)
					lw.noWatchList, lw.optOutPanics = tc.noWatchList, tc.optOutPanics
					inf := newTestInformer(lw, SharedIndexInformerOptions{InOrder: mode.inOrder, Memory: tc.memory})
					rec := newRecorder()
					if _, err := inf.AddEventHandler(rec); err != nil {
						t.Fatal(err)
					}
					runSharedInformer(t, inf)
					if tc.poke != nil {
						time.Sleep(time.Minute)
						synctest.Wait()
						tc.poke(t, inf)
					}
					time.Sleep(10 * time.Minute)
					synctest.Wait()

					// Backoff delays are at least 800ms, doubling to 30s:
					// fewer than 25 of them fit in ten minutes, and no row
					// makes more than four requests per delay.
					calls := len(lw.recorded())
					t.Logf("%d requests in ten minutes of bad input", calls)
					if calls > 100 {
						t.Errorf("%d requests in ten minutes of bad input, want at most 100", calls)
					}
					var want []string
					if tc.synced {
						want = serverContents(t, srv, slices.DeleteFunc([]string{"a", "b"}, func(n string) bool { return slices.Contains(tc.deleted, n) }))
					}
					if got := storeContents(inf.GetStore()); !slices.Equal(want, got) {
						t.Errorf("store after ten minutes of bad input (-want +got):\n%s", cmp.Diff(want, got))
					}
					if inf.HasSynced() != tc.synced {
						t.Errorf("synced after ten minutes of bad input: %v, want %v", inf.HasSynced(), tc.synced)
					}
					if reported := len(handled()) > 0; reported != tc.reported {
						t.Errorf("errors reported: %v (%v), want %v", reported, handled(), tc.reported)
					}

					lw.setHooks(hostileHooks{})
					touch(t, srv, "a", "1")
					create(t, srv, "c")
					remove(t, srv, "b")
					// Long enough for a hanging watch to be closed.
					time.Sleep(15 * time.Minute)
					synctest.Wait()
					if !inf.HasSynced() {
						t.Fatal("not synced after healing")
					}
					want = serverContents(t, srv, []string{"a", "c"})
					if diff := cmp.Diff(want, storeContents(inf.GetStore())); diff != "" {
						t.Errorf("store after healing (-want +got):\n%s", diff)
					}
					if diff := cmp.Diff(want, handlerView(rec.recorded())); diff != "" {
						t.Errorf("the handler's view after healing (-want +got):\n%s", diff)
					}
					checkNotifications(t, rec.recorded())
				})
			})
		}
	}
}

// checkNotifications checks the calls of one handler: per object, no add
// while the handler has it, and resource versions that never go down.
func checkNotifications(t *testing.T, events []event) {
	t.Helper()
	have := map[string]uint64{} // key -> resource version
	for i, e := range events {
		key := strings.TrimPrefix(e.Key, "tombstone:")
		if e.Kind == "delete" {
			delete(have, key)
			continue
		}
		last, known := have[key]
		if e.Kind == "add" && known {
			t.Errorf("call %d, %s: the handler has the object already", i, e)
		}
		rv, err := strconv.ParseUint(e.RV, 10, 64)
		if err != nil {
			t.Errorf("call %d, %s: %v", i, e, err)
			continue
		}
		if known && rv < last {
			t.Errorf("call %d, %s: resource version down from %d", i, e, last)
		}
		have[key] = rv
	}
}

// handlerView returns what a handler that saw events believes the store
// holds, described like storeContents describes a store.
func handlerView(events []event) []string {
	var out []string
	for key, rv := range lastRVs(events) {
		if rv != "deleted" {
			out = append(out, key+"@"+rv)
		}
	}
	slices.Sort(out)
	return out
}

// TestBadInputTableMatchesDoc checks that badInputs are the rows of the "Bad
// input" table in doc.go, in its order: the first column, read line after
// line, is the rows' names one after another.
func TestBadInputTableMatchesDoc(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	const header = "//\tInput "
	_, table, found := strings.Cut(string(src), header)
	if !found {
		t.Fatalf("doc.go has no line starting %q", header)
	}
	lines := strings.Split(table, "\n")[2:] // past the header's rest and the dashes
	var words []string
	for _, line := range lines {
		cell, isRow := strings.CutPrefix(line, "//\t")
		if !isRow {
			break // the blank comment line ending the table
		}
		first, _, _ := strings.Cut(cell, "  ")
		words = append(words, strings.Fields(first)...)
	}
	var want []string
	for _, tc := range badInputs {
		want = append(want, strings.Fields(tc.row)...)
	}
	if diff := cmp.Diff(strings.Join(want, " "), strings.Join(words, " ")); diff != "" {
		t.Errorf("first column of doc.go's table (-badInputs +doc.go):\n%s", diff)
	}
}
