package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

const ourModule = "github.com/informer-go/informer"

// importRewrites maps the upstream packages this library replaces to their
// counterparts here, for every suite.
var importRewrites = map[string]string{
	"k8s.io/client-go/tools/cache":           ourModule + "/cache",
	"k8s.io/client-go/tools/cache/synctrack": ourModule + "/cache/synctrack",
	"k8s.io/client-go/tools/cache/testing":   ourModule + "/cache/testing",
	"k8s.io/apimachinery/pkg/util/wait":      ourModule + "/wait",
	"k8s.io/utils/buffer":                    ourModule + "/buffer",
}

// suite is one upstream package whose tests run against one of ours.
type suite struct {
	name   string // as in DIFFERENCES.md
	module string // upstream module path
	dir    string // package directory inside the upstream module
	pkg    string // our package directory, relative to the repository root
	// modfile is the module file (in hack/upstream) the run uses, modRoot
	// the directory of the module whose go.mod it extends.
	modfile, modRoot string
	ginkgo           bool // a Ginkgo suite: counts are specs
}

func (s *suite) describe() string {
	if s.ginkgo {
		return fmt.Sprintf("%s/%s (Ginkgo, envtest) with informer-go informers", s.module, s.dir)
	}
	return fmt.Sprintf("%s/%s -> ./%s", s.module, s.dir, s.pkg)
}

func allSuites() []*suite {
	unit := func(name, module, dir, pkg string) *suite {
		return &suite{name: name, module: module, dir: dir, pkg: pkg, modfile: "upstream.mod", modRoot: "."}
	}
	return []*suite{
		unit("client-go/tools/cache", "k8s.io/client-go", "tools/cache", "cache"),
		unit("client-go/tools/cache/synctrack", "k8s.io/client-go", "tools/cache/synctrack", "cache/synctrack"),
		unit("client-go/tools/cache/testing", "k8s.io/client-go", "tools/cache/testing", "cache/testing"),
		unit("apimachinery/pkg/util/wait", "k8s.io/apimachinery", "pkg/util/wait", "wait"),
		unit("utils/buffer", "k8s.io/utils", "buffer", "buffer"),
		controllerRuntime,
	}
}

// upstreamModule is a module in the module cache.
type upstreamModule struct{ Dir, Version, Error string }

// modDownload downloads the suite's upstream module at the version its
// module file selects.
func (o *options) modDownload(s *suite) (*upstreamModule, error) {
	out, err := o.goCmd(s.modRoot, "mod", "download", "-modfile="+o.hack(s.modfile), "-json", s.module).Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download %s: %w%s", s.module, err, stderrOf(err))
	}
	var m upstreamModule
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, err
	}
	if m.Error != "" {
		return nil, fmt.Errorf("go mod download %s: %s", s.module, m.Error)
	}
	return &m, nil
}

// listPattern is the package go test and go list are given.
func (s *suite) listPattern() string {
	if s.ginkgo {
		return s.module + "/" + s.dir
	}
	return "./" + s.pkg
}

func (o *options) hack(name string) string { return filepath.Join(o.root, "hack", "upstream", name) }

func (o *options) goCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join(o.root, dir)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	return cmd
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return "\n" + string(ee.Stderr)
	}
	return ""
}

// prepared is a suite rewritten into the work directory.
type prepared struct {
	*suite
	version string
	rw      *rewriteResult
}

