package shard_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-go/informer/cache"
)

// TestResharding runs two sharded informers, the replicas of a controller,
// then, while writes flow, moves them to shards 0 and 1 of 3 and starts a
// third on shard 2, in both pipelines. The moved informers must hand over
// without relisting (no update without a change reaches their handlers),
// and once the writes stop the three must hold every object, none twice,
// with every handler's view equal to its informer's store.
func TestResharding(t *testing.T) {
	const n = 3_000
	cluster := env.Cluster(t)
	useGate(t, cluster, true)
	client := newClient(t, cluster, nil)
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			ns := cluster.CreateNamespace(t)
			createConfigMaps(t, client, ns, "cm", n)
			replicas := []*shardInformer{
				startShardInformer(t, cluster, ns, "replica-0", shard(t, 0, 2), p.inOrder),
				startShardInformer(t, cluster, ns, "replica-1", shard(t, 1, 2), p.inOrder),
			}
			objects := serverObjects(t, client, ns)
			waitForShards(t, objects, replicas)
			checkPartition(t, replicas, len(objects))

			writes := startWrites(t, client, ns, "cm", n)
			writes.waitFor(t, 100)
			start := time.Now()
			for i, r := range replicas {
				if err := r.lw.SetShardSelector(shard(t, i, 3)); err != nil {
					t.Fatal(err)
				}
			}
			replicas = append(replicas, startShardInformer(t, cluster, ns, "replica-2", shard(t, 2, 3), p.inOrder))
			for i, r := range replicas {
				waitUntil(t, r.name+" to hold only shard "+fmt.Sprint(i)+" of 3", func() bool {
					return r.informer.HasSynced() && onlyShard(t, r.informer.GetStore(), i, 3)
				}, func() string { return "objects of other shards remain" })
				t.Logf("%s on shard %d of 3 after %v", r.name, i, time.Since(start).Round(time.Millisecond))
			}
			writes.waitFor(t, writes.done.Load()+100)
			writes.stop()
			t.Logf("%d writes during the test", writes.done.Load())

			objects = serverObjects(t, client, ns)
			waitForShards(t, objects, replicas)
			checkPartition(t, replicas, len(objects))
			for _, r := range replicas[:2] {
				_, calls, unchanged := r.view.snapshot()
				t.Logf("%s handler calls %v", r.name, calls)
				if unchanged > 0 {
					t.Errorf("%s: %d updates without a change: the handover relisted", r.name, unchanged)
				}
			}
		})
	}
}

func shard(t *testing.T, index, count int) sharding.Selector {
	t.Helper()
	sel, err := cache.ShardSelectorFor(cache.ShardKeyUID, index, count)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// onlyShard reports whether every object of store is in shard index of
// count.
func onlyShard(t *testing.T, store cache.Store, index, count int) bool {
	for _, obj := range store.List() {
		got, err := cache.ShardIndex(cache.ShardHash(string(obj.(*corev1.ConfigMap).UID)), count)
		if err != nil {
			t.Fatal(err)
		}
		if got != index {
			return false
		}
	}
	return true
}

// writes is a background stream of writes to the ConfigMaps prefix-*:
// mostly updates, and a create and a delete now and then.
type writes struct {
	done atomic.Int64
	stop func()
}

// startWrites starts four writers; stop (also called when the test ends)
// stops them and waits for them.
func startWrites(t *testing.T, client kubernetes.Interface, namespace, prefix string, n int) *writes {
	t.Helper()
	w := &writes{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for worker := range 4 {
		wg.Go(func() { // exits when ctx ends
			rng := rand.New(rand.NewPCG(uint64(worker), 1))
			cms := client.CoreV1().ConfigMaps(namespace)
			for op := 0; ctx.Err() == nil; op++ {
				name := fmt.Sprintf("%s-%05d", prefix, rng.IntN(n))
				var err error
				switch op % 20 {
				case 0:
					_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%d-%06d", worker, op)}}, metav1.CreateOptions{})
				case 1:
					err = cms.Delete(ctx, name, metav1.DeleteOptions{})
				default:
					var cm *corev1.ConfigMap
					if cm, err = cms.Get(ctx, name, metav1.GetOptions{}); err == nil {
						cm.Data = map[string]string{"op": fmt.Sprint(op)}
						_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
					}
				}
				switch {
				case err == nil:
					w.done.Add(1)
				case ctx.Err() == nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err):
					t.Errorf("write: %v", err)
					return
				}
			}
		})
	}
	var once sync.Once
	w.stop = func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}
	t.Cleanup(w.stop)
	return w
}

// waitFor waits until at least n writes succeeded.
func (w *writes) waitFor(t *testing.T, n int64) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%d writes", n), func() bool { return w.done.Load() >= n },
		func() string { return fmt.Sprintf("%d done", w.done.Load()) })
}
