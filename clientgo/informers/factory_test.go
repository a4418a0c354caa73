package informers

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

func pod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

// TestFactoryOnFakeClientset uses the factory as client-go's is used: the
// generated informer and lister of pods, ForResource, Start,
// WaitForCacheSync and Shutdown, on the fake clientset.
func TestFactoryOnFakeClientset(t *testing.T) {
	client := fake.NewClientset(pod("ns", "a"), pod("other", "b"),
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d"}})
	factory := NewSharedInformerFactoryWithOptions(client, 0, WithNamespace("ns"))
	pods := factory.Core().V1().Pods()
	added := make(chan string, 10)
	if _, err := pods.Informer().AddEventHandler(&cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { added <- obj.(*corev1.Pod).Name },
	}); err != nil {
		t.Fatal(err)
	}
	deployments, err := factory.ForResource(appsv1.SchemeGroupVersion.WithResource("deployments"))
	if err != nil {
		t.Fatal(err)
	}
	if deployments.Informer().GetIndexer() != factory.Apps().V1().Deployments().Informer().GetIndexer() {
		t.Error("ForResource and the group accessor returned different informers")
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	factory.Start(ctx.Done())
	synced := factory.WaitForCacheSync(ctx.Done())
	want := map[reflect.Type]bool{reflect.TypeFor[*corev1.Pod](): true, reflect.TypeFor[*appsv1.Deployment](): true}
	if diff := cmp.Diff(want, synced); diff != "" {
		t.Errorf("WaitForCacheSync (-want +got):\n%s", diff)
	}
	got, err := pods.Lister().Pods("ns").List(labels.Everything())
	if err != nil || len(got) != 1 || got[0].Name != "a" {
		t.Errorf("pod lister = %v, %v; want ns/a", got, err)
	}
	if _, err := factory.Apps().V1().Deployments().Lister().Deployments("ns").Get("d"); err != nil {
		t.Errorf("deployment lister: %v", err)
	}
	if objs, err := deployments.Lister().List(labels.Everything()); err != nil || len(objs) != 1 {
		t.Errorf("generic lister = %v, %v", objs, err)
	}
	select {
	case name := <-added:
		if name != "a" {
			t.Errorf("handler added %q, want a", name)
		}
	case <-ctx.Done():
		t.Error("handler not called")
	}

	// An informer requested after Start starts at once.
	nodes := factory.Core().V1().Nodes().Informer()
	if !toolscache.WaitForCacheSync(ctx.Done(), nodes.HasSynced) {
		t.Error("late informer did not sync")
	}

	cancel()
	factory.Shutdown()
	if !pods.Informer().IsStopped() {
		t.Error("informer runs after Shutdown")
	}
}

// TestFactoryWaitForCacheSyncSaysWhy checks the reason a started informer
// did not sync.
func TestFactoryWaitForCacheSyncSaysWhy(t *testing.T) {
	factory := NewSharedInformerFactory(fake.NewClientset(), 0)
	factory.Core().V1().ConfigMaps().Informer()
	runCtx, cancelRun := context.WithCancel(context.Background())
	cancelRun() // the informer stops before it can sync
	factory.StartWithContext(runCtx)
	result := factory.WaitForCacheSyncWithContext(context.Background())
	if result.Err == nil || result.Synced[reflect.TypeFor[*corev1.ConfigMap]()] {
		t.Errorf("WaitForCacheSyncWithContext = %+v, want not synced, with a reason", result)
	}
	factory.Shutdown()
}

// TestFactoryWithMemory builds the factory's informers with memory
// options: the listed pods are projected and marked.
func TestFactoryWithMemory(t *testing.T) {
	client := fake.NewClientset(pod("ns", "a"))
	factory := NewSharedInformerFactoryWithOptions(client, 0, WithMemory(&cache.MemoryOptions{Keep: []string{"spec.nodeName"}, Share: true}))
	pods := factory.Core().V1().Pods()
	pods.Informer()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	factory.WaitForCacheSync(ctx.Done())
	got, err := pods.Lister().Pods("ns").Get("a")
	if err != nil || !cache.IsProjected(got) {
		t.Errorf("pod lister: %v, %v; want ns/a projected", got, err)
	}
	cancel()
}
