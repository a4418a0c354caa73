package examples_test

import (
	"sync"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// buildWorkqueue builds examples/workqueue once for all the tests.
var buildWorkqueue = sync.OnceValues(func() (string, error) {
	return buildExample("workqueue", "github.com/informer-go/informer/examples/workqueue")
})

// createPod creates a pod that never runs (there is no scheduler), after
// the service account the admission plugin wants.
func createPod(t *testing.T, client kubernetes.Interface, namespace, name string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
	}
	if _, err := client.CoreV1().Pods(namespace).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s/%s: %v", namespace, name, err)
	}
}

// createDefaultServiceAccount creates the service account pods use when
// they name none; without kube-controller-manager nobody else does.
func createDefaultServiceAccount(t *testing.T, client kubernetes.Interface, namespace string) {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := client.CoreV1().ServiceAccounts(namespace).Create(t.Context(), sa, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create service account %s/default: %v", namespace, err)
	}
}

// TestWorkqueue runs the pod work queue controller on one namespace: it
// prints the pod that exists when it starts, one created and the deletion of
// one, then stops cleanly on SIGTERM.
func TestWorkqueue(t *testing.T) {
	t.Parallel()
	cluster := env.Cluster(t)
	client := cluster.Client()
	binary, err := buildWorkqueue()
	if err != nil {
		t.Fatal(err)
	}
	ns := cluster.CreateNamespace(t)
	createDefaultServiceAccount(t, client, ns)
	createPod(t, client, ns, "existing")

	p := startProgram(t, "workqueue", binary,
		"-kubeconfig", writeKubeconfig(t, cluster.RESTConfig()),
		"-namespace", ns)
	p.waitForOutput(t, "Sync/Add/Update for Pod "+ns+"/existing")
	createPod(t, client, ns, "created")
	p.waitForOutput(t, "Sync/Add/Update for Pod "+ns+"/created")
	if err := client.CoreV1().Pods(ns).Delete(t.Context(), "existing", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	p.waitForOutput(t, "Pod "+ns+"/existing does not exist anymore")

	p.signal(t, syscall.SIGTERM)
	p.waitForSuccess(t, exitTimeout)
	p.requireLogged(t, "Shutting down")
	p.requireLogged(t, "Stopped")
	requireNoErrors(t, p)
}
