package cache

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The restart-from-snapshot schedules of the chaos test (issue 24): a third
// of the seeds with a shared informer keep a snapshot, taken every few
// seconds of the run's time mid-chaos, and restart the informer from it one
// to three times. A restart heals the faults, stops the informer (which
// writes its snapshot), or crashes it (the last periodic snapshot stays, or
// none), writes while it is down, sometimes compacts the server past the
// snapshot's version, and runs a new informer with new handlers from the
// snapshot; it then checks, as at the end of a run, that store, handlers'
// views and LastSyncResourceVersion converge on the server.

// stepRestart restarts the informer from its snapshot.
const stepRestart stepKind = "restarted from its snapshot"

// The ways down of a restart, picked by chaosStep.target modulo 4.
const (
	restartClean   = 0 // a clean stop: the snapshot is written at stop
	restartCrash   = 1 // the snapshot at stop is lost: the last periodic one stays
	restartCompact = 2 // a clean stop, and the server compacts while it is down
)

// planSnapshots gives cfg a snapshot and steps restarts from it, for a third
// of the seeds with a shared informer. It draws from a generator of its own,
// so that the schedules of other seeds do not change.
func planSnapshots(cfg *chaosConfig, steps []chaosStep) []chaosStep {
	rng := rand.New(rand.NewPCG(cfg.seed, 0x736e6170)) // "snap"
	if cfg.lowLevel || rng.IntN(3) != 0 {
		return steps
	}
	cfg.snapshot = &SnapshotOptions{
		ClusterIdentity: "chaos",
		LabelSelector:   cfg.labelSelector,
		Interval:        time.Duration(2+rng.IntN(30)) * time.Second,
	}
	for range 1 + rng.IntN(3) {
		s := chaosStep{
			delay:  time.Duration(rng.IntN(5000)) * time.Millisecond,
			kind:   stepRestart,
			n:      rng.IntN(15),                                      // writes while down
			d:      time.Duration(rng.IntN(30000)) * time.Millisecond, // downtime
			target: rng.IntN(4),                                       // how it goes down
		}
		steps = slices.Insert(steps, rng.IntN(len(steps)+1), s)
	}
	return steps
}

// snapshotOptions returns the run's snapshot options, their path in the
// test's temporary directory; nil without.
func (r *chaosRun) snapshotOptions() *SnapshotOptions {
	if r.cfg.snapshot != nil && r.cfg.snapshot.Path == "" {
		r.cfg.snapshot.Path = filepath.Join(r.t.TempDir(), "snapshot")
	}
	return r.cfg.snapshot
}

// restartFromSnapshot carries out s, a stepRestart.
func (r *chaosRun) restartFromSnapshot(s chaosStep) {
	if r.stopped || r.inf == nil || r.cfg.snapshot == nil {
		return
	}
	r.heal()
	path := r.snapshotOptions().Path
	way := s.target % 4
	saved, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.problem("read the snapshot: %v", err)
	}
	r.stop()
	if st := r.inf.SyncStatus().Snapshot; st.WriteFailures > 0 {
		r.problem("snapshot writes failed: %+v", st)
	}
	if way == restartCrash {
		r.stats.effects["restarts after a crash"]++
		if saved == nil {
			err = os.Remove(path)
		} else {
			err = os.WriteFile(path, saved, 0o600)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.problem("restore the snapshot: %v", err)
		}
	}
	// A snapshot is only as good as the cache was: one taken after the
	// server dropped events and before the forced relist that repairs them
	// completed (a periodic one restored after a crash, or the one at a
	// stop that interrupted the relist) holds the loss. The server repairs
	// lost events as it does for a running informer, by failing the watch
	// that resumes from before the repair.
	if slices.ContainsFunc(r.steps, func(s chaosStep) bool { return s.kind == stepDropEvents }) {
		r.lw.forceRelist.Store(true)
	}
	r.write(s.n)
	r.sleep(s.d)
	if way == restartCompact {
		r.srv.Compact()
	}

	ctx, cancel := context.WithCancel(r.ctx)
	r.runCancel, r.runDone = cancel, make(chan struct{})
	r.stopped = false
	indexers := Indexers{}
	for _, ix := range chaosIndexers[:r.nextIndexer] {
		indexers[ix.name] = ix.fn
	}
	r.startSharedInformer(ctx, indexers)
	r.converge()
	st := r.inf.SyncStatus().Snapshot
	switch {
	case st.ResumedAt != "" && st.NotLoaded == "":
		r.stats.effects["restarts resumed without a list"]++
	case st.ResumedAt != "":
		r.stats.effects["restarts resumed, then listed"]++
	default:
		r.stats.effects["restarts that listed ("+st.NotLoaded+")"]++
	}
}

// heldShardSelector implements shardHolder: the snapshot of a sharded run
// records the shard of its ShardedListWatch.
func (c *chaosLW) heldShardSelector() string {
	if s, ok := c.inner.(*ShardedListWatch); ok {
		return s.heldShardSelector()
	}
	return ""
}
