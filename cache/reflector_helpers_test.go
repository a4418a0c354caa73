package cache

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/wait"
)

func init() {
	// utilruntime's default error handlers include a rate limiter that
	// sleeps based on the wall-clock time of the previous error; inside a
	// synctest bubble, whose clock starts in 2000, that sleep lasts decades.
	// Tests only need the logging.
	utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{
		func(ctx context.Context, err error, msg string, keysAndValues ...any) {
			klog.FromContext(ctx).WithName("UnhandledError").Error(err, msg, keysAndValues...)
		},
	}
}

// testNamespace is the namespace of every test object.
const testNamespace = "ns"

// pom returns a test object: PartialObjectMetadata named name at resource
// version rv.
func pom(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name, ResourceVersion: rv},
	}
}

// pomList returns a list page at resource version rv with continue token
// cont.
func pomList(rv, cont string, items ...*metav1.PartialObjectMetadata) *metav1.PartialObjectMetadataList {
	l := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: rv, Continue: cont}}
	for _, item := range items {
		l.Items = append(l.Items, *item)
	}
	return l
}

// bookmarkEvent returns a BOOKMARK at rv, marking the end of a streaming
// list's initial events when initialEventsEnd.
func bookmarkEvent(rv string, initialEventsEnd bool) watch.Event {
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}
	obj.SetGroupVersionKind(pom("", "").GroupVersionKind())
	if initialEventsEnd {
		obj.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return watch.Event{Type: watch.Bookmark, Object: obj}
}

// bookmarkAnnotated is a bookmark at rv whose initial-events-end annotation
// has the given value.
func bookmarkAnnotated(rv, value string) watch.Event {
	e := bookmarkEvent(rv, false)
	e.Object.(*metav1.PartialObjectMetadata).Annotations = map[string]string{metav1.InitialEventsAnnotationKey: value}
	return e
}

func added(name, rv string) watch.Event {
	return watch.Event{Type: watch.Added, Object: pom(name, rv)}
}

func modified(name, rv string) watch.Event {
	return watch.Event{Type: watch.Modified, Object: pom(name, rv)}
}

func deleted(name, rv string) watch.Event {
	return watch.Event{Type: watch.Deleted, Object: pom(name, rv)}
}

// errorEvent returns an ERROR event carrying err's status.
func errorEvent(err error) watch.Event {
	var status interface{ Status() metav1.Status }
	if !errors.As(err, &status) {
		panic(fmt.Sprintf("%v has no status", err))
	}
	s := status.Status()
	return watch.Event{Type: watch.Error, Object: &s}
}

// scriptedWatch is a watch.Interface replaying a fixed list of events, then
// closing (when closeAtEnd) or staying open until stopped. Unlike
// watch.RaceFreeFakeWatcher it holds any number of events.
type scriptedWatch struct {
	ch       chan watch.Event
	stopOnce sync.Once
	stopped  chan struct{}
}

func newScriptedWatch(events []watch.Event, closeAtEnd bool) *scriptedWatch {
	w := &scriptedWatch{ch: make(chan watch.Event, len(events)), stopped: make(chan struct{})}
	for _, e := range events {
		w.ch <- e
	}
	if closeAtEnd {
		close(w.ch)
	}
	return w
}

func (w *scriptedWatch) ResultChan() <-chan watch.Event { return w.ch }
func (w *scriptedWatch) Stop()                          { w.stopOnce.Do(func() { close(w.stopped) }) }

// isStopped reports whether Stop was called.
func (w *scriptedWatch) isStopped() bool {
	select {
	case <-w.stopped:
		return true
	default:
		return false
	}
}

// step is one scripted answer of a scriptedLW.
type step struct {
	// delay passes (on the real clock, which is fake inside a synctest
	// bubble) before the answer.
	delay time.Duration
	// err fails the call.
	err error
	// panicValue, when set, makes the call panic with it.
	panicValue any
	// list answers a list call; respond, when set, computes it instead.
	list    runtime.Object
	respond func(metav1.ListOptions) (runtime.Object, error)
	// events and closeAtEnd script a watch.
	events     []watch.Event
	closeAtEnd bool
}

// call is one recorded call of a scriptedLW, reduced to what tests compare.
type call struct {
	Kind              string // "list" or "watch"
	RV                string
	RVMatch           metav1.ResourceVersionMatch
	Limit             int64
	Continue          string
	SendInitialEvents bool
	Bookmarks         bool
}

