package snapshot

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/informer-go/informer/cache/internal/codec"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
)

// crashChildEnv, when set, makes the test binary the child of
// TestCrashMidWrite: it writes a snapshot of crashItems objects to the
// path the variable holds, prints "midway" after crashMidway items and
// blocks until killed.
const (
	crashChildEnv = "SNAPSHOT_TEST_CRASH_CHILD"
	crashItems    = 2000
	crashMidway   = 1000
)

// crashChild is the child process of TestCrashMidWrite.
func crashChild() {
	w, err := NewWriter(os.Getenv(crashChildEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	c, err := codec.New(&metav1.PartialObjectMetadata{}, codec.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	enc := &blockingEncoder{Encoder: c}
	err = w.Write(header("child"), newObjects(crashItems), enc)
	fmt.Fprintln(os.Stderr, "child: Write returned:", err)
	os.Exit(2)
}

// blockingEncoder announces on stdout that it is midway, then blocks.
type blockingEncoder struct {
	Encoder
	n int
}

func (e *blockingEncoder) Encode(obj apiruntime.Object) ([]byte, error) {
	if e.n == crashMidway {
		fmt.Println("midway")
		select {} // until the parent kills the process
	}
	e.n++
	return e.Encoder.Encode(obj)
}

// TestCrashMidWrite kills (SIGKILL) a process in the middle of writing a
// snapshot: the previous snapshot still loads, the lock died with the
// process, and the next writer removes the partial temporary file.
func TestCrashMidWrite(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "solaris" || runtime.GOOS == "aix" {
		t.Skip("the lock outlives a killed process here (a lock file, see the package documentation)")
	}
	path := snapshotPath(t)
	previous := newObjects(5)
	w := newTestWriter(t, path, osFS{})
	if err := w.Write(header("1"), previous, newCodec(t)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "midway\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child said %q (%v), stderr: %s", line, err, stderr.String())
	}
	// The child holds the lock.
	if w, err := NewWriter(path); !errors.Is(err, ErrLocked) {
		if w != nil {
			_ = w.Close()
		}
		t.Errorf("NewWriter while the child writes: %v, want ErrLocked", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: the error says so

	temps, err := filepath.Glob(path + ".tmp-*")
	if err != nil || len(temps) != 1 {
		t.Fatalf("temporary files after the crash: %v, %v; want the one the child was writing", temps, err)
	}
	if info, err := os.Stat(temps[0]); err != nil || info.Size() == 0 {
		t.Fatalf("the child's temporary file: %v, %v; want part of a snapshot", info, err)
	}
	mustLoad(t, path, "1", previous)

	w = newTestWriter(t, path, osFS{})
	if temps, _ := filepath.Glob(path + ".tmp-*"); len(temps) != 0 {
		t.Errorf("temporary files after NewWriter: %v, want none", temps)
	}
	objs := newObjects(3)
	if err := w.Write(header("2"), objs, newCodec(t)); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, path, "2", objs)
}
