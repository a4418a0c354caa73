package cache

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2/ktesting"

	framework "github.com/informer-go/informer/cache/testing"
	"github.com/informer-go/informer/wait"
)

// queueModes are the two pipelines every scenario runs against.
var queueModes = []struct {
	name    string
	inOrder bool
}{
	{name: "DeltaFIFO", inOrder: false},
	{name: "InOrder", inOrder: true},
}

// newTestServer returns an in-memory apiserver for test objects, closed when
// the test ends. Its watch buffer is large enough for every test's bursts.
func newTestServer(t testing.TB) *framework.Server[*metav1.PartialObjectMetadata] {
	t.Helper()
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{WatchBufferSize: 100_000})
	t.Cleanup(srv.Close)
	return srv
}

// create stores a test object named name in srv and returns the stored copy.
func create(t testing.TB, srv *framework.Server[*metav1.PartialObjectMetadata], name string) *metav1.PartialObjectMetadata {
	t.Helper()
	obj, err := srv.Create(pom(name, ""))
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return obj
}

// touch updates the object named name in srv with a new label value, which
// gives it a new resource version.
func touch(t testing.TB, srv *framework.Server[*metav1.PartialObjectMetadata], name string, value string) *metav1.PartialObjectMetadata {
	t.Helper()
	obj, err := srv.Get(testNamespace, name)
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	obj.Labels = map[string]string{"v": value}
	obj.ResourceVersion = ""
	obj, err = srv.Update(obj)
	if err != nil {
		t.Fatalf("update %s: %v", name, err)
	}
	return obj
}

// remove deletes the object named name from srv.
func remove(t testing.TB, srv *framework.Server[*metav1.PartialObjectMetadata], name string) {
	t.Helper()
	if _, err := srv.Delete(testNamespace, name); err != nil {
		t.Fatalf("delete %s: %v", name, err)
	}
}

// newTestInformer returns an informer of test objects listing and watching
// lw, with a test logger.
func newTestInformer(lw ListerWatcher, opts SharedIndexInformerOptions) *sharedIndexInformer {
	return newSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, opts, realClock)
}

// runSharedInformer runs inf until the test ends (or stop is called) and waits
// for Run to return then. stop cancels the informer's context and waits for
// Run to return; it may be called more than once.
func runSharedInformer(t testing.TB, inf SharedInformer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.RunWithContext(ctx)
	}()
	stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(wait.ForeverTestTimeout):
			t.Errorf("the informer did not stop")
		}
	}
	t.Cleanup(stop)
	return stop
}

// runSyncedInformer runs, until the test ends, an informer of the test
// objects o0 to o<objects-1>, and waits until it has synced.
func runSyncedInformer(t *testing.T, objects int) (*sharedIndexInformer, *framework.Server[*metav1.PartialObjectMetadata]) {
	t.Helper()
	srv := newTestServer(t)
	for i := range objects {
		create(t, srv, fmt.Sprintf("o%d", i))
	}
	inf := newTestInformer(srv, SharedIndexInformerOptions{})
	runSharedInformer(t, inf)
	waitForSync(t, inf.HasSyncedChecker())
	return inf, srv
}

// testContext returns a context whose logger writes to t.
func testContext(t testing.TB) context.Context {
	if tt, ok := t.(*testing.T); ok {
		_, ctx := ktesting.NewTestContext(tt)
		return ctx
	}
	return context.Background()
}

// waitForSync waits until every checker is done, failing the test after a
// generous deadline.
func waitForSync(t testing.TB, checkers ...DoneChecker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait.ForeverTestTimeout)
	defer cancel()
	if !WaitFor(ctx, "", checkers...) {
		t.Fatalf("timed out waiting for sync")
	}
}

// event is a handler call as recorded by a recorder: its kind, the object's
// key and resource version (the new one for updates), and, for updates, the
// old resource version.
type event struct {
	Kind    string // "add", "update", "delete"
	Key     string
	RV      string
	OldRV   string `json:",omitempty"`
	Initial bool   `json:",omitempty"`
}

