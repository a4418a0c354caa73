package encheap

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-go/informer/compare/kinds"
)

// BenchmarkDictionaryCompression measures the stretch goal of issue 23, a
// shared compression dictionary, before building it: the protobuf of Pods
// without managedFields, compressed with DEFLATE (compress/flate, the
// fastest level) primed with the protobuf of one Pod as the dictionary.
// It reports the bytes per Pod before and after, and the CPU time to
// compress (each write) and decompress (each read that is not kept
// decoded) a Pod.
func BenchmarkDictionaryCompression(b *testing.B) {
	wire := wireOf(b, *objects, kinds.PodName, kinds.NewPod)
	decode := decoder[corev1.Pod](b)
	trimmed := make([][]byte, len(wire))
	for k, raw := range wire {
		pod := modes[3].prepare(decode(raw)).(*corev1.Pod)
		var err error
		if trimmed[k], err = pod.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
	dict := trimmed[len(trimmed)/2]
	var plain, packed int
	var compressing, decompressing time.Duration
	var out bytes.Buffer
	w, err := flate.NewWriterDict(&out, flate.BestSpeed, dict)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		plain, packed, compressing, decompressing = 0, 0, 0, 0
		for _, raw := range trimmed {
			began := time.Now()
			out.Reset()
			w.Reset(&out)
			if _, err := w.Write(raw); err != nil {
				b.Fatal(err)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			packedCopy := bytes.Clone(out.Bytes())
			compressing += time.Since(began)

			began = time.Now()
			r := flate.NewReaderDict(bytes.NewReader(packedCopy), dict)
			back, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(back, raw) {
				b.Fatalf("round trip: %v", err)
			}
			decompressing += time.Since(began)
			plain, packed = plain+len(raw), packed+len(packedCopy)
		}
	}
	n := float64(len(trimmed))
	b.ReportMetric(float64(plain)/n, "protobuf-B/pod")
	b.ReportMetric(float64(packed)/n, "deflate-B/pod")
	b.ReportMetric(float64(compressing.Nanoseconds())/n, "compress-ns/pod")
	b.ReportMetric(float64(decompressing.Nanoseconds())/n, "decompress-ns/pod")
	b.ReportMetric(0, "ns/op")
}
