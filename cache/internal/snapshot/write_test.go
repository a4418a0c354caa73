package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
)

func TestWriteLoad(t *testing.T) {
	for _, n := range []int{0, 1, 1000} {
		t.Run(fmt.Sprintf("items=%d", n), func(t *testing.T) {
			path := snapshotPath(t)
			w := newTestWriter(t, path, osFS{})
			objs := newObjects(n)
			if err := w.Write(header("42"), objs, newCodec(t)); err != nil {
				t.Fatalf("Write: %v", err)
			}
			mustLoad(t, path, "42", objs)
			s, err := Load(path, testIdentity)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(testIdentity, s.Header.Identity); diff != "" {
				t.Errorf("identity (-want +got):\n%s", diff)
			}
			for i := range s.Len() {
				if got, want := s.Item(i), mustEncode(t, newCodec(t), objs[i]); string(got) != string(want) {
					t.Fatalf("Item(%d) is not the object's encoding", i)
				}
			}
			for _, workers := range []int{1, 2, 7} {
				got, err := s.Decode(t.Context(), newCodec(t), workers)
				if err != nil {
					t.Fatalf("Decode with %d workers: %v", workers, err)
				}
				if len(got) != n {
					t.Fatalf("Decode with %d workers: %d objects, want %d", workers, len(got), n)
				}
				for i, obj := range got {
					if name := obj.(*metav1.PartialObjectMetadata).Name; name != objs[i].(*metav1.PartialObjectMetadata).Name {
						t.Fatalf("Decode with %d workers: object %d is %s, want %s", workers, i, name, objs[i].(*metav1.PartialObjectMetadata).Name)
					}
				}
			}
		})
	}
}

func TestWriteEncoded(t *testing.T) {
	path := snapshotPath(t)
	w := newTestWriter(t, path, osFS{})
	objs := newObjects(10)
	items := make([][]byte, len(objs))
	for i, obj := range objs {
		items[i] = mustEncode(t, newCodec(t), obj)
	}
	if err := w.WriteEncoded(header("7"), items); err != nil {
		t.Fatalf("WriteEncoded: %v", err)
	}
	mustLoad(t, path, "7", objs)
}

func TestWriteReplacesAtomically(t *testing.T) {
	path := snapshotPath(t)
	w := newTestWriter(t, path, osFS{})
	if err := w.Write(header("1"), newObjects(5), newCodec(t)); err != nil {
		t.Fatal(err)
	}
	objs := newObjects(3)
	if err := w.Write(header("2"), objs, newCodec(t)); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, path, "2", objs)
	if diff := cmp.Diff([]string{"pods.snapshot", "pods.snapshot.lock"}, dirNames(t, filepath.Dir(path))); diff != "" {
		t.Errorf("files in the directory (-want +got):\n%s", diff)
	}
}

// TestConcurrentWrites writes from several goroutines through one writer:
// writes are serialized, and the file is one of them, whole.
func TestConcurrentWrites(t *testing.T) {
	path := snapshotPath(t)
	w := newTestWriter(t, path, osFS{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() { // returns after its writes; waited for below
			for range 3 {
				if err := w.Write(header(fmt.Sprint(g)), newObjects(g+1), newCodec(t)); err != nil {
					t.Errorf("Write: %v", err)
				}
			}
		})
	}
	wg.Wait()
	s, err := Load(path, testIdentity)
	if err != nil {
		t.Fatal(err)
	}
	g := int(s.Header.ResourceVersion[0] - '0')
	mustLoad(t, path, s.Header.ResourceVersion, newObjects(g+1))
}

func TestPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits do not apply")
	}
	path := filepath.Join(t.TempDir(), "a", "b", "pods.snapshot")
	w := newTestWriter(t, path, osFS{})
	if err := w.Write(header("1"), newObjects(1), newCodec(t)); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{
		filepath.Dir(filepath.Dir(path)): 0o700,
		filepath.Dir(path):               0o700,
		path:                             0o600,
		path + ".lock":                   0o600,
	} {
		if got := perm(t, p); got&^want != 0 {
			t.Errorf("%s has mode %v, want at most %v", p, got, want)
		}
	}

	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	sharedPath := filepath.Join(shared, "pods.snapshot")
	w2 := newTestWriter(t, sharedPath, osFS{})
	if err := w2.Write(header("1"), newObjects(1), newCodec(t)); err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o770, 0o702, 0o777} {
		if err := os.Chmod(shared, mode); err != nil {
			t.Fatal(err)
		}
		if w, err := NewWriter(sharedPath); err == nil {
			_ = w.Close()
			t.Errorf("NewWriter in a directory of mode %v succeeded, want an error", mode)
		}
		_, err := Load(sharedPath, testIdentity)
		wantReason(t, err, ReasonUnsafe)
	}
	if err := os.Chmod(shared, 0o750); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, sharedPath, "1", newObjects(1))
}

