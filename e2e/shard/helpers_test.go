package shard_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/e2e/internal/apiserver"
	"github.com/informer-go/informer/e2e/internal/objects"
)

// convergeTimeout bounds every wait for informers to catch up with the
// server: generous, for a loaded two-core machine running the race detector.
const convergeTimeout = 3 * time.Minute

// pollInterval is how often the tests check a condition they wait for.
const pollInterval = 100 * time.Millisecond

// pipelines are the two queue modes every informer scenario runs in.
var pipelines = []struct {
	name    string
	inOrder bool
}{
	{name: "DeltaFIFO"},
	{name: "InOrder", inOrder: true},
}

// testContext returns a context that ends with the test and logs to it at
// verbosity 2 (lifecycle messages and the shard fallback, not one line per
// object).
func testContext(t *testing.T) context.Context {
	t.Helper()
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(2)))
	return klog.NewContext(t.Context(), logger)
}

// state is the contents of a store or of the server: resourceVersion by
// namespace/name.
type state map[string]string

func keyOf(cm *corev1.ConfigMap) string { return cm.Namespace + "/" + cm.Name }

// storeState returns the contents of store.
func storeState(store cache.Store) state {
	s := state{}
	for _, obj := range store.List() {
		cm := obj.(*corev1.ConfigMap)
		s[keyOf(cm)] = cm.ResourceVersion
	}
	return s
}

// serverObjects lists the ConfigMaps of namespace, unsharded.
func serverObjects(t *testing.T, client kubernetes.Interface, namespace string) []corev1.ConfigMap {
	t.Helper()
	list, err := client.CoreV1().ConfigMaps(namespace).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list configmaps: %v", err)
	}
	return list.Items
}

// shardStates splits objects into count shards by cache.ShardIndex of
// their uid.
func shardStates(t *testing.T, objects []corev1.ConfigMap, count int) []state {
	t.Helper()
	shards := make([]state, count)
	for i := range shards {
		shards[i] = state{}
	}
	for i := range objects {
		index, err := cache.ShardIndex(cache.ShardHash(string(objects[i].UID)), count)
		if err != nil {
			t.Fatal(err)
		}
		shards[index][keyOf(&objects[i])] = objects[i].ResourceVersion
	}
	return shards
}

// parallel runs do(0), ..., do(n-1) on workers goroutines and fails the
// test with the first error.
func parallel(t *testing.T, n, workers int, do func(i int) error) {
	t.Helper()
	if err := objects.Parallel(n, workers, do); err != nil {
		t.Fatal(err)
	}
}

// createConfigMaps creates ConfigMaps prefix-00000 ... in namespace, each
// with about 100 bytes of data.
func createConfigMaps(t *testing.T, client kubernetes.Interface, namespace, prefix string, n int) {
	t.Helper()
	cms := client.CoreV1().ConfigMaps(namespace)
	parallel(t, n, 32, func(i int) error {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%05d", prefix, i)},
			Data:       map[string]string{"value": fmt.Sprintf("%0100d", i)},
		}
		_, err := cms.Create(context.Background(), cm, metav1.CreateOptions{})
		return err
	})
}

// traffic writes to the ConfigMaps prefix-00000 ... prefix-(n-1) of
// namespace: round by round, it creates extra-<round>-<i>, updates and
// deletes some of the originals, and rewrites the rest.
type traffic struct {
	client    kubernetes.Interface
	namespace string
	prefix    string
	n         int
}

// round runs one round of writes on 16 goroutines: creates of new objects,
// and for every step-th original (offset by the round) a delete when its
// index is a multiple of del, else an update (originals deleted in an
// earlier round are skipped).
func (tr traffic) round(t *testing.T, round, creates, step, del int) {
	t.Helper()
	cms := tr.client.CoreV1().ConfigMaps(tr.namespace)
	ctx := context.Background()
	parallel(t, creates, 16, func(i int) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("extra-%d-%05d", round, i)}}
		_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
		return err
	})
	first := round % step
	parallel(t, (tr.n-first+step-1)/step, 16, func(j int) error {
		i := first + j*step
		name := fmt.Sprintf("%s-%05d", tr.prefix, i)
		if i%del == 0 {
			err := cms.Delete(ctx, name, metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}
		// An unconditional update: ConfigMaps allow it, and it spares a
		// read.
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"value": fmt.Sprintf("round %d", round)}}
		_, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}

// byteCounter counts the bytes of the response bodies of one client.
type byteCounter struct{ n atomic.Int64 }

// clientFor returns a clientset of cluster whose response bytes c counts.
func (c *byteCounter) clientFor(t *testing.T, cluster *apiserver.Cluster) kubernetes.Interface {
	t.Helper()
	return newClient(t, cluster, func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt: rt, n: &c.n} })
}

