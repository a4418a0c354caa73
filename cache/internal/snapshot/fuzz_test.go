package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
)

// FuzzLoad loads arbitrary bytes: each load is a *LoadError of a known
// reason, never a panic, or a snapshot whose items fit in the bytes and
// which a writer writes back into a file that loads the same.
func FuzzLoad(f *testing.F) {
	for _, n := range []int{0, 1, 3} {
		f.Add(validFile(f, testIdentity, n))
	}
	f.Add(validFile(f, Identity{Cluster: "other"}, 1))
	f.Add(withHeader(FormatVersion, `{"items":1}`, appendTrailer([]byte{1, 'x'}, 1, 0)))
	f.Add(withHeader(FormatVersion, `{}`, appendTrailer(nil, 0, 0)))
	f.Fuzz(func(t *testing.T, input []byte) {
		for _, b := range [][]byte{input, withChecksums(input)} {
			checkLoad(t, b)
		}
	})
}

// checkLoad loads b as a snapshot of two identities and checks the result.
func checkLoad(t *testing.T, b []byte) {
	known := map[Reason]bool{
		ReasonTruncated: true, ReasonCorrupt: true, ReasonFormat: true, ReasonForeign: true,
	}
	for _, want := range []Identity{testIdentity, {}} {
		s, err := load("fuzz", bytes.NewReader(b), int64(len(b)), want)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || !known[le.Reason] {
				t.Fatalf("load: %v is not a *LoadError of a known reason", err)
			}
			continue
		}
		if s.Len() != s.Header.Items {
			t.Fatalf("%d items, header says %d", s.Len(), s.Header.Items)
		}
		total := 0
		items := make([][]byte, s.Len())
		for i := range s.Len() {
			items[i] = s.Item(i)
			total += len(items[i])
		}
		if total > len(b) {
			t.Fatalf("items of %d bytes from %d bytes", total, len(b))
		}
		rewritten := rewrite(t, s.Header, items)
		again, err := load("again", bytes.NewReader(rewritten), int64(len(rewritten)), want)
		if err != nil {
			t.Fatalf("load of a rewritten snapshot: %v", err)
		}
		if again.Header != s.Header || again.Len() != s.Len() {
			t.Fatalf("rewritten snapshot has header %+v, want %+v", again.Header, s.Header)
		}
		for i := range s.Len() {
			if !bytes.Equal(again.Item(i), s.Item(i)) {
				t.Fatalf("rewritten item %d differs", i)
			}
		}
	}
}

// withChecksums returns a copy of b with both checksums set to match the
// bytes they cover, where b is long enough to hold them, so that the
// fuzzer reaches the header's JSON and the items' framing.
func withChecksums(b []byte) []byte {
	b = bytes.Clone(b)
	if len(b) < preambleLen {
		return b
	}
	headerEnd := preambleLen + int(binary.LittleEndian.Uint32(b[len(magic)+4:]))
	if headerEnd < preambleLen || headerEnd+4 > len(b) {
		return b
	}
	binary.LittleEndian.PutUint32(b[headerEnd:], crc32.Checksum(b[:headerEnd], castagnoli))
	itemsStart, itemsEnd := headerEnd+4, len(b)-trailerLen
	if itemsEnd >= itemsStart {
		binary.LittleEndian.PutUint32(b[itemsEnd+8:], crc32.Checksum(b[itemsStart:itemsEnd], castagnoli))
	}
	return b
}

// rewrite returns the bytes of a snapshot of h and items as a Writer
// writes it.
func rewrite(t *testing.T, h Header, items [][]byte) []byte {
	t.Helper()
	h.Items = len(items)
	pre, err := appendPreamble(nil, h)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeSnapshot(&buf, pre, len(items), func(i int) ([]byte, error) { return items[i], nil }); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
