package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-go/informer/compare/kinds"
	"github.com/informer-go/informer/e2e/internal/objects"
	"github.com/informer-go/informer/internal/benchkit"
)

// pods is the number of Pods the memory benchmark syncs.
const pods = 10_000

// gcRuns is the number of garbage collections whose median CPU time a
// memory sync reports.
const gcRuns = 3

// BenchmarkPodMemory measures what an informer of 10,000 Pods costs when
// they come from a real kube-apiserver: the Pods of package kinds (those
// the in-memory comparison of compare/ decodes), 10 Deployments of 4 apps
// in every one of 100 namespaces, created in one namespace through the API
// by "kube-controller-manager", their status then written through the
// status subresource by "kubelet", so that the server keeps managedFields
// of both. Informers list them as protobuf (what Kubernetes' components
// ask for) by a plain list. Every iteration syncs once with each library —
// client-go, informer-go in both pipelines, client-go and informer-go
// with a transform that drops managedFields, and informer-go's memory modes
// Share and Encode, alone and with DropManagedFields — in an order that
// rotates between iterations; run it with -benchtime=5x for 5 rounds.
//
// Metrics (see measureRounds), the median over the iterations for each
// library and its ratio to client-go's: heap-B, the heap per cached object,
// the object included, after the sync and a garbage collection; gc-ms, the
// CPU time of a full garbage collection then (the median of 3); synced-ms,
// the time from starting the informer until its HasSynced. object-B is the
// heap of one Pod as a client decodes it and an informer keeps it.
func BenchmarkPodMemory(b *testing.B) {
	cluster := env.Cluster(b)
	ns := cluster.CreateNamespace(b)
	start := time.Now()
	if err := createPods(b.Context(), cluster.Client(), ns, pods); err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d Pods and wrote their status in %v", pods, time.Since(start).Round(time.Millisecond))

	cfg := cluster.RESTConfig()
	cfg.ContentType = kruntime.ContentTypeProtobuf
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	object, err := decodedPodHeap(b.Context(), client, ns)
	if err != nil {
		b.Fatal(err)
	}
	measureRounds(b, slices.Concat(libraries, strippingLibraries, memoryLibraries), func(lib library) ([]metric, error) {
		return syncPodsOnce(client, ns, lib)
	})
	b.ReportMetric(object, "object-B") // after b.Loop, which drops the metrics reported before it
}

// syncPodsOnce syncs an informer of lib over the Pods of ns and returns
// the time until its HasSynced, the heap per Pod once synced and the CPU
// time of a full garbage collection of it.
func syncPodsOnce(client kubernetes.Interface, ns string, lib library) ([]metric, error) {
	ps := client.CoreV1().Pods(ns)
	lw := newCountingListWatch(ps.List, ps.Watch, true)
	before := benchkit.LiveHeap()
	synced, _, stop, err := syncWith(lib, lw, &corev1.Pod{}, pods)
	if err != nil {
		return nil, err
	}
	defer stop()
	after := benchkit.LiveHeap()
	gc := benchkit.FullGCCPU(gcRuns)
	if lists := lw.lists.Load(); lists != 1 {
		return nil, fmt.Errorf("%d lists, want 1", lists)
	}
	return []metric{
		{name: "heap", unit: "B", value: (float64(after) - float64(before)) / pods},
		{name: "gc", unit: "ms", value: float64(gc) / float64(time.Millisecond)},
		{name: "synced", unit: "ms", value: float64(synced) / float64(time.Millisecond)},
	}, nil
}

// decodedPodHeap lists the Pods of ns and returns the heap of one of them
// as an informer keeps it: decoded, then copied out of the list.
func decodedPodHeap(ctx context.Context, client kubernetes.Interface, ns string) (float64, error) {
	before := benchkit.LiveHeap()
	list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	objs, err := meta.ExtractListWithAlloc(list)
	if err != nil {
		return 0, err
	}
	after := benchkit.LiveHeap()
	runtime.KeepAlive(objs) // len and cap alone would not keep the objects alive
	if len(objs) != pods {
		return 0, fmt.Errorf("listed %d Pods, want %d", len(objs), pods)
	}
	const sliceItem = 16 // the bytes of an interface value in objs
	return (float64(after) - float64(before) - float64(sliceItem*cap(objs))) / float64(len(objs)), nil
}

// createPods creates the ServiceAccount the Pods run as (no
// kube-controller-manager creates it) and n Pods of package kinds in ns, as
// kube-controller-manager creates the Pods of a ReplicaSet, and then writes
// their status through the status subresource, as a kubelet does.
func createPods(ctx context.Context, client kubernetes.Interface, ns string, n int) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the default ServiceAccount: %w", err)
	}
	ps := client.CoreV1().Pods(ns)
	err := objects.Parallel(n, 16, func(i int) error {
		built := kinds.NewPod(i, 0)
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:            built.Name,
				GenerateName:    built.GenerateName,
				Labels:          built.Labels,
				Annotations:     built.Annotations,
				OwnerReferences: built.OwnerReferences,
			},
			Spec: built.Spec,
		}
		created, err := ps.Create(ctx, pod, metav1.CreateOptions{FieldManager: built.ManagedFields[0].Manager})
		if err != nil {
			return fmt.Errorf("create Pod %d: %w", i, err)
		}
		created.Status = built.Status
		if _, err := ps.UpdateStatus(ctx, created, metav1.UpdateOptions{FieldManager: built.ManagedFields[1].Manager}); err != nil {
			return fmt.Errorf("write the status of Pod %d: %w", i, err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("create Pods: %w", err)
	}
	return nil
}
