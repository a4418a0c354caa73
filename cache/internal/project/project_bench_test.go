package project

import (
	"flag"
	"runtime"
	"strings"
	"testing"

	"github.com/informer-go/informer/cache/internal/share"
	"github.com/informer-go/informer/cache/internal/share/podtest"
	"github.com/informer-go/informer/internal/benchkit"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var (
	benchNamespaces = flag.Int("project.namespaces", 100, "namespaces of BenchmarkModeHeap's Pods")
	benchReplicas   = flag.Int("project.replicas", 10, "replicas of every Deployment of BenchmarkModeHeap")
)

// podKinds are the Pods of the benchmarks, typed and unstructured, with an
// example of their type.
var podKinds = []struct {
	name    string
	example any
	pod     func(i int) any
}{
	{"typed", &podtest.Pod{}, func(i int) any { return podtest.Typed(i) }},
	{"unstructured", &unstructured.Unstructured{}, func(i int) any { return podtest.Unstructured(i) }},
}

// modes are the memory modes of BenchmarkModeHeap: what is done to each
// Pod fresh from the decoder.
func modes(b *testing.B, example any) []struct {
	name string
	do   func(tab *share.Table, obj any)
	tab  bool
} {
	proj, err := New(example, []string{"metadata", "spec.nodeName", "status.phase"})
	if err != nil {
		b.Fatal(err)
	}
	drop := func(_ *share.Table, obj any) { DropManagedFields(obj) }
	project := func(_ *share.Table, obj any) { proj.Apply(obj); DropManagedFields(obj) }
	return []struct {
		name string
		do   func(tab *share.Table, obj any)
		tab  bool
	}{
		{"decoded", func(*share.Table, any) {}, false},
		{"share", func(tab *share.Table, obj any) { tab.Share(obj) }, true},
		{"share+bytes", func(tab *share.Table, obj any) { tab.Share(obj) }, true},
		{"trim", drop, false},
		{"trim+share", func(tab *share.Table, obj any) { drop(tab, obj); tab.Share(obj) }, true},
		{"project", project, false},
		{"project+share", func(tab *share.Table, obj any) { project(tab, obj); tab.Share(obj) }, true},
	}
}

// BenchmarkModeHeap reports the live heap per Pod of a list of Pods held
// as decoded and in each memory mode (trim: managedFields dropped; project:
// metadata, spec.nodeName and status.phase kept, managedFields dropped;
// share: strings stored once, +bytes: byte slices too), the share table
// included, and the CPU time
// of the mode per Pod. Run it once: go test -run '^$' -bench ModeHeap
// -benchtime 1x.
func BenchmarkModeHeap(b *testing.B) {
	ids := podtest.List(*benchNamespaces, *benchReplicas)
	for _, kind := range podKinds {
		for _, mode := range modes(b, kind.example) {
			b.Run(kind.name+"/"+mode.name, func(b *testing.B) {
				var perPod, cpu, entries float64
				for b.Loop() {
					before := benchkit.LiveHeap()
					var tab *share.Table
					if mode.tab {
						tab = share.New(share.Options{Bytes: strings.HasSuffix(mode.name, "+bytes")})
					}
					pods := make([]any, len(ids))
					for k, i := range ids {
						pods[k] = kind.pod(i)
					}
					start := benchkit.ReadUsage()
					for _, p := range pods {
						mode.do(tab, p)
					}
					cpu = float64(start.Spent().CPU.Nanoseconds()) / float64(len(ids))
					after := benchkit.LiveHeap()
					perPod = float64(after-before) / float64(len(ids))
					if tab != nil {
						st := tab.Stats()
						entries = float64(st.Strings+st.Boxes+st.Bytes) / float64(len(pods))
					}
					runtime.KeepAlive(pods)
					runtime.KeepAlive(tab)
				}
				b.ReportMetric(perPod, "heap-B/pod")
				b.ReportMetric(cpu, "cpu-ns/pod")
				b.ReportMetric(entries, "entries/pod")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkApply measures one projection of a Pod fresh from the decoder.
func BenchmarkApply(b *testing.B) {
	for _, kind := range podKinds {
		b.Run(kind.name, func(b *testing.B) {
			p, err := New(kind.example, []string{"metadata", "spec.nodeName", "status.phase"})
			if err != nil {
				b.Fatal(err)
			}
			podtest.Measure(b, podtest.List(10, 2), kind.pod, func(obj any) { p.Apply(obj) })
		})
	}
}
