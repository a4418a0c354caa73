package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/cache"
)

// OwnerAnnotation names the replica that owns a ConfigMap.
const OwnerAnnotation = "example.informer-go.dev/owner"

// Owner is the work of one replica: it keeps OwnerAnnotation equal to the
// replica's identity on the ConfigMaps of the slots it owns. Its informer
// watches those slots only, and moves with them.
type Owner struct {
	client    kubernetes.Interface
	namespace string
	id        string
	slots     int
	lw        *cache.ShardedListWatch
	informer  cache.SharedIndexInformer
	queue     workqueue.TypedRateLimitingInterface[cache.ObjectName]

	// mu is held for reading by every reconcile and for writing while the
	// owned slots change, so that a change waits for the reconciles in
	// flight.
	mu sync.RWMutex
	// owned are the owned slots. Guarded by mu.
	owned map[int]bool
	// started is closed once the replica first owns a slot. Guarded by mu.
	started chan struct{}
}

// NewOwner returns the work of replica id on the ConfigMaps of namespace,
// cut into slots slots. It owns nothing until SetOwned.
func NewOwner(client kubernetes.Interface, namespace, id string, slots int) (*Owner, error) {
	configMaps := client.CoreV1().ConfigMaps(namespace)
	base := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return configMaps.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return configMaps.Watch(ctx, opts)
		},
	}
	// The informer starts with the first owned slots; this shard is a
	// placeholder until then.
	lw, err := cache.NewShardedListWatch(base, nil, cache.ShardedListWatchOptions{})
	if err != nil {
		return nil, err
	}
	o := &Owner{
		client:    client,
		namespace: namespace,
		id:        id,
		slots:     slots,
		lw:        lw,
		informer:  cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{}),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "configmaps"}),
		owned:   map[int]bool{},
		started: make(chan struct{}),
	}
	if _, err := o.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    o.enqueue,
		UpdateFunc: func(_, obj any) { o.enqueue(obj) },
	}); err != nil {
		return nil, err
	}
	return o, nil
}

// SetOwned makes owned the slots the replica works on. It returns once no
// reconcile of another slot runs, and moves the informer to the owned
// slots; with none it keeps the informer where it is and does no work.
// Safe for concurrent use with the workers.
func (o *Owner) SetOwned(owned []int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	gained := map[int]bool{}
	next := map[int]bool{}
	for _, j := range owned {
		next[j] = true
		if !o.owned[j] {
			gained[j] = true
		}
	}
	o.owned = next
	if len(owned) == 0 {
		return nil
	}
	selectors := make([]sharding.Selector, 0, len(owned))
	for _, j := range owned {
		sel, err := cache.ShardSelectorFor(cache.ShardKeyUID, j, o.slots)
		if err != nil {
			return err
		}
		selectors = append(selectors, sel)
	}
	union, err := cache.UnionShardSelectors(selectors...)
	if err != nil {
		return err
	}
	if err := o.lw.SetShardSelector(union); err != nil {
		return err
	}
	select {
	case <-o.started:
	default:
		close(o.started)
	}
	// ConfigMaps of gained slots that the informer already holds get no
	// event: queue them.
	for _, obj := range o.informer.GetStore().List() {
		if gained[o.slotOf(obj.(*corev1.ConfigMap))] {
			o.enqueue(obj)
		}
	}
	return nil
}

// Run waits for the first owned slot, then runs the informer and workers
// workers until ctx ends, and returns when they have stopped.
func (o *Owner) Run(ctx context.Context, workers int) error {
	o.mu.RLock()
	started := o.started
	o.mu.RUnlock()
	select {
	case <-ctx.Done():
		return nil
	case <-started:
	}
	var wg sync.WaitGroup
	wg.Go(func() { o.informer.RunWithContext(ctx) }) // returns when ctx ends
	defer func() {
		o.queue.ShutDown() // workers return after their current key
		wg.Wait()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), o.informer.HasSynced) {
		return errors.New("the ConfigMap cache did not sync before shutdown")
	}
	for range workers {
		wg.Go(func() {
			for o.processNextKey(ctx) {
			}
		})
	}
	<-ctx.Done()
	return nil
}

func (o *Owner) enqueue(obj any) {
	name, err := cache.ObjectToName(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	o.queue.Add(name)
}

// slotOf returns the slot of a ConfigMap: the shard of its uid.
func (o *Owner) slotOf(cm *corev1.ConfigMap) int {
	j, _ := cache.ShardIndex(cache.ShardHash(string(cm.UID)), o.slots) // o.slots >= 1
	return j
}

// processNextKey reconciles one key; false once the queue is shut down.
func (o *Owner) processNextKey(ctx context.Context) bool {
	key, shutdown := o.queue.Get()
	if shutdown {
		return false
	}
	defer o.queue.Done(key)
	if err := o.reconcile(ctx, key); err != nil {
		klog.FromContext(ctx).V(2).Info("Reconcile failed, retrying", "configmap", key, "err", err)
		o.queue.AddRateLimited(key)
		return true
	}
	o.queue.Forget(key)
	return true
}

// reconcile annotates the ConfigMap key with the replica's identity if the
// replica owns its slot. The slots cannot change while it runs.
func (o *Owner) reconcile(ctx context.Context, key cache.ObjectName) error {
	o.mu.RLock()
	defer o.mu.RUnlock()
	obj, exists, err := o.informer.GetStore().GetByKey(key.String())
	if err != nil || !exists {
		return err
	}
	cm := obj.(*corev1.ConfigMap)
	if !o.owned[o.slotOf(cm)] || cm.Annotations[OwnerAnnotation] == o.id {
		return nil
	}
	cm = cm.DeepCopy() // the cache's objects are shared
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[OwnerAnnotation] = o.id
	if _, err := o.client.CoreV1().ConfigMaps(o.namespace).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("annotate ConfigMap %s: %w", key, err)
	}
	return nil
}
