package snapshot

import (
	"fmt"
	"os"
	"testing"

	"github.com/informer-go/informer/internal/benchkit"
)

// benchItems is the size of the benchmark snapshots: issue 24's 20k
// ConfigMaps of about 1 KiB.
const benchItems = 20_000

func BenchmarkWrite(b *testing.B) {
	objs := newObjects(benchItems)
	c := newCodec(b)
	items := make([][]byte, len(objs))
	for i, obj := range objs {
		items[i] = mustEncode(b, c, obj)
	}
	b.Run("encode", func(b *testing.B) {
		w := newTestWriter(b, snapshotPath(b), osFS{})
		b.ReportAllocs()
		start := benchkit.ReadUsage()
		for b.Loop() {
			if err := w.Write(header("1"), objs, c); err != nil {
				b.Fatal(err)
			}
		}
		reportFile(b, w.Path(), start)
	})
	b.Run("encoded", func(b *testing.B) {
		w := newTestWriter(b, snapshotPath(b), osFS{})
		b.ReportAllocs()
		start := benchkit.ReadUsage()
		for b.Loop() {
			if err := w.WriteEncoded(header("1"), items); err != nil {
				b.Fatal(err)
			}
		}
		reportFile(b, w.Path(), start)
	})
}

func BenchmarkLoad(b *testing.B) {
	path := snapshotPath(b)
	w := newTestWriter(b, path, osFS{})
	if err := w.Write(header("1"), newObjects(benchItems), newCodec(b)); err != nil {
		b.Fatal(err)
	}
	c := newCodec(b)
	b.Run("lazy", func(b *testing.B) {
		b.ReportAllocs()
		start := benchkit.ReadUsage()
		for b.Loop() {
			if _, err := Load(path, testIdentity); err != nil {
				b.Fatal(err)
			}
		}
		reportFile(b, path, start)
	})
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("decode/workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			start := benchkit.ReadUsage()
			for b.Loop() {
				s, err := Load(path, testIdentity)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Decode(b.Context(), c, workers); err != nil {
					b.Fatal(err)
				}
			}
			reportFile(b, path, start)
		})
	}
}

// reportFile reports the size of the snapshot at path as bytes per
// operation, for MB/s, and the process's CPU time per operation since
// start (every goroutine's), which other load on the machine disturbs
// less than the time.
func reportFile(b *testing.B, path string, start benchkit.Usage) {
	b.ReportMetric(float64(start.Spent().CPU.Nanoseconds())/float64(b.N), "cpu-ns/op")
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	b.ReportMetric(float64(info.Size())/benchItems, "file-bytes/item")
}
