package framework

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// broadcasterQueueLength is the incoming queue length of the broadcaster
// serving a FakeControllerSource's watches.
const broadcasterQueueLength = 100

// errSourceShutDown is returned by a FakeControllerSource after Shutdown.
var errSourceShutDown = errors.New("fake controller source is shut down")

// FakeControllerSource is client-go's simple in-memory ListerWatcher for
// tests, kept for compatibility: every change gets the next integer
// resourceVersion and is appended to a change log; List returns the current
// objects; Watch replays the log from a resourceVersion and then follows a
// watch.Broadcaster. It ignores every list option except the watch
// resourceVersion, and has no pagination, selectors, bookmarks or streaming
// lists: use [Server] for tests that must behave like a real apiserver.
//
// Create it with [NewFakeControllerSource]; the zero value is not usable.
// Methods are safe for concurrent use. The broadcaster runs a goroutine:
// call [FakeControllerSource.Shutdown] when done.
type FakeControllerSource struct {
	lock sync.RWMutex
	// Items holds the current objects by namespace, name and uid. It is
	// guarded by the source's lock: read it only while no change can happen.
	Items map[nnu]runtime.Object
	// changes is the change log: one event per resourceVersion, oldest first.
	changes []watch.Event
	// Broadcaster serves the watches (queue of 100, blocking when a watcher
	// falls behind). ResetWatch replaces it.
	Broadcaster *watch.Broadcaster
	lastRV      int
	shutDown    bool

	// ListError, if set, is returned by List instead of a list.
	ListError error
}

// FakePVControllerSource is a [FakeControllerSource] for persistent volumes.
// client-go's returns a core/v1 PersistentVolumeList; this one, which does
// not depend on k8s.io/api, returns a *metav1.List like
// [FakeControllerSource.List].
type FakePVControllerSource struct {
	FakeControllerSource
}

// FakePVCControllerSource is a [FakeControllerSource] for persistent volume
// claims. client-go's returns a core/v1 PersistentVolumeClaimList; this one,
// which does not depend on k8s.io/api, returns a *metav1.List like
// [FakeControllerSource.List].
type FakePVCControllerSource struct {
	FakeControllerSource
}

// nnu is the key of FakeControllerSource.Items: namespace, name and uid.
type nnu struct {
	namespace, name string
	uid             types.UID
}

// NewFakeControllerSource returns an empty source whose broadcaster is
// running.
func NewFakeControllerSource() *FakeControllerSource {
	return &FakeControllerSource{
		Items:       map[nnu]runtime.Object{},
		Broadcaster: watch.NewBroadcaster(broadcasterQueueLength, watch.WaitIfChannelFull),
	}
}

// NewFakePVControllerSource returns an empty persistent volume source whose
// broadcaster is running.
func NewFakePVControllerSource() *FakePVControllerSource {
	return &FakePVControllerSource{FakeControllerSource{
		Items:       map[nnu]runtime.Object{},
		Broadcaster: watch.NewBroadcaster(broadcasterQueueLength, watch.WaitIfChannelFull),
	}}
}

// NewFakePVCControllerSource returns an empty persistent volume claim source
// whose broadcaster is running.
func NewFakePVCControllerSource() *FakePVCControllerSource {
	return &FakePVCControllerSource{FakeControllerSource{
		Items:       map[nnu]runtime.Object{},
		Broadcaster: watch.NewBroadcaster(broadcasterQueueLength, watch.WaitIfChannelFull),
	}}
}

// ResetWatch simulates a lost connection: it shuts the broadcaster down (its
// watches end), starts a new one and empties the change log, so that a watch
// from any older resourceVersion fails with 410 Gone and clients must
// relist. It blocks until the old broadcaster has delivered what it queued.
func (f *FakeControllerSource) ResetWatch() {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.shutDown {
		return
	}
	f.Broadcaster.Shutdown()
	f.Broadcaster = watch.NewBroadcaster(broadcasterQueueLength, watch.WaitIfChannelFull)
	f.changes = []watch.Event{}
}

// Add stores obj and sends an ADDED event to the watches. obj's
// resourceVersion is set.
func (f *FakeControllerSource) Add(obj runtime.Object) {
	f.Change(watch.Event{Type: watch.Added, Object: obj}, 1)
}

// Modify stores obj and sends a MODIFIED event to the watches. obj's
// resourceVersion is set.
func (f *FakeControllerSource) Modify(obj runtime.Object) {
	f.Change(watch.Event{Type: watch.Modified, Object: obj}, 1)
}

// Delete removes lastValue and sends a DELETED event to the watches.
// lastValue's resourceVersion is set.
func (f *FakeControllerSource) Delete(lastValue runtime.Object) {
	f.Change(watch.Event{Type: watch.Deleted, Object: lastValue}, 1)
}

// AddDropWatch stores obj like Add but sends no event to the current
// watches, simulating a lost event; a later watch from an older
// resourceVersion replays it. obj's resourceVersion is set.
func (f *FakeControllerSource) AddDropWatch(obj runtime.Object) {
	f.Change(watch.Event{Type: watch.Added, Object: obj}, 0)
}

// ModifyDropWatch stores obj like Modify but sends no event to the current
// watches. obj's resourceVersion is set.
func (f *FakeControllerSource) ModifyDropWatch(obj runtime.Object) {
	f.Change(watch.Event{Type: watch.Modified, Object: obj}, 0)
}

