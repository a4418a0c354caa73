package snapshot

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Reason classifies why a snapshot was not loaded: a short, stable string
// for a log line and a metric label.
type Reason string

// The reasons of a [LoadError].
const (
	// ReasonMissing: there is no file at the path (the first start, or the
	// snapshot was removed). The error wraps fs.ErrNotExist.
	ReasonMissing Reason = "missing"
	// ReasonUnreadable: the file or its directory could not be opened or
	// read (permissions, I/O error), or is not a regular file.
	ReasonUnreadable Reason = "unreadable"
	// ReasonUnsafe: others than the owner may write to the directory, so
	// the file could have been planted.
	ReasonUnsafe Reason = "unsafe"
	// ReasonTruncated: the file ends before its content does (an
	// interrupted copy; a write never leaves one, since it renames a
	// complete file).
	ReasonTruncated Reason = "truncated"
	// ReasonCorrupt: not a snapshot (wrong magic), or a checksum, a length
	// or the trailer does not match.
	ReasonCorrupt Reason = "corrupt"
	// ReasonFormat: a valid snapshot in a format version this package does
	// not load (older or newer).
	ReasonFormat Reason = "format"
	// ReasonForeign: a valid snapshot of something else: its [Identity]
	// differs from the expected one.
	ReasonForeign Reason = "foreign"
	// ReasonUndecodable: the decoder refused an item ([Snapshot.Decode]).
	ReasonUndecodable Reason = "undecodable"
)

// LoadError is the error of [Load] and [Snapshot.Decode]: the snapshot at
// Path cannot be used, for Reason. Use errors.As to read it.
type LoadError struct {
	Path   string
	Reason Reason
	Err    error
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("snapshot %s: %s: %v", e.Path, e.Reason, e.Err)
}

// Unwrap returns the underlying error.
func (e *LoadError) Unwrap() error { return e.Err }

// Snapshot is a loaded, validated snapshot. Its items are raw bytes that
// all share one buffer, the file's content: holding any keeps it alive.
// A Snapshot is immutable and safe for concurrent use.
type Snapshot struct {
	// Header is the file's header; Header.Items is Len().
	Header Header

	path  string
	items [][]byte
}

// Len returns the number of items.
func (s *Snapshot) Len() int { return len(s.items) }

// Item returns the bytes of item i, 0 <= i < Len(), for lazy decoding. The
// caller must not modify them.
func (s *Snapshot) Item(i int) []byte { return s.items[i] }

// Load reads the snapshot at path and checks all of it, and that it is a
// snapshot of want, before returning it. Every failure is a [*LoadError];
// on failure it returns no snapshot. It reads the file once, into one
// buffer of the file's size, after checking its header.
func Load(path string, want Identity) (*Snapshot, error) {
	fail := failer(path)
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail(ReasonMissing, "%w", err)
		}
		return fail(ReasonUnreadable, "%w", err)
	}
	if err := checkDirMode(dir, info.Mode()); err != nil {
		return fail(ReasonUnsafe, "%w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail(ReasonMissing, "%w", err)
		}
		return fail(ReasonUnreadable, "%w", err)
	}
	defer func() { _ = f.Close() }() // read-only: nothing to lose
	if info, err = f.Stat(); err != nil {
		return fail(ReasonUnreadable, "%w", err)
	}
	if !info.Mode().IsRegular() {
		return fail(ReasonUnreadable, "not a regular file (mode %v)", info.Mode())
	}
	return load(path, f, info.Size(), want)
}

