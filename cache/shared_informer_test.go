package cache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"

	framework "github.com/informer-go/informer/cache/testing"
	"github.com/informer-go/informer/wait"
)

// checkHandlerInvariants checks what every handler must observe, whatever
// the queue: per key, adds and updates with strictly increasing resource
// versions (equal for resyncs), every update starting from the state the
// handler saw last, and
// no update or delete of a key the handler does not know.
func checkHandlerInvariants(t *testing.T, name string, events []event) {
	t.Helper()
	last := map[string]string{} // key -> rv the handler saw last; absent if deleted/unknown
	for i, e := range events {
		key := strings.TrimPrefix(e.Key, "tombstone:")
		prev, known := last[key]
		switch e.Kind {
		case "add":
			if known {
				t.Errorf("%s: call %d (%s): add of a key already known at %s", name, i, e, prev)
			}
			last[key] = e.RV
		case "update":
			if !known || e.OldRV != prev {
				t.Errorf("%s: call %d (%s): update does not start from the last state seen (%q)", name, i, e, prev)
			}
			if rvLess(e.RV, prev) { // equal for resyncs and relists
				t.Errorf("%s: call %d (%s): resource version decreases", name, i, e)
			}
			last[key] = e.RV
		case "delete":
			if !known {
				t.Errorf("%s: call %d (%s): delete of an unknown key", name, i, e)
			}
			delete(last, key)
		}
	}
}

// rvLess compares numeric resource versions.
func rvLess(a, b string) bool {
	x, _ := strconv.ParseUint(a, 10, 64)
	y, _ := strconv.ParseUint(b, 10, 64)
	return x < y
}

// serverState returns the resource version of every object in srv.
func serverState(t *testing.T, srv *framework.Server[*metav1.PartialObjectMetadata]) map[string]string {
	t.Helper()
	list, err := srv.ListWithContext(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	state := map[string]string{}
	for _, item := range list.(*metav1.PartialObjectMetadataList).Items {
		state[item.Namespace+"/"+item.Name] = item.ResourceVersion
	}
	return state
}

// converged reports whether the calls leave the handler with state.
func converged(events []event, state map[string]string) bool {
	got := lastRVs(events)
	for key, rv := range got {
		if rv == "deleted" {
			delete(got, key)
		}
	}
	return cmp.Equal(state, got)
}

// churn applies n random writes to the objects o0…o<objects-1> of srv:
// mostly updates, some deletions and re-creations.
func churn(t *testing.T, srv *framework.Server[*metav1.PartialObjectMetadata], rng *rand.Rand, objects, n int) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("o%d", rng.IntN(objects))
		switch _, err := srv.Get(testNamespace, name); {
		case err != nil:
			create(t, srv, name)
		case rng.IntN(10) == 0:
			remove(t, srv, name)
		default:
			touch(t, srv, name, strconv.Itoa(i))
		}
	}
}

func TestSharedInformerPerObjectOrder(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			const objects, writes = 20, 2000
			srv := newTestServer(t)
			for i := range objects {
				create(t, srv, fmt.Sprintf("o%d", i))
			}
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder})
			fast1, fast2, slow := newRecorder(), newRecorder(), newBlockingHandler()
			regs := make([]ResourceEventHandlerRegistration, 0, 3)
			for _, h := range []ResourceEventHandler{fast1, fast2, slow} {
				reg, err := inf.AddEventHandler(h)
				if err != nil {
					t.Fatal(err)
				}
				regs = append(regs, reg)
			}
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())

			churn(t, srv, rand.New(rand.NewPCG(1, 2)), objects, writes)
			final := serverState(t, srv)

			// The slow handler is stuck in its first call; the others
			// reach the final state anyway.
			for name, r := range map[string]*recorder{"fast1": fast1, "fast2": fast2} {
				events := r.waitFor(t, "final state", func(e []event) bool { return converged(e, final) })
				checkHandlerInvariants(t, name, events)
			}
			if got := slow.count(); got != 0 {
				t.Fatalf("the blocked handler returned %d times", got)
			}
			close(slow.release)
			events := slow.waitFor(t, "final state", func(e []event) bool { return converged(e, final) })
			checkHandlerInvariants(t, "slow", events)
			if diff := cmp.Diff(fast1.recorded(), events); diff != "" {
				t.Errorf("the slow handler saw other calls than the fast one (-fast +slow):\n%s", diff)
			}
			waitForSync(t, regs[0].HasSyncedChecker(), regs[1].HasSyncedChecker(), regs[2].HasSyncedChecker())
		})
	}
}

