package podheap

import (
	"flag"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-go/informer/cache/internal/project"
	"github.com/informer-go/informer/cache/internal/share"
	"github.com/informer-go/informer/compare/kinds"
	"github.com/informer-go/informer/internal/benchkit"
)

var pods = flag.Int("pods", 10_000, "Pods held by BenchmarkPodHeap")

// mode is what is done to each Pod fresh from the decoder.
type mode struct {
	name  string
	share *share.Options // nil: no table
	do    func(tab *share.Table, pod *corev1.Pod)
}

func modes(b *testing.B) []mode {
	proj, err := project.New(&corev1.Pod{}, []string{"metadata", "spec.nodeName", "status.phase"})
	if err != nil {
		b.Fatal(err)
	}
	none := func(*share.Table, *corev1.Pod) {}
	shareIt := func(tab *share.Table, p *corev1.Pod) { tab.Share(p) }
	trim := func(_ *share.Table, p *corev1.Pod) { project.DropManagedFields(p) }
	proj1 := func(_ *share.Table, p *corev1.Pod) { proj.Apply(p); project.DropManagedFields(p) }
	return []mode{
		{"decoded", nil, none},
		{"share", &share.Options{}, shareIt},
		{"share+bytes", &share.Options{Bytes: true}, shareIt},
		{"trim", nil, trim},
		{"trim+share", &share.Options{}, func(t *share.Table, p *corev1.Pod) { trim(t, p); shareIt(t, p) }},
		{"project", nil, proj1},
		{"project+share", &share.Options{}, func(t *share.Table, p *corev1.Pod) { proj1(t, p); shareIt(t, p) }},
		{"share+structures", &share.Options{Bytes: true, Structures: true}, shareIt},
		{"trim+share+structures", &share.Options{Bytes: true, Structures: true}, func(t *share.Table, p *corev1.Pod) { trim(t, p); shareIt(t, p) }},
		{"project+share+structures", &share.Options{Bytes: true, Structures: true}, func(t *share.Table, p *corev1.Pod) { proj1(t, p); shareIt(t, p) }},
	}
}

// BenchmarkPodHeap holds -pods Pods, decoded from protobuf in the order
// kube-apiserver lists them, in each mode, and reports the live heap per
// Pod (the share table included, the protobuf bytes not), the CPU time of
// the mode per Pod, and, for scale, that of decoding a Pod from protobuf.
func BenchmarkPodHeap(b *testing.B) {
	order := benchkit.KeyOrderOf(*pods, kinds.PodName)
	wire := make([][]byte, len(order))
	for k, i := range order {
		raw, err := kinds.NewPod(i, i+1).Marshal()
		if err != nil {
			b.Fatal(err)
		}
		wire[k] = raw
	}
	for _, m := range modes(b) {
		b.Run(m.name, func(b *testing.B) {
			var perPod, cpu, decode, entries float64
			for b.Loop() {
				before := benchkit.LiveHeap()
				var tab *share.Table
				if m.share != nil {
					tab = share.New(*m.share)
				}
				held := make([]*corev1.Pod, len(wire))
				decoding := benchkit.ReadUsage()
				for k, raw := range wire {
					held[k] = new(corev1.Pod)
					if err := held[k].Unmarshal(raw); err != nil {
						b.Fatal(err)
					}
				}
				decode = float64(decoding.Spent().CPU.Nanoseconds()) / float64(len(held))
				start := benchkit.ReadUsage()
				for _, p := range held {
					m.do(tab, p)
				}
				cpu = float64(start.Spent().CPU.Nanoseconds()) / float64(len(held))
				perPod = float64(benchkit.LiveHeap()-before) / float64(len(held))
				runtime.KeepAlive(held)
				if tab != nil {
					st := tab.Stats()
					entries = float64(st.Strings+st.Boxes+st.Bytes+st.Structures) / float64(len(held))
				}
				runtime.KeepAlive(tab)
			}
			b.ReportMetric(perPod, "heap-B/pod")
			b.ReportMetric(cpu, "cpu-ns/pod")
			b.ReportMetric(decode, "decode-cpu-ns/pod")
			b.ReportMetric(entries, "entries/pod")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkSecretHeap is BenchmarkPodHeap for -pods TLS Secrets of the
// kinds package, whose CA certificate repeats per issuer and whose
// managedFields repeat across Secrets: what sharing byte slices saves.
func BenchmarkSecretHeap(b *testing.B) {
	order := benchkit.KeyOrderOf(*pods, kinds.SecretName)
	wire := make([][]byte, len(order))
	for k, i := range order {
		raw, err := kinds.NewSecret(i, i+1).Marshal()
		if err != nil {
			b.Fatal(err)
		}
		wire[k] = raw
	}
	for _, m := range []struct {
		name  string
		share *share.Options
		trim  bool
	}{
		{"decoded", nil, false},
		{"share", &share.Options{}, false},
		{"share+bytes", &share.Options{Bytes: true}, false},
		{"trim", nil, true},
		{"trim+share+bytes", &share.Options{Bytes: true}, true},
		{"trim+share+structures", &share.Options{Bytes: true, Structures: true}, true},
	} {
		b.Run(m.name, func(b *testing.B) {
			var perSecret float64
			for b.Loop() {
				before := benchkit.LiveHeap()
				var tab *share.Table
				if m.share != nil {
					tab = share.New(*m.share)
				}
				held := make([]*corev1.Secret, len(wire))
				for k, raw := range wire {
					held[k] = new(corev1.Secret)
					if err := held[k].Unmarshal(raw); err != nil {
						b.Fatal(err)
					}
					if m.trim {
						project.DropManagedFields(held[k])
					}
					if tab != nil {
						tab.Share(held[k])
					}
				}
				perSecret = float64(benchkit.LiveHeap()-before) / float64(len(held))
				runtime.KeepAlive(held)
				runtime.KeepAlive(tab)
			}
			b.ReportMetric(perSecret, "heap-B/secret")
			b.ReportMetric(0, "ns/op")
		})
	}
}