// DeleteDropWatch removes lastValue like Delete but sends no event to the
// current watches. lastValue's resourceVersion is set.
func (f *FakeControllerSource) DeleteDropWatch(lastValue runtime.Object) {
	f.Change(watch.Event{Type: watch.Deleted, Object: lastValue}, 0)
}

func (f *FakeControllerSource) key(accessor metav1.Object) nnu {
	return nnu{namespace: accessor.GetNamespace(), name: accessor.GetName(), uid: accessor.GetUID()}
}

// Change applies e: it sets the next resourceVersion on e.Object (the
// caller's object), stores a copy (or removes it for DELETED), appends the
// event to the change log and broadcasts it with probability
// watchProbability (1 always, 0 never). Broadcasting blocks while a watcher
// is 100 events behind. An object without metadata (client-go panics) and any
// change after Shutdown are reported through utilruntime.HandleError and
// ignored.
func (f *FakeControllerSource) Change(e watch.Event, watchProbability float64) {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.shutDown {
		utilruntime.HandleError(fmt.Errorf("change %s: %w", e.Type, errSourceShutDown))
		return
	}
	accessor, err := accessorOf(e.Object)
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("change %s: %w", e.Type, err))
		return
	}

	f.lastRV++
	accessor.SetResourceVersion(strconv.Itoa(f.lastRV))
	obj := e.Object.DeepCopyObject()
	f.changes = append(f.changes, watch.Event{Type: e.Type, Object: obj})
	switch e.Type {
	case watch.Added, watch.Modified:
		f.Items[f.key(accessor)] = obj
	case watch.Deleted:
		delete(f.Items, f.key(accessor))
	}

	if rand.Float64() < watchProbability {
		if err := f.Broadcaster.Action(e.Type, obj.DeepCopyObject()); err != nil {
			utilruntime.HandleError(fmt.Errorf("broadcast %s: %w", e.Type, err))
		}
	}
}

// listLocked returns a list of deep copies of the current objects (in map
// order) with the last resourceVersion.
func (f *FakeControllerSource) listLocked() (runtime.Object, error) {
	if f.shutDown {
		return nil, errSourceShutDown
	}
	if f.ListError != nil {
		return nil, f.ListError
	}
	items := make([]runtime.Object, 0, len(f.Items))
	for _, obj := range f.Items {
		// Copies: the caller may modify what it gets.
		items = append(items, obj.DeepCopyObject())
	}
	list := &metav1.List{}
	if err := meta.SetList(list, items); err != nil {
		return nil, err
	}
	list.ResourceVersion = strconv.Itoa(f.lastRV)
	return list, nil
}

// List returns a *metav1.List (client-go: a core/v1 List) of deep copies of
// the current objects with the last resourceVersion, or ListError. options
// are ignored.
func (f *FakeControllerSource) List(options metav1.ListOptions) (runtime.Object, error) {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.listLocked()
}

// List returns a *metav1.List of the current persistent volumes, like
// [FakeControllerSource.List] (client-go returns a core/v1
// PersistentVolumeList, and ignores ListError).
func (f *FakePVControllerSource) List(options metav1.ListOptions) (runtime.Object, error) {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.listLocked()
}

// List returns a *metav1.List of the current persistent volume claims, like
// [FakeControllerSource.List] (client-go returns a core/v1
// PersistentVolumeClaimList, and ignores ListError).
func (f *FakePVCControllerSource) List(options metav1.ListOptions) (runtime.Object, error) {
	f.lock.RLock()
	defer f.lock.RUnlock()
	return f.listLocked()
}

// Watch starts a watch at options.ResourceVersion, which must be an integer
// (so a watch from "" fails, and client-go's reflector falls back from a
// streaming list to list+watch). From the last resourceVersion it follows
// the broadcaster; from an older one it first replays the later changes
// (copies), or fails with 410 Gone if the log no longer reaches back that
// far; a newer one is an error. Other options are ignored.
func (f *FakeControllerSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
	f.lock.RLock()
	defer f.lock.RUnlock()
	if f.shutDown {
		return nil, errSourceShutDown
	}
	rv, err := strconv.Atoi(options.ResourceVersion)
	if err != nil {
		return nil, fmt.Errorf("watch from resourceVersion %q: %w", options.ResourceVersion, err)
	}
	switch {
	case rv > f.lastRV:
		return nil, errors.New("resource version in the future not supported by this fake")
	case rv == f.lastRV:
		return f.Broadcaster.Watch()
	}
	if len(f.changes) == 0 {
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, f.lastRV))
	}
	oldestRV := f.lastRV - len(f.changes) + 1
	if rv < oldestRV {
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, oldestRV))
	}
	replay := make([]watch.Event, 0, f.lastRV-rv)
	for _, c := range f.changes[rv-oldestRV+1:] {
		replay = append(replay, watch.Event{Type: c.Type, Object: c.Object.DeepCopyObject()})
	}
	return f.Broadcaster.WatchWithPrefix(replay)
}

// Shutdown shuts the broadcaster down, ending every watch once it delivered
// what it queued, and blocks until then. Afterwards List and Watch return an
// error and changes are ignored (client-go instead keeps the lock held, so
// that every later call blocks forever). It is idempotent.
func (f *FakeControllerSource) Shutdown() {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.shutDown {
		return
	}
	f.shutDown = true
	f.Broadcaster.Shutdown()
}
