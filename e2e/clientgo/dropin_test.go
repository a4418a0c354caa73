package clientgo_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/clientgo/cache"
	"github.com/informer-go/informer/wait"
)

// gatedSource lists and watches the ConfigMaps of a namespace through the
// typed client, with two switches for the test: while muted, watch events
// are dropped (the informer misses them); expire ends every open watch with
// a 410 Gone, after which the reflector lists again. It opts out of
// streaming lists. It is safe for concurrent use.
type gatedSource struct {
	client    kubernetes.Interface
	namespace string

	mu      sync.Mutex
	muted   bool          // guarded by mu
	watches []*gatedWatch // guarded by mu; the open watches
}

func (s *gatedSource) List(options metav1.ListOptions) (runtime.Object, error) {
	return s.client.CoreV1().ConfigMaps(s.namespace).List(context.Background(), options)
}

func (s *gatedSource) Watch(options metav1.ListOptions) (watch.Interface, error) {
	inner, err := s.client.CoreV1().ConfigMaps(s.namespace).Watch(context.Background(), options)
	if err != nil {
		return nil, err
	}
	w := &gatedWatch{source: s, inner: inner, out: make(chan watch.Event), done: make(chan struct{}), expiry: make(chan struct{})}
	s.mu.Lock()
	s.watches = append(s.watches, w)
	s.mu.Unlock()
	go w.forward() // ends when the inner watch ends or w is stopped
	return w, nil
}

// IsWatchListSemanticsUnSupported opts out of streaming lists.
func (*gatedSource) IsWatchListSemanticsUnSupported() bool { return true }

func (s *gatedSource) isMuted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.muted
}

func (s *gatedSource) mute() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.muted = true
}

// expire ends the open watches with a 410 Gone and unmutes.
func (s *gatedSource) expire() {
	s.mu.Lock()
	watches := s.watches
	s.watches, s.muted = nil, false
	s.mu.Unlock()
	for _, w := range watches {
		w.expire()
	}
}

// gatedWatch forwards the events of a watch unless its source is muted.
type gatedWatch struct {
	source     *gatedSource
	inner      watch.Interface
	out        chan watch.Event
	done       chan struct{} // closed by Stop
	stopOnce   sync.Once
	expiry     chan struct{} // closed by expire
	expireOnce sync.Once
}

func (w *gatedWatch) forward() {
	defer close(w.out)
	defer w.inner.Stop()
	for {
		select {
		case e, ok := <-w.inner.ResultChan():
			if !ok {
				return
			}
			if w.source.isMuted() {
				continue
			}
			select {
			case w.out <- e:
			case <-w.done:
				return
			}
		case <-w.expiry:
			gone := &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "expired by the test"}
			select {
			case w.out <- watch.Event{Type: watch.Error, Object: gone}:
			case <-w.done:
			}
			return
		case <-w.done:
			return
		}
	}
}

func (w *gatedWatch) expire() { w.expireOnce.Do(func() { close(w.expiry) }) }

func (w *gatedWatch) Stop() { w.stopOnce.Do(func() { close(w.done) }) }

func (w *gatedWatch) ResultChan() <-chan watch.Event { return w.out }

// eventLog is a handler that logs its calls: "add a 12", "update a 12->15",
// "delete c 14", "delete d tombstone 13" (client-go's tombstone type, the
// drop-in's). It is safe for concurrent use.
type eventLog struct {
	mu     sync.Mutex
	events []string // guarded by mu
}

func (l *eventLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *eventLog) OnAdd(obj any, _ bool) {
	cm := obj.(*corev1.ConfigMap)
	l.add("add %s %s", cm.Name, cm.ResourceVersion)
}

func (l *eventLog) OnUpdate(oldObj, newObj any) {
	o, n := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
	l.add("update %s %s->%s", n.Name, o.ResourceVersion, n.ResourceVersion)
}

func (l *eventLog) OnDelete(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		cm := tombstone.Obj.(*corev1.ConfigMap)
		l.add("delete %s tombstone %s", cm.Name, cm.ResourceVersion)
		return
	}
	cm := obj.(*corev1.ConfigMap)
	l.add("delete %s %s", cm.Name, cm.ResourceVersion)
}

