package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// controllerRuntime is controller-runtime's pkg/cache suite: Ginkgo specs
// against envtest's etcd and kube-apiserver (the e2e module's binaries), with
// every informer the caches make built by this library's
// clientgo.NewSharedIndexInformer, once per pipeline.
var controllerRuntime = &suite{
	name: "controller-runtime/pkg/cache", module: "sigs.k8s.io/controller-runtime", dir: "pkg/cache",
	modfile: "e2e.mod", modRoot: "e2e", ginkgo: true,
}

// pipelines are the values of INFORMER_GO_PIPELINE the Ginkgo suite runs with.
var pipelines = []string{"DeltaFIFO", "InOrder"}

// informersDefault is the line of controller-runtime's
// pkg/cache/internal/informers.go that picks client-go's constructor when
// the cache options name none; the runner's copy calls the shim instead.
const informersDefault = "newInformer := cache.NewSharedIndexInformer\n"

// prepareGinkgo copies controller-runtime from the module cache into work
// (go build refuses overlays of files in the module cache), makes its
// informers default to this library's constructor, adds the shims of
// shims/controller-runtime, and writes a module file that is s.modfile
// with controller-runtime replaced by the copy. It returns that file.
func (o *options) prepareGinkgo(s *suite, work string) (*prepared, string, error) {
	m, err := o.modDownload(s)
	if err != nil {
		return nil, "", err
	}
	root := filepath.Join(work, "controller-runtime")
	if err := copyTree(m.Dir, root); err != nil {
		return nil, "", err
	}
	pkgDir := filepath.Join(root, s.dir)
	informers := filepath.Join(pkgDir, "internal", "informers.go")
	src, err := os.ReadFile(informers)
	if err != nil {
		return nil, "", err
	}
	if n := bytes.Count(src, []byte(informersDefault)); n != 1 {
		return nil, "", fmt.Errorf("%s: %q occurs %d times, want once: the runner needs updating for this version", informers, strings.TrimSpace(informersDefault), n)
	}
	files := map[string][]byte{
		informers: bytes.Replace(src, []byte(informersDefault), []byte("newInformer := informerGoNewInformer()\n"), 1),
	}
	for shim, target := range map[string]string{
		"informergo.go":      filepath.Join(pkgDir, "internal", "zz_informergo.go"),
		"informergo_test.go": filepath.Join(pkgDir, "zz_informergo_test.go"),
	} {
		data, err := os.ReadFile(o.hack(filepath.Join("shims", "controller-runtime", shim)))
		if err != nil {
			return nil, "", err
		}
		files[target] = stripBuildConstraint(data)
	}
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, "", err
		}
	}
	modfile := filepath.Join(work, "controller-runtime.mod")
	for _, ext := range []string{".mod", ".sum"} {
		data, err := os.ReadFile(o.hack(strings.TrimSuffix(s.modfile, ".mod") + ext))
		if err != nil {
			return nil, "", err
		}
		if err := os.WriteFile(strings.TrimSuffix(modfile, ".mod")+ext, data, 0o644); err != nil {
			return nil, "", err
		}
	}
	if out, err := o.goCmd(".", "mod", "edit", "-replace="+s.module+"="+root, modfile).CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("go mod edit: %w\n%s", err, out)
	}
	return &prepared{suite: s, version: m.Version, rw: &rewriteResult{}}, modfile, nil
}

// copyTree copies the regular files under src to dst, writable.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// stripBuildConstraint removes the //go:build line that keeps a shim out of
// the repository's own builds.
func stripBuildConstraint(src []byte) []byte {
	var out []string
	for _, line := range strings.SplitAfter(string(src), "\n") {
		if !strings.HasPrefix(line, "//go:build ") {
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, ""))
}

