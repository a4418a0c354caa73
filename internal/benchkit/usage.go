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

// ReadUsage returns the current usage.
func ReadUsage() Usage {
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return Usage{cpu: processCPUTime(), mallocs: ms.Mallocs, bytes: ms.TotalAlloc}
}

// Report publishes, per unit ("object", "event"), the wall time elapsed and
// the CPU time, allocations and bytes used since start.
func (start Usage) Report(b *testing.B, units int, unit string, elapsed time.Duration) {
	end := ReadUsage()
	n := float64(units)
	b.ReportMetric(float64(elapsed.Nanoseconds())/n, "ns/"+unit)
	b.ReportMetric(float64((end.cpu-start.cpu).Nanoseconds())/n, "cpu-ns/"+unit)
	b.ReportMetric(float64(end.mallocs-start.mallocs)/n, "allocs/"+unit)
	b.ReportMetric(float64(end.bytes-start.bytes)/n, "B/"+unit)
}

// ReportLatencies publishes the p50 and p99 of the handlers' latencies.
func ReportLatencies(b *testing.B, hs []*LatencyHandler) {
	var all []int64
	for _, h := range hs {
		all = append(all, h.latencies...)
	}
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	b.ReportMetric(float64(all[len(all)/2]), "p50-ns")
	b.ReportMetric(float64(all[len(all)*99/100]), "p99-ns")
}