func TestSharedInformerLateJoin(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			const objects = 50
			srv := newTestServer(t)
			for i := range objects {
				create(t, srv, fmt.Sprintf("o%d", i))
			}
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder})
			early := newRecorder()
			if _, err := inf.AddEventHandler(early); err != nil {
				t.Fatal(err)
			}
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())

			// Handlers join while updates flow.
			stopChurn := make(chan struct{})
			churned := make(chan struct{})
			go func() {
				defer close(churned)
				for i := 0; ; i++ {
					select {
					case <-stopChurn:
						return
					default:
						touch(t, srv, fmt.Sprintf("o%d", i%objects), strconv.Itoa(i))
					}
				}
			}()
			late := make([]*recorder, 5)
			regs := make([]ResourceEventHandlerRegistration, len(late))
			for i := range late {
				late[i] = newRecorder()
				reg, err := inf.AddEventHandler(late[i])
				if err != nil {
					t.Fatal(err)
				}
				regs[i] = reg
			}
			close(stopChurn)
			<-churned
			final := serverState(t, srv)

			for i, r := range late {
				events := r.waitFor(t, "final state", func(e []event) bool { return converged(e, final) })
				checkHandlerInvariants(t, fmt.Sprintf("late%d", i), events)
				// The replay of the store comes first, complete, with
				// isInInitialList set; nothing else is initial.
				for j, e := range events {
					if initial := j < objects; e.Initial != initial || (initial && e.Kind != "add") {
						t.Fatalf("late%d: call %d is %s", i, j, e)
					}
				}
				waitForSync(t, regs[i].HasSyncedChecker())
			}
			checkHandlerInvariants(t, "early", early.waitFor(t, "final state", func(e []event) bool { return converged(e, final) }))
		})
	}
}

func TestSharedInformerRegistrationSyncsAfterInitialAddsReturn(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			create(t, srv, "a")
			create(t, srv, "b")
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder})
			before := newBlockingHandler()
			regBefore, err := inf.AddEventHandler(before)
			if err != nil {
				t.Fatal(err)
			}
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())

			after := newBlockingHandler()
			regAfter, err := inf.AddEventHandler(after)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []*blockingHandler{before, after} {
				h.waitEntered(t)
				h.release <- struct{}{}
				h.waitEntered(t)
			}
			// Both handlers are inside their last initial add.
			if regBefore.HasSynced() || regAfter.HasSynced() {
				t.Fatal("a registration synced before its handler returned from the last initial add")
			}
			close(before.release)
			close(after.release)
			waitForSync(t, regBefore.HasSyncedChecker(), regAfter.HasSyncedChecker())
			wantName := "SharedIndexInformer *v1.PartialObjectMetadata + event handler github.com/informer-go/informer/cache.blockingHandler"
			if got := regAfter.HasSyncedChecker().Name(); got != wantName {
				t.Errorf("registration checker name %q, want %q", got, wantName)
			}
		})
	}
}

// gatedIndexFunc is an index function that blocks while indexing the object
// named gated until release is closed.
func gatedIndexFunc(gated string, entered chan<- struct{}, release <-chan struct{}) IndexFunc {
	var once sync.Once
	return func(obj any) ([]string, error) {
		if m, ok := obj.(metav1.Object); ok && m.GetName() == gated {
			once.Do(func() {
				entered <- struct{}{}
				<-release
			})
		}
		return nil, nil
	}
}

func TestSharedInformerSyncsAfterLastInitialItemIsProcessed(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			for _, name := range []string{"a", "b", "c"} {
				create(t, srv, name)
			}
			entered, release := make(chan struct{}, 1), make(chan struct{})
			// Storing the last listed object blocks.
			inf := newTestInformer(srv, SharedIndexInformerOptions{
				InOrder:  mode.inOrder,
				Indexers: Indexers{"gate": gatedIndexFunc("c", entered, release)},
			})
			rec := newRecorder()
			reg, err := inf.AddEventHandler(rec)
			if err != nil {
				t.Fatal(err)
			}
			runSharedInformer(t, inf)
			waitClosed(t, "the last object to be stored", entered)
			if inf.HasSynced() || IsDone(inf.HasSyncedChecker()) || reg.HasSynced() {
				t.Error("synced before the last object of the initial list was stored")
			}
			close(release)
			waitForSync(t, inf.HasSyncedChecker())
			if got := len(inf.GetStore().List()); got != 3 {
				t.Errorf("the store holds %d objects once synced, want 3", got)
			}
			waitForSync(t, reg.HasSyncedChecker())
			if got := rec.count(); got != 3 {
				t.Errorf("the handler got %d calls once its registration synced, want 3", got)
			}
		})
	}
}

func TestSharedInformerRemoveWhileEventsFlow(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			const objects = 10
			srv := newTestServer(t)
			for i := range objects {
				create(t, srv, fmt.Sprintf("o%d", i))
			}
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder})
			keep, removed := newRecorder(), newRecorder()
			if _, err := inf.AddEventHandler(keep); err != nil {
				t.Fatal(err)
			}
			reg, err := inf.AddEventHandler(removed)
			if err != nil {
				t.Fatal(err)
			}
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())

			done := make(chan struct{})
			go func() {
				defer close(done)
				churn(t, srv, rand.New(rand.NewPCG(3, 4)), objects, 1000)
			}()
			removed.waitForCount(t, objects+50)
			if err := ShutDownEventHandler(inf, reg); err != nil {
				t.Fatalf("ShutDownEventHandler: %v", err)
			}
			calls := removed.count()
			<-done
			final := serverState(t, srv)
			checkHandlerInvariants(t, "kept", keep.waitFor(t, "final state", func(e []event) bool { return converged(e, final) }))
			if got := removed.count(); got != calls {
				t.Errorf("the removed handler got %d calls after ShutDownEventHandler returned", got-calls)
			}
			checkHandlerInvariants(t, "removed", removed.recorded())
			if err := inf.RemoveEventHandler(reg); err != nil {
				t.Errorf("removing again: %v", err)
			}
			if reg.HasSynced() != true {
				t.Error("the registration forgot it had synced")
			}
		})
	}
}

