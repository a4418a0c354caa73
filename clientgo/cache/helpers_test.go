package cache_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/clientgo/cache"
)

// pod returns pod ns/name at resource version rv.
func pod(name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// episode is one list and the watch that follows it.
type episode struct {
	list  *corev1.PodList
	watch []watch.Event
	// gone ends the watch with a 410 Gone error event, which makes the
	// reflector list again; without it the watch stays open.
	gone bool
}

// scriptedSource is a ListerWatcher that plays episodes in turn, the same
// for every informer given one: List returns the next episode's list, Watch
// its events. It opts out of streaming lists, as client-go's fakes do. It is
// safe for concurrent use.
type scriptedSource struct {
	mu       sync.Mutex
	episodes []episode // guarded by mu
	next     int       // guarded by mu; the episode of the next List
}

// newScript returns the script of the tests: a list, a watch that adds,
// updates and deletes and then expires, a relist in which one object
// vanished (a tombstone), one changed, one is new and one is unchanged, and
// a last watch event.
func newScript() *scriptedSource {
	return &scriptedSource{episodes: []episode{
		{
			list: podList("10", pod("a", "1"), pod("b", "2"), pod("c", "3")),
			watch: []watch.Event{
				{Type: watch.Modified, Object: pod("a", "11")},
				{Type: watch.Added, Object: pod("d", "12")},
				{Type: watch.Deleted, Object: pod("c", "13")},
				{Type: watch.Modified, Object: pod("b", "14")},
			},
			gone: true,
		},
		{
			list:  podList("20", pod("a", "11"), pod("b", "15"), pod("e", "16")),
			watch: []watch.Event{{Type: watch.Modified, Object: pod("e", "21")}},
		},
	}}
}

// lastEvent is the event the script's last watch event makes a recorder
// log; once it is logged, nothing else comes.
const lastEvent = "update ns/e 16->21"

func podList(rv string, pods ...*corev1.Pod) *corev1.PodList {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for _, p := range pods {
		list.Items = append(list.Items, *p)
	}
	return list
}

func (s *scriptedSource) List(metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.episodes) {
		return nil, fmt.Errorf("list %d: the script has %d", s.next+1, len(s.episodes))
	}
	s.next++
	return s.episodes[s.next-1].list.DeepCopy(), nil
}

func (s *scriptedSource) Watch(metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next == 0 {
		return nil, fmt.Errorf("watch before any list")
	}
	ep := s.episodes[s.next-1]
	w := watch.NewRaceFreeFake()
	for _, e := range ep.watch {
		w.Action(e.Type, e.Object.DeepCopyObject())
	}
	if ep.gone {
		w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
	}
	return w, nil
}

// IsWatchListSemanticsUnSupported opts out of streaming lists.
func (*scriptedSource) IsWatchListSemanticsUnSupported() bool { return true }

// recorder is a handler that logs every call as a line: "add ns/a 1
// initial", "update ns/a 1->11", "delete ns/c 13", and for a tombstone
// "delete ns/d tombstone of 12" when it is client-go's
// DeletedFinalStateUnknown (the drop-in's type), "delete ns/d unknown
// tombstone" otherwise. It is safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	events []string // guarded by mu
	last   chan struct{}
}

func newRecorder() *recorder { return &recorder{last: make(chan struct{})} }

func (r *recorder) log(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	line := fmt.Sprintf(format, args...)
	r.events = append(r.events, line)
	if line == lastEvent {
		close(r.last)
	}
}

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	p := obj.(*corev1.Pod)
	if isInInitialList {
		r.log("add %s/%s %s initial", p.Namespace, p.Name, p.ResourceVersion)
		return
	}
	r.log("add %s/%s %s", p.Namespace, p.Name, p.ResourceVersion)
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	o, n := oldObj.(*corev1.Pod), newObj.(*corev1.Pod)
	r.log("update %s/%s %s->%s", n.Namespace, n.Name, o.ResourceVersion, n.ResourceVersion)
}

func (r *recorder) OnDelete(obj any) {
	switch o := obj.(type) {
	case *corev1.Pod:
		r.log("delete %s/%s %s", o.Namespace, o.Name, o.ResourceVersion)
	case cache.DeletedFinalStateUnknown:
		r.log("delete %s tombstone of %s", o.Key, o.Obj.(*corev1.Pod).ResourceVersion)
	default:
		r.log("delete %T unknown tombstone", obj)
	}
}

// lines returns the calls logged so far.
func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// start runs informer until the test ends or the returned function, which
// waits for it, is called.
func start(t *testing.T, informer interface{ RunWithContext(context.Context) }) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { informer.RunWithContext(ctx) }) // returns when ctx ends
	return func() {
		cancel()
		wg.Wait()
	}
}
