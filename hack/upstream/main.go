// Command upstream runs the upstream projects' own tests against this
// library: client-go v0.37.2's tools/cache (with synctrack and testing),
// apimachinery's pkg/util/wait and k8s.io/utils' buffer compiled into the
// packages that replace them, and controller-runtime's pkg/cache envtest
// suite with this library's informers. It prints, per suite, how many Test
// functions (Ginkgo specs for controller-runtime) ran, passed, failed and
// were left out, and fails when a failure is not listed in DIFFERENCES.md.
//
// The upstream sources are read from the module cache (go mod download) and
// never copied into the repository: each run rewrites their imports, removes
// the tests DIFFERENCES.md leaves out, adds the shims of shims/, and hands
// the result to go test through -overlay, with -modfile naming a module file
// that adds the upstream tests' own dependencies (upstream.mod for the root
// module, e2e.mod for the e2e module), so that the repository's go.mod files
// stay as they are. README.md in this directory explains more.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	var opts options
	flag.StringVar(&opts.suites, "suites", "", "comma-separated suites to run (default: all); -list shows them")
	flag.BoolVar(&opts.list, "list", false, "list the suites and exit")
	flag.BoolVar(&opts.race, "race", true, "run the tests under the race detector")
	flag.BoolVar(&opts.verbose, "v", false, "print every test's result as it finishes")
	flag.BoolVar(&opts.all, "all", false, "also run the differences marked \"not run\" (they may crash the test binary), to see whether they still fail")
	flag.BoolVar(&opts.update, "update", false, "regenerate upstream.mod/.sum and e2e.mod/.sum from the modules' go.mod files, then exit")
	flag.StringVar(&opts.work, "work", "", "directory for the rewritten sources and the overlay; what an earlier run wrote there is removed first (default: informer-go/upstream in the user cache directory)")
	flag.StringVar(&opts.timeout, "timeout", "15m", "go test -timeout of each run")
	flag.Parse()

	root, err := repoRoot()
	if err != nil {
		fatal(err)
	}
	opts.root = root
	if opts.list {
		for _, s := range allSuites() {
			fmt.Printf("%-40s %s\n", s.name, s.describe())
		}
		return
	}
	if err := run(&opts); err != nil {
		fatal(err)
	}
}

// options are the command's flags.
type options struct {
	root, suites, work, timeout      string
	list, race, verbose, update, all bool
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "upstream:", err)
	os.Exit(1)
}

// repoRoot finds the directory of the root go.mod from the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(data), "module github.com/informer-go/informer\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the informer-go repository")
		}
		dir = parent
	}
}