// TestSharedInformerHandlerShutsDownAnIdleHandler checks that a handler
// shutting down another handler that is not in a call waits for it, as
// client-go does, rather than refusing.
func TestSharedInformerHandlerShutsDownAnIdleHandler(t *testing.T) {
	srv := newTestServer(t)
	create(t, srv, "a")
	inf := newTestInformer(srv, SharedIndexInformerOptions{})
	idleCalled := make(chan struct{})
	idle, err := inf.AddEventHandler(ResourceEventHandlerFuncs{AddFunc: func(any) { close(idleCalled) }})
	if err != nil {
		t.Fatal(err)
	}
	idleListener := idle.(*processorListener)
	results := make(chan error, 1)
	if _, err := inf.AddEventHandler(ResourceEventHandlerFuncs{AddFunc: func(any) {
		<-idleCalled
		for idleListener.delivering.Load() { // its only call is returning
			time.Sleep(time.Millisecond)
		}
		results <- ShutDownEventHandler(inf, idle)
	}}); err != nil {
		t.Fatal(err)
	}
	runSharedInformer(t, inf)
	select {
	case err := <-results:
		if err != nil {
			t.Errorf("ShutDownEventHandler of an idle handler from inside a handler: %v", err)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the handler did not finish shutting down the idle one")
	}
	waitClosed(t, "the idle handler's shutdown", idle.(interface{ ShutdownChan() <-chan struct{} }).ShutdownChan())
}

func TestShutDownEventHandlerErrors(t *testing.T) {
	srv := newTestServer(t)
	inf := newTestInformer(srv, SharedIndexInformerOptions{})
	other := newTestInformer(srv, SharedIndexInformerOptions{})
	reg, err := other.AddEventHandler(newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		informer SharedInformer
		handle   ResourceEventHandlerRegistration
	}{
		{name: "nil informer", informer: nil, handle: reg},
		{name: "foreign handle type", informer: inf, handle: foreignRegistration{}},
		{name: "handle of another informer", informer: inf, handle: reg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := ShutDownEventHandler(tc.informer, tc.handle); err == nil {
				t.Error("no error")
			}
		})
	}
	if err := ShutDownEventHandler(other, reg); err != nil {
		t.Errorf("shutting down a handler of an informer that never ran: %v", err)
	}
}

type foreignRegistration struct{}

func (foreignRegistration) HasSynced() bool               { return false }
func (foreignRegistration) HasSyncedChecker() DoneChecker { return nil }

func TestSharedInformerResyncPeriodRules(t *testing.T) {
	period := func(d time.Duration) *time.Duration { return &d }
	type handler struct {
		name   string
		period *time.Duration // nil: the informer's default
		late   bool           // added after Run
	}
	for _, tc := range []struct {
		name        string
		defaultSync time.Duration
		handlers    []handler
		wantCheck   time.Duration
		want        map[string]time.Duration // effective period per handler
	}{
		{
			name:        "no resync by default",
			defaultSync: 0,
			handlers:    []handler{{name: "default"}, {name: "asks 3s", period: period(3 * time.Second)}, {name: "late 3s", period: period(3 * time.Second), late: true}},
			wantCheck:   0,
			want:        map[string]time.Duration{"default": 0, "asks 3s": 0, "late 3s": 0},
		},
		{
			name:        "smaller period before start lowers the check period",
			defaultSync: 10 * time.Second,
			handlers: []handler{
				{name: "default"},
				{name: "zero", period: period(0)},
				{name: "negative", period: period(-time.Second)},
				{name: "3s", period: period(3 * time.Second)},
				{name: "tiny", period: period(time.Millisecond)},
				{name: "late default", late: true},
				{name: "late 2s", period: period(2 * time.Second), late: true},
				{name: "late 1m", period: period(time.Minute), late: true},
			},
			wantCheck: time.Second,
			want: map[string]time.Duration{
				"default": 10 * time.Second, "zero": 0, "negative": 0, "3s": 3 * time.Second, "tiny": time.Second,
				"late default": 10 * time.Second, "late 2s": 2 * time.Second, "late 1m": time.Minute,
			},
		},
		{
			name:        "smaller period after start is raised to the check period",
			defaultSync: 10 * time.Second,
			handlers: []handler{
				{name: "5s", period: period(5 * time.Second)},
				{name: "late 2s", period: period(2 * time.Second), late: true},
				{name: "late tiny", period: period(time.Nanosecond), late: true},
			},
			wantCheck: 5 * time.Second,
			want:      map[string]time.Duration{"5s": 5 * time.Second, "late 2s": 5 * time.Second, "late tiny": 5 * time.Second},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inf := newTestInformer(newChannelLW(func() (runtime.Object, error) { return pomList("1", ""), nil }), SharedIndexInformerOptions{ResyncPeriod: tc.defaultSync})
			regs := map[string]ResourceEventHandlerRegistration{}
			add := func(h handler) {
				var reg ResourceEventHandlerRegistration
				var err error
				if h.period == nil {
					reg, err = inf.AddEventHandler(newRecorder())
				} else {
					reg, err = inf.AddEventHandlerWithResyncPeriod(newRecorder(), *h.period)
				}
				if err != nil {
					t.Fatal(err)
				}
				regs[h.name] = reg
			}
			for _, h := range tc.handlers {
				if !h.late {
					add(h)
				}
			}
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())
			for _, h := range tc.handlers {
				if h.late {
					add(h)
				}
			}
			p := inf.processor
			p.mu.RLock()
			got := map[string]time.Duration{}
			for name, reg := range regs {
				got[name] = p.listeners[p.index[reg.(*processorListener)]].resync.period
			}
			p.mu.RUnlock()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("effective resync periods (-want +got):\n%s", diff)
			}
			inf.startedLock.Lock()
			check := inf.resyncCheckPeriod
			inf.startedLock.Unlock()
			if check != tc.wantCheck {
				t.Errorf("resync check period %v, want %v", check, tc.wantCheck)
			}
		})
	}
}

