package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/informer-go/informer/clientgo/cache"
)

const (
	// DeploymentLabel marks the ConfigMaps that declare a Deployment.
	DeploymentLabel = "example.informer-go.dev/deployment"
	// ReplicasKey is the data key of such a ConfigMap holding the replica
	// count.
	ReplicasKey = "replicas"
)

// Controller keeps, for every labelled ConfigMap, a Deployment of the same
// name owned by it with the ConfigMap's replica count.
type Controller struct {
	kubeClient        kubernetes.Interface
	deploymentsLister appslisters.DeploymentLister
	deploymentsSynced cache.InformerSynced
	configMapsLister  corelisters.ConfigMapLister
	configMapsSynced  cache.InformerSynced
	workqueue         workqueue.TypedRateLimitingInterface[cache.ObjectName]
}

// NewController registers its handlers with the informers and returns the
// controller; nothing runs until [Controller.Run]. Every handler call is
// logged at verbosity 5 to the logger of ctx.
func NewController(ctx context.Context, kubeClient kubernetes.Interface,
	deploymentInformer appsinformers.DeploymentInformer, configMapInformer coreinformers.ConfigMapInformer) (*Controller, error) {
	logger := klog.FromContext(ctx)
	c := &Controller{
		kubeClient:        kubeClient,
		deploymentsLister: deploymentInformer.Lister(),
		deploymentsSynced: deploymentInformer.Informer().HasSynced,
		configMapsLister:  configMapInformer.Lister(),
		configMapsSynced:  configMapInformer.Informer().HasSynced,
		workqueue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "configmap-deployments"}),
	}
	if _, err := configMapInformer.Informer().AddEventHandler(logged(logger, "configmaps", cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueConfigMap,
		UpdateFunc: func(_, newObj any) { c.enqueueConfigMap(newObj) },
	})); err != nil {
		return nil, err
	}
	// A change of a Deployment queues the ConfigMap that owns it, so that a
	// deleted or edited Deployment is put back.
	if _, err := deploymentInformer.Informer().AddEventHandler(logged(logger, "deployments", cache.ResourceEventHandlerFuncs{
		AddFunc:    c.handleObject,
		UpdateFunc: func(_, newObj any) { c.handleObject(newObj) },
		DeleteFunc: c.handleObject,
	})); err != nil {
		return nil, err
	}
	return c, nil
}

// logged returns h with every call, deletions included, first logged to
// logger at verbosity 5 as a "Handler event" of informer.
func logged(logger klog.Logger, informer string, h cache.ResourceEventHandlerFuncs) cache.ResourceEventHandlerFuncs {
	log := func(event string, obj any) {
		key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		_, tombstone := obj.(cache.DeletedFinalStateUnknown)
		if tombstone {
			obj = obj.(cache.DeletedFinalStateUnknown).Obj
		}
		var rv string
		if o, ok := obj.(metav1.Object); ok {
			rv = o.GetResourceVersion()
		}
		logger.V(5).Info("Handler event", "informer", informer, "event", event, "object", key, "resourceVersion", rv, "tombstone", tombstone)
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			log("add", obj)
			if h.AddFunc != nil {
				h.AddFunc(obj)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			log("update", newObj)
			if h.UpdateFunc != nil {
				h.UpdateFunc(oldObj, newObj)
			}
		},
		DeleteFunc: func(obj any) {
			log("delete", obj)
			if h.DeleteFunc != nil {
				h.DeleteFunc(obj)
			}
		},
	}
}