// kubebuilderAssets returns a directory holding etcd and kube-apiserver, as
// envtest wants it: $KUBEBUILDER_ASSETS, or links to the binaries the e2e
// module builds or finds (go run ./hack/buildbins, which prints progress).
func (o *options) kubebuilderAssets(work string) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	cmd := o.goCmd("e2e", "run", "./hack/buildbins")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("e2e binaries: %w", err)
	}
	dir := filepath.Join(work, "kubebuilder-assets")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, path, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		if err := os.Symlink(path, filepath.Join(dir, name)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// ginkgoSummary is what Ginkgo prints at the end of a suite.
var (
	ginkgoRan    = regexp.MustCompile(`Ran (\d+) of (\d+) Specs`)
	ginkgoResult = regexp.MustCompile(`(?m)^(?:SUCCESS|FAIL)! -- (.*)$`)
	ginkgoCount1 = regexp.MustCompile(`(\d+) (Passed|Failed|Flaked|Pending|Skipped)`)
)

// ginkgoFlakeAttempts is how often Ginkgo runs a failing spec before it
// counts as failed. Some of controller-runtime's specs race the informer's
// first list against a check (GetInformer with a canceled context expects
// the informer not to have synced yet); on a loaded machine they fail with
// client-go's own informers too (INFORMER_GO_PIPELINE=client-go shows it).
// Flaked specs are reported.
const ginkgoFlakeAttempts = 3

// runGinkgo runs the Ginkgo suite once per pipeline and reports its specs.
func (o *options) runGinkgo(s *suite, work string) (failed bool, err error) {
	p, modfile, err := o.prepareGinkgo(s, work)
	if err != nil {
		return true, err
	}
	assets, err := o.kubebuilderAssets(work)
	if err != nil {
		return true, err
	}
	// Compile once, then run the pipelines side by side: the specs mostly
	// wait on their kube-apiserver, so two runs take little longer than one.
	pkg := s.module + "/" + s.dir
	bin := filepath.Join(work, "controller-runtime-cache.test")
	args := []string{"test", "-c", "-o", bin, "-modfile=" + modfile}
	if o.race {
		args = append(args, "-race")
	}
	args = append(args, pkg)
	fmt.Printf("== go %s\n", strings.Join(args, " "))
	if out, err := o.goCmd(s.modRoot, args...).CombinedOutput(); err != nil {
		return true, fmt.Errorf("build %s: %w\n%s", pkg, err, out)
	}
	outputs := make([]*bytes.Buffer, len(pipelines))
	var wg sync.WaitGroup
	for i, pipeline := range pipelines {
		outputs[i] = new(bytes.Buffer)
		cmd := o.goCmd(s.modRoot, "tool", "test2json", "-t", "-p", pkg, bin, "-test.v=test2json", "-test.count=1", "-test.timeout="+o.timeout,
			"-ginkgo.no-color", fmt.Sprintf("-ginkgo.flake-attempts=%d", ginkgoFlakeAttempts))
		cmd.Dir = filepath.Join(work, "controller-runtime", s.dir) // go test runs a test in its package's directory
		cmd.Env = append(cmd.Env, "INFORMER_GO_PIPELINE="+pipeline, "KUBEBUILDER_ASSETS="+assets,
			"KUBEBUILDER_CONTROLPLANE_START_TIMEOUT=3m", "KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT=1m")
		cmd.Stdout = outputs[i]
		cmd.Stderr = os.Stderr
		fmt.Printf("== INFORMER_GO_PIPELINE=%s %s\n", pipeline, strings.Join(cmd.Args[1:], " "))
		if err := cmd.Start(); err != nil {
			return true, err
		}
		wg.Go(func() { _ = cmd.Wait() }) // the outcome is in the JSON
	}
	wg.Wait()
	var reports []*report
	for i, pipeline := range pipelines {
		all, err := readResults(outputs[i], o.echo)
		if err != nil {
			return true, err
		}
		res := all[pkg]
		if res == nil {
			res = &results{status: map[string]string{}}
		}
		r := &report{prepared: &prepared{suite: &suite{name: s.name + " (" + pipeline + ")"}, version: p.version, rw: p.rw},
			finished: res.finished, output: res.output, pkgOutput: res.pkgOutput, leftOutWhy: map[string]int{}}
		r.ginkgo = ginkgoSpecs(res)
		r.ran, r.passed, r.failed, r.skipped = res.topLevel()
		// Ginkgo reports its failures in the suite's test; none is expected.
		for _, name := range res.order {
			if res.status[name] != "pass" && res.status[name] != "skip" {
				r.unexplained = append(r.unexplained, name)
			}
		}
		if res.pkgFailed && r.failed == 0 {
			r.pkgFailedAlone = true
		}
		reports = append(reports, r)
	}
	printGinkgoReports(reports)
	for _, r := range reports {
		if r.bad() || r.ginkgo == nil || r.ginkgo.failed > 0 {
			failed = true
		}
	}
	return failed, nil
}

// ginkgoCount is a Ginkgo suite's spec summary.
type ginkgoCount struct {
	ran, total, passed, failed, flaked, pending, skipped int
	flakedSpecs                                          []string
}

func ginkgoSpecs(res *results) *ginkgoCount {
	var text strings.Builder
	for _, lines := range res.output {
		for _, l := range lines {
			text.WriteString(l)
		}
	}
	for _, l := range res.pkgOutput {
		text.WriteString(l)
	}
	ran := ginkgoRan.FindStringSubmatch(text.String())
	result := ginkgoResult.FindStringSubmatch(text.String())
	if ran == nil || result == nil {
		return nil
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	g := &ginkgoCount{ran: n(ran[1]), total: n(ran[2])}
	for _, m := range ginkgoCount1.FindAllStringSubmatch(result[1], -1) {
		switch m[2] {
		case "Passed":
			g.passed = n(m[1])
		case "Failed":
			g.failed = n(m[1])
		case "Flaked":
			g.flaked = n(m[1])
		case "Pending":
			g.pending = n(m[1])
		case "Skipped":
			g.skipped = n(m[1])
		}
	}
	for _, m := range ginkgoFlake.FindAllStringSubmatch(text.String(), -1) {
		g.flakedSpecs = append(g.flakedSpecs, strings.TrimSpace(m[1]))
	}
	return g
}

// ginkgoFlake matches the report of a spec that passed after failing.
var ginkgoFlake = regexp.MustCompile(`\[FLAKEY TEST[^\n]*\n\s*([^\n]*)`)

func printGinkgoReports(reports []*report) {
	fmt.Println()
	fmt.Printf("%-40s %-9s %6s %5s %6s %6s %6s %8s %8s   %s\n", "suite (Ginkgo specs)", "version", "specs", "ran", "passed", "failed", "flaked", "pending", "skipped", "Go tests: ran/passed/failed")
	for _, r := range reports {
		g := r.ginkgo
		if g == nil {
			fmt.Printf("%-40s %-9s no Ginkgo summary (the suite did not run)\n", r.name, r.version)
			continue
		}
		fmt.Printf("%-40s %-9s %6d %5d %6d %6d %6d %8d %8d   %d/%d/%d\n", r.name, r.version, g.total, g.ran, g.passed, g.failed, g.flaked, g.pending, g.skipped, r.ran, r.passed, r.failed)
	}
	for _, r := range reports {
		var lines []string
		if !r.finished || r.pkgFailedAlone {
			lines = append(lines, "did not finish, or failed outside any test:")
			lines = append(lines, indent(lastLines(r.pkgOutput, 60))...)
		}
		if r.ginkgo != nil {
			for _, spec := range r.ginkgo.flakedSpecs {
				lines = append(lines, "flaked (passed on a later attempt): "+spec)
			}
		}
		for _, name := range r.unexplained {
			lines = append(lines, "FAIL: "+name)
			lines = append(lines, indent(lastLines(r.output[name], 80))...)
		}
		if len(lines) > 0 {
			fmt.Printf("\n%s:\n", r.name)
			for _, l := range lines {
				fmt.Println("  " + l)
			}
		}
	}
}