// syncUpdates counts the updates that did not change the resource version.
func syncUpdates(events []event) int {
	n := 0
	for _, e := range events {
		if e.Kind == "update" && e.RV == e.OldRV {
			n++
		}
	}
	return n
}

func TestSharedInformerResync(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
				defer srv.Close()
				create(t, srv, "a")
				create(t, srv, "b")
				inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder, ResyncPeriod: 10 * time.Second})
				recs := map[string]*recorder{}
				for name, period := range map[string]*time.Duration{"every 3s": ptrTo(3 * time.Second), "never": ptrTo(time.Duration(0)), "default 10s": nil} {
					recs[name] = newRecorder()
					if _, err := inf.AddEventHandlerWithOptions(recs[name], HandlerOptions{ResyncPeriod: period}); err != nil {
						t.Fatal(err)
					}
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					inf.RunWithContext(ctx)
				}()
				synctest.Wait()
				if !inf.HasSynced() {
					t.Fatal("not synced")
				}
				time.Sleep(30*time.Second + time.Millisecond)
				synctest.Wait()
				got := map[string]int{}
				for name, r := range recs {
					got[name] = syncUpdates(r.recorded())
					checkHandlerInvariants(t, name, r.recorded())
				}
				// Resync checks every 3s; each handler resyncs both
				// objects at the first check on or after its period.
				want := map[string]int{"every 3s": 2 * 10, "never": 0, "default 10s": 2 * 2}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("sync updates in 30s (-want +got):\n%s", diff)
				}
				cancel()
				<-done
			})
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestSharedInformerTransform(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			create(t, srv, "a")
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder})
			err := inf.SetTransform(func(obj any) (any, error) {
				m, ok := obj.(*metav1.PartialObjectMetadata)
				if !ok {
					return obj, nil
				}
				m = m.DeepCopy()
				m.Annotations = map[string]string{"transformed": "yes"}
				m.Labels = nil
				return m, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var seen []string
			rec := newRecorder()
			handler := ResourceEventHandlerFuncs{
				AddFunc: func(obj any) {
					mu.Lock()
					seen = append(seen, obj.(*metav1.PartialObjectMetadata).Annotations["transformed"])
					mu.Unlock()
					rec.OnAdd(obj, false)
				},
				UpdateFunc: func(oldObj, newObj any) {
					mu.Lock()
					m := newObj.(*metav1.PartialObjectMetadata)
					seen = append(seen, m.Annotations["transformed"]+fmt.Sprintf(" labels=%d", len(m.Labels)))
					mu.Unlock()
					rec.OnUpdate(oldObj, newObj)
				},
			}
			if _, err := inf.AddEventHandler(handler); err != nil {
				t.Fatal(err)
			}
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())
			if err := inf.SetTransform(nil); err == nil {
				t.Error("SetTransform after start succeeded")
			}
			if err := inf.SetWatchErrorHandler(func(*Reflector, error) {}); err == nil {
				t.Error("SetWatchErrorHandler after start succeeded")
			}
			touch(t, srv, "a", "1")
			rec.waitForCount(t, 2)
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff([]string{"yes", "yes labels=0"}, seen); diff != "" {
				t.Errorf("objects seen by the handler (-want +got):\n%s", diff)
			}
			stored, _, _ := inf.GetStore().GetByKey("ns/a")
			if got := stored.(*metav1.PartialObjectMetadata).Annotations["transformed"]; got != "yes" {
				t.Errorf("the stored object is not transformed")
			}
		})
	}
}

