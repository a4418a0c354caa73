package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// leftOutRow is a row of DIFFERENCES.md's "Left out" table: an upstream Test
// function that is not compiled, and why.
type leftOutRow struct {
	suite, test, why string
}

// differenceRow is a row of DIFFERENCES.md's "Differences" table: an upstream
// test (or subtest) that runs and fails, and why that is expected.
type differenceRow struct {
	suite, test string
	pending     bool // a fix is expected: the row goes when it lands
	notRun      bool // skipped: it crashes the test binary or takes long to fail
}

// table is what the runner reads from DIFFERENCES.md.
type table struct {
	leftOut     map[string]map[string]leftOutRow    // suite -> test -> row
	differences map[string]map[string]differenceRow // suite -> test -> row
}

// readTable parses the two tables of path. A table starts under a heading
// "## Left out" or "## Differences"; its first column is the suite and its
// second the test, in backquotes or not.
func readTable(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &table{leftOut: map[string]map[string]leftOutRow{}, differences: map[string]map[string]differenceRow{}}
	section := ""
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if h, ok := strings.CutPrefix(text, "## "); ok {
			section = strings.ToLower(strings.TrimSpace(h))
			continue
		}
		if !strings.HasPrefix(text, "|") || (section != "left out" && section != "differences") {
			continue
		}
		cells := strings.Split(strings.Trim(text, "|"), "|")
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		if len(cells) < 3 || cells[0] == "Suite" || strings.HasPrefix(cells[0], "---") || strings.HasPrefix(cells[0], ":-") {
			continue
		}
		suite, test := cells[0], cells[1]
		if test == "" {
			return nil, fmt.Errorf("%s:%d: a row without a test", path, line)
		}
		switch section {
		case "left out":
			if t.leftOut[suite] == nil {
				t.leftOut[suite] = map[string]leftOutRow{}
			}
			if _, dup := t.leftOut[suite][test]; dup {
				return nil, fmt.Errorf("%s:%d: %s %s listed twice", path, line, suite, test)
			}
			t.leftOut[suite][test] = leftOutRow{suite: suite, test: test, why: cells[2]}
		case "differences":
			if len(cells) < 6 {
				return nil, fmt.Errorf("%s:%d: a difference needs six cells: suite, test, status, client-go, informer-go, why", path, line)
			}
			status, notRun := strings.CutSuffix(strings.ToLower(cells[2]), ", not run")
			if status != "intended" && status != "pending" {
				return nil, fmt.Errorf("%s:%d: status %q is neither intended nor pending (optionally followed by \", not run\")", path, line, cells[2])
			}
			if t.differences[suite] == nil {
				t.differences[suite] = map[string]differenceRow{}
			}
			if _, dup := t.differences[suite][test]; dup {
				return nil, fmt.Errorf("%s:%d: %s %s listed twice", path, line, suite, test)
			}
			t.differences[suite][test] = differenceRow{suite: suite, test: test, pending: status == "pending", notRun: notRun}
		}
	}
	return t, sc.Err()
}

// explained reports whether the failure of test (a test or subtest name) is
// a listed difference: it or one of its parents is listed.
func (t *table) explained(suite, test string) bool {
	rows := t.differences[suite]
	for name := test; ; {
		if _, ok := rows[name]; ok {
			return true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return false
		}
		name = name[:i]
	}
}

// leftOutNames returns the set of left-out Test functions of suite: their
// source is removed.
func (t *table) leftOutNames(suite string) map[string]bool {
	names := map[string]bool{}
	for n := range t.leftOut[suite] {
		if !strings.Contains(n, "/") {
			names[n] = true
		}
	}
	return names
}

// skipPattern returns the go test -skip pattern of the suites ("" for
// none): the left-out subtests, which compile, and the differences marked
// "not run".
func (t *table) skipPattern(suites []string) string {
	var alts []string
	add := func(name string) {
		parts := strings.Split(name, "/")
		for i, p := range parts {
			parts[i] = "^" + regexp.QuoteMeta(p) + "$"
		}
		alts = append(alts, strings.Join(parts, "/"))
	}
	for _, suite := range suites {
		for _, n := range sortedKeys(t.leftOut[suite]) {
			if strings.Contains(n, "/") {
				add(n)
			}
		}
		for _, n := range sortedKeys(t.differences[suite]) {
			if t.differences[suite][n].notRun {
				add(n)
			}
		}
	}
	return strings.Join(alts, "|")
}

// withoutNotRun returns t with every difference marked to run.
func (t *table) withoutNotRun() *table {
	c := &table{leftOut: t.leftOut, differences: map[string]map[string]differenceRow{}}
	for suite, rows := range t.differences {
		c.differences[suite] = map[string]differenceRow{}
		for name, row := range rows {
			row.notRun = false
			c.differences[suite][name] = row
		}
	}
	return c
}
