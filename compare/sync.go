package compare

import (
	"fmt"
	"time"

	"github.com/informer-go/informer/internal/benchkit"
)

var syncMetrics = []Metric{
	{ID: "synced", Label: "time to HasSynced", Unit: "ms"},
	{ID: "handled", Label: "time until the handler has all", Unit: "ms"},
	{ID: "perobject", Label: "time per object until the handler has all", Unit: "µs"},
	{ID: "cpu", Label: "CPU per object", Unit: "µs"},
	{ID: "allocs", Label: "allocations per object"},
	{ID: "bytes", Label: "bytes allocated per object", Unit: "B"},
	{ID: "overhead", Label: "heap per cached object beyond the object", Unit: "B", Section: sectionMemory},
	{ID: "object", Label: "the object's own heap (same input for all)", Unit: "B", Section: sectionMemory},
}

// syncWorkload measures the initial sync of n listed objects of kind to one
// handler: from building the informer until its HasSynced (the store holds
// every object) and until the handler got every object; the CPU time and
// allocations of the whole process meanwhile; and, after a garbage
// collection, the heap the informer holds beyond the objects.
func syncWorkload(cfg Config, kind benchkit.Kind, n int) Workload {
	return Workload{
		Name:    fmt.Sprintf("sync/%s/%s", kind.Name, sizeName(n)),
		Section: sectionSync,
		Row:     fmt.Sprintf("%s, %s objects", kind.Name, sizeName(n)),
		Metrics: syncMetrics,
		run:     func(lib Library, span func() func()) (sample, error) { return runSync(cfg, lib, kind, n, span) },
	}
}

func runSync(cfg Config, lib Library, kind benchkit.Kind, n int, span func() func()) (sample, error) {
	// The list is built anew for every run, as a client decodes it: the
	// informer's copies of its items are the only objects the heap holds
	// at the end.
	heapBefore := benchkit.LiveHeap()
	src := benchkit.NewSource(kind.List(n))
	heapList := benchkit.LiveHeap()

	h := benchkit.NewLatencyHandler(nil, 0)
	h.Expect(int64(n))
	deadline := time.After(cfg.Timeout)
	end := span()
	usage, began := benchkit.ReadUsage(), time.Now()
	r, err := lib.start(src, kind.Example(), startOptions{handlers: []eventHandler{h}})
	if err != nil {
		end()
		return nil, err
	}
	defer r.stop()
	synced, handled, ok := benchkit.TimeBoth(began, r.synced, h.Reached(), deadline)
	if !ok {
		end()
		return nil, fmt.Errorf("timed out after %v: HasSynced after %v, handler at %d of %d objects", cfg.Timeout, synced, h.Calls(), n)
	}
	spent := usage.Spent()
	end()

	src.Release()
	heapSynced := benchkit.LiveHeap()
	if cfg.AfterSync != nil {
		cfg.AfterSync(fmt.Sprintf("sync/%s/%s", kind.Name, sizeName(n)), lib)
	}
	object := float64(heapList-heapBefore) / float64(n)
	return sample{
		"synced":    float64(synced) / float64(time.Millisecond),
		"handled":   float64(handled) / float64(time.Millisecond),
		"perobject": perUnit(handled, n, time.Microsecond),
		"cpu":       perUnit(spent.CPU, n, time.Microsecond),
		"allocs":    float64(spent.Allocs) / float64(n),
		"bytes":     float64(spent.Bytes) / float64(n),
		"overhead":  (float64(heapSynced)-float64(heapBefore))/float64(n) - object,
		"object":    object,
	}, nil
}