func TestSharedInformerAddIndexersAfterStart(t *testing.T) {
	srv := newTestServer(t)
	create(t, srv, "a")
	create(t, srv, "b")
	inf := newTestInformer(srv, SharedIndexInformerOptions{})
	rec := newRecorder()
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	stop := runSharedInformer(t, inf)
	waitForSync(t, inf.HasSyncedChecker())

	byLabel := func(obj any) ([]string, error) {
		return []string{obj.(metav1.Object).GetLabels()["v"]}, nil
	}
	if err := inf.AddIndexers(Indexers{"byLabel": byLabel}); err != nil {
		t.Fatal(err)
	}
	if err := inf.AddIndexers(Indexers{"byLabel": byLabel}); err == nil {
		t.Error("adding an index with a taken name succeeded")
	}
	keys := func(value string) []string {
		t.Helper()
		got, err := inf.GetIndexer().IndexKeys("byLabel", value)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if diff := cmp.Diff([]string{"ns/a", "ns/b"}, keys("")); diff != "" {
		t.Errorf("existing objects indexed (-want +got):\n%s", diff)
	}
	touch(t, srv, "a", "x")
	rec.waitForCount(t, 3)
	if diff := cmp.Diff([]string{"ns/a"}, keys("x")); diff != "" {
		t.Errorf("updated object indexed (-want +got):\n%s", diff)
	}
	stop()
	if err := inf.AddIndexers(Indexers{"late": byLabel}); err == nil {
		t.Error("AddIndexers after stop succeeded")
	}
}

func TestSharedInformerLifecycle(t *testing.T) {
	srv := newTestServer(t)
	create(t, srv, "a")
	inf := newTestInformer(srv, SharedIndexInformerOptions{})
	if inf.IsStopped() || inf.HasSynced() || inf.LastSyncResourceVersion() != "" {
		t.Fatal("a new informer is stopped, synced or has a resource version")
	}
	if _, err := inf.AddEventHandler(nil); err == nil {
		t.Error("adding a nil handler succeeded")
	}
	stop := runSharedInformer(t, inf)
	waitForSync(t, inf.HasSyncedChecker())
	if inf.IsStopped() {
		t.Error("a running informer is stopped")
	}
	// The reflector records the list's resource version once the list is
	// in the queue, which the informer may have processed before that
	// (client-go orders the two the same way): wait for it.
	want := srv.ResourceVersion()
	waitFor(t, "LastSyncResourceVersion() = "+want, func() bool { return inf.LastSyncResourceVersion() == want })
	ctrl := inf.GetController()
	ctrl.Run(nil) // does nothing
	if !ctrl.HasSynced() || !IsDone(ctrl.HasSyncedChecker()) || ctrl.LastSyncResourceVersion() != inf.LastSyncResourceVersion() {
		t.Error("GetController() does not reflect the informer")
	}
	// A second Run returns at once.
	inf.Run(make(chan struct{}))

	stop()
	if !inf.IsStopped() {
		t.Error("a stopped informer is not stopped")
	}
	if _, err := inf.AddEventHandler(newRecorder()); err == nil || !strings.Contains(err.Error(), "it has stopped already") {
		t.Errorf("adding a handler after stop: %v", err)
	}
	if got := inf.processor.listenerCount(); got != 0 {
		t.Errorf("%d listeners remain after stop", got)
	}
}

func TestSharedInformerRunWaitsForHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
		defer srv.Close()
		create(t, srv, "a")
		create(t, srv, "b")
		inf := newTestInformer(srv, SharedIndexInformerOptions{})
		h := newBlockingHandler()
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			inf.RunWithContext(ctx)
		}()
		<-h.entered
		cancel()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Run returned while a handler was running")
		default:
		}
		close(h.release)
		<-done
		<-reg.(interface{ ShutdownChan() <-chan struct{} }).ShutdownChan()
		if got := h.count(); got != 1 {
			t.Errorf("the handler got %d calls, want 1: the second was dropped at stop", got)
		}
		if reg.HasSynced() {
			t.Error("the registration synced although its handler never saw the whole initial list")
		}
	})
}

func TestSharedInformerPanickingHandler(t *testing.T) {
	defer func(old bool) { utilruntime.ReallyCrash = old }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = false
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
				defer srv.Close()
				create(t, srv, "a")
				create(t, srv, "b")
				inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder})
				panicky := &panickingHandler{recorder: newRecorder(), panicOn: map[string]bool{"ns/a": true}}
				calm := newRecorder()
				regPanicky, err := inf.AddEventHandler(panicky)
				if err != nil {
					t.Fatal(err)
				}
				regCalm, err := inf.AddEventHandler(calm)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					inf.RunWithContext(ctx)
				}()
				<-regCalm.HasSyncedChecker().Done()
				<-regPanicky.HasSyncedChecker().Done()
				touch(t, srv, "b", "1")
				synctest.Wait()
				if diff := cmp.Diff(calm.recorded(), panicky.recorded()); diff != "" {
					t.Errorf("the panicking handler missed calls (-calm +panicky):\n%s", diff)
				}
				cancel()
				<-done
			})
		})
	}
}

