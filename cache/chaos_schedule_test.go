package cache

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	framework "github.com/informer-go/informer/cache/testing"
)

// chaosConfig is what a seed chooses besides the schedule: the informer, the
// server and the source in front of it. The pipeline (InOrder or not) is
// chosen by the caller, so that one seed runs the same schedule through both.
type chaosConfig struct {
	seed    uint64
	inOrder bool
	// lowLevel builds the informer with NewInformerWithOptions (one
	// handler, no registrations) instead of a shared informer.
	lowLevel bool
	// realTime runs outside a synctest bubble on a fastClock.
	realTime bool
	server   framework.Options[*metav1.PartialObjectMetadata]
	// labelSelector, when set, makes the informer watch the red objects
	// only; updates move objects in and out of its selection.
	labelSelector string
	// shardKey, when set, puts the informer on shard shardIndex of
	// shardCount through a ShardedListWatch; the schedule moves it.
	shardKey               string
	shardIndex, shardCount int
	// resync is the informer's resync period; zero means none.
	resync time.Duration
	// pool is the number of object names; initial objects are created
	// before the informer starts.
	pool, initial int
	// handlers is the number of handlers added before Run.
	handlers int
	// memory is the informer's memory options: chaosMemoryModes[seed%len],
	// so that every mode runs in both pipelines.
	memory chaosMemoryMode
	// snapshot, when set, makes the shared informer keep a snapshot, and
	// the schedule restart it from the snapshot (chaos_snapshot_test.go).
	snapshot *SnapshotOptions
}

// stepKind is one kind of step of a schedule. The kinds named after a fault
// are counted as faults in the statistics.
type stepKind string

const (
	stepWrites stepKind = "writes"
	// Server faults.
	stepCloseWatches     stepKind = "closed watches"
	stepCompact          stepKind = "compaction"
	stepListErrors       stepKind = "list errors"
	stepWatchErrors      stepKind = "watch errors"
	stepWatchStreamError stepKind = "watch stream errors at open"
	stepFailOpenStreams  stepKind = "errors on open streams"
	stepDropEvents       stepKind = "dropped events"
	stepForceRelist      stepKind = "forced relist"
	stepFreeze           stepKind = "frozen watches"
	stepThaw             stepKind = "thawed watches"
	stepSlowWatcher      stepKind = "slow watcher terminated"
	stepListLatency      stepKind = "list latency"
	stepExpireContinues  stepKind = "expired continue tokens"
	stepReshard          stepKind = "shard selector change"
	stepToggleStreaming  stepKind = "streaming lists honoured or ignored from now on"
	// Handler and informer behaviours.
	stepHandlerPanic    stepKind = "handler panics"
	stepHandlerStall    stepKind = "handler stalls"
	stepAddHandler      stepKind = "handler added"
	stepAddFromHandler  stepKind = "handler added from a handler"
	stepRemoveHandler   stepKind = "handler removed"
	stepShutDownHandler stepKind = "handler shut down"
	stepRemoveSelf      stepKind = "handler removed itself"
	stepShutDownSelf    stepKind = "handler shut itself down"
	stepRemoveFromOther stepKind = "handler removed by another"
	stepShutDownByOther stepKind = "handler shut down by another"
	stepAddIndexers     stepKind = "indexers added"
	stepStop            stepKind = "informer stopped mid-chaos"
)

// chaosStep is one step of a schedule: after delay, do kind with its
// parameters. Targets of handler steps are drawn at plan time as numbers
// and resolved among the handlers registered when the step runs.
type chaosStep struct {
	delay time.Duration
	kind  stepKind
	// n counts: writes, failing requests, dropped events, panics.
	n int
	// errIndex picks the error from chaosErrors.
	errIndex int
	// d is a duration: list latency, a stall.
	d time.Duration
	// actor and target pick handlers; shard picks the new shard.
	actor, target, shard int
}

