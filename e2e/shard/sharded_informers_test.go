package shard_test

import (
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// shardCount is how many shards the informers of TestShardedInformers
// split the resource into.
const shardCount = 4

// TestShardedInformers runs four sharded informers in each pipeline over
// 10,000 ConfigMaps: first against kube-apiserver with the
// ShardedListAndWatch gate, next to an unsharded informer, then, after a
// restart without the gate, against the same objects with the client-side
// fallback. Each time the shards must together hold every object, none
// twice, each within ±10% of a quarter, before and after create, update and
// delete traffic (and stay disjoint while it flows). With the gate each
// sharded informer must receive at most 1.2/4 of the unsharded informer's
// bytes; without it the fallback must give the same contents.
func TestShardedInformers(t *testing.T) {
	const n = 10_000
	cluster := env.Cluster(t)
	useGate(t, cluster, true)
	client := newClient(t, cluster, nil)
	ns := cluster.CreateNamespace(t)
	start := time.Now()
	createConfigMaps(t, client, ns, "cm", n)
	t.Logf("created %d ConfigMaps in %v", n, time.Since(start).Round(time.Millisecond))
	checkPlacement(t, client, ns, shardCount)
	tr := traffic{client: client, namespace: ns, prefix: "cm", n: n}

	_, gated := runShardedPhase(t, cluster, client, ns, tr, 0, true)
	useGate(t, cluster, false)
	fallback, _ := runShardedPhase(t, cluster, client, ns, tr, 1, false)
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
		list, err := client.CoreV1().ConfigMaps(namespace).List(t.Context(), metav1.ListOptions{ShardSelector: sel.String()})
		if err != nil {
			t.Fatal(err)
		}
		if info := cache.ShardInfoOf(list); info == nil || info.Selector != sel.String() {
			t.Fatalf("shard %d: shardInfo %+v: is the ShardedListAndWatch gate on?", i, info)
		}
		for _, cm := range list.Items {
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

// runShardedPhase runs shardCount sharded informers per pipeline over
// namespace, with the gate next to an unsharded one, checks the partition
// at sync, during and after a round of traffic, and returns each
// pipeline's shard contents at sync and at the end. gated says whether the
// server honours shard selectors.
func runShardedPhase(t *testing.T, cluster *apiserver.Cluster, client kubernetes.Interface, namespace string, tr traffic, round int, gated bool) (atSync, atEnd [][]state) {
	t.Helper()
	start := time.Now()
	var unsharded *shardInformer
	var all []*shardInformer
	if gated {
		unsharded = startShardInformer(t, cluster, namespace, "unsharded", nil, false)
		all = append(all, unsharded)
	}
	sets := make([][]*shardInformer, len(pipelines))
	for i, p := range pipelines {
		for j := range shardCount {
			sel, err := cache.ShardSelectorFor(cache.ShardKeyUID, j, shardCount)
			if err != nil {
				t.Fatal(err)
			}
			sets[i] = append(sets[i], startShardInformer(t, cluster, namespace, fmt.Sprintf("%s/shard-%d", p.name, j), sel, p.inOrder))
		}
		all = append(all, sets[i]...)
	}
	atSync = checkSets(t, client, namespace, unsharded, sets)
	t.Logf("gate %v: %d informers synced in %v", gated, len(all), time.Since(start).Round(time.Millisecond))

	// Traffic, with the shards checked for overlaps while it flows.
	start = time.Now()
	stopSampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() { sampleDisjoint(t, sets, stopSampling) }) // exits when stopSampling closes
	tr.round(t, round, 250, 10, 7)
	close(stopSampling)
	sampler.Wait()
	t.Logf("gate %v: traffic written in %v", gated, time.Since(start).Round(time.Millisecond))
	atEnd = checkSets(t, client, namespace, unsharded, sets)
	t.Logf("gate %v: converged %v after the traffic started", gated, time.Since(start).Round(time.Millisecond))

	for _, set := range sets {
		for _, s := range set {
			_, calls, unchanged := s.view.snapshot()
			t.Logf("gate %v: %s received %d bytes; handler calls %v, %d unchanged updates", gated, s.name, s.bytes.n.Load(), calls, unchanged)
			if unsharded != nil {
				ratio := float64(s.bytes.n.Load()) / float64(unsharded.bytes.n.Load())
				t.Logf("gate %v: %s received %.3f of the unsharded informer's %d bytes", gated, s.name, ratio, unsharded.bytes.n.Load())
				if ratio > 1.2/shardCount {
					t.Errorf("%s received %.3f of the unsharded informer's bytes, want at most %.3f", s.name, ratio, 1.2/shardCount)
				}
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

// checkSets waits until the unsharded informer (if any) holds the server's
// state and each set of sharded informers its shards, checks the
// partition, and returns each set's contents.
func checkSets(t *testing.T, client kubernetes.Interface, namespace string, unsharded *shardInformer, sets [][]*shardInformer) [][]state {
	t.Helper()
	objects := serverObjects(t, client, namespace)
	if unsharded != nil {
		waitForShards(t, objects, []*shardInformer{unsharded})
	}
	contents := make([][]state, len(sets))
	for i, set := range sets {
		waitForShards(t, objects, set)
		checkPartition(t, set, len(objects))
		for _, s := range set {
			contents[i] = append(contents[i], storeState(s.informer.GetStore()))
		}
	}
	return contents
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
