package bench

import (
	"flag"
	"sync/atomic"
	"testing"
	"time"

	"github.com/informer-go/informer/e2e/internal/downtime"
	"github.com/informer-go/informer/e2e/internal/objects"
)

// restartDowntime is how long BenchmarkRestart keeps the informers down.
var restartDowntime = flag.Duration("restart.downtime", 30*time.Second,
	"how long BenchmarkRestart keeps the informers down while it writes the changes")

const (
	// restartConfigMaps is the number of ConfigMaps of BenchmarkRestart.
	restartConfigMaps = 20_000
	// restartChanges is the number of writes while the informers are
	// down.
	restartChanges = 300
)

// restartSeeds numbers the scenarios of the process, so that no two write
// the same names.
var restartSeeds atomic.Uint64

// BenchmarkRestart measures the restart of an informer of 20,000
// ConfigMaps (5 labels, 1 KiB of data each) after a downtime (30s, or
// -restart.downtime) during which 300 of them are created, updated and
// deleted (package downtime): within the server's watch window
// (downtime=within-window) and past it, etcd compacted and kube-apiserver
// restarted (downtime=past-window). Every iteration is one downtime: each
// library syncs and stops, the changes are written, and each starts again
// with a new handler, in an order that rotates between iterations; run it
// with -benchtime=5x for 5 rounds. An iteration fails when a library's
// store or handler does not end equal to the server, or its lists and
// handler calls are not the outcome it promises (downtime.Check).
//
// The libraries are client-go v0.37.2, informer-go in both pipelines,
// informer-go resuming from objects kept in memory (an emulation of a
// resume with today's API: a lower bound, with no file to read), and
// informer-go restarted from its snapshot (cache.SnapshotOptions).
//
// Metrics, the median over the rounds for each library and its ratio to
// client-go's: lists, the lists of any kind until the informer stopped;
// wire-MB, the bytes its connections received from Run until its store
// equalled the server; body-MB, the bytes of the response bodies until
// then, after gzip; equal-ms, the time from Run until the store equalled
// the server; handled-ms, until the handler's view did.
func BenchmarkRestart(b *testing.B) {
	cluster := env.Cluster(b)
	ns := cluster.CreateNamespace(b)
	start := time.Now()
	if err := objects.CreateConfigMaps(b.Context(), cluster.Client(), ns, restartConfigMaps); err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d ConfigMaps in %v", restartConfigMaps, time.Since(start).Round(time.Millisecond))
	var libs []downtime.Library
	for _, lib := range downtime.Libraries() {
		if lib.Skip != "" {
			b.Logf("%s skipped: %s", lib.Name, lib.Skip)
			continue
		}
		libs = append(libs, lib)
	}
	snapshots := b.TempDir()

	for _, past := range []bool{false, true} {
		window := "within-window"
		if past {
			window = "past-window"
		}
		b.Run("downtime="+window, func(b *testing.B) {
			var m medians
			round := 0
			for b.Loop() {
				order := append(libs[round%len(libs):len(libs):len(libs)], libs[:round%len(libs)]...)
				s := downtime.Scenario{
					Cluster:     cluster,
					Namespace:   ns,
					Changes:     restartChanges,
					Downtime:    *restartDowntime,
					PastWindow:  past,
					Seed:        restartSeeds.Add(1),
					SnapshotDir: snapshots,
					Timeout:     syncTimeout,
				}
				results, err := s.Run(b.Context(), order)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range results {
					b.Logf("%s: %v", r.Library, r)
					if r.Err != nil {
						b.Fatalf("%s restarted (%s expected): %v", r.Library, r.Outcome, r.Err)
					}
					m.add(r.Library, []metric{
						{name: "lists", unit: "n", value: float64(r.Total.Lists)},
						{name: "wire", unit: "MB", value: float64(r.UntilEqual.WireBytes) / 1e6},
						{name: "body", unit: "MB", value: float64(sum(r.UntilEqual.BodyBytes[:])) / 1e6},
						{name: "equal", unit: "ms", value: float64(r.Equal) / float64(time.Millisecond)},
						{name: "handled", unit: "ms", value: float64(r.Handled) / float64(time.Millisecond)},
					})
				}
				round++
			}
			names := make([]string, len(libs))
			for i, lib := range libs {
				names[i] = lib.Name
			}
			m.report(b, names)
		})
	}
}

func sum(vs []int64) int64 {
	var s int64
	for _, v := range vs {
		s += v
	}
	return s
}
