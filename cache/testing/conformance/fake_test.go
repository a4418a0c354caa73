package conformance_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	framework "github.com/informer-go/informer/cache/testing"
	"github.com/informer-go/informer/cache/testing/conformance"
)

// fakeTarget runs the scenarios against the in-memory server, with objects
// of another namespace around to check that nothing leaks across.
type fakeTarget struct {
	server    *framework.Server[*metav1.PartialObjectMetadata]
	namespace string
}

var (
	_ conformance.Target    = (*fakeTarget)(nil)
	_ conformance.Compacter = (*fakeTarget)(nil)
)

func (f *fakeTarget) Namespace() string { return f.namespace }

func (f *fakeTarget) ListerWatcher() conformance.ListerWatcher {
	return f.server.Namespace(f.namespace)
}

func (f *fakeTarget) Create(_ context.Context, m *metav1.ObjectMeta) (metav1.Object, error) {
	obj := &metav1.PartialObjectMetadata{ObjectMeta: *m.DeepCopy()}
	obj.Namespace = f.namespace
	return f.server.Create(obj)
}

func (f *fakeTarget) Update(_ context.Context, m *metav1.ObjectMeta) (metav1.Object, error) {
	obj := &metav1.PartialObjectMetadata{ObjectMeta: *m.DeepCopy()}
	obj.Namespace = f.namespace
	return f.server.Update(obj)
}

func (f *fakeTarget) Delete(_ context.Context, name string) error {
	_, err := f.server.Delete(f.namespace, name)
	return err
}

func (f *fakeTarget) Compact(context.Context) error {
	f.server.Compact()
	return nil
}

func newFakeTarget(t *testing.T, watchCacheLag int) conformance.Target {
	_, ctx := ktesting.NewTestContext(t)
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{
		Logger: klog.FromContext(ctx),
		// The real apiserver waits 3s; the scenarios do not depend on it.
		ResourceVersionTimeout: 100 * time.Millisecond,
		WatchCacheLag:          watchCacheLag,
	})
	t.Cleanup(srv.Close)
	for _, name := range []string{"a", "b", "zz"} {
		other := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: name, Labels: map[string]string{"l": "x"}}}
		if _, err := srv.Create(other); err != nil {
			t.Fatal(err)
		}
	}
	return &fakeTarget{server: srv, namespace: "conformance"}
}

// TestConformance runs the table against the fake with a watch cache that
// is caught up, one write behind, and as far behind as each request allows:
// the scenarios must hold for every state a kube-apiserver may serve.
func TestConformance(t *testing.T) {
	for _, lag := range []int{0, 1, 1000} {
		t.Run(fmt.Sprintf("watchCacheLag=%d", lag), func(t *testing.T) {
			conformance.Run(t, func(t *testing.T) conformance.Target { return newFakeTarget(t, lag) })
		})
	}
}
