package cache

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2/ktesting"

	framework "github.com/informer-go/informer/cache/testing"
)

type fakeServer = framework.Server[*metav1.PartialObjectMetadata]

// serverContents describes the named objects of the server like
// storeContents describes a store.
func serverContents(t *testing.T, srv *fakeServer, names []string) []string {
	t.Helper()
	var out []string
	for _, name := range names {
		obj, err := srv.Get(testNamespace, name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, testObjString(obj))
	}
	slices.Sort(out)
	return out
}

// startInformer runs an informer over srv (a fake server, or a
// ListerWatcher in front of one) until the test ends. It must run in a
// synctest bubble.
func startInformer(t *testing.T, srv ListerWatcher, inOrder bool) (Store, Controller) {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	store, ctrl := NewInformerWithOptions(InformerOptions{
		ListerWatcher: srv, ObjectType: &metav1.PartialObjectMetadata{}, InOrder: inOrder,
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctrl.RunWithContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return store, ctrl
}

// TestInformerAgainstServer runs informers against the in-memory apiserver
// through expired watches, closed streams, refused connections and lost
// events, and checks that they end up equal to the server.
func TestInformerAgainstServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    framework.Options[*metav1.PartialObjectMetadata]
		inOrder bool
	}{
		{name: "streaming lists/DeltaFIFO"},
		{name: "streaming lists/RealFIFO", inOrder: true},
		{name: "paginated lists/DeltaFIFO", opts: framework.Options[*metav1.PartialObjectMetadata]{WatchListUnsupported: true, IgnoreSendInitialEvents: true}},
		{name: "paginated lists/RealFIFO", opts: framework.Options[*metav1.PartialObjectMetadata]{WatchListUnsupported: true, IgnoreSendInitialEvents: true}, inOrder: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := framework.NewServer(tc.opts)
				defer srv.Close()
				rng := rand.New(rand.NewPCG(3, 4))
				var names []string
				created := 0
				create := func() {
					name := fmt.Sprintf("obj-%05d", created)
					created++
					if _, err := srv.Create(pom(name, "")); err != nil {
						t.Fatal(err)
					}
					names = append(names, name)
				}
				write := func() {
					if len(names) == 0 || rng.IntN(10) < 3 {
						create()
						return
					}
					i := rng.IntN(len(names))
					if rng.IntN(10) < 3 {
						if _, err := srv.Delete(testNamespace, names[i]); err != nil {
							t.Fatal(err)
						}
						names = slices.Delete(names, i, i+1)
						return
					}
					obj, err := srv.Get(testNamespace, names[i])
					if err != nil {
						t.Fatal(err)
					}
					obj.Labels = map[string]string{"n": fmt.Sprint(rng.Int())}
					if _, err := srv.Update(obj); err != nil {
						t.Fatal(err)
					}
				}
				for range 1200 {
					create()
				}

				store, ctrl := startInformer(t, srv, tc.inOrder)
				synctest.Wait()
				if !ctrl.HasSynced() {
					t.Fatal("not synced")
				}

				faults := []func(){
					func() { srv.FailNextWatchStreams(1, errExpired) },
					func() { srv.CloseWatchStreams() },
					func() { srv.FailNextWatches(1, framework.NewConnectionRefusedError()) },
					func() { srv.DropNextEvents(5); srv.FailNextWatchStreams(1, errGone) },
					func() { srv.FailNextLists(1, errInternal); srv.FailNextWatchStreams(1, errExpired) },
				}
				for round := range 10 {
					for range 100 {
						write()
					}
					faults[round%len(faults)]()
					srv.CloseWatchStreams() // the next watch meets the armed fault
					time.Sleep(time.Minute) // let backoffs pass
					synctest.Wait()
				}
				// Backoff delays have grown with the failures: give the
				// informer up to ten more minutes to catch up.
				want := serverContents(t, srv, names)
				for range 10 {
					if slices.Equal(want, storeContents(store)) {
						break
					}
					time.Sleep(time.Minute)
					synctest.Wait()
				}
				if testing.Verbose() {
					for _, r := range srv.Requests() {
						t.Logf("%s rv=%q limit=%d continue=%q sie=%v", r.Verb, r.Options.ResourceVersion, r.Options.Limit, r.Options.Continue, r.Options.SendInitialEvents != nil)
					}
				}
				if got := storeContents(store); !slices.Equal(want, got) {
					t.Errorf("store differs from the server (-want +got):\n%s", cmp.Diff(want, got))
				}
			})
		})
	}
}

// TestReflectorServerIgnoringSendInitialEvents checks that an informer whose
// server ignores sendInitialEvents (and so never sends the bookmark ending
// the initial events) syncs anyway, one stall timeout later, from a
// paginated list, instead of hanging forever.
func TestReflectorServerIgnoringSendInitialEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{IgnoreSendInitialEvents: true})
		defer srv.Close()
		for _, name := range []string{"a", "b"} {
			if _, err := srv.Create(pom(name, "")); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		store, ctrl := startInformer(t, srv, false)
		synctest.Wait()
		if ctrl.HasSynced() {
			t.Fatal("synced without the initial-events-end bookmark")
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if !ctrl.HasSynced() {
			t.Fatalf("not synced %v after start", time.Since(start))
		}
		if diff := cmp.Diff(serverContents(t, srv, []string{"a", "b"}), storeContents(store)); diff != "" {
			t.Errorf("store (-want +got):\n%s", diff)
		}
		var verbs []string
		for _, r := range srv.Requests() {
			v := r.Verb
			if r.Options.SendInitialEvents != nil {
				v += "+initial-events"
			}
			verbs = append(verbs, v)
		}
		if diff := cmp.Diff([]string{"watch+initial-events", "list", "watch"}, verbs); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
}
