package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/clientgo/cache"
)

// maxRetries is how often a failing key is retried before it is dropped.
const maxRetries = 5

// Controller prints, for every pod key on its queue, whether the pod exists
// and under which name.
type Controller struct {
	indexer  cache.Indexer
	informer cache.Controller
	queue    workqueue.TypedRateLimitingInterface[string]
	out      io.Writer
}

// NewController returns a controller of the pods lw lists and watches,
// printing to out and logging every handler call to logger at verbosity 5.
// Nothing runs until [Controller.Run].
func NewController(logger klog.Logger, lw cache.ListerWatcher, out io.Writer) *Controller {
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	enqueue := func(event string, obj any) {
		// Deletions noticed only by a relist arrive as tombstones, which
		// this key function understands.
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		_, tombstone := obj.(cache.DeletedFinalStateUnknown)
		logger.V(5).Info("Handler event", "event", event, "pod", key, "resourceVersion", resourceVersion(obj), "tombstone", tombstone)
		if err == nil {
			queue.Add(key)
		}
	}
	//lint:ignore SA1019 the classic constructor, as in client-go's example
	indexer, informer := cache.NewIndexerInformer(lw, &corev1.Pod{}, 0, cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { enqueue("add", obj) },
		UpdateFunc: func(_, newObj any) { enqueue("update", newObj) },
		DeleteFunc: func(obj any) { enqueue("delete", obj) },
	}, cache.Indexers{})
	return &Controller{indexer: indexer, informer: informer, queue: queue, out: out}
}

// resourceVersion returns the resource version of a pod or of the pod of a
// tombstone, "" for anything else.
func resourceVersion(obj any) string {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if pod, ok := obj.(*corev1.Pod); ok {
		return pod.ResourceVersion
	}
	return ""
}

// Run runs the informer and, once it has synced, one worker, until ctx
// ends; it returns after both have stopped. It fails if ctx ends before the
// cache synced. Call it once.
func (c *Controller) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { c.informer.RunWithContext(ctx) }) // returns when ctx ends
	defer func() {
		c.queue.ShutDown() // the worker returns after its current key
		wg.Wait()
	}()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.informer.HasSynced) {
		return errors.New("the pod cache did not sync before shutdown")
	}
	logger.Info("Starting worker")
	wg.Go(func() {
		for c.processNextItem(ctx) {
		}
	})
	<-ctx.Done()
	logger.Info("Shutting down")
	return nil
}

// processNextItem handles one key; it returns false once the queue is shut
// down.
func (c *Controller) processNextItem(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	err := c.sync(key)
	switch {
	case err == nil:
		c.queue.Forget(key)
	case c.queue.NumRequeues(key) < maxRetries:
		klog.FromContext(ctx).Info("Sync failed, retrying", "pod", key, "err", err)
		c.queue.AddRateLimited(key)
	default:
		c.queue.Forget(key)
		utilruntime.HandleErrorWithContext(ctx, err, "Dropping pod after repeated failures", "pod", key)
	}
	return true
}

// sync prints the state of the pod key.
func (c *Controller) sync(key string) error {
	obj, exists, err := c.indexer.GetByKey(key)
	if err != nil {
		return fmt.Errorf("get pod %s from the cache: %w", key, err)
	}
	if !exists {
		_, err = fmt.Fprintf(c.out, "Pod %s does not exist anymore\n", key)
		return err
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return fmt.Errorf("cached object %s is a %T, not a pod", key, obj)
	}
	_, err = fmt.Fprintf(c.out, "Sync/Add/Update for Pod %s/%s\n", pod.Namespace, pod.Name)
	return err
}
