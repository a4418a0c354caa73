package bench

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-go/informer/e2e/internal/objects"
)

// configMaps is the number of ConfigMaps the informers sync.
const configMaps = 5000

// syncTimeout bounds one sync, on a loaded machine.
const syncTimeout = 5 * time.Minute

// BenchmarkInitialSync measures, for each library, the time from starting an
// informer until its HasSynced and until its handler has every one of
// 5,000 ConfigMaps (5 labels, 1 KiB of data each), by a plain list
// (path=list) and by a streaming list (path=streaming). Every iteration
// syncs once with each library, in an order that rotates between
// iterations; run it with -benchtime=5x for 5 rounds. A first, unmeasured
// sync with each library warms up the server and the connection.
//
// Metrics (see measureRounds): the median over the iterations of each
// library's times, in ms (<library>-synced-ms, <library>-handled-ms), and
// their ratio to client-go's (<library>-synced-ratio,
// <library>-handled-ratio).
func BenchmarkInitialSync(b *testing.B) {
	cluster := env.Cluster(b)
	client := cluster.Client()
	ns := cluster.CreateNamespace(b)
	start := time.Now()
	if err := objects.CreateConfigMaps(b.Context(), client, ns, configMaps); err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d ConfigMaps in %v", configMaps, time.Since(start).Round(time.Millisecond))

	for _, streaming := range []bool{false, true} {
		path := "list"
		if streaming {
			path = "streaming"
		}
		b.Run("path="+path, func(b *testing.B) {
			measureRounds(b, libraries, func(lib library) ([]metric, error) {
				synced, handled, err := syncOnce(client, ns, lib, streaming)
				return []metric{
					{name: "synced", unit: "ms", value: float64(synced) / float64(time.Millisecond)},
					{name: "handled", unit: "ms", value: float64(handled) / float64(time.Millisecond)},
				}, err
			})
		})
	}
}

// syncOnce syncs an informer of lib over the ConfigMaps of ns and returns
// the time until its HasSynced and until its handler had every ConfigMap.
// It checks that the informer listed the way streaming asks for.
func syncOnce(client kubernetes.Interface, ns string, lib library, streaming bool) (synced, handled time.Duration, err error) {
	runtime.GC()
	cms := client.CoreV1().ConfigMaps(ns)
	lw := newCountingListWatch(cms.List, cms.Watch, !streaming)
	synced, handled, stop, err := syncWith(lib, lw, &corev1.ConfigMap{}, configMaps)
	if err != nil {
		return 0, 0, err
	}
	defer stop()
	lists, streams := lw.lists.Load(), lw.streams.Load()
	if streaming && (lists != 0 || streams != 1) || !streaming && (lists != 1 || streams != 0) {
		return 0, 0, fmt.Errorf("%d lists and %d streaming lists, want %s", lists, streams, map[bool]string{true: "one streaming list", false: "one list"}[streaming])
	}
	return synced, handled, nil
}
