package clientgo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
	"github.com/informer-go/informer/wait"
)

// seenAnnotation is what the reconciler writes: the ConfigMap's "value" data
// key as it read it from its cache.
const seenAnnotation = "example.informer-go.dev/seen"

// convergeTimeout bounds every wait for the cluster to reach a state: generous
// for a loaded two-core machine under the race detector.
const convergeTimeout = 2 * time.Minute

// TestControllerRuntimeManager runs a controller-runtime manager whose cache
// uses this library's informers, with a ConfigMap reconciler that copies
// each ConfigMap's value into an annotation and records deletions: it must
// follow a create, updates and a delete.
func TestControllerRuntimeManager(t *testing.T) {
	for name, newInformer := range map[string]func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer{
		"DeltaFIFO": clientgo.NewSharedIndexInformer,
		"InOrder":   clientgo.NewSharedIndexInformerFunc(cache.SharedIndexInformerOptions{InOrder: true}),
	} {
		t.Run(name, func(t *testing.T) {
			cluster := env.Cluster(t)
			ns := cluster.CreateNamespace(t)
			scheme := runtime.NewScheme()
			if err := clientgoscheme.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			mgr, err := ctrl.NewManager(cluster.RESTConfig(), ctrl.Options{
				Scheme:     scheme,
				Metrics:    metricsserver.Options{BindAddress: "0"},
				Cache:      crcache.Options{NewInformer: newInformer, DefaultNamespaces: map[string]crcache.Config{ns: {}}},
				Controller: config.Controller{SkipNameValidation: ptr.To(true)},
			})
			if err != nil {
				t.Fatal(err)
			}
			r := &configMapReconciler{client: mgr.GetClient(), deleted: make(chan string, 10)}
			if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Named("configmaps").Complete(r); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			wg.Go(func() {
				if err := mgr.Start(ctx); err != nil {
					t.Errorf("manager: %v", err)
				}
			})
			defer func() {
				cancel()
				wg.Wait()
			}()

			cms := cluster.Client().CoreV1().ConfigMaps(ns)
			if _, err := cms.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"value": "1"},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			waitForAnnotation(t, cluster.Client().CoreV1().ConfigMaps(ns), "a", "1")
			for _, value := range []string{"2", "3"} {
				err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
					cm, err := cms.Get(ctx, "a", metav1.GetOptions{})
					if err != nil {
						return err
					}
					cm.Data["value"] = value
					_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				waitForAnnotation(t, cms, "a", value)
			}
			if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			select {
			case name := <-r.deleted:
				if name != ns+"/a" {
					t.Errorf("reconciled the deletion of %s, want %s/a", name, ns)
				}
			case <-time.After(convergeTimeout):
				t.Fatal("the deletion was not reconciled")
			}
		})
	}
}

// configMapReconciler copies "value" into seenAnnotation, reading from the
// manager's cache, and reports ConfigMaps that are gone.
type configMapReconciler struct {
	client  client.Client
	deleted chan string
}

func (r *configMapReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.client.Get(ctx, req.NamespacedName, &cm); err != nil {
		if apierrors.IsNotFound(err) {
			r.deleted <- req.String()
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if cm.Annotations[seenAnnotation] == cm.Data["value"] {
		return reconcile.Result{}, nil
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[seenAnnotation] = cm.Data["value"]
	return reconcile.Result{}, r.client.Update(ctx, &cm) // a conflict is retried
}

// configMapGetter is the part of a ConfigMap client waitForAnnotation uses.
type configMapGetter interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ConfigMap, error)
}

// waitForAnnotation waits until ConfigMap name has seenAnnotation want.
func waitForAnnotation(t *testing.T, cms configMapGetter, name, want string) {
	t.Helper()
	last := ""
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeTimeout, true, func(ctx context.Context) (bool, error) {
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = fmt.Sprint(cm.Annotations)
		return cm.Annotations[seenAnnotation] == want, nil
	})
	if err != nil {
		t.Fatalf("ConfigMap %s never got %s=%s: %v; last seen %s", name, seenAnnotation, want, err, last)
	}
}
