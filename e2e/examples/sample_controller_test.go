package examples_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The label and data key of examples/sample-controller.
const (
	deploymentLabel = "example.informer-go.dev/deployment"
	replicasKey     = "replicas"
)

// buildSampleController builds examples/sample-controller once for all the
// tests.
var buildSampleController = sync.OnceValues(func() (string, error) {
	return buildExample("sample-controller", "github.com/informer-go/informer/examples/sample-controller")
})

// TestSampleController runs the sample-controller example on one
// namespace: it creates the Deployment a labelled ConfigMap declares,
// follows a change of its replica count, recreates the Deployment when it is
// deleted, leaves unlabelled ConfigMaps alone, and stops cleanly on SIGTERM.
func TestSampleController(t *testing.T) {
	t.Parallel()
	cluster := env.Cluster(t)
	client := cluster.Client()
	binary, err := buildSampleController()
	if err != nil {
		t.Fatal(err)
	}
	ns := cluster.CreateNamespace(t)
	createConfigMap(t, client, ns, "web", map[string]string{deploymentLabel: "true"}, nil, nil)
	updateConfigMap(t, client, ns, "web", func(cm *corev1.ConfigMap) { cm.Data = map[string]string{replicasKey: "2"} })
	createConfigMap(t, client, ns, "plain", nil, nil, nil)

	p := startProgram(t, "sample-controller", binary,
		"-kubeconfig", writeKubeconfig(t, cluster.RESTConfig()),
		"-namespace", ns)
	p.waitForReplicas(t, client, ns, "web", 2)
	p.requireLogged(t, "Caches are synced, starting workers", "count", 2)

	updateConfigMap(t, client, ns, "web", func(cm *corev1.ConfigMap) { cm.Data[replicasKey] = "3" })
	p.waitForReplicas(t, client, ns, "web", 3)

	if err := client.AppsV1().Deployments(ns).Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	p.waitForLog(t, "Created Deployment", "deployment", ns+"/web", "replicas", 3)
	p.waitForReplicas(t, client, ns, "web", 3)

	p.signal(t, syscall.SIGTERM)
	p.waitForSuccess(t, exitTimeout)
	p.requireLogged(t, "Shutting down")
	p.requireLogged(t, "Stopped")
	requireNoErrors(t, p)
	if _, err := client.AppsV1().Deployments(ns).Get(t.Context(), "plain", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Deployment plain: %v, want NotFound", err)
	}
}

// waitForReplicas waits until Deployment namespace/name exists with
// replicas replicas, failing the test after convergeTimeout or if the
// process exits first.
func (p *program) waitForReplicas(t *testing.T, client kubernetes.Interface, namespace, name string, replicas int32) {
	t.Helper()
	last := "nothing read"
	err := p.waitUntil(t.Context(), func(ctx context.Context) bool {
		d, err := client.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false
		}
		last = fmt.Sprintf("replicas %v", d.Spec.Replicas)
		return d.Spec.Replicas != nil && *d.Spec.Replicas == replicas
	})
	if err != nil {
		t.Fatalf("%s did not make Deployment %s/%s with %d replicas: %v; last seen: %s", p.name, namespace, name, replicas, err, last)
	}
}
