package examples_test

import (
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// The drop-in packages the examples import, and client-go's packages they
// replace.
const (
	dropInCache        = "github.com/informer-go/informer/clientgo/cache"
	dropInInformers    = "github.com/informer-go/informer/clientgo/informers"
	clientGoCache      = "k8s.io/client-go/tools/cache"
	clientGoInformers  = "k8s.io/client-go/informers"
	handlerEventMarker = `"Handler event" `
)

// The examples built against client-go: the same source with the drop-in's
// import paths replaced by client-go's, so that they run on client-go's
// informers.
var (
	buildWorkqueueOnClientGo = sync.OnceValues(func() (string, error) {
		return buildExampleAs("workqueue", "github.com/informer-go/informer/examples/workqueue", "workqueue-client-go",
			map[string]string{dropInCache: clientGoCache})
	})
	buildSampleControllerOnClientGo = sync.OnceValues(func() (string, error) {
		return buildExampleAs("sample-controller", "github.com/informer-go/informer/examples/sample-controller", "sample-controller-client-go",
			map[string]string{dropInCache: clientGoCache, dropInInformers: clientGoInformers})
	})
)

// handlerEvents returns the "Handler event" lines the program logged whose
// key/value pairs contain filter, from the message on (klog's header, with
// its time, differs between runs), up to and including the first that also
// contains last.
func (p *program) handlerEvents(filter, last string) []string {
	var events []string
	for line := range strings.Lines(p.output.String()) {
		_, event, ok := strings.Cut(strings.TrimSuffix(line, "\n"), handlerEventMarker)
		if !ok || !strings.Contains(event, filter) {
			continue
		}
		events = append(events, event)
		if strings.Contains(event, last) {
			break
		}
	}
	return events
}

// startBoth builds an example as it is (on the drop-in) and against
// client-go, and starts both with args and -v=5, which logs the handler
// events.
func startBoth(t *testing.T, name string, dropIn, clientGo func() (string, error), args ...string) (onDropIn, onClientGo *program) {
	t.Helper()
	dropInBinary, err := dropIn()
	if err != nil {
		t.Fatal(err)
	}
	clientGoBinary, err := clientGo()
	if err != nil {
		t.Fatal(err)
	}
	args = append(args, "-v=5")
	return startProgram(t, name+" (drop-in)", dropInBinary, args...), startProgram(t, name+" (client-go)", clientGoBinary, args...)
}

// requireSameEvents fails the test unless both programs logged the same
// handler events matching filter, in the same order, up to the first
// containing last, and that one is there. The first initial events, those of
// the objects that existed before the programs started, are compared in any
// order: each program lists on its own, and kube-apiserver does not promise
// one order of a list's items (its watch cache streams the initial events of
// a streaming list in the order of its store).
func requireSameEvents(t *testing.T, onDropIn, onClientGo *program, filter, last string, initial int) {
	t.Helper()
	want := onClientGo.handlerEvents(filter, last)
	got := onDropIn.handlerEvents(filter, last)
	if len(want) == 0 || !strings.Contains(want[len(want)-1], last) {
		t.Fatalf("client-go's run did not log %s", last)
	}
	for _, events := range [][]string{want, got} {
		slices.Sort(events[:min(initial, len(events))])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("handler events of %s on the drop-in (+) and on client-go (-):\n%s", filter, diff)
	}
	if filter == "" {
		filter = "every informer"
	}
	t.Logf("%d handler events of %s, the same in both runs", len(want), filter)
}

// TestWorkqueueEventsMatchClientGo runs examples/workqueue twice at once on
// one namespace, built on the drop-in and against client-go's tools/cache,
// through pods created, updated and deleted while they run, and compares the
// handler calls both logged: the same, event for event, in the same order
// (the two pods that exist at start in any order).
func TestWorkqueueEventsMatchClientGo(t *testing.T) {
	t.Parallel()
	cluster := env.Cluster(t)
	client := cluster.Client()
	ns := cluster.CreateNamespace(t)
	createDefaultServiceAccount(t, client, ns)
	createPod(t, client, ns, "existing")
	createPod(t, client, ns, "other")

	onDropIn, onClientGo := startBoth(t, "workqueue", buildWorkqueue, buildWorkqueueOnClientGo,
		"-kubeconfig", writeKubeconfig(t, cluster.RESTConfig()), "-namespace", ns)
	for _, p := range []*program{onDropIn, onClientGo} {
		p.waitForLog(t, "Starting worker")
	}

	pods := client.CoreV1().Pods(ns)
	now := metav1.DeleteOptions{GracePeriodSeconds: new(int64)}
	createPod(t, client, ns, "a")
	createPod(t, client, ns, "b")
	if _, err := pods.Patch(t.Context(), "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"step":"1"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"existing", "b"} {
		if err := pods.Delete(t.Context(), name, now); err != nil {
			t.Fatal(err)
		}
	}
	createPod(t, client, ns, "c")
	if _, err := pods.Patch(t.Context(), "c", types.MergePatchType, []byte(`{"metadata":{"labels":{"step":"2"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(t.Context(), "a", now); err != nil {
		t.Fatal(err)
	}
	last := `event="delete" pod="` + ns + `/a"`
	for _, p := range []*program{onDropIn, onClientGo} {
		p.waitForLog(t, "Handler event", "event", "delete", "pod", ns+"/a")
		p.signal(t, syscall.SIGTERM)
	}
	for _, p := range []*program{onDropIn, onClientGo} {
		p.waitForSuccess(t, exitTimeout)
		requireNoErrors(t, p)
	}
	requireSameEvents(t, onDropIn, onClientGo, "", last, 2) // existing, other
}

// TestSampleControllerEventsMatchClientGo runs examples/sample-controller
// twice at once on one namespace, built on the drop-ins (clientgo/cache and
// clientgo/informers) and against client-go's tools/cache and informers,
// without resyncs: both follow a labelled ConfigMap created, its replica
// count changed, its Deployment deleted (and recreated by one of them) and
// the ConfigMap deleted, and their handlers log the same calls, event for
// event, in the same order, for each informer.
func TestSampleControllerEventsMatchClientGo(t *testing.T) {
	t.Parallel()
	cluster := env.Cluster(t)
	client := cluster.Client()
	ns := cluster.CreateNamespace(t)
	createConfigMap(t, client, ns, "plain", nil, nil, nil)

	onDropIn, onClientGo := startBoth(t, "sample-controller", buildSampleController, buildSampleControllerOnClientGo,
		"-kubeconfig", writeKubeconfig(t, cluster.RESTConfig()), "-namespace", ns, "-resync", "0")
	for _, p := range []*program{onDropIn, onClientGo} {
		p.waitForLog(t, "Caches are synced, starting workers", "count", 2)
	}

	// Both controllers act on every change; the cluster's events, and so
	// their informers', are the same for both.
	labelled := map[string]string{deploymentLabel: "true"}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labelled}, Data: map[string]string{replicasKey: "2"}}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	onDropIn.waitForReplicas(t, client, ns, "web", 2)
	updateConfigMap(t, client, ns, "web", func(cm *corev1.ConfigMap) { cm.Data[replicasKey] = "3" })
	onDropIn.waitForReplicas(t, client, ns, "web", 3)
	if err := client.AppsV1().Deployments(ns).Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	onDropIn.waitForReplicas(t, client, ns, "web", 3) // recreated by one of them
	if err := client.CoreV1().ConfigMaps(ns).Delete(t.Context(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// End markers, one per informer: once a program logged both, it logged
	// every earlier event of both informers.
	createConfigMap(t, client, ns, "end", nil, nil, nil)
	end := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "end"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "end"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "end"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
	if _, err := client.AppsV1().Deployments(ns).Create(t.Context(), end, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	endOf := map[string]string{"configmaps": `object="` + ns + `/end"`, "deployments": `object="` + ns + `/end"`}
	for _, p := range []*program{onDropIn, onClientGo} {
		for informer := range endOf {
			p.waitForLog(t, "Handler event", "informer", informer, "event", "add", "object", ns+"/end")
		}
		p.signal(t, syscall.SIGTERM)
	}
	for _, p := range []*program{onDropIn, onClientGo} {
		p.waitForSuccess(t, exitTimeout)
	}
	for informer, last := range endOf {
		requireSameEvents(t, onDropIn, onClientGo, `informer="`+informer+`"`, last, 1) // plain, or none
	}
}
