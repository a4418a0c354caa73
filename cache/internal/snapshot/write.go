package snapshot

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// ErrLocked is wrapped by the error of [NewWriter] when another writer
// holds the path's lock.
var ErrLocked = errors.New("snapshot path is locked by another writer")

// errClosed is returned by Write after Close.
var errClosed = errors.New("snapshot writer is closed")

// Encoder encodes one object into the bytes a snapshot keeps for it.
// *codec.Codec is one. Its bytes are only read during the call.
type Encoder interface {
	Encode(obj runtime.Object) ([]byte, error)
}

// writeBuffer is the size of the buffer between the items and the file.
const writeBuffer = 256 << 10

// Writer writes snapshots to one path while holding its lock. Build one
// with [NewWriter]; it is safe for concurrent use (writes are serialized).
// Close it to release the lock.
type Writer struct {
	path string
	fs   fileSystem

	// mu serializes Write and Close.
	mu sync.Mutex
	// unlock releases the lock; guarded by mu, nil once closed.
	unlock func() error
}

// NewWriter returns a writer of snapshots at path. It creates the
// directory of path (0700) when missing and refuses one that others may
// write to; it takes the lock of path (see the package documentation),
// returning an error wrapping [ErrLocked] when another writer holds it;
// and it removes the temporary files that an interrupted write to path
// left behind. It does not touch the snapshot at path.
func NewWriter(path string) (*Writer, error) {
	return newWriter(path, osFS{})
}

// newWriter is NewWriter writing through fs.
func newWriter(path string, fs fileSystem) (*Writer, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("snapshot directory: %w", err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("snapshot directory: %w", err)
	}
	if err := checkDirMode(dir, info.Mode()); err != nil {
		return nil, err
	}
	unlock, err := lockPath(path + ".lock")
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, fs: fs, unlock: unlock}
	if err := w.removeTemps(); err != nil {
		_ = unlock()
		return nil, err
	}
	return w, nil
}

// tempPrefix is the start of the names of path's temporary files.
func tempPrefix(path string) string { return filepath.Base(path) + ".tmp-" }

// removeTemps removes the temporary files of w's path, which only a writer
// holding the lock creates.
func (w *Writer) removeTemps() error {
	dir := filepath.Dir(w.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("snapshot directory: %w", err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix(w.path)) && e.Type().IsRegular() {
			if err := w.fs.remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("remove temporary file: %w", err)
			}
		}
	}
	return nil
}

// Path returns the path the writer writes to.
func (w *Writer) Path() string { return w.path }

// Write encodes objs with enc, one at a time, into a new snapshot with
// header h (whose Items it sets to len(objs)) and replaces the snapshot at
// the writer's path with it atomically. On error, including an error of
// enc, the previous snapshot is left as it was and the temporary file is
// removed. It neither modifies nor retains objs.
func (w *Writer) Write(h Header, objs []runtime.Object, enc Encoder) error {
	return w.write(h, len(objs), func(i int) ([]byte, error) {
		b, err := enc.Encode(objs[i])
		if err != nil {
			return nil, fmt.Errorf("encode item %d: %w", i, err)
		}
		return b, nil
	})
}

// WriteEncoded is [Writer.Write] for items that are already encoded.
func (w *Writer) WriteEncoded(h Header, items [][]byte) error {
	return w.write(h, len(items), func(i int) ([]byte, error) { return items[i], nil })
}

// write writes the n items that item returns as the snapshot of header h.
func (w *Writer) write(h Header, n int, item func(int) ([]byte, error)) (err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.unlock == nil {
		return errClosed
	}
	h.Items = n
	preamble, err := appendPreamble(nil, h) // before creating a file: it can fail
	if err != nil {
		return fmt.Errorf("write snapshot %s: %w", w.path, err)
	}
	f, err := w.fs.createTemp(filepath.Dir(w.path), tempPrefix(w.path)+"*")
	if err != nil {
		return fmt.Errorf("write snapshot %s: %w", w.path, err)
	}
	renamed := false
	defer func() {
		if err != nil {
			if !renamed {
				_ = f.Close() // may be closed already
				_ = w.fs.remove(f.Name())
			}
			err = fmt.Errorf("write snapshot %s: %w", w.path, err)
		}
	}()
	bw := bufio.NewWriterSize(f, writeBuffer)
	if err := writeSnapshot(bw, preamble, n, item); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := w.fs.rename(f.Name(), w.path); err != nil {
		return err
	}
	renamed = true
	// The new snapshot is in place; a failed sync of the directory means it
	// may not survive a power loss, which the caller hears of.
	if err := w.fs.syncDir(filepath.Dir(w.path)); err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}

// writeSnapshot writes to w a snapshot of preamble (see appendPreamble)
// and the n items that item returns, one at a time.
func writeSnapshot(w io.Writer, preamble []byte, n int, item func(int) ([]byte, error)) error {
	if _, err := w.Write(preamble); err != nil {
		return err
	}
	var crc uint32
	var size [binary.MaxVarintLen64]byte
	for i := range n {
		b, err := item(i)
		if err != nil {
			return err
		}
		l := binary.PutUvarint(size[:], uint64(len(b)))
		crc = crc32.Update(crc, castagnoli, size[:l])
		crc = crc32.Update(crc, castagnoli, b)
		if _, err := w.Write(size[:l]); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := w.Write(appendTrailer(nil, n, crc))
	return err
}

// Close releases the writer's lock. Write fails after Close; Close is
// idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.unlock == nil {
		return nil
	}
	err := w.unlock()
	w.unlock = nil
	return err
}
