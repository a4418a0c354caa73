package main

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
)

// testEvent is one line of go test -json.
type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
	// ImportPath names the package of build output (go test -json reports
	// it as build-output events since Go 1.24).
	ImportPath string
}

// results is what one go test -json run reported.
type results struct {
	status    map[string]string   // test or subtest -> pass, fail or skip
	output    map[string][]string // test or subtest -> its output lines
	children  map[string][]string // test -> its subtests that reported
	order     []string            // tests and subtests as they started
	started   map[string]struct{} // the names in order
	pkgFailed bool
	finished  bool     // the package reported pass or fail
	pkgOutput []string // output outside any test (build errors, panics, goleak)
	elapsed   float64
}

// readResults consumes go test -json from r, by package; every line that
// is not JSON (build output) is kept under the package "".
func readResults(r io.Reader, echo func(testEvent)) (map[string]*results, error) {
	all := map[string]*results{}
	get := func(pkg string) *results {
		res := all[pkg]
		if res == nil {
			res = &results{status: map[string]string{}, output: map[string][]string{}, children: map[string][]string{}, started: map[string]struct{}{}}
			all[pkg] = res
		}
		return res
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev testEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Action == "" {
			res := get("")
			res.pkgOutput = append(res.pkgOutput, sc.Text()+"\n")
			continue
		}
		if echo != nil {
			echo(ev)
		}
		if ev.Action == "build-output" || ev.Action == "build-fail" {
			pkg, _, _ := strings.Cut(ev.ImportPath, " ")
			pkg = strings.TrimSuffix(pkg, ".test")
			get(pkg).pkgOutput = append(get(pkg).pkgOutput, ev.Output)
			continue
		}
		res := get(ev.Package)
		switch {
		case ev.Test == "" && ev.Action == "output":
			res.pkgOutput = append(res.pkgOutput, ev.Output)
		case ev.Test == "" && (ev.Action == "fail" || ev.Action == "pass"):
			res.pkgFailed = ev.Action == "fail"
			res.finished = true
			res.elapsed = ev.Elapsed
		case ev.Test == "":
		case ev.Action == "run":
			// The parent is the longest prefix that ran before: a subtest
			// name may itself contain a slash.
			for i := len(ev.Test); ; {
				i = strings.LastIndexByte(ev.Test[:i], '/')
				if i < 0 {
					break
				}
				if _, ok := res.started[ev.Test[:i]]; ok {
					res.children[ev.Test[:i]] = append(res.children[ev.Test[:i]], ev.Test)
					break
				}
			}
			res.order = append(res.order, ev.Test)
			res.started[ev.Test] = struct{}{}
		case ev.Action == "output":
			res.output[ev.Test] = append(res.output[ev.Test], ev.Output)
		case ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip":
			res.status[ev.Test] = ev.Action
		}
	}
	return all, sc.Err()
}

// topLevel counts the Test functions that ran, by outcome.
func (r *results) topLevel() (ran, passed, failed, skipped int) {
	for _, t := range r.order {
		if strings.Contains(t, "/") || !strings.HasPrefix(t, "Test") { // subtests, examples
			continue
		}
		ran++
		switch r.status[t] {
		case "pass":
			passed++
		case "skip":
			skipped++
		default: // a test that never finished (panic, timeout) failed
			failed++
		}
	}
	return ran, passed, failed, skipped
}

// examples counts the examples that ran and those that passed.
func (r *results) examples() (ran, passed int) {
	for _, t := range r.order {
		if strings.HasPrefix(t, "Example") {
			ran++
			if r.status[t] == "pass" {
				passed++
			}
		}
	}
	return ran, passed
}

// unexplained returns the failed tests that the table does not explain: a
// failure is explained when the test or a parent is listed, or when every
// subtest that failed under it is explained. A test that never finished
// counts as failed.
func (r *results) unexplained(t *table, suite string) []string {
	var out []string
	var explained func(name string) bool
	explained = func(name string) bool {
		if t.explained(suite, name) {
			return true
		}
		failedChildren := 0
		for _, c := range r.children[name] {
			if r.status[c] != "pass" && r.status[c] != "skip" {
				failedChildren++
				if !explained(c) {
					return false
				}
			}
		}
		return failedChildren > 0
	}
	for _, name := range r.order {
		if r.status[name] == "pass" || r.status[name] == "skip" {
			continue
		}
		if explained(name) {
			continue
		}
		// Report the innermost failures only: a parent whose children
		// failed unexplained adds nothing.
		innermost := true
		for _, c := range r.children[name] {
			if r.status[c] != "pass" && r.status[c] != "skip" {
				innermost = false
			}
		}
		if innermost {
			out = append(out, name)
		}
	}
	return out
}
