package main

import (
	"bytes"
	"flag"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestGolden")

// modes are the flag sets the golden tests run with, by the name of their
// golden files.
var modes = map[string][]string{
	"dropin":         nil,
	"dropin-factory": {"-factory"},
	"native":         {"-to", "native"},
}

// runCommand runs the command with args and returns its exit status,
// standard output and standard error.
func runCommand(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestGolden runs a dry run of each fixture module (testdata/NAME/in) in
// each mode and compares the diff and the reports with
// testdata/NAME/MODE.diff and MODE.reports; -update writes them.
func TestGolden(t *testing.T) {
	for _, fixture := range []string{"app", "mixed"} {
		for mode, flags := range modes {
			t.Run(fixture+"/"+mode, func(t *testing.T) {
				code, stdout, stderr := runCommand(append(flags, filepath.Join("testdata", fixture, "in"))...)
				if code != 0 {
					t.Fatalf("exit status %d:\n%s", code, stderr)
				}
				for ext, got := range map[string]string{".diff": stdout, ".reports": stderr} {
					golden := filepath.Join("testdata", fixture, mode+ext)
					if *update {
						if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
						continue
					}
					want, err := os.ReadFile(golden)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(string(want), got); diff != "" {
						t.Errorf("%s (-want +got):\n%s", golden, diff)
					}
				}
			})
		}
	}
}

// copyTree copies the directory src to a new temporary directory and
// returns it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// readTree returns the files below dir by relative path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// importLine reports whether line is an import of one of the paths the
// command rewrites from or to, with or without a name.
func importLine(line string) bool {
	fields := strings.Fields(line)
	if len(fields) == 0 || len(fields) > 2 {
		return false
	}
	switch strings.Trim(fields[len(fields)-1], `"`) {
	case clientGoCache, clientGoInformers, dropInCache, dropInInformers, nativeCache,
		clientGoCache + "/testing", nativeCache + "/testing", clientGoCache + "/synctrack", nativeCache + "/synctrack":
		return true
	}
	return false
}

// TestWrite migrates a copy of each fixture with -w in each mode and checks
// that only the import lines of the rewritten paths changed, that every
// changed file is gofmt's output, that vendor, testdata and nested modules
// are left alone, and that a second run changes nothing.
func TestWrite(t *testing.T) {
	for _, fixture := range []string{"app", "mixed"} {
		for mode, flags := range modes {
			t.Run(fixture+"/"+mode, func(t *testing.T) {
				dir := copyTree(t, filepath.Join("testdata", fixture, "in"))
				before := readTree(t, dir)
				code, _, stderr := runCommand(append(append([]string{"-w"}, flags...), dir)...)
				if code != 0 {
					t.Fatalf("exit status %d:\n%s", code, stderr)
				}
				if !strings.Contains(stderr, "&& go mod tidy") {
					t.Errorf("no word on go.mod after writing:\n%s", stderr)
				}
				after := readTree(t, dir)
				changed := 0
				for path, old := range before {
					updated := after[path]
					if updated == old {
						continue
					}
					changed++
					if strings.HasPrefix(path, "vendor/") || strings.HasPrefix(path, "testdata/") || strings.HasPrefix(path, "nested/") {
						t.Errorf("%s changed", path)
					}
					if formatted, err := format.Source([]byte(updated)); err != nil || string(formatted) != updated {
						t.Errorf("%s is not gofmt's output (%v)", path, err)
					}
					for _, line := range lineDiff(old, updated) {
						if !importLine(line) {
							t.Errorf("%s: changed line %q is not an import of a rewritten path", path, line)
						}
					}
				}
				if changed == 0 {
					t.Error("nothing changed")
				}
				if _, stdout, _ := runCommand(append(flags, dir)...); stdout != "" {
					t.Errorf("a second run still has changes:\n%s", stdout)
				}
			})
		}
	}
}

// lineDiff returns the lines of a that are not in b and those of b that are
// not in a, counted with multiplicity: moved lines do not count.
func lineDiff(a, b string) []string {
	count := map[string]int{}
	for line := range strings.Lines(a) {
		count[line]++
	}
	for line := range strings.Lines(b) {
		count[line]--
	}
	var out []string
	for line, n := range count {
		for range max(n, -n) {
			out = append(out, line)
		}
	}
	return out
}

// TestUsage checks the exit status of bad invocations.
func TestUsage(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		code int
	}{
		"unknown flag":             {[]string{"-x"}, 2},
		"two directories":          {[]string{"a", "b"}, 2},
		"unknown target":           {[]string{"-to", "elsewhere", "testdata/app/in"}, 2},
		"-factory with -to native": {[]string{"-to", "native", "-factory", "testdata/app/in"}, 2},
		"not a module":             {[]string{"testdata"}, 1},
	} {
		t.Run(name, func(t *testing.T) {
			if code, _, stderr := runCommand(tc.args...); code != tc.code {
				t.Errorf("exit status %d, want %d:\n%s", code, tc.code, stderr)
			}
		})
	}
}

// TestMigratedModulePassesItsTests builds and tests the fixture module
// testdata/buildable against client-go's tools/cache, migrates it to the
// drop-in with -w, and builds and tests it again, now on informer-go. It
// uses only modules in the module cache.
func TestMigratedModulePassesItsTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds client-go twice")
	}
	dir := copyTree(t, filepath.Join("testdata", "buildable", "in"))
	clientgoDir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(clientgoDir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	goCmd("mod", "edit", "-require=k8s.io/client-go@v0.37.2", "-require=k8s.io/api@v0.37.2", "-require=k8s.io/apimachinery@v0.37.2")
	goCmd("test", "-count=1", "./...")

	if code, _, stderr := runCommand("-w", dir); code != 0 {
		t.Fatalf("exit status %d:\n%s", code, stderr)
	}
	src, err := os.ReadFile(filepath.Join(dir, "pods.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(`"`+dropInCache+`"`)) {
		t.Fatalf("pods.go does not import the drop-in:\n%s", src)
	}
	goCmd("mod", "edit", "-require="+clientGoModule+"@v0.0.0", "-replace="+clientGoModule+"="+clientgoDir,
		"-replace=github.com/informer-go/informer="+filepath.Dir(clientgoDir))
	goCmd("test", "-count=1", "./...")
}

// clientGoModule is the module of the drop-in.
const clientGoModule = "github.com/informer-go/informer/clientgo"