// newClient returns a clientset of cluster that speaks protobuf (cheaper
// to decode than JSON for the thousands of objects the tests list),
// wrapped by wrap if not nil.
func newClient(t *testing.T, cluster *apiserver.Cluster, wrap func(http.RoundTripper) http.RoundTripper) kubernetes.Interface {
	t.Helper()
	cfg := cluster.RESTConfig()
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	if wrap != nil {
		cfg.Wrap(wrap)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

type countingTransport struct {
	rt http.RoundTripper
	n  *atomic.Int64
}

func (c countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(req)
	if err == nil && resp.Body != nil {
		resp.Body = countingBody{ReadCloser: resp.Body, n: c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// configMapListWatch lists and watches the ConfigMaps of namespace.
func configMapListWatch(client kubernetes.Interface, namespace string) *cache.ListWatch {
	cms := client.CoreV1().ConfigMaps(namespace)
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return cms.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return cms.Watch(ctx, opts)
		},
	}
}

// view is a handler that keeps what its calls say the informer holds, and
// counts the calls by kind; an update whose object kept its
// resourceVersion (a relist's) counts apart.
type view struct {
	mu        sync.Mutex
	objects   state          // guarded by mu
	calls     map[string]int // guarded by mu
	unchanged int            // guarded by mu
}

func newView() *view { return &view{objects: state{}, calls: map[string]int{}} }

func (v *view) OnAdd(obj any, _ bool) {
	cm := obj.(*corev1.ConfigMap)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.objects[keyOf(cm)] = cm.ResourceVersion
	v.calls["add"]++
}

func (v *view) OnUpdate(oldObj, newObj any) {
	old, cm := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.objects[keyOf(cm)] = cm.ResourceVersion
	v.calls["update"]++
	if old.ResourceVersion == cm.ResourceVersion {
		v.unchanged++
	}
}

func (v *view) OnDelete(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	cm := obj.(*corev1.ConfigMap)
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.objects, keyOf(cm))
	v.calls["delete"]++
}

// snapshot returns the view's state, its call counts and the number of
// unchanged updates.
func (v *view) snapshot() (state, map[string]int, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.objects), maps.Clone(v.calls), v.unchanged
}

// shardInformer is one informer on a shard, with what it received.
type shardInformer struct {
	name     string
	lw       *cache.ShardedListWatch
	informer cache.SharedIndexInformer
	view     *view
	bytes    *byteCounter
	stop     func()
}

// startShardInformer starts an informer of namespace's ConfigMaps on the
// shard sel (everything when nil) with its own byte-counting client; it
// stops when the test ends or stop is called.
func startShardInformer(t *testing.T, cluster *apiserver.Cluster, namespace, name string, sel sharding.Selector, inOrder bool) *shardInformer {
	t.Helper()
	s := &shardInformer{name: name, view: newView(), bytes: &byteCounter{}}
	client := s.bytes.clientFor(t, cluster)
	lw, err := cache.NewShardedListWatch(configMapListWatch(client, namespace), sel, cache.ShardedListWatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.lw = lw
	s.informer = cache.NewSharedIndexInformerWithOptions(lw, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{InOrder: inOrder})
	if _, err := s.informer.AddEventHandler(s.view); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan struct{})
	go func() { // exits when ctx ends
		defer close(done)
		s.informer.RunWithContext(ctx)
	}()
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(s.stop)
	return s
}

// waitUntil polls cond until it holds, failing the test after
// convergeTimeout with what describe says.
func waitUntil(t *testing.T, what string, cond func() bool, describe func() string) {
	t.Helper()
	deadline := time.Now().Add(convergeTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %s", convergeTimeout, what, describe())
		}
		time.Sleep(pollInterval)
	}
}

// diffState describes how got differs from want, briefly.
func diffState(want, got state) string {
	var missing, extra, stale []string
	for k, rv := range want {
		switch g, ok := got[k]; {
		case !ok:
			missing = append(missing, k)
		case g != rv:
			stale = append(stale, k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	slices.Sort(stale)
	return fmt.Sprintf("%d missing %v, %d extra %v, %d stale %v", len(missing), head(missing), len(extra), head(extra), len(stale), head(stale))
}

func head(keys []string) []string {
	return keys[:min(len(keys), 5)]
}

// waitForShards waits until each informer's store holds exactly its shard
// of objects, the server's current state, and its handler's view equals
// its store.
func waitForShards(t *testing.T, objects []corev1.ConfigMap, informers []*shardInformer) {
	t.Helper()
	want := shardStates(t, objects, len(informers))
	for i, s := range informers {
		waitUntil(t, s.name+" to hold its shard", func() bool {
			return maps.Equal(want[i], storeState(s.informer.GetStore()))
		}, func() string { return diffState(want[i], storeState(s.informer.GetStore())) })
		waitUntil(t, s.name+"'s handler to see its store", func() bool {
			v, _, _ := s.view.snapshot()
			return maps.Equal(v, storeState(s.informer.GetStore()))
		}, func() string {
			v, _, _ := s.view.snapshot()
			return diffState(storeState(s.informer.GetStore()), v)
		})
	}
}

// checkPartition checks that the informers' stores are pairwise disjoint
// and together hold total objects, each within ±10% of an equal share.
func checkPartition(t *testing.T, informers []*shardInformer, total int) {
	t.Helper()
	owner := map[string]string{}
	sizes := make([]int, len(informers))
	for i, s := range informers {
		keys := s.informer.GetStore().ListKeys()
		sizes[i] = len(keys)
		for _, k := range keys {
			if other, ok := owner[k]; ok {
				t.Errorf("%s is held by %s and %s", k, other, s.name)
			}
			owner[k] = s.name
		}
	}
	if len(owner) != total {
		t.Errorf("the shards hold %d objects together, want %d", len(owner), total)
	}
	share := float64(total) / float64(len(informers))
	for i, n := range sizes {
		if float64(n) < 0.9*share || float64(n) > 1.1*share {
			t.Errorf("%s holds %d objects, outside ±10%% of %.0f", informers[i].name, n, share)
		}
	}
	t.Logf("shard sizes %v of %d (share %.0f)", sizes, total, share)
}
