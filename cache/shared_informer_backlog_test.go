package cache

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	framework "github.com/informer-go/informer/cache/testing"
	"github.com/informer-go/informer/internal/benchkit"
	"github.com/informer-go/informer/wait"
)

// backlogKeys and backlogUpdates are the load of the blocked-handler tests:
// a million updates spread over a hundred objects.
const (
	backlogKeys    = 100
	backlogUpdates = 1_000_000
	// backlogPace is how many events the test sends before it waits for
	// the informer to catch up, so that the informer's own queue stays
	// short and the heap measures the blocked handler's backlog.
	backlogPace = 10_000
	// backlogHeapLimit is the most the live heap may grow while the
	// handler is blocked.
	backlogHeapLimit = 64 << 20
)

// backlogObject returns object i of the blocked-handler tests at rv, as a
// decoder would build it: a new object every time.
func backlogObject(i, rv int) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "o" + strconv.Itoa(i), ResourceVersion: strconv.Itoa(rv)},
	}
}

// liveHeap returns the live heap after a garbage collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestBlockedHandlerBacklogStaysBounded(t *testing.T) {
	tests := []struct {
		name    string
		options HandlerOptions
		// updates is the number of updates sent.
		updates int
		// most is the largest backlog allowed.
		most int
	}{
		// The ring holds up to CoalesceAfter notifications, then one per
		// object waits.
		{name: "coalesce", options: HandlerOptions{Coalesce: true, CoalesceAfter: 8}, updates: backlogUpdates, most: backlogKeys + 8},
		// Past the cap, one stale entry per object waits. Fewer updates
		// keep the test short: the backlog stops growing after the first
		// hundred.
		{name: "cap", options: HandlerOptions{MaxBacklog: 50}, updates: backlogUpdates / 5, most: backlogKeys},
	}
	for _, mode := range queueModes {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(backlogKeys)}}
				for i := range backlogKeys {
					list.Items = append(list.Items, *backlogObject(i, i+1))
				}
				lw := benchkit.NewSource(list)
				inf := newTestInformer(lw, SharedIndexInformerOptions{InOrder: mode.inOrder})

				release := make(chan struct{})
				unblock := sync.OnceFunc(func() { close(release) })
				blocked := newReplayView()
				blocked.onCall = func() { <-release }
				reg, err := inf.AddEventHandlerWithOptions(blocked, tc.options)
				if err != nil {
					t.Fatal(err)
				}
				l := reg.(*processorListener)
				counter := benchkit.NewLatencyHandler(nil, 0)
				counted, err := inf.AddEventHandler(counter)
				if err != nil {
					t.Fatal(err)
				}
				stop := runSharedInformer(t, inf)
				defer stop()
				defer unblock()
				waitForSync(t, counted.HasSyncedChecker())

				base := liveHeap()
				var peakGrowth uint64
				largest := 0
				for sent := 0; sent < tc.updates; {
					for range backlogPace {
						sent++
						lw.Events <- watch.Event{Type: watch.Modified, Object: backlogObject(sent%backlogKeys, backlogKeys+sent)}
					}
					counter.Expect(int64(backlogKeys + sent))
					select {
					case <-counter.Reached():
					case <-time.After(wait.ForeverTestTimeout):
						t.Fatalf("the informer did not deliver %d updates in %v", backlogPace, wait.ForeverTestTimeout)
					}
					largest = max(largest, l.backlog())
					if sent%(tc.updates/10) == 0 {
						if heap := liveHeap(); heap > base {
							peakGrowth = max(peakGrowth, heap-base)
						}
					}
				}
				t.Logf("%d updates over %d objects: largest backlog %d, live heap growth %.1f MiB", tc.updates, backlogKeys, largest, float64(peakGrowth)/(1<<20))
				if largest > tc.most {
					t.Errorf("the blocked handler's backlog reached %d, want at most %d", largest, tc.most)
				}
				if peakGrowth > backlogHeapLimit {
					t.Errorf("the live heap grew by %d MiB, want at most %d MiB", peakGrowth>>20, backlogHeapLimit>>20)
				}

				want := storeView(inf.GetStore())
				unblock()
				waitFor(t, "the handler to catch up with the store", func() bool {
					got, _, _ := blocked.snapshot()
					return cmp.Equal(want, got) && l.backlog() == 0
				})
				if _, calls, problems := blocked.snapshot(); len(problems) > 0 {
					t.Errorf("the handler got %d inconsistent calls of %d:\n%v", len(problems), calls, problems)
				}
				waitForSync(t, reg.HasSyncedChecker())
			})
		}
	}
}

