package compare

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/informer-go/informer/internal/benchkit"
)

var resyncMetrics = []Metric{
	{ID: "time", Label: "time", Unit: "ms"},
	{ID: "cpu", Label: "CPU per object", Unit: "µs"},
	{ID: "allocs", Label: "allocations per object"},
	{ID: "bytes", Label: "bytes allocated per object", Unit: "B"},
}

// resyncPeriod is the resync period of the resync workload with n objects:
// at least a second (client-go's minimum), and long enough for the
// initial sync of n objects to end before the first resync, even on a
// loaded machine.
func resyncPeriod(n int) time.Duration {
	return time.Second + time.Duration(n)*50*time.Microsecond
}

// resyncWorkload measures a full resync of an informer synced with
// cfg.ResyncObjects objects of in, to one handler: from the moment the
// resync timer fires until the handler got every object, and the CPU time
// and allocations of the process meanwhile.
//
// Neither library tells when its resync timer fires, but both reflectors
// start it as they open their watch, right after the list: it fires one
// period after the source saw the watch opened. The CPU time and
// allocations are the process's from the end of the initial sync (and a
// garbage collection) to the end of the resync, when the informer does
// nothing else.
func resyncWorkload(cfg Config, in input) Workload {
	n := cfg.ResyncObjects
	return Workload{
		Name:    fmt.Sprintf("resync/%s/%s", in.kind.Name, sizeName(n)),
		Section: sectionResync,
		Row:     fmt.Sprintf("%s, %s objects, 1 handler", in.kind.Name, sizeName(n)),
		Metrics: resyncMetrics,
		run:     func(lib Library, span func() func()) (sample, error) { return runResync(cfg, lib, in, n, span) },
	}
}

func runResync(cfg Config, lib Library, in input, n int, span func() func()) (sample, error) {
	period := resyncPeriod(n)
	h := newResyncHandler(n)
	s, err := startSynced(cfg, lib, in, n, startOptions{handlers: []eventHandler{h}, resyncPeriod: period})
	if err != nil {
		return nil, err
	}
	defer s.stop()
	benchkit.LiveHeap() // the garbage of the initial sync is not this measurement's
	defer span()()
	usage := benchkit.ReadUsage()
	if h.updates.Load() != 0 {
		return nil, fmt.Errorf("the resync started before the initial sync was over (period %v too short for this machine)", period)
	}
	if err := await(h.done, "the resync", time.After(cfg.Timeout)); err != nil {
		return nil, err
	}
	spent := usage.Spent()
	if h.early.Load() {
		return nil, fmt.Errorf("the resync started before the handler got every add (period %v too short for this machine)", period)
	}
	took := time.Duration(h.lastAt-s.src.WatchedAt()) - period
	if took <= 0 {
		return nil, fmt.Errorf("the resync ended %v before its timer fired", -took)
	}
	return sample{
		"time":   float64(took) / float64(time.Millisecond),
		"cpu":    perUnit(spent.CPU, n, time.Microsecond),
		"allocs": float64(spent.Allocs) / float64(n),
		"bytes":  float64(spent.Bytes) / float64(n),
	}, nil
}

// resyncHandler counts the adds and updates of n objects and records when
// it got the n-th update, the end of the first resync. Its methods must be
// called from one goroutine at a time.
type resyncHandler struct {
	n             int64
	adds, updates atomic.Int64
	// early is set when an update comes before the n-th add.
	early atomic.Bool
	// lastAt is benchkit.Now at update n, written before done is closed.
	lastAt int64
	done   chan struct{}
}

func newResyncHandler(n int) *resyncHandler {
	return &resyncHandler{n: int64(n), done: make(chan struct{})}
}

func (h *resyncHandler) OnAdd(any, bool) { h.adds.Add(1) }

func (h *resyncHandler) OnUpdate(any, any) {
	u := h.updates.Add(1)
	if h.adds.Load() < h.n {
		h.early.Store(true)
	}
	if u == h.n {
		h.lastAt = benchkit.Now()
		close(h.done)
	}
}

func (h *resyncHandler) OnDelete(any) {}