func TestSharedInformerManyHandlersLeaveNoGoroutines(t *testing.T) {
	const handlers = 1000
	inf, srv := runSyncedInformer(t, 10)
	baseline := goruntime.NumGoroutine()

	regs := make([]ResourceEventHandlerRegistration, handlers)
	checkers := make([]DoneChecker, handlers)
	for i := range regs {
		reg, err := inf.AddEventHandler(ResourceEventHandlerFuncs{})
		if err != nil {
			t.Fatal(err)
		}
		regs[i], checkers[i] = reg, reg.HasSyncedChecker()
	}
	waitForSync(t, checkers...)
	touch(t, srv, "o1", "x") // reaches 1000 handlers
	for _, reg := range regs {
		if err := ShutDownEventHandler(inf, reg); err != nil {
			t.Fatal(err)
		}
	}
	if got := inf.processor.listenerCount(); got != 0 {
		t.Errorf("%d listeners remain", got)
	}
	waitFor(t, "the handlers' goroutines to exit", func() bool { return goruntime.NumGoroutine() <= baseline })
}

func TestSharedInformerWatchErrorHandler(t *testing.T) {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{WatchListUnsupported: true})
	t.Cleanup(srv.Close)
	srv.FailNextLists(1, errors.New("injected list failure"))
	inf := newTestInformer(srv, SharedIndexInformerOptions{})
	got := make(chan error, 10)
	if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *Reflector, err error) { got <- err }); err != nil {
		t.Fatal(err)
	}
	runSharedInformer(t, inf)
	select {
	case err := <-got:
		if !strings.Contains(err.Error(), "injected list failure") {
			t.Errorf("watch error handler got %v", err)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the watch error handler was not called")
	}
}

func TestNewSharedInformerConstructors(t *testing.T) {
	srv := newTestServer(t)
	create(t, srv, "a")
	for _, tc := range []struct {
		name string
		inf  SharedInformer
	}{
		{name: "NewSharedInformer", inf: NewSharedInformer(srv, &metav1.PartialObjectMetadata{}, time.Hour)},
		{name: "NewSharedIndexInformer", inf: NewSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, 0, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})},
		{name: "NewSharedIndexInformerWithOptions", inf: NewSharedIndexInformerWithOptions(srv, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{InOrder: true})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder()
			logger := klog.Background()
			if _, err := tc.inf.AddEventHandlerWithOptions(rec, HandlerOptions{Logger: &logger}); err != nil {
				t.Fatal(err)
			}
			runSharedInformer(t, tc.inf)
			waitForSync(t, tc.inf.HasSyncedChecker())
			rec.waitForCount(t, 1)
			if got := tc.inf.HasSyncedChecker().Name(); got != "SharedIndexInformer *v1.PartialObjectMetadata" {
				t.Errorf("checker name %q", got)
			}
		})
	}
}

// recordingGauge and recordingHistogram record what an informer publishes.
type recordingGauge struct {
	mu   sync.Mutex
	last float64
	sets int
}

func (g *recordingGauge) Set(v float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.last, g.sets = v, g.sets+1
}

func (g *recordingGauge) value() (float64, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.last, g.sets
}

type recordingHistogram struct{ recordingGauge }

func (h *recordingHistogram) Observe(v float64) { h.Set(v) }

type recordingMetricsProvider struct {
	storeRV, queued recordingGauge
	latency         recordingHistogram
}

func (p *recordingMetricsProvider) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return &p.latency
}
func (p *recordingMetricsProvider) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric {
	return &p.queued
}
func (p *recordingMetricsProvider) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return &p.storeRV
}

func TestSharedInformerMetrics(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			name, err := NewInformerName("informer-metrics-test-" + mode.name)
			if err != nil {
				t.Fatal(err)
			}
			defer name.Release()
			srv := newTestServer(t)
			create(t, srv, "a")
			last := create(t, srv, "b")
			provider := &recordingMetricsProvider{}
			inf := newTestInformer(srv, SharedIndexInformerOptions{
				InOrder:                 mode.inOrder,
				Identifier:              name.WithResource(metav1.SchemeGroupVersion.WithResource("things")),
				InformerMetricsProvider: provider,
			})
			rec := newRecorder()
			if _, err := inf.AddEventHandler(rec); err != nil {
				t.Fatal(err)
			}
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())
			want, _ := strconv.ParseFloat(last.ResourceVersion, 64)
			if got, sets := provider.storeRV.value(); sets == 0 || got < want {
				t.Errorf("store resource version metric %v after %d sets, want at least %v", got, sets, want)
			}
			_, queuedSets := provider.queued.value()
			_, observations := provider.latency.value()
			if mode.inOrder && (queuedSets == 0 || observations == 0) {
				t.Errorf("the RealFIFO published %d queue depths and %d latencies", queuedSets, observations)
			}
		})
	}
}

