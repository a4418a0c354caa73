package cache

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// The chaos test's flags. make test runs the defaults; make chaos runs
// thousands of seeds; a failure prints the flags that replay it.
var (
	chaosSeed      = flag.Uint64("chaos.seed", 0, "TestChaos: run only this seed (0: the range of -chaos.first and -chaos.schedules)")
	chaosFirst     = flag.Uint64("chaos.first", 1, "TestChaos: the first seed")
	chaosSchedules = flag.Int("chaos.schedules", 300, "TestChaos: the number of seeds per pipeline")
	chaosV         = flag.Int("chaos.v", 1, "TestChaos: the verbosity of the logs a failing run prints")
	chaosSummary   = flag.Bool("chaos.summary", false, "TestChaos: print the statistics of each pipeline to stdout (they are logged anyway)")
)

// TestChaos proves the informer's promise, eventual consistency, under
// randomized faults. Each seed picks an informer (shared, with handlers
// added before Run, or low-level with one handler), a server (streaming
// lists, paginated lists, or a server that ignores sendInitialEvents; short
// pages; small watch buffers; short histories; periodic bookmarks), a source
// (label selector, shard) and a schedule: random writes to the in-memory
// apiserver interleaved with every fault the server can inject and with
// handlers that panic, stall, add handlers, remove and shut down themselves
// and each other, indexes added mid-run, shards moved, and sometimes the
// informer stopped mid-chaos. Every seed runs in both pipelines; most on
// virtual time in a synctest bubble, one in thirty-two (for shared informers)
// in real time on a clock a hundred times faster than the wall clock.
//
// Every handler call is checked at once (chaosHandler): per object,
// resource versions never go down, OnUpdate's old object is the last state
// the handler saw, no add for an object the handler has, no delete for one
// it lacks, no call once the handler was removed (beyond the one that may
// have been dispatched while RemoveEventHandler ran) or shut down. Once the
// schedule ends, the faults clear and, within fifteen minutes of the run's
// time, the store must equal the server (keys, resource versions, uids), the
// informer's LastSyncResourceVersion the server's, every index the index
// function applied to the store, the informer and every registration must
// have synced, and every handler's view must equal the store. At the end Run
// returns, no goroutine is left and no panic came from the library.
func TestChaos(t *testing.T) {
	seeds := make([]uint64, 0, *chaosSchedules)
	if *chaosSeed != 0 {
		seeds = append(seeds, *chaosSeed)
	} else {
		for i := range uint64(*chaosSchedules) {
			seeds = append(seeds, *chaosFirst+i)
		}
	}
	installChaosPanicHandler(t)

	for _, mode := range queueModes {
		totals := newChaosStats()
		var mu sync.Mutex
		t.Run(mode.name, func(t *testing.T) {
			run := func(t *testing.T, seed uint64) {
				// Logged first, for a run that panics or hangs.
				replay := fmt.Sprintf("go test -race ./cache -run 'TestChaos/%s/' -chaos.seed=%d -chaos.v=4 -v", mode.name, seed)
				t.Log("replay: " + replay)
				stats := runChaos(t, seed, mode.inOrder, replay)
				mu.Lock()
				defer mu.Unlock()
				totals.add(stats)
			}
			// Real-time runs go first, one at a time, so that the
			// goroutine leak check sees no other run's goroutines; the
			// virtual-time runs then run in parallel, each in its bubble.
			for _, seed := range seeds {
				if cfg, _ := chaosPlan(seed, mode.inOrder); cfg.realTime {
					t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { run(t, seed) })
				}
			}
			for _, seed := range seeds {
				if cfg, _ := chaosPlan(seed, mode.inOrder); !cfg.realTime {
					t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
						t.Parallel()
						synctest.Test(t, func(t *testing.T) { run(t, seed) })
					})
				}
			}
		})
		summary := fmt.Sprintf("%s: %s", mode.name, totals.summary(seeds))
		t.Log(summary)
		if *chaosSummary {
			fmt.Println(summary)
		}
	}
}

// runChaos runs seed in one pipeline and reports its failures with the
// command that replays it.
func runChaos(t *testing.T, seed uint64, inOrder bool, replay string) *chaosStats {
	r := newChaosRun(t, seed, inOrder, *chaosV)
	var before goleak.Option
	if r.cfg.realTime {
		before = goleak.IgnoreCurrent()
	}
	failures := r.run()
	if r.cfg.realTime {
		goleak.VerifyNone(t, before)
	}
	if len(failures) > 0 {
		var steps strings.Builder
		for i, s := range r.steps {
			fmt.Fprintf(&steps, "  %2d %s\n", i, s)
		}
		t.Errorf("chaos run failed: %s\nschedule:\n%sfailures:\n  %s\nreplay: %s",
			r.cfg, steps.String(), strings.Join(failures, "\n  "), replay)
	}
	return r.stats
}

// installChaosPanicHandler makes utilruntime recover panics for the rest of
// the test, as a process with ReallyCrash off would, so that handlers can
// panic; and records every panic that is not a chaos handler's: one of a
// run's context goes to that run, any other fails the test.
func installChaosPanicHandler(t *testing.T) {
	var mu sync.Mutex
	var stray []string
	oldCrash, oldHandlers := utilruntime.ReallyCrash, utilruntime.PanicHandlers
	utilruntime.ReallyCrash = false
	utilruntime.PanicHandlers = append(slices.Clone(oldHandlers), func(ctx context.Context, p any) {
		if _, ok := p.(chaosPanic); ok {
			return
		}
		if r, ok := ctx.Value(chaosRunKey{}).(*chaosRun); ok {
			r.problem("panic in the library: %v\n%s", p, debug.Stack())
			return
		}
		mu.Lock()
		defer mu.Unlock()
		stray = append(stray, fmt.Sprintf("%v\n%s", p, debug.Stack()))
	})
	t.Cleanup(func() {
		utilruntime.ReallyCrash, utilruntime.PanicHandlers = oldCrash, oldHandlers
		if len(stray) > 0 {
			t.Errorf("panics in the library outside any run's context:\n%s", strings.Join(stray, "\n"))
		}
	})
}