// Run waits for the caches, runs workers workers until ctx ends, and returns
// once they have stopped. It fails if ctx ends before the caches synced.
func (c *Controller) Run(ctx context.Context, workers int) error {
	logger := klog.FromContext(ctx)
	var wg sync.WaitGroup
	defer func() {
		c.workqueue.ShutDown()
		wg.Wait()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), c.deploymentsSynced, c.configMapsSynced) {
		return errors.New("the caches did not sync before shutdown")
	}
	logger.Info("Caches are synced, starting workers", "count", workers)
	for range workers {
		wg.Go(func() {
			for c.processNextWorkItem(ctx) {
			}
		})
	}
	<-ctx.Done()
	logger.Info("Shutting down")
	return nil
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	ref, shutdown := c.workqueue.Get()
	if shutdown {
		return false
	}
	defer c.workqueue.Done(ref)
	if err := c.syncHandler(ctx, ref); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Error syncing; requeuing", "configmap", ref)
		c.workqueue.AddRateLimited(ref)
		return true
	}
	c.workqueue.Forget(ref)
	return true
}

// syncHandler makes the Deployment of ConfigMap ref match it.
func (c *Controller) syncHandler(ctx context.Context, ref cache.ObjectName) error {
	logger := klog.FromContext(ctx)
	cm, err := c.configMapsLister.ConfigMaps(ref.Namespace).Get(ref.Name)
	if apierrors.IsNotFound(err) {
		return nil // its Deployment goes with it (owner reference)
	}
	if err != nil {
		return err
	}
	if cm.Labels[DeploymentLabel] != "true" {
		return nil
	}
	replicas, err := strconv.ParseInt(cm.Data[ReplicasKey], 10, 32)
	if err != nil {
		logger.Info("Invalid replica count, ignoring the ConfigMap", "configmap", ref, "err", err)
		return nil
	}

	deployment, err := c.deploymentsLister.Deployments(cm.Namespace).Get(cm.Name)
	if apierrors.IsNotFound(err) {
		_, err = c.kubeClient.AppsV1().Deployments(cm.Namespace).Create(ctx, newDeployment(cm, int32(replicas)), metav1.CreateOptions{})
		if err == nil {
			logger.Info("Created Deployment", "deployment", ref, "replicas", replicas)
		}
		return err
	}
	if err != nil {
		return err
	}
	if !metav1.IsControlledBy(deployment, cm) {
		logger.Info("Deployment exists and is not owned by the ConfigMap, leaving it", "deployment", ref)
		return nil
	}
	if ptr.Deref(deployment.Spec.Replicas, 1) == int32(replicas) {
		return nil
	}
	deployment = deployment.DeepCopy() // objects from the cache are shared
	deployment.Spec.Replicas = ptr.To(int32(replicas))
	if _, err := c.kubeClient.AppsV1().Deployments(cm.Namespace).Update(ctx, deployment, metav1.UpdateOptions{}); err != nil {
		return err
	}
	logger.Info("Updated Deployment", "deployment", ref, "replicas", replicas)
	return nil
}

func (c *Controller) enqueueConfigMap(obj any) {
	ref, err := cache.ObjectToName(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.workqueue.Add(ref)
}

// handleObject queues the ConfigMap that owns a Deployment, also for a
// deletion that arrives as a tombstone.
func (c *Controller) handleObject(obj any) {
	object, ok := obj.(metav1.Object)
	if !ok {
		tombstone, ok := obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			utilruntime.HandleError(fmt.Errorf("error decoding object, invalid type %T", obj))
			return
		}
		if object, ok = tombstone.Obj.(metav1.Object); !ok {
			utilruntime.HandleError(fmt.Errorf("error decoding object tombstone, invalid type %T", tombstone.Obj))
			return
		}
	}
	owner := metav1.GetControllerOf(object)
	if owner == nil || owner.Kind != "ConfigMap" {
		return
	}
	if _, err := c.configMapsLister.ConfigMaps(object.GetNamespace()).Get(owner.Name); err != nil {
		return // not ours, or gone
	}
	c.workqueue.Add(cache.ObjectName{Namespace: object.GetNamespace(), Name: owner.Name})
}

// newDeployment returns the Deployment cm declares.
func newDeployment(cm *corev1.ConfigMap, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": cm.Name, "controller": "sample-controller"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:            cm.Name,
			Namespace:       cm.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cm, corev1.SchemeGroupVersion.WithKind("ConfigMap"))},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}
