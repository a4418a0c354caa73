package podtest

import (
	"testing"
	"time"

	"github.com/informer-go/informer/internal/benchkit"
)

// Measure runs f on every Pod of ids, fresh from decode, once per
// iteration of b.Loop, and reports per Pod the wall time, CPU time,
// allocations and bytes of f alone: f always gets an object no earlier
// call touched, as an informer gets objects from its decoder. Decoding is
// left out of the metrics but not of b's own time, so that b.Loop runs
// for about the benchmark time however cheap f is.
func Measure(b *testing.B, ids []int, decode func(i int) any, f func(obj any)) {
	pool := make([]any, len(ids))
	var elapsed, cpu time.Duration
	var allocs, bytes uint64
	pods := 0
	for b.Loop() {
		for k, i := range ids {
			pool[k] = decode(i)
		}
		start, began := benchkit.ReadUsage(), time.Now()
		for _, obj := range pool {
			f(obj)
		}
		elapsed += time.Since(began)
		s := start.Spent()
		cpu, allocs, bytes = cpu+s.CPU, allocs+s.Allocs, bytes+s.Bytes
		pods += len(pool)
	}
	n := float64(pods)
	b.ReportMetric(float64(elapsed.Nanoseconds())/n, "ns/pod")
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/pod")
	b.ReportMetric(float64(allocs)/n, "allocs/pod")
	b.ReportMetric(float64(bytes)/n, "B/pod")
	b.ReportMetric(0, "ns/op")
}
