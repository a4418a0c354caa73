package shard_test

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// shardCount is how many shards the informers of TestShardedInformers
// split the resource into.
const shardCount = 4

// TestShardedInformers runs four sharded informers in each pipeline, and
// one unsharded informer, over 10,000 ConfigMaps: first against
// kube-apiserver with the ShardedListAndWatch gate, then, after a restart
// without the gate, against the same objects with the client-side
// fallback. Each time the shards must together hold every object, none
// twice, each within ±10% of a quarter, before and after create, update and
// delete traffic (and stay disjoint while it flows). With the gate each
// sharded informer must receive at most 1.2/4 of the unsharded informer's
// bytes; without it the fallback must give the same contents.
func TestShardedInformers(t *testing.T) {
	const n = 10_000
	cluster := env.Cluster(t)
	client := cluster.Client()
	ns := cluster.CreateNamespace(t)
	start := time.Now()
	createConfigMaps(t, client, ns, "cm", n)
	t.Logf("created %d ConfigMaps in %v", n, time.Since(start).Round(time.Millisecond))
	checkPlacement(t, client, ns, shardCount)
	tr := traffic{client: client, namespace: ns, prefix: "cm", n: n}

	_, gated := runShardedPhase(t, cluster, client, ns, tr, 0, true)

	start = time.Now()
	if err := cluster.RestartAPIServerWithArgs(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// t.Context() has ended when cleanups run.
		if err := cluster.RestartAPIServerWithArgs(context.Background(), gateArgs); err != nil {
			t.Errorf("restart kube-apiserver with the gate: %v", err)
		}
	})
	t.Logf("restarted kube-apiserver without the gate in %v", time.Since(start).Round(time.Millisecond))
	fallback, _ := runShardedPhase(t, cluster, client, ns, tr, 2, false)
	for i := range gated {
		for j := range gated[i] {
			if !maps.Equal(gated[i][j], fallback[i][j]) {
				t.Errorf("%s shard %d: the fallback's contents differ from the gated server's: %s",
					pipelines[i].name, j, diffState(gated[i][j], fallback[i][j]))
			}
		}
	}
}

// checkPlacement lists each shard of count without client-side help and
// checks that cache.ShardIndex places every object the apiserver returns
// in that shard, and that the shards hold every object once.
func checkPlacement(t *testing.T, client kubernetes.Interface, namespace string, count int) {
	t.Helper()
	seen := map[string]bool{}
	for i := range count {
		sel, err := cache.ShardSelectorFor(cache.ShardKeyUID, i, count)
		if err != nil {
			t.Fatal(err)
		}
		lw := configMapListWatch(client, namespace)
		list, err := lw.ListWithContext(t.Context(), metav1.ListOptions{ShardSelector: sel.String()})
		if err != nil {
			t.Fatal(err)
		}
		if info := cache.ShardInfoOf(list); info == nil || info.Selector != sel.String() {
			t.Fatalf("shard %d: shardInfo %+v: is the ShardedListAndWatch gate on?", i, info)
		}
		for _, cm := range list.(*corev1.ConfigMapList).Items {
			index, err := cache.ShardIndex(cache.ShardHash(string(cm.UID)), count)
			if err != nil {
				t.Fatal(err)
			}
			if index != i {
				t.Errorf("the apiserver put %s (uid %s) in shard %d of %d, cache.ShardIndex says %d", keyOf(&cm), cm.UID, i, count, index)
			}
			seen[keyOf(&cm)] = true
		}
	}
	total := len(serverObjects(t, client, namespace))
	if len(seen) != total {
		t.Errorf("the shards hold %d objects, the namespace %d", len(seen), total)
	}
	t.Logf("the apiserver's placement agrees with cache.ShardIndex for %d of %d objects", len(seen), total)
}