// recordedCall is a call with the rest of what was seen.
type recordedCall struct {
	call
	timeoutSeconds *int64
	at             time.Time
}

// scriptedLW is a ListerWatcherWithContext answering lists and watches from
// two scripts, in order, and recording every call. Once a script is used up,
// lists block until their context ends and watches stay open without events;
// exhausted is closed at the first such call.
type scriptedLW struct {
	mu        sync.Mutex
	lists     []step
	watches   []step
	calls     []recordedCall
	opened    []*scriptedWatch
	exhausted chan struct{}
	// noWatchList, when set, makes the ListerWatcher opt out of streaming
	// lists.
	noWatchList bool
}

func newScriptedLW(lists, watches []step) *scriptedLW {
	return &scriptedLW{lists: lists, watches: watches, exhausted: make(chan struct{})}
}

// IsWatchListSemanticsUnSupported is the duck-typed opt-out.
func (s *scriptedLW) IsWatchListSemanticsUnSupported() bool { return s.noWatchList }

func (s *scriptedLW) record(kind string, opts metav1.ListOptions) {
	c := call{
		Kind: kind, RV: opts.ResourceVersion, RVMatch: opts.ResourceVersionMatch, Limit: opts.Limit,
		Continue: opts.Continue, Bookmarks: opts.AllowWatchBookmarks,
		SendInitialEvents: opts.SendInitialEvents != nil && *opts.SendInitialEvents,
	}
	s.calls = append(s.calls, recordedCall{call: c, timeoutSeconds: opts.TimeoutSeconds, at: time.Now()})
}

// next pops the next step of script, reporting false when it is used up.
func (s *scriptedLW) next(script *[]step) (step, bool) {
	if len(*script) == 0 {
		select {
		case <-s.exhausted:
		default:
			close(s.exhausted)
		}
		return step{}, false
	}
	st := (*script)[0]
	*script = (*script)[1:]
	return st, true
}

func (s *scriptedLW) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	s.record("list", opts)
	st, ok := s.next(&s.lists)
	s.mu.Unlock()
	if !ok {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	time.Sleep(st.delay)
	if st.panicValue != nil {
		panic(st.panicValue)
	}
	if st.respond != nil {
		return st.respond(opts)
	}
	return st.list, st.err
}

func (s *scriptedLW) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	s.record("watch", opts)
	st, ok := s.next(&s.watches)
	s.mu.Unlock()
	if !ok {
		return s.track(newScriptedWatch(nil, false)), nil
	}
	time.Sleep(st.delay)
	if st.panicValue != nil {
		panic(st.panicValue)
	}
	if st.err != nil {
		return nil, st.err
	}
	return s.track(newScriptedWatch(st.events, st.closeAtEnd)), nil
}

func (s *scriptedLW) track(w *scriptedWatch) *scriptedWatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened = append(s.opened, w)
	return w
}

// List and Watch make scriptedLW a ListerWatcher.
func (s *scriptedLW) List(opts metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), opts)
}

func (s *scriptedLW) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), opts)
}

// watchStopped reports whether the i-th watch opened (from 0) was stopped.
func (s *scriptedLW) watchStopped(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened[i].isStopped()
}

// recorded returns the calls so far.
func (s *scriptedLW) recorded() []recordedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// callsOf strips recorded calls down to what tests compare.
func callsOf(rc []recordedCall) []call {
	out := make([]call, len(rc))
	for i, c := range rc {
		out[i] = c.call
	}
	return out
}

// gaps returns the time between consecutive recorded calls.
func gaps(rc []recordedCall) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(rc); i++ {
		out = append(out, rc[i].at.Sub(rc[i-1].at))
	}
	return out
}

// Shorthands for the calls a reflector makes.
func listCall(rv string, limit int64) call { return call{Kind: "list", RV: rv, Limit: limit} }
func continueCall(token string, limit int64) call {
	return call{Kind: "list", Limit: limit, Continue: token}
}
func watchCall(rv string) call { return call{Kind: "watch", RV: rv, Bookmarks: true} }
func watchListCall(rv string) call {
	return call{Kind: "watch", RV: rv, RVMatch: metav1.ResourceVersionMatchNotOlderThan, SendInitialEvents: true, Bookmarks: true}
}

