package objects

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-go/informer/internal/benchkit"
)

// ConfigMap returns ConfigMap i of namespace ns as the API takes it for a
// create: benchkit.NewObject(i, 0)'s name, labels, annotations and data, no
// uid, resourceVersion or owner (the server sets the first two; the owner
// would not exist). Its serialized form is about 1.4 KB.
func ConfigMap(ns string, i int) *corev1.ConfigMap {
	obj := benchkit.NewObject(i, 0)
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: obj.Name, Namespace: ns, Labels: obj.Labels, Annotations: obj.Annotations},
		Data:       obj.Data,
	}
}

// CreateConfigMaps creates ConfigMap(ns, i) for i from 0 to n-1, 16 at a
// time, and returns the first error.
func CreateConfigMaps(ctx context.Context, client kubernetes.Interface, ns string, n int) error {
	err := Parallel(n, 16, func(i int) error {
		_, err := client.CoreV1().ConfigMaps(ns).Create(ctx, ConfigMap(ns, i), metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("create ConfigMaps: %w", err)
	}
	return nil
}

// Parallel calls do(0), ..., do(n-1) from workers goroutines and returns
// once every call returned, with the first error.
func Parallel(n, workers int, do func(i int) error) error {
	next := make(chan int)
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	for range workers {
		wg.Go(func() { // exits when next is closed
			for i := range next {
				if err := do(i); err != nil {
					failed.CompareAndSwap(nil, &err)
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := failed.Load(); err != nil {
		return *err
	}
	return nil
}
