package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/cache"
)

const (
	// CountLabel marks the ConfigMaps whose data keys the controller counts
	// into CountAnnotation. It only logs the others.
	CountLabel = "example.informer-go.dev/count-keys"
	// CountAnnotation holds the number of data keys of a ConfigMap that has
	// CountLabel set to "true".
	CountAnnotation = "example.informer-go.dev/data-keys"

	// maxRetries is how often a failing key is retried before it is
	// dropped until its next change.
	maxRetries = 5
)

// Controller keeps CountAnnotation up to date on the labelled ConfigMaps of a
// namespace (all namespaces if empty). Its informer turns every change into
// a key on a rate-limited work queue, and workers reconcile the keys one at
// a time each, reading from the informer's cache and writing through the
// client.
type Controller struct {
	client   kubernetes.Interface
	informer cache.SharedIndexInformer
	lister   cache.GenericLister
	queue    workqueue.TypedRateLimitingInterface[cache.ObjectName]
}

// NewController returns a controller for the ConfigMaps of namespace, ""
// meaning all. Nothing runs until [Controller.Run].
func NewController(ctx context.Context, client kubernetes.Interface, namespace string) (*Controller, error) {
	// This library does not depend on client-go: wrap the clientset's List
	// and Watch in a ListWatch. Passing the client lets the informer detect
	// client-go's fake clientsets, which cannot serve streaming lists.
	configMaps := client.CoreV1().ConfigMaps(namespace)
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return configMaps.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return configMaps.Watch(ctx, opts)
		},
	}, client)
	informer := cache.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{
		Indexers:          cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		ObjectDescription: "configmaps",
	})
	c := &Controller{
		client:   client,
		informer: informer,
		// client-go's generated listers take client-go's Indexer type; the
		// generic lister works with this library's.
		lister: cache.NewGenericLister(informer.GetIndexer(), corev1.Resource("configmaps")),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "configmaps"}),
	}

	// Handlers only queue keys: the work happens in the workers, which
	// always read the latest state from the cache.
	enqueue := func(obj any) {
		name, err := cache.DeletionHandlingObjectToName(obj)
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Cannot queue a ConfigMap")
			return
		}
		c.queue.Add(name)
	}
	logger := klog.FromContext(ctx)
	if _, err := informer.AddEventHandlerWithOptions(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, newObj any) { enqueue(newObj) },
		DeleteFunc: enqueue,
	}, cache.HandlerOptions{Logger: &logger}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run runs the informer and, once its cache has synced, workers workers. It
// blocks until ctx ends, then shuts the queue down and returns when the
// informer and every worker have stopped. It fails if ctx ends before the
// cache has synced. Call it once.
func (c *Controller) Run(ctx context.Context, workers int) error {
	logger := klog.FromContext(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { c.informer.RunWithContext(ctx) }) // returns when ctx ends
	defer func() {
		c.queue.ShutDown() // workers return after their current key
		wg.Wait()          // the informer and the workers have returned
	}()

	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.informer.HasSynced) {
		return errors.New("the ConfigMap cache did not sync before shutdown")
	}
	logger.Info("Starting workers", "count", workers)
	for range workers {
		wg.Go(func() {
			for c.processNextKey(ctx) {
			}
		})
	}
	<-ctx.Done()
	logger.Info("Shutting down")
	return nil
}

// processNextKey reconciles one key from the queue. It returns false once
// the queue has been shut down.
func (c *Controller) processNextKey(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)

	err := c.reconcile(ctx, key)
	switch {
	case err == nil:
		c.queue.Forget(key)
	case c.queue.NumRequeues(key) < maxRetries:
		klog.FromContext(ctx).Info("Reconcile failed, retrying", "configmap", key, "err", err)
		c.queue.AddRateLimited(key)
	default:
		utilruntime.HandleErrorWithContext(ctx, err, "Dropping ConfigMap after repeated failures", "configmap", key)
		c.queue.Forget(key)
	}
	return true
}

// reconcile brings the ConfigMap key to its desired state: with CountLabel
// "true", CountAnnotation holds its number of data keys.
func (c *Controller) reconcile(ctx context.Context, key cache.ObjectName) error {
	logger := klog.FromContext(ctx)
	obj, err := c.lister.ByNamespace(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		logger.Info("ConfigMap is gone", "configmap", key)
		return nil
	}
	if err != nil {
		return err
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return fmt.Errorf("cached object %s is a %T, not a ConfigMap", key, obj)
	}
	count := strconv.Itoa(len(cm.Data) + len(cm.BinaryData))
	logger.Info("Reconciling ConfigMap", "configmap", key, "dataKeys", count)
	if cm.Labels[CountLabel] != "true" || cm.Annotations[CountAnnotation] == count {
		return nil
	}

	// Objects from the cache are shared with every other reader: change a
	// copy. A conflict (the cache was behind) fails this attempt; the retry
	// reads the newer object, which the informer is about to deliver.
	cm = cm.DeepCopy()
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[CountAnnotation] = count
	if _, err := c.client.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("annotate ConfigMap %s: %w", key, err)
	}
	logger.Info("Annotated ConfigMap", "configmap", key, "dataKeys", count)
	return nil
}
