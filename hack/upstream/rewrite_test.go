package main

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func parseSource(t *testing.T, name, src string, shim bool) *sourceFile {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return &sourceFile{name: name, shim: shim, fset: fset, file: f}
}

const upstreamSource = `package cache

import (
	"testing"

	"k8s.io/client-go/tools/cache/synctrack"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// kept reaches helperKept.
func TestKept(t *testing.T) {
	helperKept(t)
	_ = synctrack.AsyncTracker[string]{}
	_ = "k8s.io/client-go/tools/cache.TestKept"
	_ = getNextBackoff
}

func TestLeftOut(t *testing.T) {
	helperOfLeftOut(sets.New[string]())
}

func BenchmarkNotCompiled(b *testing.B) { helperOfLeftOut(nil) }

func helperKept(t *testing.T) { var _ v1.Pod; (&DeltaFIFO{}).list() }

// helperOfLeftOut reaches into internals that differ here.
func helperOfLeftOut(s sets.Set[string]) { _ = s; (&DeltaFIFO{}).unused() }

func (f *DeltaFIFO) list() []any { return f.lock }

func (f *DeltaFIFO) unused() {}

type testType struct{}

func (testType) String() string { return "" }

var _ = testType{}
`

const shimSource = `//go:build ignore

package cache

//upstream:rename getNextBackoff=nextBackoff

func (f *DeltaFIFO) list() []any { return nil }
`

func TestRewritePackage(t *testing.T) {
	up := parseSource(t, "x_test.go", upstreamSource, false)
	shim := parseSource(t, "shims.go", shimSource, true)
	res, err := rewritePackage([]*sourceFile{up}, []*sourceFile{shim},
		map[string]string{"k8s.io/client-go/tools/cache": "example.com/ours/cache", "k8s.io/client-go/tools/cache/synctrack": "example.com/ours/cache/synctrack"},
		map[string]bool{"TestLeftOut": true})
	if err != nil {
		t.Fatal(err)
	}
	got := string(res.files["x_test.go"])
	for _, want := range []string{
		"func TestKept(", "func helperKept(", "func (testType) String()", "var _ = testType{}",
		`synctrack "example.com/ours/cache/synctrack"`, `v1 "k8s.io/api/core/v1"`,
		`"example.com/ours/cache.TestKept"`, "_ = nextBackoff",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, got)
		}
	}
	for _, gone := range []string{
		"TestLeftOut", "BenchmarkNotCompiled", "helperOfLeftOut", "unused()", "f.lock", "apimachinery/pkg/util/sets", "k8s.io/client-go",
	} {
		if strings.Contains(got, gone) {
			t.Errorf("rewritten file still has %q:\n%s", gone, got)
		}
	}
	shimOut := string(res.files["shims.go"])
	if strings.Contains(shimOut, "go:build") || !strings.Contains(shimOut, "func (f *DeltaFIFO) list()") {
		t.Errorf("shim:\n%s", shimOut)
	}
	if strings.Join(res.tests, ",") != "TestKept,TestLeftOut" || strings.Join(res.leftOut, ",") != "TestLeftOut" {
		t.Errorf("tests %v, left out %v", res.tests, res.leftOut)
	}
	if strings.Join(res.shimmed, ",") != "DeltaFIFO.list" {
		t.Errorf("shimmed %v, want DeltaFIFO.list", res.shimmed)
	}
}

func TestImportName(t *testing.T) {
	for path, want := range map[string]string{
		"k8s.io/api/core/v1":                     "v1",
		"k8s.io/apimachinery/pkg/apis/meta/v1":   "v1",
		"k8s.io/klog/v2":                         "klog",
		"github.com/onsi/ginkgo/v2":              "ginkgo",
		"github.com/google/go-cmp/cmp":           "cmp",
		"gopkg.in/yaml.v3":                       "yaml",
		"k8s.io/client-go/tools/cache/synctrack": "synctrack",
	} {
		if got := importName(path); got != want {
			t.Errorf("importName(%q) = %q, want %q", path, got, want)
		}
	}
}