// recordingStore is a test ReflectorStore: it applies operations to a map and
// logs them as strings such as "add ns/a@3" or "replace [ns/a@3]@5".
type recordingStore struct {
	mu        sync.Mutex
	items     map[string]*metav1.PartialObjectMetadata
	ops       []string
	failOn    map[string]error // operation name -> error to return
	transform TransformFunc
	changed   chan struct{} // receives (without blocking) after every operation
}

func newRecordingStore() *recordingStore {
	return &recordingStore{
		items:   map[string]*metav1.PartialObjectMetadata{},
		failOn:  map[string]error{},
		changed: make(chan struct{}, 1),
	}
}

func testObjString(obj any) string {
	p, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return fmt.Sprintf("%T", obj)
	}
	return p.Namespace + "/" + p.Name + "@" + p.ResourceVersion
}

func (s *recordingStore) log(op string, obj any) error {
	s.ops = append(s.ops, op+" "+testObjString(obj))
	defer s.notify()
	if err := s.failOn[op]; err != nil {
		return err
	}
	p, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return fmt.Errorf("%s: unexpected %T", op, obj)
	}
	if op == "delete" {
		delete(s.items, p.Namespace+"/"+p.Name)
	} else {
		s.items[p.Namespace+"/"+p.Name] = p
	}
	return nil
}

func (s *recordingStore) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *recordingStore) Add(obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log("add", obj)
}

func (s *recordingStore) Update(obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log("update", obj)
}

func (s *recordingStore) Delete(obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log("delete", obj)
}

func (s *recordingStore) Replace(list []any, rv string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notify()
	var names []string
	for _, obj := range list {
		names = append(names, testObjString(obj))
	}
	s.ops = append(s.ops, fmt.Sprintf("replace [%s]@%s", strings.Join(names, " "), rv))
	if err := s.failOn["replace"]; err != nil {
		return err
	}
	clear(s.items)
	for _, obj := range list {
		p := obj.(*metav1.PartialObjectMetadata)
		s.items[p.Namespace+"/"+p.Name] = p
	}
	return nil
}

func (s *recordingStore) Resync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notify()
	s.ops = append(s.ops, "resync")
	return s.failOn["resync"]
}

// operations returns the operations so far.
func (s *recordingStore) operations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ops)
}

// bookmarkingStore is a recordingStore that also takes bookmarks.
type bookmarkingStore struct{ *recordingStore }

func (s bookmarkingStore) Bookmark(rv string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notify()
	s.ops = append(s.ops, "bookmark "+rv)
	return nil
}

// transformingStore is a recordingStore that advertises a transform.
type transformingStore struct{ *recordingStore }

func (s transformingStore) Transformer() TransformFunc { return s.transform }

// runReflector runs r until the ListerWatcher's scripts are used up and the
// reflector is waiting on the open watch, list or backoff that follows; then
// it stops r and waits for it to return. It must run in a synctest bubble:
// it gives the reflector an hour of the bubble's fake time.
func runReflector(t *testing.T, r *Reflector, lw *scriptedLW) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunWithContext(ctx)
	}()
	select {
	case <-lw.exhausted:
	case <-time.After(time.Hour):
		t.Error("the reflector did not use up its script")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the reflector did not stop")
	}
}

// startReflector runs r until the returned stop is called; stop cancels ctx's
// child and waits for RunWithContext to return. It does not wait on a clock,
// so it serves inside a synctest bubble and out.
func startReflector(ctx context.Context, r *Reflector) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunWithContext(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// hostileHooks answer the calls of a hostileLW instead of its server; a nil
// hook leaves its calls to the server.
type hostileHooks struct {
	list func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	// watch answers plain watches, stream streaming-list requests (watches
	// with SendInitialEvents).
	watch  func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	stream func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// hostileLW is a ListerWatcher in front of a fake server whose calls its
// hooks may answer instead, and which records every call. After spinLimit
// calls it stops answering (lists block until their context ends, watches
// stay open and quiet), so that a reflector that retries without delay ends
// up waiting, and its test fails on the count instead of hanging.
type hostileLW struct {
	srv       ListerWatcherWithContext
	spinLimit int
	// noWatchList, when set before use, makes the source opt out of
	// streaming lists; optOutPanics makes it panic when asked instead.
	noWatchList, optOutPanics bool

	mu    sync.Mutex
	hooks hostileHooks  // guarded by mu
	calls []hostileCall // guarded by mu
}

// hostileCall is one recorded call of a hostileLW.
type hostileCall struct {
	kind string // "list", "watch" or "stream"
	rv   string
	at   time.Time
}

func newHostileLW(srv ListerWatcherWithContext, hooks hostileHooks) *hostileLW {
	return &hostileLW{srv: srv, spinLimit: 5000, hooks: hooks}
}

// IsWatchListSemanticsUnSupported is the duck-typed opt-out.
func (h *hostileLW) IsWatchListSemanticsUnSupported() bool {
	if h.optOutPanics {
		panic("opt-out exploded")
	}
	return h.noWatchList
}

// setHooks replaces the hooks; hostileHooks{} heals the source.
func (h *hostileLW) setHooks(hooks hostileHooks) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hooks = hooks
}

// record records a call and returns the hooks to answer it with, and whether
// the call is past the spin limit.
func (h *hostileLW) record(kind string, opts metav1.ListOptions) (hostileHooks, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, hostileCall{kind: kind, rv: opts.ResourceVersion, at: time.Now()})
	return h.hooks, len(h.calls) > h.spinLimit
}

