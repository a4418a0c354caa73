package benchkit

import (
	goruntime "runtime"
	"slices"
	"testing"
	"time"
)

// Usage is the process's CPU time and allocations at one instant.
type Usage struct {
	cpu     time.Duration
	mallocs uint64
	bytes   uint64
}

// Spent is what the process used between two [Usage] readings: CPU time
// (user and system, every goroutine) and heap allocations.
type Spent struct {
	CPU    time.Duration
	Allocs uint64
	Bytes  uint64
}

// ReadUsage returns the current usage. It stops the world briefly.
func ReadUsage() Usage {
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return Usage{cpu: processCPUTime(), mallocs: ms.Mallocs, bytes: ms.TotalAlloc}
}

// Spent returns what the process used since start.
func (start Usage) Spent() Spent {
	end := ReadUsage()
	return Spent{CPU: end.cpu - start.cpu, Allocs: end.mallocs - start.mallocs, Bytes: end.bytes - start.bytes}
}

// Report publishes, per unit ("object", "event"), the wall time elapsed and
// the CPU time, allocations and bytes used since start.
func (start Usage) Report(b *testing.B, units int, unit string, elapsed time.Duration) {
	s := start.Spent()
	n := float64(units)
	b.ReportMetric(float64(elapsed.Nanoseconds())/n, "ns/"+unit)
	b.ReportMetric(float64(s.CPU.Nanoseconds())/n, "cpu-ns/"+unit)
	b.ReportMetric(float64(s.Allocs)/n, "allocs/"+unit)
	b.ReportMetric(float64(s.Bytes)/n, "B/"+unit)
}

// LiveHeap runs a full garbage collection and returns the bytes of heap
// objects that survived it.
func LiveHeap() uint64 {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// FullGCCPU runs runs full garbage collections, one after the other, and
// returns the median of the CPU time each took: the process's user and
// system time (every thread, so the collector's workers on every CPU, and
// whatever else the process runs meanwhile, which should be nothing).
// Unlike the wall time of a collection, the CPU time barely depends on
// what other processes take of the machine.
func FullGCCPU(runs int) time.Duration {
	took := make([]time.Duration, max(runs, 1))
	for k := range took {
		began := processCPUTime()
		goruntime.GC()
		took[k] = processCPUTime() - began
	}
	slices.Sort(took)
	return took[len(took)/2]
}
