package restart_test

import (
	"testing"
	"time"

	"github.com/informer-go/informer/e2e/internal/downtime"
	"github.com/informer-go/informer/e2e/internal/objects"
)

const (
	// configMaps is the number of ConfigMaps in the namespace: fewer
	// than the benchmark's 20,000, for the race detector on a shared
	// machine, but a list of several MB.
	configMaps = 5000
	// changes is the number of writes while the informers are down.
	changes = 300
	// downtime is how long they are down: the benchmark's 30s matters
	// for the numbers, not for what the handlers see.
	downtimeLength = 3 * time.Second
	// timeout bounds every wait for an informer.
	timeout = 3 * time.Minute
)

// TestRestart restarts every library after a downtime within the watch
// window, then after one past it, and checks each library's store and
// handler against the server and against the outcome it promises (see
// downtime.Outcome): client-go and informer-go without a snapshot list
// once and deliver every object as the initial list; informer-go from a
// snapshot delivers the restored objects as the initial list, then
// exactly the changes with no list, or, past the window, one list and
// its differences.
func TestRestart(t *testing.T) {
	cluster := env.Cluster(t)
	ns := cluster.CreateNamespace(t)
	if err := objects.CreateConfigMaps(t.Context(), cluster.Client(), ns, configMaps); err != nil {
		t.Fatal(err)
	}
	var runnable []downtime.Library
	for _, lib := range downtime.Libraries() {
		if lib.Skip != "" {
			t.Run(lib.Name, func(t *testing.T) { t.Skip(lib.Skip) })
			continue
		}
		runnable = append(runnable, lib)
	}
	snapshots := t.TempDir()
	for i, window := range []struct {
		name string
		past bool
	}{{"within-window", false}, {"past-window", true}} {
		t.Run(window.name, func(t *testing.T) {
			s := downtime.Scenario{
				Cluster:     cluster,
				Namespace:   ns,
				Changes:     changes,
				Downtime:    downtimeLength,
				PastWindow:  window.past,
				Seed:        uint64(i),
				SnapshotDir: snapshots,
				Timeout:     timeout,
				Logf:        t.Logf,
			}
			results, err := s.Run(t.Context(), runnable)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range results {
				t.Run(r.Library, func(t *testing.T) {
					if r.Err != nil {
						t.Errorf("%s restarted (%s expected): %v\nrequests: %q", r.Library, r.Outcome, r.Err, r.Requests)
					}
					// The outcomes are told apart: what one library did
					// fails the check of every other outcome.
					for _, other := range []downtime.Outcome{downtime.Relist, downtime.Resume, downtime.ResumeThenRelist} {
						if other != r.Outcome && downtime.Check(other, r.Observation) == nil {
							t.Errorf("%s restarted: what it did passes as a %s too, not only as a %s", r.Library, other, r.Outcome)
						}
					}
				})
			}
		})
	}
}
