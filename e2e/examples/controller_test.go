package examples_test

import (
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// The label and annotation of examples/controller (the e2e module does not
// import the example: the tests run its binary).
const (
	countLabel      = "example.informer-go.dev/count-keys"
	countAnnotation = "example.informer-go.dev/data-keys"
)

// controllerModule is the module path of examples/controller.
const controllerModule = "github.com/informer-go/informer/examples/controller"

// runFor is the -run-for of TestControllerRunFor. The controller only needs
// to list, and write one ConfigMap, within it; a longer one only makes the
// test longer.
const runFor = 10 * time.Second

// buildController builds examples/controller once for all the tests.
var buildController = sync.OnceValues(func() (string, error) {
	return buildExample("controller", controllerModule)
})

// controllerBinary returns the path of the built controller.
func controllerBinary(t *testing.T) string {
	t.Helper()
	binary, err := buildController()
	if err != nil {
		t.Fatal(err)
	}
	return binary
}

// counted returns the labels of a ConfigMap the controller annotates.
func counted() map[string]string { return map[string]string{countLabel: "true"} }

// createConfigMap creates the ConfigMap namespace/name with labels, a data
// key for each of keys and a binary data key for each of binaryKeys.
func createConfigMap(t *testing.T, client kubernetes.Interface, namespace, name string, labels map[string]string, keys, binaryKeys []string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels}}
	for _, k := range keys {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[k] = "v"
	}
	for _, k := range binaryKeys {
		if cm.BinaryData == nil {
			cm.BinaryData = map[string][]byte{}
		}
		cm.BinaryData[k] = []byte{0}
	}
	if _, err := client.CoreV1().ConfigMaps(namespace).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create ConfigMap %s/%s: %v", namespace, name, err)
	}
}

// updateConfigMap applies change to the latest ConfigMap namespace/name,
// again on conflicts with the controller's writes.
func updateConfigMap(t *testing.T, client kubernetes.Interface, namespace, name string, change func(*corev1.ConfigMap)) {
	t.Helper()
	cms := client.CoreV1().ConfigMaps(namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm, err := cms.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(cm)
		_, err = cms.Update(t.Context(), cm, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update ConfigMap %s/%s: %v", namespace, name, err)
	}
}

// annotations returns the count annotation of every ConfigMap of
// namespace, "-" for those without.
func annotations(t *testing.T, client kubernetes.Interface, namespace string) map[string]string {
	t.Helper()
	list, err := client.CoreV1().ConfigMaps(namespace).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list ConfigMaps of %s: %v", namespace, err)
	}
	got := map[string]string{}
	for _, cm := range list.Items {
		v, ok := cm.Annotations[countAnnotation]
		if !ok {
			v = "-"
		}
		got[cm.Name] = v
	}
	return got
}

// requireNoErrors fails the test if the controller logged errors.
func requireNoErrors(t *testing.T, p *program) {
	t.Helper()
	if errs := p.errorLines(); len(errs) > 0 {
		t.Errorf("%s logged errors:\n%s", p.name, errs)
	}
}

