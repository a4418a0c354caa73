package cache

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2/ktesting"
)

// lockedLog is a handlerLog safe for concurrent use.
type lockedLog struct {
	mu  sync.Mutex
	log handlerLog
}

func (l *lockedLog) OnAdd(obj any, initial bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log.OnAdd(obj, initial)
}

func (l *lockedLog) OnUpdate(o, n any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log.OnUpdate(o, n)
}

func (l *lockedLog) OnDelete(obj any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log.OnDelete(obj)
}

func (l *lockedLog) calls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.log.calls)
}

// runController runs c until lw's scripts are used up and everything has
// settled, calls check, then stops c. It must run in a synctest bubble.
func runController(t *testing.T, c Controller, lw *scriptedLW, check func()) {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.RunWithContext(ctx)
	}()
	select {
	case <-lw.exhausted:
	case <-time.After(time.Hour):
		t.Error("the controller did not use up its script")
	}
	synctest.Wait()
	check()
	cancel()
	<-done
}

// TestInformerPipelines runs the same server story through both informer
// pipelines and checks what the handler sees.
func TestInformerPipelines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		inOrder   bool
		wantCalls []string
	}{
		{
			name: "DeltaFIFO",
			wantCalls: []string{
				"add ns/a@5 initial=true", "add ns/b@6 initial=true",
				"update ns/a@5 -> ns/a@8", "delete ns/b@9", "add ns/c@11 initial=false",
				// The relist: the listed object first, then the deletion it
				// implies.
				"update ns/a@8 -> ns/a@12", "delete tombstone ns/c (ns/c@11)",
			},
		},
		{
			name:    "RealFIFO in order",
			inOrder: true,
			wantCalls: []string{
				"add ns/a@5 initial=true", "add ns/b@6 initial=true",
				"update ns/a@5 -> ns/a@8", "delete ns/b@9", "add ns/c@11 initial=false",
				// The relist: deletions first, then the list.
				"delete tombstone ns/c (ns/c@11)", "update ns/a@8 -> ns/a@12",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newScriptedLW(
					[]step{{list: pomList("10", "", pom("a", "5"), pom("b", "6"))}, {list: pomList("20", "", pom("a", "12"))}},
					// The watch answers after the initial list has been
					// processed, so that the DeltaFIFO has nothing to merge.
					[]step{{delay: time.Second, events: []watch.Event{modified("a", "8"), deleted("b", "9"), added("c", "11"), errorEvent(errExpired)}}},
				)
				lw.noWatchList = true
				h := &lockedLog{}
				store, ctrl := NewInformerWithOptions(InformerOptions{
					ListerWatcher: lw, ObjectType: &metav1.PartialObjectMetadata{}, Handler: h, InOrder: tc.inOrder,
				})
				if ctrl.HasSynced() || ctrl.LastSyncResourceVersion() != "" {
					t.Errorf("synced before running")
				}
				runController(t, ctrl, lw, func() {
					if diff := cmp.Diff(tc.wantCalls, h.calls()); diff != "" {
						t.Errorf("handler calls (-want +got):\n%s", diff)
					}
					if diff := cmp.Diff([]string{"ns/a@12"}, storeContents(store)); diff != "" {
						t.Errorf("store (-want +got):\n%s", diff)
					}
					if !ctrl.HasSynced() || !IsDone(ctrl.HasSyncedChecker()) {
						t.Errorf("not synced")
					}
					if got := ctrl.LastSyncResourceVersion(); got != "20" {
						t.Errorf("LastSyncResourceVersion = %q, want 20", got)
					}
				})
				if diff := cmp.Diff([]call{listCall("0", 500), watchCall("10"), listCall("11", 0), watchCall("20")}, callsOf(lw.recorded())); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestInformerStreamingListAndBookmarks runs a streaming list through both
// pipelines: the in-order pipeline also hands bookmarks to the store.
func TestInformerStreamingListAndBookmarks(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(map[bool]string{false: "DeltaFIFO", true: "RealFIFO in order"}[inOrder], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newScriptedLW(nil, []step{{events: []watch.Event{
					added("a", "5"), added("b", "6"), bookmarkEvent("10", true), added("c", "16"), bookmarkEvent("20", false),
				}, closeAtEnd: true}})
				h := &lockedLog{}
				store, ctrl := NewInformerWithOptions(InformerOptions{ListerWatcher: lw, Handler: h, InOrder: inOrder})
				runController(t, ctrl, lw, func() {
					want := []string{"add ns/a@5 initial=true", "add ns/b@6 initial=true", "add ns/c@16 initial=false"}
					if diff := cmp.Diff(want, h.calls()); diff != "" {
						t.Errorf("handler calls (-want +got):\n%s", diff)
					}
					// The store tracks the resource versions of the objects it
					// stores and, in order, of bookmarks.
					wantRV := map[bool]string{false: "16", true: "20"}[inOrder]
					if got := store.LastStoreSyncResourceVersion(); got != wantRV {
						t.Errorf("store resource version %q, want %q", got, wantRV)
					}
				})
				if diff := cmp.Diff([]call{watchListCall(""), watchCall("20")}, callsOf(lw.recorded())); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestInformerResync checks that a resync delivers every stored object as an
// update, in both pipelines.
func TestInformerResync(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(map[bool]string{false: "DeltaFIFO", true: "RealFIFO in order"}[inOrder], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newScriptedLW([]step{{list: pomList("10", "", pom("a", "5"), pom("b", "6"))}}, nil)
				lw.noWatchList = true
				h := &lockedLog{}
				_, ctrl := NewInformerWithOptions(InformerOptions{
					ListerWatcher: lw, Handler: h, InOrder: inOrder, ResyncPeriod: time.Minute,
				})
				runController(t, ctrl, lw, func() {
					time.Sleep(time.Minute)
					synctest.Wait()
					got := h.calls()
					sort.Strings(got[2:])
					want := []string{
						"add ns/a@5 initial=true", "add ns/b@6 initial=true",
						"update ns/a@5 -> ns/a@5", "update ns/b@6 -> ns/b@6",
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("handler calls (-want +got):\n%s", diff)
					}
				})
			})
		})
	}
}

// TestInformerTransformAndIndexers checks the deprecated constructors and
// the transform.
func TestInformerTransformAndIndexers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptedLW([]step{{list: pomList("10", "", pom("a", "5"))}}, nil)
		lw.noWatchList = true
		transform := func(obj any) (any, error) {
			p := obj.(*metav1.PartialObjectMetadata).DeepCopy()
			p.Labels = map[string]string{"seen": "yes"}
			return p, nil
		}
		h := &lockedLog{}
		indexer, ctrl := NewTransformingIndexerInformer(lw, &metav1.PartialObjectMetadata{}, 0, h,
			Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, transform)
		runController(t, ctrl, lw, func() {
			objs, err := indexer.ByIndex(NamespaceIndex, testNamespace)
			if err != nil || len(objs) != 1 || objs[0].(*metav1.PartialObjectMetadata).Labels["seen"] != "yes" {
				t.Errorf("ByIndex = %v, %v; want the transformed object", objs, err)
			}
		})
	})
}

