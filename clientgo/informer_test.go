package clientgo_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
)

// TestNewSharedIndexInformerIsControllerRuntimesNewInformer checks the
// function's type against the one of controller-runtime's
// cache.Options.NewInformer (written out: this module does not depend on
// controller-runtime) and runs it on the fake clientset.
func TestNewSharedIndexInformerIsControllerRuntimesNewInformer(t *testing.T) {
	var newInformer func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer = clientgo.NewSharedIndexInformer
	client := fake.NewClientset(pod("ns", "a"))
	informer := newInformer(cache.NewListWatchFromTypedClient(client.CoreV1().Pods("ns"), nil).(toolscache.ListerWatcher),
		&corev1.Pod{}, 0, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})

	added := make(chan string, 2)
	reg, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { added <- obj.(*corev1.Pod).Name },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { informer.RunWithContext(ctx) })
	defer func() {
		cancel()
		wg.Wait()
	}()
	if !toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced, reg.HasSynced) {
		t.Fatal("not synced")
	}
	if !toolscache.WaitFor(ctx, "", informer.HasSyncedChecker(), reg.HasSyncedChecker(), informer.GetController().HasSyncedChecker()) {
		t.Fatal("done checkers not done")
	}
	if got := receive(t, added, "add"); got != "a" {
		t.Errorf("added %q, want a", got)
	}
	if objs, err := informer.GetIndexer().ByIndex(toolscache.NamespaceIndex, "ns"); err != nil || len(objs) != 1 {
		t.Errorf("ByIndex(namespace, ns) = %v, %v", objs, err)
	}
	if err := informer.RemoveEventHandler(reg); err != nil {
		t.Errorf("RemoveEventHandler: %v", err)
	}
	if err := informer.RemoveEventHandler(foreignRegistration{}); err == nil {
		t.Error("RemoveEventHandler accepted a registration of another informer")
	}
}

type foreignRegistration struct{}

func (foreignRegistration) HasSynced() bool                          { return true }
func (foreignRegistration) HasSyncedChecker() toolscache.DoneChecker { return nil }

func TestAsSharedIndexInformerTransformAndIndexers(t *testing.T) {
	srv := newPodServer(t)
	informer := clientgo.AsSharedIndexInformer(cache.NewSharedIndexInformer(srv, &corev1.Pod{}, 0, nil))
	if err := informer.SetTransform(func(obj any) (any, error) {
		p := obj.(*corev1.Pod)
		p.Annotations = map[string]string{"transformed": "yes"}
		return p, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := informer.AddIndexers(toolscache.Indexers{"name": func(obj any) ([]string, error) {
		return []string{obj.(*corev1.Pod).Name}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	runUntilSynced(t, informer)
	objs, err := informer.GetStore().(toolscache.Indexer).ByIndex("name", "b")
	if err != nil || len(objs) != 1 || objs[0].(*corev1.Pod).Annotations["transformed"] != "yes" {
		t.Errorf("ByIndex(name, b) = %v, %v; want the transformed pod b", objs, err)
	}
	if clientgo.AsSharedIndexInformer(nil) != nil {
		t.Error("AsSharedIndexInformer(nil) is not nil")
	}
}

// TestAsSharedIndexInformerWatchErrorHandler checks that a client-go watch
// error handler learns the reflector's name and type.
func TestAsSharedIndexInformerWatchErrorHandler(t *testing.T) {
	srv := newPodServer(t)
	informer := clientgo.AsSharedIndexInformer(cache.NewSharedIndexInformer(srv, &corev1.Pod{}, 0, nil))
	type report struct {
		typeDescription string
		err             error
	}
	reports := make(chan report, 10)
	if err := informer.SetWatchErrorHandlerWithContext(func(_ context.Context, r *toolscache.Reflector, err error) {
		reports <- report{r.TypeDescription(), err}
	}); err != nil {
		t.Fatal(err)
	}
	errBroken := apierrors.NewInternalError(errors.New("broken"))
	srv.FailNextWatches(1, errBroken) // the streaming list
	srv.FailNextLists(1, errBroken)   // the list it may fall back to
	runUntilSynced(t, informer)
	got := receive(t, reports, "watch error")
	if got.typeDescription != "*v1.Pod" || !apierrors.IsInternalError(got.err) {
		t.Errorf("watch error handler got %+v, want *v1.Pod and the internal error", got)
	}
}