// load reads and checks the size bytes of r, the snapshot at path.
func load(path string, r io.Reader, size int64, want Identity) (*Snapshot, error) {
	fail := failer(path)
	readFull := func(b []byte) error {
		if _, err := io.ReadFull(r, b); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return errTruncated
			}
			return err
		}
		return nil
	}
	pre := make([]byte, preambleLen, preambleLen+256)
	if err := readFull(pre); err == errTruncated {
		if got := pre[:min(size, int64(len(magic)))]; !bytes.HasPrefix([]byte(magic), got) {
			return fail(ReasonCorrupt, "not a snapshot: magic %q", got)
		}
		return fail(ReasonTruncated, "%d bytes, shorter than the preamble", size)
	} else if err != nil {
		return fail(ReasonUnreadable, "%w", err)
	}
	if string(pre[:len(magic)]) != magic {
		return fail(ReasonCorrupt, "not a snapshot: magic %q", pre[:len(magic)])
	}
	if v := binary.LittleEndian.Uint32(pre[len(magic):]); v != FormatVersion {
		return fail(ReasonFormat, "format version %d, this reader loads %d", v, FormatVersion)
	}
	headerLen := binary.LittleEndian.Uint32(pre[len(magic)+4:])
	if headerLen > maxHeaderLen {
		return fail(ReasonCorrupt, "header length %d is over %d", headerLen, maxHeaderLen)
	}
	head := append(pre, make([]byte, headerLen+4)...)
	if err := readFull(head[preambleLen:]); err == errTruncated {
		return fail(ReasonTruncated, "file ends in the header")
	} else if err != nil {
		return fail(ReasonUnreadable, "%w", err)
	}
	end := len(head) - 4
	if got, want := crc32.Checksum(head[:end], castagnoli), binary.LittleEndian.Uint32(head[end:]); got != want {
		return fail(ReasonCorrupt, "header checksum %#08x, want %#08x", got, want)
	}
	var h Header
	if err := json.Unmarshal(head[preambleLen:end], &h); err != nil {
		return fail(ReasonCorrupt, "header: %w", err)
	}
	if h.Items < 0 {
		return fail(ReasonCorrupt, "header: %d items", h.Items)
	}
	if diff := want.mismatch(h.Identity); diff != "" {
		return fail(ReasonForeign, "%s", diff)
	}

	rest := size - int64(len(head))
	if rest < int64(trailerLen) {
		return fail(ReasonTruncated, "file ends before the trailer")
	}
	body := make([]byte, rest)
	if err := readFull(body); err == errTruncated {
		return fail(ReasonTruncated, "file ends before its %d bytes", size)
	} else if err != nil {
		return fail(ReasonUnreadable, "%w", err)
	}
	// Every item takes at least its length's byte: a count over the bytes
	// left cannot be real, and must not size an allocation.
	if h.Items > len(body) {
		return fail(ReasonTruncated, "%d items in %d bytes", h.Items, len(body))
	}
	items := make([][]byte, h.Items)
	off := 0
	for i := range items {
		l, n := binary.Uvarint(body[off:])
		if n == 0 {
			return fail(ReasonTruncated, "file ends in the length of item %d", i)
		}
		if n < 0 {
			return fail(ReasonCorrupt, "length of item %d overflows", i)
		}
		off += n
		if l > uint64(len(body)-off) {
			return fail(ReasonTruncated, "file ends in item %d", i)
		}
		next := off + int(l)
		items[i] = body[off:next:next]
		off = next
	}
	crc := crc32.Checksum(body[:off], castagnoli)
	tail := body[off:]
	switch {
	case len(tail) < trailerLen:
		return fail(ReasonTruncated, "file ends in the trailer")
	case len(tail) > trailerLen:
		return fail(ReasonCorrupt, "%d bytes after the items and trailer", len(tail)-trailerLen)
	case string(tail[12:]) != endMagic:
		return fail(ReasonCorrupt, "end magic %q", tail[12:])
	case binary.LittleEndian.Uint64(tail) != uint64(h.Items):
		return fail(ReasonCorrupt, "trailer counts %d items, header %d", binary.LittleEndian.Uint64(tail), h.Items)
	case binary.LittleEndian.Uint32(tail[8:]) != crc:
		return fail(ReasonCorrupt, "items checksum %#08x, want %#08x", crc, binary.LittleEndian.Uint32(tail[8:]))
	}
	return &Snapshot{Header: h, path: path, items: items}, nil
}

// failer returns the function with which the loader of the snapshot at
// path returns a *LoadError.
func failer(path string) func(r Reason, format string, args ...any) (*Snapshot, error) {
	return func(r Reason, format string, args ...any) (*Snapshot, error) {
		return nil, &LoadError{Path: path, Reason: r, Err: fmt.Errorf(format, args...)}
	}
}

// errTruncated is readFull's error for a file that ended too soon.
var errTruncated = errors.New("truncated")