// TestControllerWatchErrorHandlers checks which error handler a controller
// installs.
func TestControllerWatchErrorHandlers(t *testing.T) {
	for _, tc := range []struct {
		name              string
		plain, contextual bool
		want              string
	}{
		{name: "plain wins", plain: true, contextual: true, want: "plain"},
		{name: "contextual", contextual: true, want: "contextual"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newScriptedLW([]step{{err: errForbidden}}, nil)
				lw.noWatchList = true
				var mu sync.Mutex
				var got []string
				record := func(s string) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, s)
				}
				cfg := &Config{
					Queue:         NewDeltaFIFOWithOptions(DeltaFIFOOptions{}),
					ListerWatcher: lw,
					Process:       func(any, bool) error { return nil },
				}
				if tc.plain {
					cfg.WatchErrorHandler = func(*Reflector, error) { record("plain") }
				}
				if tc.contextual {
					cfg.WatchErrorHandlerWithContext = func(context.Context, *Reflector, error) { record("contextual") }
				}
				runController(t, New(cfg), lw, func() {
					mu.Lock()
					defer mu.Unlock()
					if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
						t.Errorf("handlers called (-want +got):\n%s", diff)
					}
				})
			})
		})
	}
}

// TestControllerWithoutQueueOrProcess checks that a misconfigured controller
// logs and waits instead of panicking.
func TestControllerWithoutQueueOrProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, ctx := ktesting.NewTestContext(t)
		for _, cfg := range []*Config{
			{},
			{Queue: NewDeltaFIFOWithOptions(DeltaFIFOOptions{}), ListerWatcher: newScriptedLW(nil, nil)},
		} {
			c := New(cfg)
			if c.HasSynced() {
				t.Errorf("synced without anything")
			}
			if IsDone(c.HasSyncedChecker()) {
				t.Errorf("HasSyncedChecker is done")
			}
			ctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				c.RunWithContext(ctx)
			}()
			synctest.Wait()
			cancel()
			<-done
		}
	})
}

// TestInformerWithNilPointerHandler checks that an informer given a nil
// *ResourceEventHandlerFuncs (whose value methods panic when called through
// the nil pointer) treats it as no handler instead of panicking.
func TestInformerWithNilPointerHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptedLW([]step{{list: pomList("10", "", pom("a", "5"))}},
			[]step{{events: []watch.Event{added("b", "11")}, closeAtEnd: true}})
		lw.noWatchList = true
		store, ctrl := NewInformerWithOptions(InformerOptions{
			ListerWatcher: lw, ObjectType: &metav1.PartialObjectMetadata{}, Handler: (*ResourceEventHandlerFuncs)(nil),
		})
		runController(t, ctrl, lw, func() {
			if diff := cmp.Diff([]string{"ns/a@5", "ns/b@11"}, storeContents(store)); diff != "" {
				t.Errorf("store (-want +got):\n%s", diff)
			}
		})
	})
}

