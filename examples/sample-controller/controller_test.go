package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	kubeinformers "github.com/informer-go/informer/clientgo/informers"
	"github.com/informer-go/informer/wait"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestControllerOnFakeClientset runs the controller, with the factory, on
// client-go's fake clientset: it creates the declared Deployment, follows a
// change of the replica count and recreates a deleted Deployment.
func TestControllerOnFakeClientset(t *testing.T) {
	client := fake.NewClientset(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "uid-web", Labels: map[string]string{DeploymentLabel: "true"}},
		Data:       map[string]string{ReplicasKey: "2"},
	})
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	factory := kubeinformers.NewSharedInformerFactory(client, 0)
	c, err := NewController(ctx, client, factory.Apps().V1().Deployments(), factory.Core().V1().ConfigMaps())
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.Run(ctx, 1); err != nil {
			t.Error(err)
		}
	})
	defer func() {
		cancel()
		wg.Wait()
		factory.Shutdown()
	}()

	deployments := client.AppsV1().Deployments("ns")
	waitForReplicas := func(want int32) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			d, err := deployments.Get(ctx, "web", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return err == nil && ptr.Deref(d.Spec.Replicas, -1) == want, err
		})
		if err != nil {
			t.Fatalf("no Deployment web with %d replicas: %v", want, err)
		}
	}
	waitForReplicas(2)

	cm, err := client.CoreV1().ConfigMaps("ns").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data[ReplicasKey] = "3"
	if _, err := client.CoreV1().ConfigMaps("ns").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForReplicas(3)

	if err := deployments.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForReplicas(3) // recreated
}
