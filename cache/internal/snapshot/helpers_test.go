package snapshot

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/informer-go/informer/cache/internal/codec"
	"github.com/informer-go/informer/internal/benchkit"
	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		crashChild() // never returns
	}
	goleak.VerifyTestMain(m)
}

// testIdentity is the identity of the tests' snapshots.
var testIdentity = Identity{
	Cluster: "https://cluster.example:6443/uid-1234", Type: "meta.k8s.io/v1, Kind=PartialObjectMetadata",
	Encoding: "protobuf", Namespace: "ns-1", LabelSelector: "app=a", FieldSelector: "status.phase=Running",
	ShardSelector: "shard(0, 2)",
}

// newObject returns benchmark object i, about 1 KiB when encoded: its
// metadata with the data folded into an annotation, as
// kubectl.kubernetes.io/last-applied-configuration holds an object.
func newObject(i int) *metav1.PartialObjectMetadata {
	o := benchkit.NewObject(i, i+1)
	var data strings.Builder
	for _, k := range slices.Sorted(maps.Keys(o.Data)) {
		data.WriteString(o.Data[k][:150])
	}
	o.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = data.String()
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: o.ObjectMeta,
	}
}

// newObjects returns objects 0..n-1.
func newObjects(n int) []runtime.Object {
	objs := make([]runtime.Object, n)
	for i := range objs {
		objs[i] = newObject(i)
	}
	return objs
}

// newCodec returns the tests' codec.
func newCodec(tb testing.TB) *codec.Codec {
	tb.Helper()
	c, err := codec.New(&metav1.PartialObjectMetadata{}, codec.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// mustEncode returns c.Encode(obj) or fails the test.
func mustEncode(tb testing.TB, c *codec.Codec, obj runtime.Object) []byte {
	tb.Helper()
	b, err := c.Encode(obj)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// newTestWriter returns a writer at path through fs, closed at the end of
// the test.
func newTestWriter(tb testing.TB, path string, fs fileSystem) *Writer {
	tb.Helper()
	w, err := newWriter(path, fs)
	if err != nil {
		tb.Fatalf("newWriter: %v", err)
	}
	tb.Cleanup(func() { _ = w.Close() })
	return w
}

// header returns the header of the tests' snapshots at resourceVersion rv.
func header(rv string) Header {
	return Header{Identity: testIdentity, ResourceVersion: rv}
}

// mustLoad loads path as a snapshot of testIdentity, decodes it and checks
// that it holds objs at resourceVersion rv.
func mustLoad(t *testing.T, path, rv string, objs []runtime.Object) {
	t.Helper()
	s, err := Load(path, testIdentity)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if s.Header.ResourceVersion != rv || s.Header.Items != len(objs) || s.Len() != len(objs) {
		t.Fatalf("loaded resourceVersion %q with %d items (header %d), want %q with %d",
			s.Header.ResourceVersion, s.Len(), s.Header.Items, rv, len(objs))
	}
	got, err := s.Decode(t.Context(), newCodec(t), 0)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if diff := cmp.Diff(objs, got, cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })); diff != "" {
		t.Fatalf("loaded objects (-want +got):\n%s", diff)
	}
}

// wantReason fails the test unless err is a *LoadError of reason r.
func wantReason(t *testing.T, err error, r Reason) {
	t.Helper()
	var le *LoadError
	if !errors.As(err, &le) || le.Reason != r {
		t.Fatalf("got error %v, want a *LoadError of reason %q", err, r)
	}
}

// dirNames returns the names of the files in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// perm returns the permission bits of path.
func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

// snapshotPath returns a path for a snapshot in a new directory.
func snapshotPath(tb testing.TB) string {
	return filepath.Join(tb.TempDir(), "pods.snapshot")
}