// TestControllerResumesAfterProcessPanic checks that, with
// utilruntime.ReallyCrash off, a panic while processing one item is logged
// and processing resumes after the retry period with the next item.
func TestControllerResumesAfterProcessPanic(t *testing.T) {
	defer func(old bool) { utilruntime.ReallyCrash = old }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = false
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptedLW([]step{{list: pomList("10", "", pom("a", "5"), pom("b", "6"))}},
			[]step{{events: []watch.Event{added("c", "11")}, closeAtEnd: true}})
		lw.noWatchList = true
		var (
			mu        sync.Mutex
			processed []string
			panicked  bool
		)
		fifo := NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: MetaNamespaceKeyFunc})
		ctrl := New(&Config{
			Queue:         fifo,
			ListerWatcher: lw,
			ObjectType:    &metav1.PartialObjectMetadata{},
			Process: func(obj any, _ bool) error {
				key, _ := fifo.KeyOf(obj)
				mu.Lock()
				defer mu.Unlock()
				if !panicked {
					panicked = true
					panic("processing " + key)
				}
				processed = append(processed, key)
				return nil
			},
		})
		runController(t, ctrl, lw, func() {
			time.Sleep(controllerRetryPeriod) // bubble time: the loop's retry wait
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			sort.Strings(processed)
			if diff := cmp.Diff([]string{"ns/b", "ns/c"}, processed); diff != "" {
				t.Errorf("processed after the panic (-want +got):\n%s", diff)
			}
		})
	})
}

// TestNewRunsTheInformersEngine checks that a controller a user builds with
// New, from one of this package's queues and a Process of their own, runs
// the engine the informers run: the same reflector, sync status and
// resource-version waits as NewInformerWithOptions in the same pipeline.
// Only how an item is popped differs (controllerOptions.pop).
func TestNewRunsTheInformersEngine(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(map[bool]string{false: "DeltaFIFO", true: "InOrder"}[inOrder], func(t *testing.T) {
			type outcome struct {
				Store         []string
				Synced        bool
				Status        SyncStatus
				WaitErr       error
				LastSyncedRV  string
				ReflectorName bool
			}
			run := func(t *testing.T, build func(lw ListerWatcher) (Store, Controller)) outcome {
				var got outcome
				synctest.Test(t, func(t *testing.T) {
					lw := newScriptedLW([]step{{list: pomList("10", "", pom("a", "5"), pom("b", "6"))}},
						[]step{{events: []watch.Event{modified("a", "8"), added("c", "11")}, closeAtEnd: true}})
					lw.noWatchList = true
					store, ctrl := build(lw)
					runController(t, ctrl, lw, func() {
						got.Store = storeContents(store)
						got.Synced = ctrl.HasSynced()
						got.Status = ctrl.(SyncStatusReporter).SyncStatus()
						got.ReflectorName = got.Status.Reflector != ""
						got.Status.Reflector = ""
						got.WaitErr = ctrl.(ResourceVersionWaiter).WaitForResourceVersion(t.Context(), "11")
						got.LastSyncedRV = ctrl.LastSyncResourceVersion()
					})
				})
				return got
			}
			informer := run(t, func(lw ListerWatcher) (Store, Controller) {
				return NewInformerWithOptions(InformerOptions{ListerWatcher: lw, ObjectType: &metav1.PartialObjectMetadata{}, InOrder: inOrder})
			})
			user := run(t, func(lw ListerWatcher) (Store, Controller) {
				store := NewStore(DeletionHandlingMetaNamespaceKeyFunc)
				var queue Queue = NewDeltaFIFOWithOptions(DeltaFIFOOptions{KnownObjects: store, EmitDeltaTypeReplaced: true})
				if inOrder {
					queue = NewRealFIFOWithOptions(RealFIFOOptions{AtomicEvents: true})
				}
				return store, New(&Config{
					Queue:         queue,
					ListerWatcher: lw,
					ObjectType:    &metav1.PartialObjectMetadata{},
					Process: func(obj any, _ bool) error {
						for _, d := range obj.(Deltas) {
							var err error
							switch info := d.Object.(type) {
							case ReplacedAllInfo:
								err = store.Replace(info.Objects, info.ResourceVersion)
							case SyncAllInfo, BookmarkInfo:
							default:
								if d.Type == Deleted {
									err = store.Delete(d.Object)
								} else {
									err = store.Update(d.Object)
								}
							}
							if err != nil {
								return err
							}
						}
						return nil
					},
				})
			})
			if diff := cmp.Diff(informer, user, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) || errors.Is(b, a) })); diff != "" {
				t.Errorf("New's controller (+) differs from the informer's (-):\n%s", diff)
			}
			if want := []string{"ns/a@8", "ns/b@6", "ns/c@11"}; !slices.Equal(informer.Store, want) || informer.WaitErr != nil || !informer.Synced {
				t.Errorf("the informer: %+v, want store %v, synced, and the wait for 11 over", informer, want)
			}
		})
	}
}