func (s chaosStep) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "+%v %s", s.delay, s.kind)
	switch s.kind {
	case stepWrites, stepDropEvents, stepExpireContinues, stepHandlerPanic:
		fmt.Fprintf(&b, " n=%d", s.n)
	case stepListErrors, stepWatchErrors, stepWatchStreamError:
		fmt.Fprintf(&b, " n=%d err=%s", s.n, chaosErrors[s.errIndex].name)
	case stepFailOpenStreams:
		fmt.Fprintf(&b, " err=%s", chaosErrors[s.errIndex].name)
	case stepListLatency, stepHandlerStall:
		fmt.Fprintf(&b, " d=%v", s.d)
	case stepReshard:
		fmt.Fprintf(&b, " shard=%d", s.shard)
	}
	switch s.kind {
	case stepHandlerPanic, stepHandlerStall, stepAddFromHandler, stepRemoveSelf, stepShutDownSelf:
		fmt.Fprintf(&b, " handler=%d", s.actor)
	case stepRemoveHandler, stepShutDownHandler:
		fmt.Fprintf(&b, " handler=%d", s.target)
	case stepRemoveFromOther, stepShutDownByOther:
		fmt.Fprintf(&b, " by=%d handler=%d", s.actor, s.target)
	}
	return b.String()
}

// chaosErrors are the errors lists and watches fail with.
var chaosErrors = []struct {
	name string
	err  error
}{
	{"429", errTooMany},
	{"500", errInternal},
	{"403", errForbidden},
	{"410", errExpired},
	{"too-large-rv", errRVTooLarge},
	{"connection-refused", framework.NewConnectionRefusedError()},
}

// weighted is a step kind with its weight in a schedule.
type weighted struct {
	kind   stepKind
	weight int
}

// chaosPlan returns the configuration and schedule of seed for the given
// pipeline. Most seeds run on virtual time in a synctest bubble; one in
// thirty-two (shared informers only) runs in real time.
func chaosPlan(seed uint64, inOrder bool) (chaosConfig, []chaosStep) {
	rng := rand.New(rand.NewPCG(seed, 0x6368616f73)) // "chaos"
	cfg := chaosConfig{seed: seed, inOrder: inOrder}
	cfg.lowLevel = rng.IntN(5) == 0
	cfg.memory = chaosMemoryModes[seed%uint64(len(chaosMemoryModes))]
	cfg.realTime = !cfg.lowLevel && seed%32 == 7
	switch rng.IntN(4) {
	case 0: // a client that opts out of streaming lists
		cfg.server.WatchListUnsupported = true
		cfg.server.IgnoreSendInitialEvents = true
	case 1: // a server that ignores sendInitialEvents
		cfg.server.IgnoreSendInitialEvents = true
	}
	if rng.IntN(2) == 0 {
		cfg.server.MaxPageSize = int64(2 + rng.IntN(9))
	}
	cfg.server.WatchBufferSize = 5 + rng.IntN(40)
	cfg.server.BookmarkInterval = time.Duration(10+rng.IntN(50)) * time.Second
	cfg.server.HistoryLimit = 20 + rng.IntN(200)
	if rng.IntN(3) == 0 {
		cfg.labelSelector = "color=red"
	}
	if rng.IntN(4) == 0 {
		cfg.shardKey = ShardKeyUID
		if rng.IntN(2) == 0 {
			cfg.shardKey = ShardKeyNamespace
		}
		cfg.shardCount = 1 + rng.IntN(3)
		cfg.shardIndex = rng.IntN(cfg.shardCount)
		cfg.server.IgnoreShardSelector = rng.IntN(2) == 0
	}
	if rng.IntN(3) == 0 {
		cfg.resync = time.Duration(20+rng.IntN(60)) * time.Second
	}
	cfg.pool = 8 + rng.IntN(40)
	cfg.initial = rng.IntN(cfg.pool)
	cfg.handlers = 1
	if !cfg.lowLevel {
		cfg.handlers = 1 + rng.IntN(3)
	}

	kinds := []weighted{
		{stepWrites, 40},
		{stepCloseWatches, 4}, {stepCompact, 3}, {stepListErrors, 4}, {stepWatchErrors, 4},
		{stepWatchStreamError, 3}, {stepFailOpenStreams, 3}, {stepDropEvents, 2},
		{stepFreeze, 2}, {stepSlowWatcher, 2}, {stepListLatency, 2}, {stepExpireContinues, 2},
		{stepAddIndexers, 1},
	}
	if cfg.shardKey != "" {
		kinds = append(kinds, weighted{stepReshard, 3})
	}
	if !cfg.server.WatchListUnsupported {
		kinds = append(kinds, weighted{stepToggleStreaming, 1})
	}
	// The handler of a low-level informer runs while the DeltaFIFO's lock
	// is held, as in client-go: stalling it would stall the reflector on a
	// mutex, which a synctest bubble cannot wait through.
	if !cfg.lowLevel {
		for _, k := range []weighted{
			{stepHandlerStall, 2}, {stepHandlerPanic, 2}, {stepAddHandler, 2}, {stepAddFromHandler, 2},
			{stepRemoveHandler, 1}, {stepShutDownHandler, 1}, {stepRemoveSelf, 1},
			{stepShutDownSelf, 1}, {stepRemoveFromOther, 1}, {stepShutDownByOther, 1},
		} {
			// A handler shutting itself down, or handlers shutting each
			// other down, wait until the stalemate is given up: 90 s of
			// the wall clock, which only virtual time gets through.
			if cfg.realTime && (k.kind == stepShutDownSelf || k.kind == stepShutDownByOther) {
				continue
			}
			kinds = append(kinds, k)
		}
	}
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	pick := func() stepKind {
		n := rng.IntN(total)
		for _, k := range kinds {
			if n -= k.weight; n < 0 {
				return k.kind
			}
		}
		panic("unreachable")
	}

	var steps []chaosStep
	length := 20 + rng.IntN(40)
	if cfg.realTime {
		length = 10 + rng.IntN(15)
	}
	// pendingRelist is the index of the step at which the events dropped
	// so far are repaired by a forced relist.
	pendingRelist := -1
	for i := 0; i < length; i++ {
		s := chaosStep{delay: time.Duration(rng.IntN(15000)) * time.Millisecond, kind: pick()}
		s.actor, s.target = rng.IntN(1000), rng.IntN(1000)
		switch s.kind {
		case stepWrites:
			s.n = 1 + rng.IntN(12)
		case stepListErrors, stepWatchErrors, stepWatchStreamError:
			s.n = 1 + rng.IntN(3)
			s.errIndex = rng.IntN(len(chaosErrors))
		case stepFailOpenStreams:
			s.errIndex = rng.IntN(len(chaosErrors))
		case stepDropEvents:
			s.n = 1 + rng.IntN(5)
			if pendingRelist < 0 {
				pendingRelist = i + 1 + rng.IntN(4)
			}
		case stepExpireContinues:
			s.n = 1 + rng.IntN(3)
		case stepListLatency:
			s.d = time.Duration(rng.IntN(5000)) * time.Millisecond
		case stepHandlerStall:
			s.d = time.Duration(1+rng.IntN(60)) * time.Second
		case stepHandlerPanic:
			s.n = 1 + rng.IntN(3)
		case stepReshard:
			s.shard = rng.IntN(1 << 16)
		}
		steps = append(steps, s)
		if i == pendingRelist {
			steps = append(steps, chaosStep{delay: time.Duration(rng.IntN(5000)) * time.Millisecond, kind: stepForceRelist})
			pendingRelist = -1
		}
		if s.kind == stepFreeze && rng.IntN(2) == 0 {
			steps = append(steps, chaosStep{delay: time.Duration(rng.IntN(30)) * time.Second, kind: stepThaw})
		}
	}
	if rng.IntN(10) == 0 {
		at := rng.IntN(len(steps) + 1)
		steps = append(steps[:at], chaosStep{delay: time.Duration(rng.IntN(5000)) * time.Millisecond, kind: stepStop})
	}
	return cfg, planSnapshots(&cfg, steps)
}

