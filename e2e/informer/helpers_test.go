package informer_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/e2e/internal/objects"
	"github.com/informer-go/informer/wait"
)

// convergeTimeout bounds every wait for the informer to catch up with the
// server: generous, for a loaded two-core machine running the race detector.
const convergeTimeout = 3 * time.Minute

// pollInterval is how often the tests check a condition they wait for.
const pollInterval = 20 * time.Millisecond

// testContext returns a context that ends with the test and logs to it, at
// verbosity 2 (lifecycle messages, not one line per object).
func testContext(t *testing.T) context.Context {
	t.Helper()
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(2)))
	return klog.NewContext(t.Context(), logger)
}

// configMapListWatch lists and watches the ConfigMaps of namespace through
// the typed clientset, applying tweak (if not nil) to the options of every
// request, as client-go's filtered informers do.
func configMapListWatch(client kubernetes.Interface, namespace string, tweak func(*metav1.ListOptions)) *cache.ListWatch {
	cms := client.CoreV1().ConfigMaps(namespace)
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			if tweak != nil {
				tweak(&opts)
			}
			return cms.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if tweak != nil {
				tweak(&opts)
			}
			return cms.Watch(ctx, opts)
		},
	}
}

// recordingListWatch wraps a ListerWatcher and records what the reflector
// asks for and gets: the options of every list and watch, the size of every
// list page and the errors of every watch (failed requests and ERROR
// events). It can also hold the
// reflector's plain watches (not streaming lists) at a gate, and stop the
// current watch as if the server had closed it.
type recordingListWatch struct {
	lw cache.ListerWatcherWithContext

	mu          sync.Mutex
	lists       []metav1.ListOptions // guarded by mu
	pages       []int                // guarded by mu: items per list response
	watches     []metav1.ListOptions // guarded by mu
	errorEvents []error              // guarded by mu: failed watch requests and ERROR events of all watches
	gate        chan struct{}        // guarded by mu: plain watches wait for it to close; nil lets them through
	current     watch.Interface      // guarded by mu: the latest watch
	listFaults  []error              // guarded by mu: the errors the next lists fail with, in order

	// gated counts the watches waiting at the gate.
	gated atomic.Int32
	// firstEvent is closed when any watch delivers its first event.
	firstEvent     chan struct{}
	firstEventOnce sync.Once
	// pauseFirstEvent, when set before the first watch, holds the first
	// event of any watch until it is closed.
	pauseFirstEvent chan struct{}
	// streams counts the streaming lists opened, completedStreams those
	// that delivered their "k8s.io/initial-events-end" bookmark.
	streams, completedStreams atomic.Int32
}

var (
	_ cache.ListerWatcher            = (*recordingListWatch)(nil)
	_ cache.ListerWatcherWithContext = (*recordingListWatch)(nil)
)

func newRecordingListWatch(lw cache.ListerWatcherWithContext) *recordingListWatch {
	return &recordingListWatch{lw: lw, firstEvent: make(chan struct{})}
}

func (r *recordingListWatch) List(opts metav1.ListOptions) (runtime.Object, error) {
	return r.ListWithContext(context.Background(), opts)
}

func (r *recordingListWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return r.WatchWithContext(context.Background(), opts)
}

func (r *recordingListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	r.mu.Lock()
	r.lists = append(r.lists, opts)
	var fault error
	if len(r.listFaults) > 0 {
		fault, r.listFaults = r.listFaults[0], r.listFaults[1:]
	}
	r.mu.Unlock()
	if fault != nil {
		return nil, fault
	}
	obj, err := r.lw.ListWithContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	if n := meta.LenList(obj); n >= 0 {
		r.mu.Lock()
		r.pages = append(r.pages, n)
		r.mu.Unlock()
	}
	return obj, nil
}

func (r *recordingListWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	r.mu.Lock()
	r.watches = append(r.watches, opts)
	gate := r.gate
	r.mu.Unlock()
	if gate != nil && opts.SendInitialEvents == nil {
		r.gated.Add(1)
		select {
		case <-gate:
			r.gated.Add(-1)
		case <-ctx.Done():
			r.gated.Add(-1)
			return nil, ctx.Err()
		}
	}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		r.streams.Add(1)
	}
	w, err := r.lw.WatchWithContext(ctx, opts)
	if err != nil {
		r.mu.Lock()
		r.errorEvents = append(r.errorEvents, err)
		r.mu.Unlock()
		return nil, err
	}
	rw := newRecordingWatch(w, func(e watch.Event) {
		r.firstEventOnce.Do(func() {
			close(r.firstEvent)
			if r.pauseFirstEvent != nil {
				<-r.pauseFirstEvent
			}
		})
		if isInitialEventsEnd(e) {
			r.completedStreams.Add(1)
		}
		if e.Type == watch.Error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.errorEvents = append(r.errorEvents, apierrors.FromObject(e.Object))
		}
	})
	r.mu.Lock()
	r.current = rw
	r.mu.Unlock()
	return rw, nil
}

