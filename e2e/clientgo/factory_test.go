package clientgo_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo/informers"
	"github.com/informer-go/informer/wait"
)

// TestFactoryAndGeneratedListers uses the clientgo/informers factory as
// sample-controller uses client-go's: generated informer and lister,
// handlers, Start, WaitForCacheSync, Shutdown; the lister and the handler
// follow a create and a delete.
func TestFactoryAndGeneratedListers(t *testing.T) {
	for name, inOrder := range map[string]bool{"DeltaFIFO": false, "InOrder": true} {
		t.Run(name, func(t *testing.T) {
			cluster := env.Cluster(t)
			ns := cluster.CreateNamespace(t)
			cms := cluster.Client().CoreV1().ConfigMaps(ns)
			if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}

			factory := informers.NewSharedInformerFactoryWithOptions(cluster.Client(), 0,
				informers.WithNamespace(ns), informers.WithInOrder(inOrder))
			configMaps := factory.Core().V1().ConfigMaps()
			lister := configMaps.Lister()
			deleted := make(chan string, 10)
			if _, err := configMaps.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
				DeleteFunc: func(obj any) {
					key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
					deleted <- key
				},
			}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer func() {
				cancel()
				factory.Shutdown()
			}()
			factory.Start(ctx.Done())
			syncCtx, cancelSync := context.WithTimeout(ctx, convergeTimeout)
			defer cancelSync()
			result := factory.WaitForCacheSyncWithContext(syncCtx)
			if err := result.AsError(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[reflect.Type]bool{reflect.TypeFor[*corev1.ConfigMap](): true}, result.Synced); diff != "" {
				t.Errorf("synced (-want +got):\n%s", diff)
			}
			if names := listNames(t, configMaps.Lister().ConfigMaps(ns).List); !slices.Contains(names, "before") {
				t.Errorf("lister lists %v, want ConfigMap before", names)
			}

			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, convergeTimeout, true, func(context.Context) (bool, error) {
				_, err := lister.ConfigMaps(ns).Get("after")
				return err == nil, nil
			})
			if err != nil {
				t.Fatalf("the lister never saw ConfigMap after: %v", err)
			}
			if err := cms.Delete(ctx, "before", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			select {
			case key := <-deleted:
				if key != ns+"/before" {
					t.Errorf("handler saw the deletion of %s, want %s/before", key, ns)
				}
			case <-time.After(convergeTimeout):
				t.Fatal("handler saw no deletion")
			}
			if _, err := lister.ConfigMaps(ns).Get("before"); !apierrors.IsNotFound(err) {
				t.Errorf("lister Get(before) after the delete: %v, want NotFound", err)
			}
		})
	}
}

// TestTypedListWatchStreamingList syncs an informer from the one-line typed
// ListWatch of the real clientset, which supports streaming lists.
func TestTypedListWatchStreamingList(t *testing.T) {
	cluster := env.Cluster(t)
	ns := cluster.CreateNamespace(t)
	cms := cluster.Client().CoreV1().ConfigMaps(ns)
	for _, name := range []string{"a", "b"} {
		if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pick": name}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	lw := cache.NewListWatchFromTypedClient(cms, func(o *metav1.ListOptions) { o.LabelSelector = "pick=b" })
	informer := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	ctx, cancel := context.WithTimeout(t.Context(), convergeTimeout)
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.RunWithContext(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("not synced")
	}
	if diff := cmp.Diff([]string{ns + "/b"}, informer.GetStore().ListKeys()); diff != "" {
		t.Errorf("cached keys (-want +got):\n%s", diff)
	}
}

// listNames returns the names list returns for every object.
func listNames(t *testing.T, list func(labels.Selector) ([]*corev1.ConfigMap, error)) []string {
	t.Helper()
	cms, err := list(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cm := range cms {
		names = append(names, cm.Name)
	}
	return names
}
