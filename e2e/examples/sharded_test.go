package examples_test

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-go/informer/cache"
)

// shardedModule is the module path of examples/sharded.
const shardedModule = "github.com/informer-go/informer/examples/sharded"

// The annotation, Lease label and settings of examples/sharded in these
// tests: a short lease duration keeps the takeover after a crash short.
const (
	ownerAnnotation = "example.informer-go.dev/owner"
	leaseLabel      = "example.informer-go.dev/sharded"
	leaseDuration   = 6 * time.Second
	slotCount       = 12
)

var buildSharded = sync.OnceValues(func() (string, error) {
	return buildExample("sharded", shardedModule)
})

// ownedSlots matches the log line in which a replica says which slots it
// owns.
var ownedSlots = regexp.MustCompile(`\] "Owning slots" .*slots="([0-9,]*)"`)

// slotsOf returns the slots p last said it owns.
func slotsOf(p *program) []int {
	matches := ownedSlots.FindAllStringSubmatch(p.output.String(), -1)
	if len(matches) == 0 {
		return nil
	}
	var slots []int
	for _, s := range strings.Split(matches[len(matches)-1][1], ",") {
		var j int
		if _, err := fmt.Sscan(s, &j); err == nil {
			slots = append(slots, j)
		}
	}
	return slots
}

// slotCoverage checks that the running replicas own every slot once, as
// the assignment of the package documentation splits them, and that the
// slot Leases name them. It returns the owner of each slot, or what is
// wrong.
func slotCoverage(t *testing.T, client kubernetes.Interface, namespace string, replicas map[string]*program) (map[int]string, string) {
	ids := slices.Sorted(maps.Keys(replicas))
	owner := map[int]string{}
	for _, id := range ids {
		slots := slotsOf(replicas[id])
		for _, j := range slots {
			if other, ok := owner[j]; ok {
				return nil, fmt.Sprintf("slot %d owned by %s and %s", j, other, id)
			}
			owner[j] = id
		}
		if want := slotCount / len(ids); len(slots) != want {
			return nil, fmt.Sprintf("%s owns slots %v, want %d of them", id, slots, want)
		}
	}
	if len(owner) != slotCount {
		return nil, fmt.Sprintf("%d of %d slots owned: %v", len(owner), slotCount, owner)
	}
	leases, err := client.CoordinationV1().Leases(namespace).List(t.Context(), metav1.ListOptions{LabelSelector: leaseLabel + "=slot"})
	if err != nil {
		return nil, err.Error()
	}
	for _, l := range leases.Items {
		var j int
		if _, err := fmt.Sscanf(l.Name, "sharded-slot-%d", &j); err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != owner[j] {
			return nil, fmt.Sprintf("Lease %s names %v, the logs %s", l.Name, l.Spec.HolderIdentity, owner[j])
		}
	}
	return owner, ""
}

// annotated checks that every ConfigMap is annotated with the owner of its
// slot, and returns what is wrong.
func annotated(t *testing.T, client kubernetes.Interface, namespace string, owner map[int]string) string {
	cms, err := client.CoreV1().ConfigMaps(namespace).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	wrong := 0
	for _, cm := range cms.Items {
		j, _ := cache.ShardIndex(cache.ShardHash(string(cm.UID)), slotCount)
		if cm.Annotations[ownerAnnotation] != owner[j] {
			wrong++
		}
	}
	if wrong > 0 {
		return fmt.Sprintf("%d of %d ConfigMaps not annotated with their slot's owner", wrong, len(cms.Items))
	}
	return ""
}

// waitForCoverage waits until the replicas own every slot, then until
// every ConfigMap is annotated with its owner, failing after
// convergeTimeout, and returns how long each took from the call.
func waitForCoverage(t *testing.T, client kubernetes.Interface, namespace string, replicas map[string]*program) (slots, objects time.Duration) {
	t.Helper()
	start := time.Now()
	var owner map[int]string
	last := ""
	for deadline := start.Add(convergeTimeout); ; time.Sleep(pollInterval) {
		if owner == nil {
			if owner, last = slotCoverage(t, client, namespace, replicas); owner != nil {
				slots = time.Since(start)
			}
		}
		if owner != nil {
			if last = annotated(t, client, namespace, owner); last == "" {
				return slots, time.Since(start)
			}
		}
		for id, p := range replicas {
			if p.hasExited() {
				t.Fatalf("%s exited: %v", id, p.err)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no coverage by %v after %v: %s", slices.Sorted(maps.Keys(replicas)), convergeTimeout, last)
		}
	}
}

// TestShardedReplicas runs examples/sharded as three replica processes over
// 300 ConfigMaps: they split the slots and annotate every ConfigMap with its
// owner; one is killed, and within the lease duration plus one list the
// other two own its slots and annotate its ConfigMaps; it comes back and
// gets its share again; all stop cleanly on SIGTERM.
func TestShardedReplicas(t *testing.T) {
	binary, err := buildSharded()
	if err != nil {
		t.Fatal(err)
	}
	cluster := env.Cluster(t)
	client := cluster.Client()
	ns := cluster.CreateNamespace(t)
	for i := range 300 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%03d", i)}}
		if _, err := client.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kubeconfig := writeKubeconfig(t, cluster.RESTConfig())
	start := func(id string) *program {
		return startProgram(t, id, binary, "-kubeconfig", kubeconfig, "-namespace", ns, "-id", id,
			"-lease-duration", leaseDuration.String(), "-slots", fmt.Sprint(slotCount))
	}
	replicas := map[string]*program{"r0": start("r0"), "r1": start("r1"), "r2": start("r2")}
	slots, objects := waitForCoverage(t, client, ns, replicas)
	t.Logf("after starting: 4 slots each after %v, every ConfigMap annotated after %v", slots.Round(time.Millisecond), objects.Round(time.Millisecond))

	killed := replicas["r1"]
	killed.signal(t, syscall.SIGKILL)
	<-killed.exited
	delete(replicas, "r1")
	slots, objects = waitForCoverage(t, client, ns, replicas)
	t.Logf("after r1 was killed: r0 and r2 own every slot after %v, every ConfigMap annotated after %v (lease duration %v)",
		slots.Round(time.Millisecond), objects.Round(time.Millisecond), leaseDuration)
	if limit := leaseDuration + 10*time.Second; objects > limit {
		t.Errorf("the ConfigMaps of the killed replica took %v to be taken over, want at most the lease duration plus one list (%v here)", objects, limit)
	}

	replicas["r1"] = start("r1")
	slots, objects = waitForCoverage(t, client, ns, replicas)
	t.Logf("after r1 came back: its 4 slots after %v, its ConfigMaps annotated after %v", slots.Round(time.Millisecond), objects.Round(time.Millisecond))

	for _, p := range replicas {
		p.signal(t, syscall.SIGTERM)
	}
	for id, p := range replicas {
		p.waitForSuccess(t, exitTimeout)
		p.requireLogged(t, "Stopped", "replica", id)
		if lines := p.errorLines(); len(lines) > 0 {
			t.Errorf("%s logged errors:\n%s", id, strings.Join(lines, "\n"))
		}
	}
}