// isInitialEventsEnd reports whether e is the bookmark that ends the
// initial events of a streaming list.
func isInitialEventsEnd(e watch.Event) bool {
	if e.Type != watch.Bookmark {
		return false
	}
	m, err := meta.Accessor(e.Object)
	return err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}

// recordingWatch passes on the events of a watch, showing each to a
// callback first. Unlike watch.Filter it never blocks once stopped.
type recordingWatch struct {
	source   watch.Interface
	result   chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func newRecordingWatch(source watch.Interface, onEvent func(watch.Event)) *recordingWatch {
	w := &recordingWatch{source: source, result: make(chan watch.Event), stop: make(chan struct{})}
	go w.loop(onEvent) // exits when source ends or Stop is called
	return w
}

func (w *recordingWatch) loop(onEvent func(watch.Event)) {
	defer close(w.result)
	for {
		select {
		case e, ok := <-w.source.ResultChan():
			if !ok {
				return
			}
			onEvent(e)
			select {
			case w.result <- e:
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}

func (w *recordingWatch) ResultChan() <-chan watch.Event { return w.result }

func (w *recordingWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stop)
		w.source.Stop()
	})
}

// failNextList makes the next list fail with err, without asking the
// server.
func (r *recordingListWatch) failNextList(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listFaults = append(r.listFaults, err)
}

// holdWatches makes later plain watches wait until releaseWatches.
func (r *recordingListWatch) holdWatches() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gate = make(chan struct{})
}

// releaseWatches lets the held watches and the later ones through.
func (r *recordingListWatch) releaseWatches() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gate != nil {
		close(r.gate)
		r.gate = nil
	}
}

// stopCurrentWatch ends the latest watch: the reflector sees its result
// channel close, as when the server ends a watch.
func (r *recordingListWatch) stopCurrentWatch() {
	r.mu.Lock()
	w := r.current
	r.mu.Unlock()
	if w != nil {
		w.Stop()
	}
}

// record is a copy of what the wrapper recorded.
type record struct {
	lists       []metav1.ListOptions
	pages       []int
	watches     []metav1.ListOptions
	errorEvents []error
}

func (r *recordingListWatch) record() record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return record{
		lists:       append([]metav1.ListOptions(nil), r.lists...),
		pages:       append([]int(nil), r.pages...),
		watches:     append([]metav1.ListOptions(nil), r.watches...),
		errorEvents: append([]error(nil), r.errorEvents...),
	}
}

// paginatedOnly makes a reflector use paginated lists instead of streaming
// lists, through the method the reflector looks for on its ListerWatcher.
type paginatedOnly struct{ *recordingListWatch }

func (paginatedOnly) IsWatchListSemanticsUnSupported() bool { return true }

// event is one handler notification as the tests compare it.
type event struct {
	Type string // "add", "update" or "delete"
	Name string
	RV   string
	// Initial is isInInitialList of an add.
	Initial bool
	// Resync is true for an update whose old and new objects have the same
	// resourceVersion.
	Resync bool
	// Tombstone is true for a delete of a DeletedFinalStateUnknown.
	Tombstone bool
}

// recorder is a ResourceEventHandler that records every notification and
// applies it to a map of name to resourceVersion, which ends up equal to the
// informer's store.
type recorder struct {
	mu     sync.Mutex
	events []event           // guarded by mu
	state  map[string]string // guarded by mu: name -> resourceVersion
	// changed is closed and replaced on every notification.
	changed chan struct{} // guarded by mu
}

var _ cache.ResourceEventHandler = (*recorder)(nil)

func newRecorder() *recorder {
	return &recorder{state: map[string]string{}, changed: make(chan struct{})}
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	m := mustMeta(obj)
	r.add(event{Type: "add", Name: m.GetName(), RV: m.GetResourceVersion(), Initial: isInInitialList})
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	o, n := mustMeta(oldObj), mustMeta(newObj)
	r.add(event{Type: "update", Name: n.GetName(), RV: n.GetResourceVersion(), Resync: o.GetResourceVersion() == n.GetResourceVersion()})
}

func (r *recorder) OnDelete(obj any) {
	e := event{Type: "delete"}
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		e.Tombstone = true
		obj = tombstone.Obj
	}
	m := mustMeta(obj)
	e.Name, e.RV = m.GetName(), m.GetResourceVersion()
	r.add(e)
}

