package encheap

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-go/informer/compare/kinds"
)

// BenchmarkPodCopyVersusDecode shows the floor of the two ways a read of
// the encoded store makes a fresh Pod (without managedFields): a deep copy
// of a Pod kept decoded, and a protobuf decode.
func BenchmarkPodCopyVersusDecode(b *testing.B) {
	pod := kinds.NewPod(7, 8)
	pod.ManagedFields = nil
	raw, err := pod.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		make func() error
	}{
		{"deepcopy", func() error { _ = pod.DeepCopyObject(); return nil }},
		{"decode", func() error { return new(corev1.Pod).Unmarshal(raw) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := tc.make(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