func (l *eventLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// TestDropInRelistsLikeClientGo runs client-go's NewIndexerInformer and the
// drop-in's side by side against kube-apiserver: through live changes, then
// changes both miss followed by a 410 Gone and a relist (a deletion, an
// update, a creation and an unchanged object), then a live change again.
// Their handlers see the same calls in the same order, client-go v0.37.2's:
// the relist's tombstone first, then the listed objects in list order.
func TestDropInRelistsLikeClientGo(t *testing.T) {
	cluster := env.Cluster(t)
	client := cluster.Client()
	ns := cluster.CreateNamespace(t)
	cms := client.CoreV1().ConfigMaps(ns)
	create := func(name string) {
		t.Helper()
		if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	update := func(name, value string) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": value}}
		if _, err := cms.Update(t.Context(), cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(name string) {
		t.Helper()
		if err := cms.Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a", "b", "c"} {
		create(name)
	}

	type run struct {
		source *gatedSource
		log    *eventLog
	}
	clientGo := run{&gatedSource{client: client, namespace: ns}, &eventLog{}}
	dropIn := run{&gatedSource{client: client, namespace: ns}, &eventLog{}}
	_, clientGoController := toolscache.NewIndexerInformer(clientGo.source, &corev1.ConfigMap{}, 0, clientGo.log, toolscache.Indexers{}) //lint:ignore SA1019 the constructor compared
	_, dropInController := cache.NewIndexerInformer(dropIn.source, &corev1.ConfigMap{}, 0, dropIn.log, cache.Indexers{})                 //lint:ignore SA1019 the constructor compared
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { clientGoController.RunWithContext(ctx) }) // returns when ctx ends
	wg.Go(func() { dropInController.RunWithContext(ctx) })   // returns when ctx ends
	defer func() {
		cancel()
		wg.Wait()
	}()
	syncCtx, cancelSync := context.WithTimeout(ctx, convergeTimeout)
	defer cancelSync()
	if !cache.WaitForCacheSync(syncCtx.Done(), clientGoController.HasSynced, dropInController.HasSynced) {
		t.Fatal("not synced")
	}
	// waitFor waits until both logs end with an event that starts with
	// prefix.
	waitFor := func(prefix string) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, convergeTimeout, true, func(context.Context) (bool, error) {
			for _, r := range []run{clientGo, dropIn} {
				lines := r.log.lines()
				if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], prefix) {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			t.Fatalf("waiting for %q: %v; client-go's handler got %q, the drop-in's %q", prefix, err, clientGo.log.lines(), dropIn.log.lines())
		}
	}

	update("a", "1")
	create("d")
	remove("c")
	waitFor("delete c ")

	// Changes both informers miss, then a relist.
	for _, r := range []run{clientGo, dropIn} {
		r.source.mute()
	}
	remove("d")
	update("b", "1")
	create("e")
	for _, r := range []run{clientGo, dropIn} {
		r.source.expire()
	}
	waitFor("add e ")

	update("e", "1")
	waitFor("update e ")

	want := clientGo.log.lines()
	if diff := cmp.Diff(want, dropIn.log.lines()); diff != "" {
		t.Errorf("handler calls of the drop-in's informer (+) and client-go's (-):\n%s", diff)
	}
	// The relist, in client-go's order: the tombstone of d, then a, b and e
	// in list order.
	var shapes []string
	for _, line := range want {
		fields := strings.Fields(line)
		shape := fields[0] + " " + fields[1]
		if fields[2] == "tombstone" {
			shape += " tombstone"
		}
		shapes = append(shapes, shape)
	}
	wantShapes := []string{
		"add a", "add b", "add c", "update a", "add d", "delete c",
		"delete d tombstone", "update a", "update b", "add e",
		"update e",
	}
	if diff := cmp.Diff(wantShapes, shapes); diff != "" {
		t.Errorf("handler calls of client-go's informer (-want +got):\n%s", diff)
	}
	t.Logf("handler calls, the same for both: %q", want)
}
