package snapshot

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	apiruntime "k8s.io/apimachinery/pkg/runtime"
)

// validFile returns the bytes of a snapshot of n objects at resource
// version "1" with identity id.
func validFile(t testing.TB, id Identity, n int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "valid.snapshot")
	w, err := NewWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	if err := w.Write(Header{Identity: id, ResourceVersion: "1"}, newObjects(n), newCodec(t)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withHeader returns a file of the given version whose header is the JSON
// header, with a correct header checksum, followed by rest.
func withHeader(version uint32, header string, rest []byte) []byte {
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	b = append(b, header...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return append(b, rest...)
}

// loadBytes writes b to a snapshot file and loads it.
func loadBytes(t *testing.T, b []byte) (*Snapshot, error) {
	t.Helper()
	path := snapshotPath(t)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(path, testIdentity)
}

func TestLoadErrors(t *testing.T) {
	valid := validFile(t, testIdentity, 3)
	headerEnd := preambleLen + int(binary.LittleEndian.Uint32(valid[len(magic)+4:])) + 4
	flip := func(i int) []byte {
		b := bytes.Clone(valid)
		b[i] ^= 0x40
		return b
	}
	idJSON := `"cluster":"https://cluster.example:6443/uid-1234","type":"meta.k8s.io/v1, Kind=PartialObjectMetadata","encoding":"protobuf","namespace":"ns-1","labelSelector":"app=a","fieldSelector":"status.phase=Running","shardSelector":"shard(0, 2)"`
	tests := []struct {
		name string
		b    []byte
		want Reason
	}{
		{"empty", nil, ReasonTruncated},
		{"half the magic", []byte(magic[:4]), ReasonTruncated},
		{"not a snapshot", []byte("apiVersion: v1\nkind: ConfigMap\n"), ReasonCorrupt},
		{"short and not a snapshot", []byte("{}"), ReasonCorrupt},
		{"older format", withHeader(0, `{}`, nil), ReasonFormat},
		{"newer format", withHeader(FormatVersion+1, `{}`, nil), ReasonFormat},
		{"huge header length", append([]byte(magic), 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff), ReasonCorrupt},
		{"header checksum", flip(headerEnd - 1), ReasonCorrupt},
		{"header bit flip", flip(preambleLen + 3), ReasonCorrupt},
		{"header not JSON", withHeader(FormatVersion, `{"items":`, nil), ReasonCorrupt},
		{"negative item count", withHeader(FormatVersion, `{`+idJSON+`,"items":-1}`, appendTrailer(nil, 0, 0)), ReasonCorrupt},
		{"huge item count", withHeader(FormatVersion, `{`+idJSON+`,"items":1000000000000}`, appendTrailer(nil, 0, 0)), ReasonTruncated},
		{"foreign", withHeader(FormatVersion, `{"cluster":"other"}`, nil), ReasonForeign},
		{"item length overflows", withHeader(FormatVersion, `{`+idJSON+`,"items":1}`,
			append(bytes.Repeat([]byte{0xff}, 10), appendTrailer(nil, 1, 0)...)), ReasonCorrupt},
		{"item bit flip", flip(headerEnd + 100), ReasonCorrupt},
		{"item count in the trailer", flip(len(valid) - trailerLen), ReasonCorrupt},
		{"items checksum", flip(len(valid) - trailerLen + 8), ReasonCorrupt},
		{"end magic", flip(len(valid) - 1), ReasonCorrupt},
		{"bytes after the end", append(bytes.Clone(valid), 0), ReasonCorrupt},
		{"valid file twice", append(bytes.Clone(valid), valid...), ReasonCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadBytes(t, tc.b)
			wantReason(t, err, tc.want)
			t.Log(err)
		})
	}
}

func TestLoadMissing(t *testing.T) {
	for name, path := range map[string]string{
		"no file":      snapshotPath(t),
		"no directory": filepath.Join(t.TempDir(), "gone", "pods.snapshot"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(path, testIdentity)
			wantReason(t, err, ReasonMissing)
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%v does not wrap fs.ErrNotExist", err)
			}
		})
	}
}

func TestLoadNotAFile(t *testing.T) {
	path := snapshotPath(t)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, testIdentity)
	wantReason(t, err, ReasonUnreadable)
}

// TestLoadTruncations loads every proper prefix of a valid snapshot: each
// is reported truncated, never loaded or misclassified.
func TestLoadTruncations(t *testing.T) {
	valid := validFile(t, testIdentity, 3)
	for n := range len(valid) {
		_, err := load("p", bytes.NewReader(valid[:n]), int64(n), testIdentity)
		var le *LoadError
		if !errors.As(err, &le) || le.Reason != ReasonTruncated {
			t.Fatalf("%d of %d bytes: %v, want reason truncated", n, len(valid), err)
		}
	}
}

// TestLoadBitFlips flips each bit of a small valid snapshot: no flip
// loads.
func TestLoadBitFlips(t *testing.T) {
	valid := validFile(t, testIdentity, 2)
	for i := range len(valid) {
		for bit := range 8 {
			b := bytes.Clone(valid)
			b[i] ^= 1 << bit
			if s, err := load("p", bytes.NewReader(b), int64(len(b)), testIdentity); err == nil {
				t.Fatalf("flip of bit %d of byte %d loaded: %+v", bit, i, s.Header)
			}
		}
	}
}

// refusingDecoder refuses item refuse.
type refusingDecoder struct {
	Decoder
	refuse []byte
}

var errDecode = errors.New("cannot decode")

func (d refusingDecoder) Decode(b []byte) (apiruntime.Object, error) {
	if bytes.Equal(b, d.refuse) {
		return nil, errDecode
	}
	return d.Decoder.Decode(b)
}

func TestDecodeErrors(t *testing.T) {
	path := snapshotPath(t)
	w := newTestWriter(t, path, osFS{})
	if err := w.Write(header("1"), newObjects(500), newCodec(t)); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path, testIdentity)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			objs, err := s.Decode(t.Context(), refusingDecoder{Decoder: newCodec(t), refuse: s.Item(321)}, workers)
			wantReason(t, err, ReasonUndecodable)
			if !errors.Is(err, errDecode) || objs != nil {
				t.Fatalf("Decode = %d objects, %v; want none and an error wrapping %v", len(objs), err, errDecode)
			}
			t.Log(err)

			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if objs, err := s.Decode(ctx, newCodec(t), workers); !errors.Is(err, context.Canceled) || objs != nil {
				t.Fatalf("Decode with a canceled context = %d objects, %v; want none and context.Canceled", len(objs), err)
			}
		})
	}
}