func TestSharedInformerHandlerChurnUnderLoad(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			const objects = 20
			srv := newTestServer(t)
			for i := range objects {
				create(t, srv, fmt.Sprintf("o%d", i))
			}
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder, ResyncPeriod: time.Second})
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())

			writesDone := make(chan struct{})
			go func() {
				defer close(writesDone)
				churn(t, srv, rand.New(rand.NewPCG(5, 6)), objects, 1500)
			}()
			// Add and remove handlers while the writes flow; some remove
			// themselves from inside a call.
			rng := rand.New(rand.NewPCG(7, 8))
			var all []*recorder
			var live []ResourceEventHandlerRegistration
			for i := 0; i < 200; i++ {
				rec := newRecorder()
				if rng.IntN(4) == 0 {
					var once sync.Once
					var reg ResourceEventHandlerRegistration
					var regMu sync.Mutex
					regMu.Lock()
					rec.onEvent = func(event) {
						once.Do(func() {
							regMu.Lock()
							defer regMu.Unlock()
							if err := inf.RemoveEventHandler(reg); err != nil {
								t.Errorf("removing a handler from inside: %v", err)
							}
						})
					}
					r, err := inf.AddEventHandlerWithResyncPeriod(rec, time.Duration(rng.IntN(3))*time.Second)
					reg = r
					regMu.Unlock()
					if err != nil {
						t.Fatal(err)
					}
				} else {
					reg, err := inf.AddEventHandler(rec)
					if err != nil {
						t.Fatal(err)
					}
					live = append(live, reg)
				}
				all = append(all, rec)
				if len(live) > 0 && rng.IntN(2) == 0 {
					j := rng.IntN(len(live))
					if err := ShutDownEventHandler(inf, live[j]); err != nil {
						t.Fatal(err)
					}
					live = slices.Delete(live, j, j+1)
				}
			}
			<-writesDone
			for i, rec := range all {
				checkHandlerInvariants(t, fmt.Sprintf("handler %d", i), rec.recorded())
			}
			for _, reg := range live {
				if err := ShutDownEventHandler(inf, reg); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestSharedInformerAddEventHandlerRacingStop(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			for i := range 20 {
				create(t, srv, fmt.Sprintf("o%d", i))
			}
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder})
			stop := runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())

			// Adders keep adding handlers (some remove themselves from
			// inside, some are shut down by the adder) until the
			// informer refuses them.
			const adders = 4
			var wg sync.WaitGroup
			regs := make([][]ResourceEventHandlerRegistration, adders)
			refused := make([]error, adders)
			var added atomic.Int32
			for a := range adders {
				wg.Go(func() {
					for i := 0; ; i++ {
						rec := newRecorder()
						var self ResourceEventHandlerRegistration
						var selfMu sync.Mutex
						if i%3 == 0 {
							rec.onEvent = func(event) {
								selfMu.Lock()
								defer selfMu.Unlock()
								if self != nil {
									_ = inf.RemoveEventHandler(self)
								}
							}
						}
						reg, err := inf.AddEventHandler(rec)
						if err != nil {
							refused[a] = err
							return
						}
						selfMu.Lock()
						self = reg
						selfMu.Unlock()
						regs[a] = append(regs[a], reg)
						added.Add(1)
						if i%3 == 1 {
							if err := ShutDownEventHandler(inf, reg); err != nil {
								t.Errorf("ShutDownEventHandler: %v", err)
							}
						}
					}
				})
			}
			waitFor(t, "handlers to be added", func() bool { return added.Load() >= 100 })
			stop()
			wg.Wait()

			for a, err := range refused {
				if err == nil || !strings.Contains(err.Error(), "it has stopped already") {
					t.Errorf("adder %d: refused with %v, want the stopped error", a, err)
				}
			}
			// Run has returned: no handler is called any more.
			for a := range regs {
				for i, reg := range regs[a] {
					select {
					case <-reg.(interface{ ShutdownChan() <-chan struct{} }).ShutdownChan():
					default:
						t.Fatalf("adder %d, handler %d: still running after Run returned", a, i)
					}
				}
			}
			if got := inf.processor.listenerCount(); got != 0 {
				t.Errorf("%d listeners remain after stop", got)
			}
		})
	}
}

func TestSharedInformerRunWithEndedContext(t *testing.T) {
	srv := newTestServer(t)
	create(t, srv, "a")
	inf := newTestInformer(srv, SharedIndexInformerOptions{})
	reg, err := inf.AddEventHandler(newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testContext(t))
	cancel()
	inf.RunWithContext(ctx) // returns on its own
	if !inf.IsStopped() {
		t.Error("the informer is not stopped")
	}
	if inf.HasSynced() || reg.HasSynced() {
		t.Error("synced without running")
	}
	waitClosed(t, "ShutdownChan of a handler added before Run", reg.(interface{ ShutdownChan() <-chan struct{} }).ShutdownChan())
	if _, err := inf.AddEventHandler(newRecorder()); err == nil {
		t.Error("a handler was added after stop")
	}
	if err := ShutDownEventHandler(inf, reg); err != nil {
		t.Errorf("ShutDownEventHandler after stop: %v", err)
	}
	stopped := make(chan struct{})
	close(stopped)
	if WaitForCacheSync(stopped, inf.HasSynced) {
		t.Error("WaitForCacheSync reported a stopped, never synced informer as synced")
	}
}