// prepare rewrites the suite's upstream tests into work and adds them, with
// the shims, to the overlay; our own tests of the package leave it.
func (o *options) prepare(s *suite, t *table, work string, overlay map[string]string) (*prepared, error) {
	m, err := o.modDownload(s)
	if err != nil {
		return nil, err
	}
	upstream, err := parseDir(filepath.Join(m.Dir, s.dir), false)
	if err != nil {
		return nil, err
	}
	shims, err := parseDir(o.hack(filepath.Join("shims", s.pkg)), true)
	if err != nil {
		return nil, err
	}
	shimNames := map[string]bool{}
	for _, f := range shims {
		shimNames[f.name] = true
	}
	rw, err := rewritePackage(upstream, shims, importRewrites, t.leftOutNames(s.name))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	pkgDir := filepath.Join(o.root, s.pkg)
	own, err := filepath.Glob(filepath.Join(pkgDir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	for _, f := range own {
		overlay[f] = "" // deleted: the upstream tests bring their own TestMain and helpers
	}
	outDir := filepath.Join(work, s.pkg)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	for name, src := range rw.files {
		// Upstream files keep their names, which some tests check in log
		// lines; shims become test files that sort last.
		target := name
		if shimNames[name] {
			target = "zz_upstream_shim_" + strings.TrimSuffix(name, ".go") + "_test.go"
		}
		path := filepath.Join(outDir, target)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return nil, err
		}
		overlay[filepath.Join(pkgDir, target)] = path
	}
	return &prepared{suite: s, version: m.Version, rw: rw}, nil
}

// runUnit runs the unit suites in one go test invocation and reports them.
func (o *options) runUnit(suites []*suite, t *table, work string) (failed bool, err error) {
	overlay := map[string]string{}
	var preps []*prepared
	for _, s := range suites {
		p, err := o.prepare(s, t, work, overlay)
		if err != nil {
			return true, err
		}
		preps = append(preps, p)
	}
	overlayPath, err := writeOverlay(work, overlay)
	if err != nil {
		return true, err
	}
	args := []string{"test", "-json", "-count=1", "-timeout=" + o.timeout, "-modfile=" + o.hack("upstream.mod"), "-overlay=" + overlayPath}
	if o.race {
		args = append(args, "-race")
	}
	var names []string
	for _, p := range preps {
		names = append(names, p.name)
	}
	if skip := t.skipPattern(names); skip != "" {
		args = append(args, "-skip="+skip)
	}
	for _, p := range preps {
		args = append(args, p.listPattern())
	}
	fmt.Printf("== go %s\n", strings.Join(args, " "))
	cmd := o.goCmd(".", args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return true, err
	}
	if err := cmd.Start(); err != nil {
		return true, err
	}
	all, readErr := readResults(stdout, o.echo)
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	if readErr != nil {
		return true, readErr
	}
	if build := all[""]; build != nil && len(build.pkgOutput) > 0 {
		fmt.Print(strings.Join(build.pkgOutput, ""))
	}
	var reports []*report
	for _, p := range preps {
		res := all[ourModule+"/"+p.pkg]
		if res == nil {
			res = &results{status: map[string]string{}}
		}
		reports = append(reports, o.evaluate(p, res, t))
	}
	printReports(reports)
	for _, r := range reports {
		if r.bad() {
			failed = true
		}
	}
	if waitErr != nil && !failed {
		// go test failed but every failure is listed: fine, unless it did
		// not run at all.
		for _, r := range reports {
			if !r.finished {
				failed = true
			}
		}
	}
	return failed, nil
}

func (o *options) echo(ev testEvent) {
	if !o.verbose || ev.Test == "" {
		return
	}
	switch ev.Action {
	case "pass", "fail", "skip":
		fmt.Printf("   %-4s %s %s (%.2fs)\n", ev.Action, strings.TrimPrefix(ev.Package, ourModule+"/"), ev.Test, ev.Elapsed)
	}
}

// report is the outcome of one suite against the table.
type report struct {
	*prepared
	ran, passed, failed, skipped int
	finished                     bool
	unexplained                  []string // failures DIFFERENCES.md does not list
	nowPassing                   []string // listed differences that passed
	stale                        []string // rows naming tests upstream does not have
	leftOutWhy                   map[string]int
	skippedSubtests              []string // left-out subtests, not run
	notRun                       []string // compiled tests that never started: the binary died
	lastStarted                  string
	ginkgo                       *ginkgoCount // Ginkgo suites only
	notRunListed                 int          // top-level differences marked "not run"
	examplesRan, examplesPassed  int
	output                       map[string][]string
	pkgOutput                    []string
	pkgFailedAlone               bool // the package failed outside any test (goleak, panic, build)
}

func (r *report) bad() bool {
	return !r.finished || len(r.unexplained) > 0 || len(r.stale) > 0 || r.pkgFailedAlone || len(r.notRun) > 0
}

func (o *options) evaluate(p *prepared, res *results, t *table) *report {
	r := &report{prepared: p, finished: res.finished, output: res.output, pkgOutput: res.pkgOutput, leftOutWhy: map[string]int{}}
	r.ran, r.passed, r.failed, r.skipped = res.topLevel()
	r.examplesRan, r.examplesPassed = res.examples()
	r.unexplained = res.unexplained(t, p.name)
	started := map[string]bool{}
	for _, name := range res.order {
		started[name] = true
		r.lastStarted = name
	}
	left := t.leftOutNames(p.name)
	for _, name := range p.rw.tests {
		if !left[name] && !started[name] && !t.differences[p.name][name].notRun {
			r.notRun = append(r.notRun, name)
		}
	}
	upstreamTests := map[string]bool{}
	for _, name := range p.rw.tests {
		upstreamTests[name] = true
	}
	for name, row := range t.leftOut[p.name] {
		top, _, sub := strings.Cut(name, "/")
		if !upstreamTests[top] {
			r.stale = append(r.stale, "left out: "+name)
			continue
		}
		if sub {
			r.skippedSubtests = append(r.skippedSubtests, name)
			continue
		}
		why, _, _ := strings.Cut(row.why, ":")
		r.leftOutWhy[strings.TrimSpace(why)]++
	}
	for name, row := range t.differences[p.name] {
		top, _, sub := strings.Cut(name, "/")
		if row.notRun && !sub {
			r.notRunListed++
		}
		if !upstreamTests[top] {
			r.stale = append(r.stale, "difference: "+name)
			continue
		}
		if t.leftOut[p.name][top].test != "" {
			r.stale = append(r.stale, "difference of a left-out test: "+name)
			continue
		}
		if res.status[name] == "pass" {
			r.nowPassing = append(r.nowPassing, name)
		}
	}
	slices.Sort(r.stale)
	slices.Sort(r.nowPassing)
	if res.pkgFailed && r.failed == 0 {
		r.pkgFailedAlone = true
	}
	return r
}

func printReports(reports []*report) {
	fmt.Println()
	fmt.Printf("%-34s %-9s %8s %5s %6s %6s %8s %8s %8s\n", "suite", "version", "upstream", "ran", "passed", "failed", "skipped", "left out", "not run")
	for _, r := range reports {
		fmt.Printf("%-34s %-9s %8d %5d %6d %6d %8d %8d %8d\n", r.name, shortVersion(r.version), len(r.rw.tests), r.ran, r.passed, r.failed, r.skipped, len(r.rw.leftOut), r.notRunListed)
	}
	fmt.Println("(Test functions; failed counts listed differences too. Left out: not compiled, see DIFFERENCES.md's Left out;")
	fmt.Println("not run: compiled but skipped, differences that crash the binary or take long to fail.)")
	for _, r := range reports {
		var lines []string
		if !r.finished {
			lines = append(lines, "did not finish (build failure, panic or timeout):")
			lines = append(lines, indent(lastLines(r.pkgOutput, 60))...)
		}
		if r.pkgFailedAlone {
			lines = append(lines, "the package failed outside any test:")
			lines = append(lines, indent(lastLines(r.pkgOutput, 40))...)
		}
		if len(r.notRun) > 0 {
			lines = append(lines, fmt.Sprintf("%d tests never started (the test binary died: a panic in another goroutine, a timeout): %s", len(r.notRun), strings.Join(r.notRun, ", ")))
			if last := r.lastStarted; last != "" {
				lines = append(lines, "  the last test that started, "+last+":")
				lines = append(lines, indent(lastLines(r.output[last], 30))...)
			}
			lines = append(lines, indent(lastLines(r.pkgOutput, 30))...)
		}
		for _, name := range r.unexplained {
			lines = append(lines, "FAIL not in DIFFERENCES.md: "+name)
			lines = append(lines, indent(lastLines(r.output[name], 40))...)
		}
		for _, name := range r.stale {
			lines = append(lines, "stale row in DIFFERENCES.md, upstream has no such test: "+name)
		}
		for _, name := range r.nowPassing {
			lines = append(lines, "now passes, remove its row from DIFFERENCES.md: "+name)
		}
		if r.examplesRan > 0 {
			lines = append(lines, fmt.Sprintf("examples: %d ran, %d passed", r.examplesRan, r.examplesPassed))
		}
		if len(r.leftOutWhy) > 0 {
			var why []string
			for _, k := range sortedKeys(r.leftOutWhy) {
				why = append(why, fmt.Sprintf("%s %d", k, r.leftOutWhy[k]))
			}
			lines = append(lines, "left out: "+strings.Join(why, ", "))
		}
		if len(r.skippedSubtests) > 0 {
			slices.Sort(r.skippedSubtests)
			lines = append(lines, fmt.Sprintf("left-out subtests (not run): %s", strings.Join(r.skippedSubtests, ", ")))
		}
		if len(r.rw.shimmed) > 0 {
			lines = append(lines, fmt.Sprintf("shimmed: %s", strings.Join(r.rw.shimmed, ", ")))
		}
		if len(lines) > 0 {
			fmt.Printf("\n%s:\n", r.name)
			for _, l := range lines {
				fmt.Println("  " + l)
			}
		}
	}
}

func shortVersion(v string) string {
	if len(v) > 9 {
		// A pseudo-version: its date is the part worth showing.
		if parts := strings.Split(v, "-"); len(parts) == 3 {
			return parts[1][:8]
		}
	}
	return v
}

func lastLines(lines []string, n int) []string {
	joined := strings.Join(lines, "")
	split := strings.Split(strings.TrimRight(joined, "\n"), "\n")
	if len(split) > n {
		split = append([]string{"..."}, split[len(split)-n:]...)
	}
	return split
}

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "    " + l
	}
	return out
}

