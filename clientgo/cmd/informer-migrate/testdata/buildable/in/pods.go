// Package buildable is a fixture that builds and tests the same before and
// after the migration.
package buildable

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Watch returns an informer of the pods of namespace whose deletions go to
// deleted as keys, tombstones included.
func Watch(client kubernetes.Interface, namespace string, deleted chan<- string) cache.SharedIndexInformer {
	pods := client.CoreV1().Pods(namespace)
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			return pods.List(ctx, options)
		},
		WatchFuncWithContext: pods.Watch,
	}, client)
	informer := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	informer.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			deleted <- "tombstone " + d.Key
			return
		}
		key, _ := cache.MetaNamespaceKeyFunc(obj)
		deleted <- key
	}})
	return informer
}