// recorded returns the calls so far.
func (h *hostileLW) recorded() []hostileCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

func (h *hostileLW) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	hooks, spun := h.record("list", opts)
	switch {
	case spun:
		<-ctx.Done()
		return nil, ctx.Err()
	case hooks.list != nil:
		return hooks.list(ctx, opts)
	}
	return h.srv.ListWithContext(ctx, opts)
}

func (h *hostileLW) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	streaming := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	kind := "watch"
	if streaming {
		kind = "stream"
	}
	hooks, spun := h.record(kind, opts)
	hook := hooks.watch
	if streaming {
		hook = hooks.stream
	}
	switch {
	case spun:
		return newScriptedWatch(nil, false), nil
	case hook != nil:
		return hook(ctx, opts)
	}
	return h.srv.WatchWithContext(ctx, opts)
}

// List and Watch make hostileLW a ListerWatcher.
func (h *hostileLW) List(opts metav1.ListOptions) (runtime.Object, error) {
	return h.ListWithContext(context.Background(), opts)
}

func (h *hostileLW) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return h.WatchWithContext(context.Background(), opts)
}

// scriptedWatchOf returns a watch hook answering every call with a new
// scriptedWatch of events, closed at the end when closeAtEnd.
func scriptedWatchOf(closeAtEnd bool, events ...watch.Event) func(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return func(context.Context, metav1.ListOptions) (watch.Interface, error) {
		return newScriptedWatch(events, closeAtEnd), nil
	}
}

// failingWatch returns a watch hook failing every call with err.
func failingWatch(err error) func(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return func(context.Context, metav1.ListOptions) (watch.Interface, error) { return nil, err }
}

// everyWatch returns hooks answering plain watches and streaming lists alike
// with watch.
func everyWatch(watch func(context.Context, metav1.ListOptions) (watch.Interface, error)) hostileHooks {
	return hostileHooks{watch: watch, stream: watch}
}

// rewrittenLists returns a list hook answering with srv's list as rewrite
// changes it.
func rewrittenLists(srv *fakeServer, rewrite func(*metav1.PartialObjectMetadataList) runtime.Object) func(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		list, err := srv.ListWithContext(ctx, opts)
		if err != nil {
			return nil, err
		}
		return rewrite(list.(*metav1.PartialObjectMetadataList)), nil
	}
}

// initialEvents returns the events of a streaming list of srv's current
// objects: an ADDED event per object, then the initial-events-end bookmark
// at endRV, or at the list's resource version when endRV is "".
func initialEvents(ctx context.Context, srv *fakeServer, endRV string) ([]watch.Event, error) {
	list, err := srv.ListWithContext(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	l := list.(*metav1.PartialObjectMetadataList)
	var events []watch.Event
	for i := range l.Items {
		events = append(events, watch.Event{Type: watch.Added, Object: &l.Items[i]})
	}
	return append(events, bookmarkEvent(cmp.Or(endRV, l.ResourceVersion), true)), nil
}

// serverWith returns a fake server, closed when the test ends, holding test
// objects with the given names.
func serverWith(t *testing.T, names ...string) *fakeServer {
	t.Helper()
	srv := newTestServer(t)
	for _, name := range names {
		create(t, srv, name)
	}
	return srv
}