func (r *recorder) add(e event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	if e.Type == "delete" {
		delete(r.state, e.Name)
	} else {
		r.state[e.Name] = e.RV
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// snapshot returns a copy of the events so far and of the state.
func (r *recorder) snapshot() ([]event, map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...), maps.Clone(r.state)
}

func (r *recorder) getState() map[string]string {
	_, s := r.snapshot()
	return s
}

// waitForEvent waits until an event satisfying match has been recorded and
// returns its index.
func (r *recorder) waitForEvent(t *testing.T, what string, match func(event) bool) int {
	t.Helper()
	deadline := time.NewTimer(convergeTimeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		for i, e := range r.events {
			if match(e) {
				r.mu.Unlock()
				return i
			}
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no %s within %v", what, convergeTimeout)
		}
	}
}

func mustMeta(obj any) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("handler got %T without metadata: %v", obj, err))
	}
	return m
}

// startInformer runs the informer until the test ends.
func startInformer(t *testing.T, ctx context.Context, informer cache.SharedIndexInformer) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { informer.RunWithContext(ctx) }) // returns once ctx ends; the cleanup waits
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// waitForSync waits until the informer has synced.
func waitForSync(t *testing.T, ctx context.Context, informer cache.SharedIndexInformer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, convergeTimeout)
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatalf("informer not synced within %v", convergeTimeout)
	}
}

// serverState lists the ConfigMaps of namespace matching opts' selectors
// with a quorum read and returns their names and resourceVersions.
func serverState(t *testing.T, client kubernetes.Interface, namespace string, opts metav1.ListOptions) map[string]string {
	t.Helper()
	opts.ResourceVersion = ""
	list, err := client.CoreV1().ConfigMaps(namespace).List(t.Context(), opts)
	if err != nil {
		t.Fatalf("list configmaps in %s: %v", namespace, err)
	}
	state := make(map[string]string, len(list.Items))
	for _, cm := range list.Items {
		state[cm.Name] = cm.ResourceVersion
	}
	return state
}

// storeState returns the names and resourceVersions of the objects in store.
func storeState(store cache.Store) map[string]string {
	objs := store.List()
	state := make(map[string]string, len(objs))
	for _, obj := range objs {
		m := mustMeta(obj)
		state[m.GetName()] = m.GetResourceVersion()
	}
	return state
}

// waitForState polls got until it equals want, failing with the difference
// after convergeTimeout.
func waitForState(t *testing.T, what string, want map[string]string, got func() map[string]string) {
	t.Helper()
	var last map[string]string
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, convergeTimeout, true, func(context.Context) (bool, error) {
		last = got()
		return cmp.Equal(want, last), nil
	})
	if err != nil {
		t.Fatalf("%s did not converge within %v (-want +got):\n%s", what, convergeTimeout, cmp.Diff(want, last))
	}
}

// waitUntil polls cond until it holds, failing after convergeTimeout.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, convergeTimeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("%s: not within %v", what, convergeTimeout)
	}
}

// newConfigMap returns a ConfigMap named name in namespace with labels.
func newConfigMap(namespace, name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Data:       map[string]string{"k": "v"},
	}
}

// createConfigMaps creates n ConfigMaps named cm-00000, cm-00001, ... in
// namespace, several at a time, each with size bytes of data besides its
// metadata.
func createConfigMaps(t *testing.T, client kubernetes.Interface, namespace string, n, size int) {
	t.Helper()
	err := objects.Parallel(n, 16, func(i int) error {
		cm := newConfigMap(namespace, fmt.Sprintf("cm-%05d", i), nil)
		if size > 0 {
			cm.Data["payload"] = strings.Repeat("x", size)
		}
		_, err := client.CoreV1().ConfigMaps(namespace).Create(t.Context(), cm, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("create configmaps: %v", err)
	}
}

// create, update and remove write one ConfigMap, failing the test on error.
func create(t *testing.T, client kubernetes.Interface, namespace, name string, labels map[string]string) *corev1.ConfigMap {
	t.Helper()
	cm, err := client.CoreV1().ConfigMaps(namespace).Create(t.Context(), newConfigMap(namespace, name, labels), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return cm
}

func update(t *testing.T, client kubernetes.Interface, namespace, name string, labels map[string]string) *corev1.ConfigMap {
	t.Helper()
	cms := client.CoreV1().ConfigMaps(namespace)
	cm, err := cms.Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	cm.Labels = labels
	cm.Data = map[string]string{"k": cm.ResourceVersion} // a real change even if the labels are the same
	cm, err = cms.Update(t.Context(), cm, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update %s: %v", name, err)
	}
	return cm
}

func remove(t *testing.T, client kubernetes.Interface, namespace, name string) {
	t.Helper()
	if err := client.CoreV1().ConfigMaps(namespace).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete %s: %v", name, err)
	}
}

// pipelines are the two queue modes every informer scenario runs in.
var pipelines = []struct {
	name    string
	inOrder bool
}{
	{name: "DeltaFIFO"},
	{name: "InOrder", inOrder: true},
}
