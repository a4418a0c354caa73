package share

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/informer-go/informer/cache/internal/share/podtest"
	"github.com/informer-go/informer/internal/benchkit"
)

// BenchmarkShare measures Share on one Pod: fresh from the decoder, once
// the table knows the values of its Deployment, and already canonical.
func BenchmarkShare(b *testing.B) {
	for _, kind := range podKinds {
		b.Run(kind.name+"/fresh", func(b *testing.B) {
			ids := podtest.List(10, 10)
			tab := New(Options{})
			for _, i := range ids { // the table has seen every value once or twice
				tab.Share(kind.pod(i))
			}
			podtest.Measure(b, ids, kind.pod, func(obj any) { tab.Share(obj) })
		})
		b.Run(kind.name+"/fresh/structures", func(b *testing.B) {
			ids := podtest.List(10, 10)
			tab := New(Options{Bytes: true, Structures: true})
			for _, i := range ids {
				tab.Share(kind.pod(i))
			}
			podtest.Measure(b, ids, kind.pod, func(obj any) { tab.Share(obj) })
		})
		b.Run(kind.name+"/canonical", func(b *testing.B) {
			tab := New(Options{})
			p := kind.pod(0)
			for range 3 {
				tab.Share(p)
			}
			b.ReportAllocs()
			for b.Loop() {
				tab.Share(p)
			}
		})
	}
}

// BenchmarkTableEntry reports the heap of a table entry: n distinct
// values, each shared by two holders, with and without a table.
func BenchmarkTableEntry(b *testing.B) {
	const n = 100_000
	values := func() []string {
		v := make([]string, n)
		for i := range v {
			v[i] = fmt.Sprintf("value-%026d", i) // 32 bytes
		}
		return v
	}
	var perEntry float64
	for b.Loop() {
		before := benchkit.LiveHeap()
		plain := values()
		mid := benchkit.LiveHeap()
		tab := New(Options{})
		shared := values()
		for i, v := range shared {
			tab.String(strings.Clone(v))
			shared[i] = tab.String(v)
		}
		after := benchkit.LiveHeap()
		perEntry = float64(int64(after-mid)-int64(mid-before)) / n
		runtime.KeepAlive(plain)
		runtime.KeepAlive(shared)
		runtime.KeepAlive(tab)
	}
	b.ReportMetric(perEntry, "heap-B/entry")
	b.ReportMetric(0, "ns/op")
}