// runShardedPhase runs shardCount sharded informers per pipeline and an
// unsharded one over namespace, checks the partition at sync, during and
// after two rounds of traffic (from round first), and returns each
// pipeline's shard contents at sync and at the end. gated says whether the
// server honours shard selectors.
func runShardedPhase(t *testing.T, cluster *apiserver.Cluster, client kubernetes.Interface, namespace string, tr traffic, first int, gated bool) (atSync, atEnd [][]state) {
	t.Helper()
	start := time.Now()
	unsharded := startShardInformer(t, cluster, namespace, "unsharded", nil, false)
	sets := make([][]*shardInformer, len(pipelines))
	for i, p := range pipelines {
		for j := range shardCount {
			sel, err := cache.ShardSelectorFor(cache.ShardKeyUID, j, shardCount)
			if err != nil {
				t.Fatal(err)
			}
			sets[i] = append(sets[i], startShardInformer(t, cluster, namespace, fmt.Sprintf("%s/shard-%d", p.name, j), sel, p.inOrder))
		}
	}
	all := append([]*shardInformer{unsharded}, flatten(sets)...)
	waitForShards(t, client, namespace, []*shardInformer{unsharded})
	atSync = make([][]state, len(sets))
	for i, set := range sets {
		waitForShards(t, client, namespace, set)
		total := len(serverObjects(t, client, namespace))
		checkPartition(t, set, total)
		for _, s := range set {
			atSync[i] = append(atSync[i], storeState(s.informer.GetStore()))
		}
	}
	t.Logf("gate %v: %d informers synced in %v", gated, len(all), time.Since(start).Round(time.Millisecond))

	// Traffic, with the shards checked for overlaps while it flows.
	start = time.Now()
	stopSampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() { sampleDisjoint(t, sets, stopSampling) }) // exits when stopSampling closes
	for round := first; round < first+2; round++ {
		tr.round(t, round, 250, 8, 10)
	}
	close(stopSampling)
	sampler.Wait()
	t.Logf("gate %v: traffic written in %v", gated, time.Since(start).Round(time.Millisecond))
	waitForShards(t, client, namespace, []*shardInformer{unsharded})
	atEnd = make([][]state, len(sets))
	for i, set := range sets {
		waitForShards(t, client, namespace, set)
		checkPartition(t, set, len(serverObjects(t, client, namespace)))
		for _, s := range set {
			atEnd[i] = append(atEnd[i], storeState(s.informer.GetStore()))
		}
	}
	t.Logf("gate %v: converged %v after the traffic", gated, time.Since(start).Round(time.Millisecond))

	reference := unsharded.bytes.n.Load()
	_, refCalls, _ := unsharded.view.snapshot()
	for _, set := range sets {
		for _, s := range set {
			ratio := float64(s.bytes.n.Load()) / float64(reference)
			_, calls, unchanged := s.view.snapshot()
			t.Logf("gate %v: %s received %d bytes, %.3f of the unsharded informer's %d; handler calls %v (unsharded %v), %d unchanged updates",
				gated, s.name, s.bytes.n.Load(), ratio, reference, calls, refCalls, unchanged)
			if gated && ratio > 1.2/shardCount {
				t.Errorf("%s received %.3f of the unsharded informer's bytes, want at most %.3f", s.name, ratio, 1.2/shardCount)
			}
			if got := s.lw.ClientSideFiltering(); got == gated {
				t.Errorf("%s: ClientSideFiltering() = %v with the gate %v", s.name, got, gated)
			}
		}
	}
	for _, s := range all {
		s.stop()
	}
	return atSync, atEnd
}

// sampleDisjoint checks every 200ms, until stop closes, that no object is
// in two shards of a set.
func sampleDisjoint(t *testing.T, sets [][]*shardInformer, stop <-chan struct{}) {
	samples := 0
	defer func() { t.Logf("checked the shards for overlaps %d times during the traffic", samples) }()
	for {
		select {
		case <-stop:
			return
		case <-time.After(200 * time.Millisecond):
		}
		samples++
		for _, set := range sets {
			owner := map[string]string{}
			for _, s := range set {
				for _, k := range s.informer.GetStore().ListKeys() {
					if other, ok := owner[k]; ok {
						t.Errorf("during the traffic %s was in %s and %s", k, other, s.name)
					}
					owner[k] = s.name
				}
			}
		}
	}
}

func flatten(sets [][]*shardInformer) []*shardInformer {
	var all []*shardInformer
	for _, set := range sets {
		all = append(all, set...)
	}
	return all
}