func TestTwoWritersRefused(t *testing.T) {
	path := snapshotPath(t)
	first, err := NewWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if second, err := NewWriter(path); !errors.Is(err, ErrLocked) {
		if second != nil {
			_ = second.Close()
		}
		t.Fatalf("second NewWriter: %v, want ErrLocked", err)
	}
	objs := newObjects(2)
	if err := first.Write(header("1"), objs, newCodec(t)); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := first.Write(header("2"), objs, newCodec(t)); err == nil {
		t.Fatal("Write after Close succeeded")
	}
	second := newTestWriter(t, path, osFS{})
	if err := second.Write(header("3"), objs, newCodec(t)); err != nil {
		t.Fatalf("Write of a writer after the first closed: %v", err)
	}
	mustLoad(t, path, "3", objs)
}

// TestLeftoverTempFiles checks that the temporary file of an interrupted
// write is ignored by Load and removed by the next writer.
func TestLeftoverTempFiles(t *testing.T) {
	path := snapshotPath(t)
	w := newTestWriter(t, path, osFS{})
	objs := newObjects(3)
	if err := w.Write(header("1"), objs, newCodec(t)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stale := path + ".tmp-12345"
	if err := os.WriteFile(stale, content[:len(content)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, path, "1", objs)
	newTestWriter(t, path, osFS{})
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the leftover temporary file is still there: %v", err)
	}
}

// faultFS is the real file system with one step made to fail.
type faultFS struct {
	osFS
	// writeLimit, when >= 0, is the number of bytes the temporary file
	// takes before its writes fail with ENOSPC, as on a full disk.
	writeLimit int64
	createErr  error
	syncErr    error
	closeErr   error
	renameErr  error
	syncDirErr error
}

func (f *faultFS) createTemp(dir, pattern string) (tempFile, error) {
	if f.createErr != nil {
		return nil, f.createErr
	}
	t, err := f.osFS.createTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &faultFile{tempFile: t, fs: f}, nil
}

func (f *faultFS) rename(oldPath, newPath string) error {
	if f.renameErr != nil {
		return f.renameErr
	}
	return f.osFS.rename(oldPath, newPath)
}

func (f *faultFS) syncDir(dir string) error {
	if f.syncDirErr != nil {
		return f.syncDirErr
	}
	return f.osFS.syncDir(dir)
}

// faultFile is a temporary file of a faultFS.
type faultFile struct {
	tempFile
	fs      *faultFS
	written int64
}

func (f *faultFile) Write(p []byte) (int, error) {
	if limit := f.fs.writeLimit; limit >= 0 && f.written+int64(len(p)) > limit {
		n, _ := f.tempFile.Write(p[:limit-f.written])
		f.written += int64(n)
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	n, err := f.tempFile.Write(p)
	f.written += int64(n)
	return n, err
}

func (f *faultFile) Sync() error {
	if f.fs.syncErr != nil {
		return f.fs.syncErr
	}
	return f.tempFile.Sync()
}

func (f *faultFile) Close() error {
	err := f.tempFile.Close()
	if f.fs.closeErr != nil {
		return f.fs.closeErr
	}
	return err
}

// failingEncoder fails at item failAt.
type failingEncoder struct {
	Encoder
	failAt int
	n      int
}

var errEncode = errors.New("cannot encode")

func (e *failingEncoder) Encode(obj apiruntime.Object) ([]byte, error) {
	if e.n == e.failAt {
		return nil, errEncode
	}
	e.n++
	return e.Encoder.Encode(obj)
}

// TestFailedWriteKeepsPrevious makes each step of a write fail in turn
// (a full disk at several points among them): the write returns the error,
// the previous snapshot stays in place and loads, and no temporary file is
// left.
func TestFailedWriteKeepsPrevious(t *testing.T) {
	errIO := errors.New("injected I/O error")
	tests := []struct {
		name    string
		fs      faultFS
		enc     func(Encoder) Encoder
		wantErr error
	}{
		{name: "disk full in the header", fs: faultFS{writeLimit: 10}, wantErr: syscall.ENOSPC},
		{name: "disk full in the items", fs: faultFS{writeLimit: 300 << 10}, wantErr: syscall.ENOSPC},
		{name: "disk full in the trailer", fs: faultFS{writeLimit: -2}, wantErr: syscall.ENOSPC},
		{name: "create fails", fs: faultFS{writeLimit: -1, createErr: errIO}, wantErr: errIO},
		{name: "sync fails", fs: faultFS{writeLimit: -1, syncErr: errIO}, wantErr: errIO},
		{name: "close fails", fs: faultFS{writeLimit: -1, closeErr: errIO}, wantErr: errIO},
		{name: "rename fails", fs: faultFS{writeLimit: -1, renameErr: errIO}, wantErr: errIO},
		{name: "encoder fails", fs: faultFS{writeLimit: -1}, wantErr: errEncode,
			enc: func(e Encoder) Encoder { return &failingEncoder{Encoder: e, failAt: 700} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := snapshotPath(t)
			previous := newObjects(2)
			objs := newObjects(1000)
			size := writeSize(t, objs)
			w := newTestWriter(t, path, osFS{})
			if err := w.Write(header("1"), previous, newCodec(t)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			fs := tc.fs
			if fs.writeLimit == -2 {
				fs.writeLimit = size - 5
			}
			w = newTestWriter(t, path, &fs)
			var enc Encoder = newCodec(t)
			if tc.enc != nil {
				enc = tc.enc(enc)
			}
			err := w.Write(header("2"), objs, enc)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Write: %v, want an error wrapping %v", err, tc.wantErr)
			}
			t.Log(err)
			mustLoad(t, path, "1", previous)
			if diff := cmp.Diff([]string{"pods.snapshot", "pods.snapshot.lock"}, dirNames(t, filepath.Dir(path))); diff != "" {
				t.Errorf("files in the directory (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFailedDirectorySync checks that a failed sync of the directory, after
// the rename, is reported though the new snapshot is in place.
func TestFailedDirectorySync(t *testing.T) {
	path := snapshotPath(t)
	errIO := errors.New("injected I/O error")
	w := newTestWriter(t, path, &faultFS{writeLimit: -1, syncDirErr: errIO})
	objs := newObjects(2)
	if err := w.Write(header("1"), objs, newCodec(t)); !errors.Is(err, errIO) {
		t.Fatalf("Write: %v, want an error wrapping %v", err, errIO)
	}
	mustLoad(t, path, "1", objs)
}

// writeSize returns the size of a snapshot of objs.
func writeSize(t *testing.T, objs []apiruntime.Object) int64 {
	t.Helper()
	path := snapshotPath(t)
	w := newTestWriter(t, path, osFS{})
	if err := w.Write(header("2"), objs, newCodec(t)); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

func TestIdentityMismatch(t *testing.T) {
	path := snapshotPath(t)
	w := newTestWriter(t, path, osFS{})
	if err := w.Write(header("1"), newObjects(1), newCodec(t)); err != nil {
		t.Fatal(err)
	}
	for _, change := range []func(*Identity){
		func(id *Identity) { id.Cluster = "other" },
		func(id *Identity) { id.Type = "v1, Kind=Secret" },
		func(id *Identity) { id.Encoding = "cbor" },
		func(id *Identity) { id.Namespace = "" },
		func(id *Identity) { id.LabelSelector = "app=b" },
		func(id *Identity) { id.FieldSelector = "" },
		func(id *Identity) { id.ShardSelector = "shard(1, 2)" },
	} {
		want := testIdentity
		change(&want)
		_, err := Load(path, want)
		wantReason(t, err, ReasonForeign)
		t.Log(err)
	}
	if names := dirNames(t, filepath.Dir(path)); !slices.Contains(names, "pods.snapshot") {
		t.Fatalf("Load removed the snapshot: %v", names)
	}
}
