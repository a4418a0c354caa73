package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sampleTable = "# x\n\n## Left out\n\n| Suite | Test | Why |\n|---|---|---|\n" +
	"| s | `TestA` | unexported internals: a |\n| s | TestB/sub | pending: crashes |\n\n" +
	"## Differences\n\n| Suite | Test | Status | client-go | informer-go | Why ours is right |\n|---|---|---|---|---|---|\n" +
	"| s | TestC/x | intended | a | b | c |\n| s | TestD | pending, not run | a | b | c |\n"

func TestReadTableAndExplain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "DIFFERENCES.md")
	if err := os.WriteFile(path, []byte(sampleTable), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := readTable(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.leftOutNames("s"); len(got) != 1 || !got["TestA"] {
		t.Errorf("leftOutNames = %v, want TestA only (a subtest row is skipped, not removed)", got)
	}
	if got, want := tab.skipPattern([]string{"s"}), "^TestB$/^sub$|^TestD$"; got != want {
		t.Errorf("skipPattern = %q, want %q", got, want)
	}
	if !tab.differences["s"]["TestD"].notRun || !tab.differences["s"]["TestD"].pending {
		t.Errorf("TestD row = %+v", tab.differences["s"]["TestD"])
	}

	// TestC fails because its listed subtest x fails (explained); TestE
	// fails on its own; TestC/y fails and is not listed.
	res := &results{
		status:   map[string]string{"TestC": "fail", "TestC/x": "fail", "TestC/y": "pass", "TestE": "fail", "TestF": "pass"},
		children: map[string][]string{"TestC": {"TestC/x", "TestC/y"}},
		order:    []string{"TestC", "TestC/x", "TestC/y", "TestE", "TestF"},
	}
	if got := res.unexplained(tab, "s"); !slices.Equal(got, []string{"TestE"}) {
		t.Errorf("unexplained = %v, want [TestE]", got)
	}
	res.status["TestC/y"] = "fail"
	if got := res.unexplained(tab, "s"); !slices.Equal(got, []string{"TestC/y", "TestE"}) {
		t.Errorf("unexplained = %v, want [TestC/y TestE]", got)
	}
	if ran, passed, failed, _ := res.topLevel(); ran != 3 || passed != 1 || failed != 2 {
		t.Errorf("topLevel = %d ran, %d passed, %d failed; want 3, 1, 2", ran, passed, failed)
	}
}

// TestSubtestNameWithSlash checks that a subtest whose own name has a slash
// counts under its real parent.
func TestSubtestNameWithSlash(t *testing.T) {
	events := `{"Action":"run","Package":"p","Test":"TestW"}
{"Action":"run","Package":"p","Test":"TestW/LIST/WATCH"}
{"Action":"fail","Package":"p","Test":"TestW/LIST/WATCH"}
{"Action":"fail","Package":"p","Test":"TestW"}
{"Action":"fail","Package":"p"}
`
	all, err := readResults(strings.NewReader(events), nil)
	if err != nil {
		t.Fatal(err)
	}
	res := all["p"]
	tab := &table{differences: map[string]map[string]differenceRow{"s": {"TestW/LIST/WATCH": {}}}}
	if got := res.unexplained(tab, "s"); len(got) != 0 {
		t.Errorf("unexplained = %v, want none", got)
	}
	if !res.finished || !res.pkgFailed {
		t.Errorf("finished %v, failed %v; want both", res.finished, res.pkgFailed)
	}
}
