package share

import (
	"flag"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/informer-go/informer/cache/internal/share/podtest"
	"github.com/informer-go/informer/internal/benchkit"
)

// benchNamespaces sets the Pods of BenchmarkPodHeap: ten Deployments of
// replicas Pods in each of benchNamespaces namespaces.
var (
	benchNamespaces = flag.Int("share.namespaces", 100, "namespaces of BenchmarkPodHeap's Pods")
	benchReplicas   = flag.Int("share.replicas", 10, "replicas of every Deployment of BenchmarkPodHeap")
)

// BenchmarkShare measures Share on one Pod: fresh from the decoder, once
// the table knows the values of its Deployment, and already canonical.
func BenchmarkShare(b *testing.B) {
	for _, kind := range podKinds {
		b.Run(kind.name+"/fresh", func(b *testing.B) {
			ids := podtest.List(10, 10)
			tab := New(Options{})
			pool := make([]any, len(ids))
			refill := func() {
				for k, i := range ids {
					pool[k] = kind.pod(i)
				}
			}
			refill()
			for _, p := range pool { // the table has seen every value once or twice
				tab.Share(p)
			}
			refill()
			b.ReportAllocs()
			k := 0
			for b.Loop() {
				if k == len(pool) {
					b.StopTimer()
					refill()
					b.StartTimer()
					k = 0
				}
				tab.Share(pool[k])
				k++
			}
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

// BenchmarkPodHeap reports the live heap per Pod of a list of Pods held as
// decoded, and shared (with and without byte slices), the table included.
// Run it once: go test -run '^$' -bench PodHeap -benchtime 1x.
func BenchmarkPodHeap(b *testing.B) {
	ids := podtest.List(*benchNamespaces, *benchReplicas)
	for _, kind := range podKinds {
		for _, mode := range []struct {
			name string
			tab  func() *Table
		}{
			{"decoded", func() *Table { return nil }},
			{"share", func() *Table { return New(Options{}) }},
			{"share+bytes", func() *Table { return New(Options{Bytes: true}) }},
		} {
			b.Run(kind.name+"/"+mode.name, func(b *testing.B) {
				var perPod, entries float64
				for b.Loop() {
					before := benchkit.LiveHeap()
					tab := mode.tab()
					pods := make([]any, len(ids))
					for k, i := range ids {
						pods[k] = kind.pod(i)
						if tab != nil {
							tab.Share(pods[k])
						}
					}
					after := benchkit.LiveHeap()
					perPod = float64(after-before) / float64(len(ids))
					if tab != nil {
						st := tab.Stats()
						entries = float64(st.Strings+st.Boxes+st.Bytes) / float64(len(ids))
					}
					runtime.KeepAlive(pods)
					runtime.KeepAlive(tab)
				}
				b.ReportMetric(perPod, "heap-B/pod")
				b.ReportMetric(entries, "entries/pod")
				b.ReportMetric(0, "ns/op")
			})
		}
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