// String describes the configuration for failure messages.
func (c chaosConfig) String() string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	add("seed=%d", c.seed)
	if c.inOrder {
		add("InOrder")
	} else {
		add("DeltaFIFO")
	}
	if c.lowLevel {
		add("NewInformer")
	} else {
		add("shared informer with %d handlers", c.handlers)
	}
	add("memory %s", c.memory.name)
	if c.realTime {
		add("real time")
	} else {
		add("virtual time")
	}
	switch {
	case c.server.WatchListUnsupported:
		add("paginated lists")
	case c.server.IgnoreSendInitialEvents:
		add("server ignores sendInitialEvents")
	default:
		add("streaming lists")
	}
	if c.server.MaxPageSize > 0 {
		add("pages of %d", c.server.MaxPageSize)
	}
	add("watch buffer %d, bookmarks every %v, history %d", c.server.WatchBufferSize, c.server.BookmarkInterval, c.server.HistoryLimit)
	if c.labelSelector != "" {
		add("label selector %s", c.labelSelector)
	}
	if c.shardKey != "" {
		add("shard %d of %d by %s (server ignores shards: %v)", c.shardIndex, c.shardCount, c.shardKey, c.server.IgnoreShardSelector)
	}
	if c.resync > 0 {
		add("resync %v", c.resync)
	}
	add("%d names, %d objects at start", c.pool, c.initial)
	return strings.Join(parts, ", ")
}