// TestBoundedHandlerConvergesThroughFaults blocks a bounded handler during the
// initial list and while the objects are created, updated and deleted, the
// watch breaks and the informer relists (deleting objects it missed through
// tombstones), and resyncs every second; then it lets the handler run. Its
// backlog stays bounded throughout, it never gets a call inconsistent with
// what it was told before, it ends with the store's objects, and its
// registration syncs.
func TestBoundedHandlerConvergesThroughFaults(t *testing.T) {
	const objects = 60
	tests := []struct {
		name    string
		options HandlerOptions
		most    int
	}{
		{name: "coalesce", options: HandlerOptions{Coalesce: true}, most: 2 * 3 * objects},
		{name: "coalesce after 16", options: HandlerOptions{Coalesce: true, CoalesceAfter: 16}, most: 16 + 2*3*objects},
		{name: "cap", options: HandlerOptions{MaxBacklog: 16}, most: 3 * objects},
		{name: "coalesce and cap", options: HandlerOptions{Coalesce: true, MaxBacklog: 16}, most: 3 * objects},
	}
	for _, mode := range queueModes {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
					defer srv.Close()
					rng := rand.New(rand.NewPCG(5, 6))
					var names []string
					created := 0
					for range objects {
						names = append(names, create(t, srv, fmt.Sprintf("o%03d", created)).Name)
						created++
					}
					inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder, ResyncPeriod: time.Second})
					release := make(chan struct{})
					view := newReplayView()
					view.onCall = func() { <-release }
					options := tc.options
					options.ResyncPeriod = ptr.To(time.Second)
					reg, err := inf.AddEventHandlerWithOptions(view, options)
					if err != nil {
						t.Fatal(err)
					}
					l := reg.(*processorListener)
					runSharedInformer(t, inf)
					synctest.Wait()
					if !inf.HasSynced() {
						t.Fatal("the informer did not sync")
					}

					faults := []func(){
						func() { srv.DropNextEvents(5); srv.FailNextWatchStreams(1, errGone) },
						func() { srv.CloseWatchStreams() },
						func() { srv.FailNextWatchStreams(1, errExpired) },
					}
					largest := 0
					for round := range 6 {
						for range 40 {
							switch i := rng.IntN(len(names) + 1); {
							case i == len(names) || rng.IntN(4) == 0 && len(names) > objects/2:
								if i == len(names) {
									names = append(names, create(t, srv, fmt.Sprintf("o%03d", created)).Name)
									created++
									break
								}
								remove(t, srv, names[i])
								names = slices.Delete(names, i, i+1)
							default:
								touch(t, srv, names[i], fmt.Sprint(rng.Int()))
							}
						}
						faults[round%len(faults)]()
						srv.CloseWatchStreams()
						time.Sleep(time.Minute) // backoffs and sixty resyncs
						synctest.Wait()
						largest = max(largest, l.backlog())
					}
					if largest > tc.most {
						t.Errorf("the blocked handler's backlog reached %d, want at most %d", largest, tc.most)
					}
					want := storeView(inf.GetStore())
					if got := len(want); got != len(names) {
						t.Fatalf("the store has %d objects, the server %d", got, len(names))
					}

					// Let the handler catch up; stop the resyncs first, so
					// that the backlog drains.
					close(release)
					for l.backlog() > 0 {
						time.Sleep(time.Millisecond)
						synctest.Wait()
					}
					got, calls, problems := view.snapshot()
					if len(problems) > 0 {
						t.Errorf("the handler got %d inconsistent calls of %d:\n%v", len(problems), calls, problems)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("the handler's view differs from the store (-want +got):\n%s", diff)
					}
					if !reg.HasSynced() {
						t.Error("the registration did not sync")
					}
				})
			})
		}
	}
}