// run runs the selected suites.
func run(o *options) error {
	t, err := readTable(o.hack("DIFFERENCES.md"))
	if err != nil {
		return err
	}
	if o.all {
		t = t.withoutNotRun()
	}
	// A fixed directory: the compiled packages of the rewritten sources stay
	// in go's build cache from one run to the next.
	work := o.work
	if work == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir() // no $HOME: a fixed place all the same
		}
		work = filepath.Join(cache, "informer-go", "upstream")
	}
	if work, err = filepath.Abs(work); err != nil {
		return err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	// Remove what an earlier run wrote, and only that.
	for _, name := range []string{"cache", "wait", "buffer", "overlay.json", "controller-runtime", "controller-runtime.mod", "controller-runtime.sum", "kubebuilder-assets"} {
		if err := os.RemoveAll(filepath.Join(work, name)); err != nil {
			return err
		}
	}
	var selected []*suite
	want := map[string]bool{}
	for _, n := range strings.Split(o.suites, ",") {
		if n != "" {
			want[n] = true
		}
	}
	for _, s := range allSuites() {
		if len(want) == 0 || want[s.name] {
			selected = append(selected, s)
		}
	}
	if len(want) > 0 && len(selected) < len(want) {
		return fmt.Errorf("no such suites among %s (-list shows them)", strings.Join(sortedKeys(want), ", "))
	}
	if o.update {
		for _, name := range sortedKeys(modFiles) {
			if err := o.updateModFile(name, allSuites(), t, work); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range sortedKeys(modFiles) {
		if err := o.checkModFile(name); err != nil {
			return err
		}
	}
	var unit []*suite
	for _, s := range selected {
		if !s.ginkgo {
			unit = append(unit, s)
		}
	}
	failed := false
	if len(unit) > 0 {
		f, err := o.runUnit(unit, t, work)
		if err != nil {
			return err
		}
		failed = failed || f
	}
	for _, s := range selected {
		if s.ginkgo {
			f, err := o.runGinkgo(s, work)
			if err != nil {
				return err
			}
			failed = failed || f
		}
	}
	if failed {
		return fmt.Errorf("failures not listed in hack/upstream/DIFFERENCES.md (see above)")
	}
	return nil
}