func (e event) String() string {
	s := fmt.Sprintf("%s %s@%s", e.Kind, e.Key, e.RV)
	if e.OldRV != "" {
		s += " from " + e.OldRV
	}
	if e.Initial {
		s += " initial"
	}
	return s
}

// describeObject returns the key and resource version of a test object or a
// tombstone (whose resource version is that of its last known state).
func describeObject(obj any) (key, rv string) {
	if tomb, ok := obj.(DeletedFinalStateUnknown); ok {
		if tomb.Obj != nil {
			_, rv = describeObject(tomb.Obj)
		}
		return "tombstone:" + tomb.Key, rv
	}
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return fmt.Sprintf("<%v>", err), ""
	}
	if o, ok := obj.(metav1.Object); ok {
		rv = o.GetResourceVersion()
	}
	return key, rv
}

// recorder is a ResourceEventHandler that records every call. Its methods
// are safe for concurrent use.
type recorder struct {
	mu      sync.Mutex
	events  []event
	changed chan struct{} // closed and replaced on every call
	// onEvent, when set, runs inside every handler call after recording.
	onEvent func(e event)
}

func newRecorder() *recorder {
	return &recorder{changed: make(chan struct{})}
}

func (r *recorder) record(e event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	close(r.changed)
	r.changed = make(chan struct{})
	onEvent := r.onEvent
	r.mu.Unlock()
	if onEvent != nil {
		onEvent(e)
	}
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	key, rv := describeObject(obj)
	r.record(event{Kind: "add", Key: key, RV: rv, Initial: isInInitialList})
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	key, rv := describeObject(newObj)
	_, oldRV := describeObject(oldObj)
	r.record(event{Kind: "update", Key: key, RV: rv, OldRV: oldRV})
}

func (r *recorder) OnDelete(obj any) {
	key, rv := describeObject(obj)
	r.record(event{Kind: "delete", Key: key, RV: rv})
}

// recorded returns a copy of the calls so far.
func (r *recorder) recorded() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...)
}

// count returns the number of calls so far.
func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// waitFor waits until cond holds for the recorded calls, failing the test
// after a generous deadline.
func (r *recorder) waitFor(t testing.TB, what string, cond func([]event) bool) []event {
	t.Helper()
	deadline := time.After(wait.ForeverTestTimeout)
	for {
		r.mu.Lock()
		events, changed := r.events, r.changed
		ok := cond(events)
		events = append([]event(nil), events...)
		r.mu.Unlock()
		if ok {
			return events
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; recorded %d calls:\n%s", what, len(events), formatEvents(events))
		}
	}
}

// waitForCount waits until at least n calls were recorded.
func (r *recorder) waitForCount(t testing.TB, n int) []event {
	t.Helper()
	return r.waitFor(t, fmt.Sprintf("%d calls", n), func(e []event) bool { return len(e) >= n })
}

func formatEvents(events []event) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	return b.String()
}

// lastRVs returns, per key, the resource version of the last add or update,
// or "deleted" after a delete.
func lastRVs(events []event) map[string]string {
	last := map[string]string{}
	for _, e := range events {
		switch e.Kind {
		case "delete":
			last[strings.TrimPrefix(e.Key, "tombstone:")] = "deleted"
		default:
			last[e.Key] = e.RV
		}
	}
	return last
}

// channelLW is a ListerWatcher whose list is computed by a function and whose
// watches are fake watchers the test may send events into. Each watch is
// announced on watches (which holds up to 16).
type channelLW struct {
	list    func() (runtime.Object, error)
	watches chan *watch.FakeWatcher
}

func newChannelLW(list func() (runtime.Object, error)) *channelLW {
	return &channelLW{list: list, watches: make(chan *watch.FakeWatcher, 16)}
}

// IsWatchListSemanticsUnSupported makes reflectors list instead of streaming.
func (c *channelLW) IsWatchListSemanticsUnSupported() bool { return true }

func (c *channelLW) List(metav1.ListOptions) (runtime.Object, error) {
	return c.list()
}

func (c *channelLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFake()
	select {
	case c.watches <- w:
	default:
	}
	return w, nil
}
