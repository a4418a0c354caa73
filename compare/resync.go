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
// cfg.ResyncObjects objects of kind, to one handler.
//
// Neither library tells when its resync timer fires, so the workload lets
// two resyncs happen and measures the second. Both reflectors start the
// timer of the next resync when the queue accepted the previous one, which
// is (within the time one notification takes to reach the handler) when the
// handler gets the first update of that resync. The second resync thus
// starts one period after the first update of the first, and its time runs
// from there to its last update. Its CPU time and allocations are the
// process's from the end of the first resync to the end of the second, when
// the informer does nothing else.
func resyncWorkload(cfg Config, kind benchkit.Kind) Workload {
	n := cfg.ResyncObjects
	return Workload{
		Name:    fmt.Sprintf("resync/%s/%s", kind.Name, sizeName(n)),
		Section: sectionResync,
		Row:     fmt.Sprintf("%s, %s objects, 1 handler", kind.Name, sizeName(n)),
		Metrics: resyncMetrics,
		run:     func(lib Library) (sample, error) { return runResync(cfg, lib, kind, n) },
	}
}

func runResync(cfg Config, lib Library, kind benchkit.Kind, n int) (sample, error) {
	period := resyncPeriod(n)
	h := newResyncHandler(n)
	s, err := startSynced(cfg, lib, kind, n, startOptions{handlers: []eventHandler{h}, resyncPeriod: period})
	if err != nil {
		return nil, err
	}
	defer s.stop()
	deadline := time.After(cfg.Timeout)
	if err := await(h.firstDone, "the first resync", deadline); err != nil {
		return nil, err
	}
	benchkit.LiveHeap() // the garbage of the first resync is not this measurement's
	usage := benchkit.ReadUsage()
	if h.updates.Load() != int64(n) {
		return nil, fmt.Errorf("the second resync started before the first was measured (period %v too short for this machine)", period)
	}
	if err := await(h.secondDone, "the second resync", deadline); err != nil {
		return nil, err
	}
	spent := usage.Spent()
	if h.early.Load() {
		return nil, fmt.Errorf("a resync started before the initial sync ended (period %v too short for this machine)", period)
	}
	return sample{
		"time":   float64(time.Duration(h.lastAt-h.firstAt)-period) / float64(time.Millisecond),
		"cpu":    perUnit(spent.CPU, n, time.Microsecond),
		"allocs": float64(spent.Allocs) / float64(n),
		"bytes":  float64(spent.Bytes) / float64(n),
	}, nil
}

// resyncHandler counts the adds and updates of n objects and records when
// the first resync starts (its first update) and the second ends (update
// 2n). Its methods must be called from one goroutine at a time.
type resyncHandler struct {
	n             int64
	adds, updates atomic.Int64
	// early is set when an update comes before the n-th add.
	early atomic.Bool
	// firstAt and lastAt are benchkit.Now at update 1 and 2n, written
	// before firstDone and secondDone are closed.
	firstAt, lastAt       int64
	firstDone, secondDone chan struct{}
}

func newResyncHandler(n int) *resyncHandler {
	return &resyncHandler{n: int64(n), firstDone: make(chan struct{}), secondDone: make(chan struct{})}
}

func (h *resyncHandler) OnAdd(any, bool) { h.adds.Add(1) }

func (h *resyncHandler) OnUpdate(any, any) {
	u := h.updates.Add(1)
	if h.adds.Load() < h.n {
		h.early.Store(true)
	}
	if u == 1 {
		h.firstAt = benchkit.Now()
	}
	if u == h.n {
		close(h.firstDone)
	}
	if u == 2*h.n {
		h.lastAt = benchkit.Now()
		close(h.secondDone)
	}
}

func (h *resyncHandler) OnDelete(any) {}
