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
	{ID: "total", Label: "heap per cached object, the object included", Unit: "B", Section: sectionMemory},
	{ID: "overhead", Label: "heap per cached object beyond the object", Unit: "B", Section: sectionMemory, NotVariants: true},
	{ID: "object", Label: "the object's own heap (same input for all)", Unit: "B", Section: sectionMemory},
	{ID: "gc", Label: "CPU of a full GC of the heap", Unit: "ms", Section: sectionMemory},
}

// gcRuns is the number of garbage collections whose median CPU time the
// sync workload reports.
const gcRuns = 3

// syncWorkload measures the initial sync of n listed objects of in to one
// handler: from building the informer until its HasSynced (the store holds
// every object) and until the handler got every object; the CPU time and
// allocations of the whole process meanwhile; and, after a garbage
// collection, the heap the informer holds with and beyond the objects, and
// the CPU time of a full garbage collection of it.
func syncWorkload(cfg Config, in input, n int) Workload {
	name := fmt.Sprintf("sync/%s/%s", in.kind.Name, sizeName(n))
	return Workload{
		Name:     name,
		Section:  sectionSync,
		Row:      fmt.Sprintf("%s, %s objects", in.kind.Name, sizeName(n)),
		Metrics:  syncMetrics,
		api:      in.wire != nil,
		endRound: in.endRound,
		run:      func(lib Library, span func() func()) (sample, error) { return runSync(cfg, lib, in, n, name, span) },
	}
}

func runSync(cfg Config, lib Library, in input, n int, name string, span func() func()) (sample, error) {
	// The objects are new for every run, built or decoded as a client
	// decodes them: the informer's copies of its items are the only
	// objects the heap holds at the end. What the runs share (an API
	// kind's serialized list) is in the heap before.
	if err := in.prepare(n); err != nil {
		return nil, err
	}
	heapBefore := benchkit.LiveHeap()
	f, err := in.newFeed(n)
	if err != nil {
		return nil, err
	}
	object := f.objectHeap
	if object == 0 {
		object = float64(benchkit.LiveHeap()-heapBefore) / float64(n)
	}

	h := benchkit.NewLatencyHandler(nil, 0)
	h.Expect(int64(n))
	deadline := time.After(cfg.Timeout)
	end := span()
	usage, began := benchkit.ReadUsage(), time.Now()
	r, err := lib.start(f.lw, in.kind.Example(), startOptions{handlers: []eventHandler{h}})
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

	f.src.Release()
	heapSynced := benchkit.LiveHeap()
	gc := benchkit.FullGCCPU(gcRuns)
	if cfg.AfterSync != nil {
		cfg.AfterSync(name, lib)
	}
	total := (float64(heapSynced) - float64(heapBefore)) / float64(n)
	s := sample{
		"synced":    float64(synced) / float64(time.Millisecond),
		"handled":   float64(handled) / float64(time.Millisecond),
		"perobject": perUnit(handled, n, time.Microsecond),
		"cpu":       perUnit(spent.CPU, n, time.Microsecond),
		"allocs":    float64(spent.Allocs) / float64(n),
		"bytes":     float64(spent.Bytes) / float64(n),
		"total":     total,
		"object":    object,
		"gc":        float64(gc) / float64(time.Millisecond),
	}
	if !lib.Variant {
		// A variant keeps less than the decoded object (its transform
		// or memory mode shrinks it): what it keeps beyond it means
		// nothing.
		s["overhead"] = total - object
	}
	return s, nil
}
