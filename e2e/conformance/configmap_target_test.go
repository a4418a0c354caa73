package conformance_test

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/retry"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/cache/testing/conformance"
	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// configMapTarget maps the metadata-only writes of the conformance
// scenarios onto ConfigMaps in one namespace of a real cluster.
type configMapTarget struct {
	cluster   *apiserver.Cluster
	client    kubernetes.Interface
	namespace string
}

var (
	_ conformance.Target    = (*configMapTarget)(nil)
	_ conformance.Compacter = (*configMapTarget)(nil)
)

func (c *configMapTarget) Namespace() string { return c.namespace }

func (c *configMapTarget) ListerWatcher() conformance.ListerWatcher {
	return configMapListWatch(c.client, c.namespace)
}

func (c *configMapTarget) Create(ctx context.Context, m *metav1.ObjectMeta) (metav1.Object, error) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name:        m.Name,
		Namespace:   c.namespace,
		Labels:      m.Labels,
		Annotations: m.Annotations,
	}}
	created, err := c.client.CoreV1().ConfigMaps(c.namespace).Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return &created.ObjectMeta, nil
}

// Update reads the ConfigMap, replaces its labels and annotations and
// writes it back. With a resourceVersion precondition that is the
// precondition of the write; without one, a conflict with a concurrent
// write is retried.
func (c *configMapTarget) Update(ctx context.Context, m *metav1.ObjectMeta) (metav1.Object, error) {
	client := c.client.CoreV1().ConfigMaps(c.namespace)
	var updated *corev1.ConfigMap
	write := func() error {
		current, err := client.Get(ctx, m.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		current.Labels = m.Labels
		current.Annotations = m.Annotations
		if m.ResourceVersion != "" {
			current.ResourceVersion = m.ResourceVersion
		}
		updated, err = client.Update(ctx, current, metav1.UpdateOptions{})
		return err
	}
	var err error
	if m.ResourceVersion != "" {
		err = write()
	} else {
		err = retry.RetryOnConflict(retry.DefaultRetry, write)
	}
	if err != nil {
		return nil, err
	}
	return &updated.ObjectMeta, nil
}

func (c *configMapTarget) Delete(ctx context.Context, name string) error {
	return c.client.CoreV1().ConfigMaps(c.namespace).Delete(ctx, name, metav1.DeleteOptions{})
}

// Compact compacts etcd at its current revision and restarts
// kube-apiserver: etcd alone forgets the old revisions, but the watch
// cache would still serve watches from them within its window.
func (c *configMapTarget) Compact(ctx context.Context) error {
	if _, err := c.cluster.CompactEtcd(ctx); err != nil {
		return err
	}
	return c.cluster.RestartAPIServer(ctx)
}

// configMapListWatch lists and watches the ConfigMaps of namespace through
// client-go's typed clientset. The list goes through the clientset's REST
// client to turn off retries: client-go retries a 504 carrying Retry-After
// up to ten times, and the apiserver answers a list at a resourceVersion it
// has not reached with one after waiting 3s. The scenarios check that
// answer, not client-go's retry policy, and would wait 40s for each such
// list.
func configMapListWatch(client kubernetes.Interface, namespace string) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			list := &corev1.ConfigMapList{}
			err := client.CoreV1().RESTClient().Get().
				Namespace(namespace).
				Resource("configmaps").
				VersionedParams(&opts, scheme.ParameterCodec).
				MaxRetries(0).
				Do(ctx).
				Into(list)
			if err != nil {
				return nil, err
			}
			return list, nil
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return client.CoreV1().ConfigMaps(namespace).Watch(ctx, opts)
		},
	}
}
