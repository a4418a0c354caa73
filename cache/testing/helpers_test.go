package framework_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	framework "github.com/informer-go/informer/cache/testing"
)

// pom is the object type of most tests.
type pom = metav1.PartialObjectMetadata

// testTimeout bounds every wait for something that must happen.
const testTimeout = 30 * time.Second

// newServer returns a server logging to t, closed when t ends.
func newServer(t *testing.T, opts framework.Options[*pom]) *framework.Server[*pom] {
	t.Helper()
	if opts.Logger.GetSink() == nil {
		_, ctx := ktesting.NewTestContext(t)
		opts.Logger = klog.FromContext(ctx)
	}
	srv := framework.NewServer(opts)
	t.Cleanup(srv.Close)
	return srv
}

func object(namespace, name string, labels map[string]string) *pom {
	return &pom{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels}}
}

func mustCreate(t *testing.T, srv *framework.Server[*pom], obj *pom) *pom {
	t.Helper()
	out, err := srv.Create(obj)
	if err != nil {
		t.Fatalf("create %s/%s: %v", obj.Namespace, obj.Name, err)
	}
	return out
}

func mustUpdate(t *testing.T, srv *framework.Server[*pom], obj *pom) *pom {
	t.Helper()
	out, err := srv.Update(obj)
	if err != nil {
		t.Fatalf("update %s/%s: %v", obj.Namespace, obj.Name, err)
	}
	return out
}

func mustDelete(t *testing.T, srv *framework.Server[*pom], namespace, name string) *pom {
	t.Helper()
	out, err := srv.Delete(namespace, name)
	if err != nil {
		t.Fatalf("delete %s/%s: %v", namespace, name, err)
	}
	return out
}

// listerWatcher is what Server and NamespaceView implement.
type listerWatcher interface {
	ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
	WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
}

// page is the part of a list response the tests compare.
type page struct {
	Names     []string
	RV        string
	Continue  bool
	Remaining *int64
}

func mustList(t *testing.T, lw listerWatcher, opts metav1.ListOptions) (page, string) {
	t.Helper()
	obj, err := lw.ListWithContext(context.Background(), opts)
	if err != nil {
		t.Fatalf("list %+v: %v", opts, err)
	}
	return summarizeList(t, obj)
}

// summarizeList returns the page and its continue token.
func summarizeList(t *testing.T, obj runtime.Object) (page, string) {
	t.Helper()
	items, err := meta.ExtractList(obj)
	if err != nil {
		t.Fatalf("extract list %T: %v", obj, err)
	}
	listMeta, err := meta.ListAccessor(obj)
	if err != nil {
		t.Fatalf("list meta of %T: %v", obj, err)
	}
	p := page{RV: listMeta.GetResourceVersion(), Continue: listMeta.GetContinue() != "", Remaining: listMeta.GetRemainingItemCount()}
	for _, item := range items {
		p.Names = append(p.Names, keyOf(t, item))
	}
	return p, listMeta.GetContinue()
}

func keyOf(t *testing.T, obj runtime.Object) string {
	t.Helper()
	accessor, err := meta.Accessor(obj)
	if err != nil {
		t.Fatalf("accessor of %T: %v", obj, err)
	}
	if accessor.GetNamespace() == "" {
		return accessor.GetName()
	}
	return accessor.GetNamespace() + "/" + accessor.GetName()
}

// event is the part of a watch event the tests compare.
type event struct {
	Type  watch.EventType
	Key   string            `json:",omitempty"`
	RV    string            `json:",omitempty"`
	Label string            `json:",omitempty"` // value of label "l"
	Ann   map[string]string `json:",omitempty"`
	Code  int32             `json:",omitempty"` // status code of an ERROR
}

func summarizeEvent(t *testing.T, e watch.Event) event {
	t.Helper()
	if e.Type == watch.Error {
		status, ok := e.Object.(*metav1.Status)
		if !ok {
			t.Fatalf("ERROR event carries %T, want *metav1.Status", e.Object)
		}
		return event{Type: e.Type, Code: status.Code}
	}
	accessor, err := meta.Accessor(e.Object)
	if err != nil {
		t.Fatalf("accessor of %T: %v", e.Object, err)
	}
	out := event{Type: e.Type, RV: accessor.GetResourceVersion(), Label: accessor.GetLabels()["l"], Ann: accessor.GetAnnotations()}
	if e.Type != watch.Bookmark {
		out.Key = keyOf(t, e.Object)
	}
	return out
}

func mustWatch(t *testing.T, lw listerWatcher, opts metav1.ListOptions) watch.Interface {
	t.Helper()
	w, err := lw.WatchWithContext(context.Background(), opts)
	if err != nil {
		t.Fatalf("watch %+v: %v", opts, err)
	}
	t.Cleanup(w.Stop)
	return w
}

// nextEvent receives one event, failing if the stream closes or none comes.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	return nextEventWithin(t, w, testTimeout)
}

// nextEventWithin is nextEvent with a timeout; in a synctest bubble, time
// only passes while every goroutine is blocked.
func nextEventWithin(t *testing.T, w watch.Interface, timeout time.Duration) watch.Event {
	t.Helper()
	select {
	case e, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed, want an event")
		}
		return e
	case <-time.After(timeout):
		t.Fatal("no watch event")
	}
	return watch.Event{}
}

// expectEvents receives len(want) events and compares them with want.
func expectEvents(t *testing.T, w watch.Interface, want ...event) {
	t.Helper()
	got := make([]event, 0, len(want))
	for range want {
		got = append(got, summarizeEvent(t, nextEvent(t, w)))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("watch events (-want +got):\n%s", diff)
	}
}

// expectClosed waits for the stream to close without another event.
func expectClosed(t *testing.T, w watch.Interface) {
	t.Helper()
	select {
	case e, ok := <-w.ResultChan():
		if ok {
			t.Fatalf("got %+v, want the watch closed", summarizeEvent(t, e))
		}
	case <-time.After(testTimeout):
		t.Fatal("watch not closed")
	}
}

func ptr[V any](v V) *V { return &v }

// waitFor polls cond until it holds or the test deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// The method sets of cache.ListerWatcher and cache.ListerWatcherWithContext,
// which Server and NamespaceView implement.
type legacyListerWatcher interface {
	List(options metav1.ListOptions) (runtime.Object, error)
	Watch(options metav1.ListOptions) (watch.Interface, error)
}

var (
	_ listerWatcher       = (*framework.Server[*pom])(nil)
	_ legacyListerWatcher = (*framework.Server[*pom])(nil)
	_ listerWatcher       = (*framework.NamespaceView[*pom])(nil)
	_ legacyListerWatcher = (*framework.NamespaceView[*pom])(nil)
	_ legacyListerWatcher = (*framework.FakeControllerSource)(nil)
	_ legacyListerWatcher = (*framework.FakePVControllerSource)(nil)
	_ legacyListerWatcher = (*framework.FakePVCControllerSource)(nil)
	_ watch.Interface     = (*framework.WatchStream)(nil)
)