// TestControllerRunFor runs the controller on one namespace for -run-for:
// it annotates the labelled ConfigMaps that exist when it starts, leaves
// the others and those of other namespaces alone, and exits 0 when the
// time is up.
func TestControllerRunFor(t *testing.T) {
	t.Parallel()
	cluster := env.Cluster(t)
	client := cluster.Client()
	binary := controllerBinary(t)
	ns := cluster.CreateNamespace(t)
	other := cluster.CreateNamespace(t)
	createConfigMap(t, client, ns, "counted", counted(), []string{"a", "b"}, []string{"blob"})
	createConfigMap(t, client, ns, "plain", nil, []string{"a"}, nil)
	createConfigMap(t, client, ns, "label-false", map[string]string{countLabel: "false"}, []string{"a", "b"}, nil)
	createConfigMap(t, client, ns, "empty", counted(), nil, nil)
	createConfigMap(t, client, other, "elsewhere", counted(), []string{"a"}, nil)

	p := startProgram(t, "controller", binary,
		"-kubeconfig", writeKubeconfig(t, cluster.RESTConfig()),
		"-namespace", ns,
		"-workers", "3",
		"-run-for", runFor.String())
	p.waitForSuccess(t, runFor+exitTimeout)

	p.requireLogged(t, "Caches are synced")
	p.requireLogged(t, "Starting workers", "count", 3)
	for name, keys := range map[string]int{"counted": 3, "plain": 1, "label-false": 2, "empty": 0} {
		p.requireLogged(t, "Reconciling ConfigMap", "configmap", ns+"/"+name, "dataKeys", strconv.Itoa(keys))
	}
	p.requireLogged(t, "Annotated ConfigMap", "configmap", ns+"/counted", "dataKeys", "3")
	p.requireLogged(t, "Annotated ConfigMap", "configmap", ns+"/empty", "dataKeys", "0")
	for _, msg := range []string{"Annotated ConfigMap", "Reconciling ConfigMap"} {
		if p.logged(msg, "configmap", other+"/elsewhere") {
			t.Errorf("controller of namespace %s logged %q for %s/elsewhere", ns, msg, other)
		}
	}
	p.requireLogged(t, "Shutting down")
	p.requireLogged(t, "Stopped")
	requireNoErrors(t, p)

	// The controller has exited: what it wrote is final.
	want := map[string]string{"counted": "3", "plain": "-", "label-false": "-", "empty": "0"}
	if diff := cmp.Diff(want, annotations(t, client, ns)); diff != "" {
		t.Errorf("annotations in %s (-want +got):\n%s", ns, diff)
	}
	if diff := cmp.Diff(map[string]string{"elsewhere": "-"}, annotations(t, client, other)); diff != "" {
		t.Errorf("annotations in the other namespace %s (-want +got):\n%s", other, diff)
	}
}

// TestControllerSIGTERM runs the controller on one namespace without
// -run-for: it follows changes made while it runs (data keys added, a label
// added, a ConfigMap created and one deleted), then stops cleanly and exits
// 0 on SIGTERM.
func TestControllerSIGTERM(t *testing.T) {
	t.Parallel()
	cluster := env.Cluster(t)
	client := cluster.Client()
	binary := controllerBinary(t)
	ns := cluster.CreateNamespace(t)
	createConfigMap(t, client, ns, "counted", counted(), []string{"a", "b"}, nil)
	createConfigMap(t, client, ns, "plain", nil, []string{"a"}, nil)
	createConfigMap(t, client, ns, "doomed", counted(), []string{"a"}, nil)

	p := startProgram(t, "controller", binary,
		"-kubeconfig", writeKubeconfig(t, cluster.RESTConfig()),
		"-namespace", ns)
	p.waitForAnnotation(t, client, ns, "counted", countAnnotation, "2")
	p.waitForAnnotation(t, client, ns, "doomed", countAnnotation, "1")

	// Changes arrive through the informer's watch.
	updateConfigMap(t, client, ns, "counted", func(cm *corev1.ConfigMap) { cm.Data["c"] = "v" })
	p.waitForAnnotation(t, client, ns, "counted", countAnnotation, "3")
	updateConfigMap(t, client, ns, "plain", func(cm *corev1.ConfigMap) { cm.Labels = counted() })
	p.waitForAnnotation(t, client, ns, "plain", countAnnotation, "1")
	createConfigMap(t, client, ns, "late", counted(), []string{"a", "b", "c", "d"}, nil)
	p.waitForAnnotation(t, client, ns, "late", countAnnotation, "4")
	if err := client.CoreV1().ConfigMaps(ns).Delete(t.Context(), "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete ConfigMap %s/doomed: %v", ns, err)
	}
	p.waitForLog(t, "ConfigMap is gone", "configmap", ns+"/doomed")

	p.signal(t, syscall.SIGTERM)
	p.waitForSuccess(t, exitTimeout)
	p.requireLogged(t, "Shutting down")
	p.requireLogged(t, "Stopped")
	requireNoErrors(t, p)

	want := map[string]string{"counted": "3", "plain": "1", "late": "4"}
	if diff := cmp.Diff(want, annotations(t, client, ns)); diff != "" {
		t.Errorf("annotations in %s (-want +got):\n%s", ns, diff)
	}
}