// pointerHandler implements ResourceEventHandler with pointer receivers that
// work on a nil pointer.
type pointerHandler struct{}

func (*pointerHandler) OnAdd(any, bool)   {}
func (*pointerHandler) OnUpdate(any, any) {}
func (*pointerHandler) OnDelete(any)      {}

func TestAddEventHandlerRejectsNilHandlers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler ResourceEventHandler
		wantErr bool
	}{
		{name: "nil", handler: nil, wantErr: true},
		{name: "nil *ResourceEventHandlerFuncs", handler: (*ResourceEventHandlerFuncs)(nil), wantErr: true},
		{name: "nil *ResourceEventHandlerDetailedFuncs", handler: (*ResourceEventHandlerDetailedFuncs)(nil), wantErr: true},
		{name: "nil *FilteringResourceEventHandler", handler: (*FilteringResourceEventHandler)(nil), wantErr: true},
		{name: "nil pointer with pointer receivers", handler: (*pointerHandler)(nil)},
		{name: "empty funcs", handler: ResourceEventHandlerFuncs{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inf := newTestInformer(newTestServer(t), SharedIndexInformerOptions{})
			_, err := inf.AddEventHandler(tc.handler)
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Errorf("AddEventHandler() error = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestSharedInformerRunPropagatesProcessingPanic(t *testing.T) {
	// With ReallyCrash a panic in processing unwinds the controller and
	// must leave Run promptly, after stopping everything Run started.
	// (Without it, the controller decides whether processing goes on.)
	defer func(old bool) { utilruntime.ReallyCrash = old }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = true
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
				defer srv.Close()
				create(t, srv, "a")
				create(t, srv, "b")
				// Storing the first object panics, before the informer
				// has synced.
				inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder, Indexers: Indexers{
					"panics": func(obj any) ([]string, error) {
						if obj.(metav1.Object).GetName() == "a" {
							panic("index function failure")
						}
						return nil, nil
					},
				}})
				reg, err := inf.AddEventHandler(newRecorder())
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				panicked := make(chan any, 1)
				go func() {
					defer func() { panicked <- recover() }()
					inf.RunWithContext(ctx)
				}()
				synctest.Wait()
				select {
				case p := <-panicked:
					if p == nil {
						t.Error("Run returned without re-raising the panic")
					}
				default:
					t.Fatal("Run is still blocked after processing panicked")
				}
				if !inf.IsStopped() {
					t.Error("the informer is not stopped after Run returned")
				}
				if !IsDone(shutdownChecker{reg}) {
					t.Error("the handler's goroutine outlived Run")
				}
			})
		})
	}
}

// shutdownChecker is a DoneChecker for the shutdown of a registration's
// handler.
type shutdownChecker struct {
	reg ResourceEventHandlerRegistration
}

func (c shutdownChecker) Name() string { return "handler shutdown" }
func (c shutdownChecker) Done() <-chan struct{} {
	return c.reg.(interface{ ShutdownChan() <-chan struct{} }).ShutdownChan()
}

func TestSharedInformerLateJoinDuringInitialList(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			const objects = 2000
			srv := newTestServer(t)
			for i := range objects {
				create(t, srv, fmt.Sprintf("o%d", i))
			}
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder})
			runSharedInformer(t, inf)
			// Handlers join at various points of the initial list: each
			// gets the objects stored so far replayed and the rest as
			// they are processed, all as initial adds.
			const handlers = 20
			var recs []*recorder
			var checkers []DoneChecker
			for i := range handlers {
				rec := newRecorder()
				reg, err := inf.AddEventHandler(rec)
				if err != nil {
					t.Fatal(err)
				}
				recs = append(recs, rec)
				checkers = append(checkers, reg.HasSyncedChecker())
				// Let the informer store a few more objects.
				for next := (i + 1) * objects / handlers; !inf.HasSynced() && len(inf.GetStore().ListKeys()) < next; {
					goruntime.Gosched()
				}
			}
			waitForSync(t, checkers...)
			for i, rec := range recs {
				events := rec.recorded()
				if len(events) != objects {
					t.Fatalf("handler %d: %d calls once its registration synced, want %d", i, len(events), objects)
				}
				seen := map[string]bool{}
				for _, e := range events {
					if e.Kind != "add" || !e.Initial || seen[e.Key] {
						t.Fatalf("handler %d: unexpected call %s", i, e)
					}
					seen[e.Key] = true
				}
			}
		})
	}
}
