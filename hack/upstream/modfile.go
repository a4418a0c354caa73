package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// extraRequires are the modules a module file adds to its module's go.mod:
// the upstream modules themselves and what their tests import. The versions
// are the ones the upstream tests were released with.
var extraRequires = map[string][]string{
	"upstream.mod": {
		"k8s.io/client-go@v0.37.2",
		"k8s.io/api@v0.37.2",
		"github.com/stretchr/testify@v1.11.1",
	},
	"e2e.mod": {
		"github.com/onsi/ginkgo/v2@v2.27.4",
		"github.com/onsi/gomega@v1.39.0",
	},
}

// modFiles maps each module file of hack/upstream to the directory of the
// go.mod it extends.
var modFiles = map[string]string{"upstream.mod": ".", "e2e.mod": "e2e"}

// modRequires returns the requirements of a go.mod file, path -> version.
func (o *options) modRequires(path string) (map[string]string, error) {
	out, err := o.goCmd(".", "mod", "edit", "-json", path).Output()
	if err != nil {
		return nil, fmt.Errorf("go mod edit -json %s: %w%s", path, err, stderrOf(err))
	}
	var m struct {
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, err
	}
	reqs := map[string]string{}
	for _, r := range m.Require {
		reqs[r.Path] = r.Version
	}
	return reqs, nil
}

// checkModFile fails when the module file no longer extends its go.mod: a
// requirement of go.mod is missing or at another version. The upstream
// tests must test the library as its users build it.
func (o *options) checkModFile(name string) error {
	base, err := o.modRequires(filepath.Join(o.root, modFiles[name], "go.mod"))
	if err != nil {
		return err
	}
	ext, err := o.modRequires(o.hack(name))
	if err != nil {
		return err
	}
	var diffs []string
	for path, v := range base {
		if ext[path] != v {
			diffs = append(diffs, fmt.Sprintf("%s: go.mod has %s, %s has %q", path, v, name, ext[path]))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("hack/upstream/%s is out of date (go run ./hack/upstream -update regenerates it):\n  %s", name, strings.Join(diffs, "\n  "))
	}
	return nil
}

// updateModFile rewrites a module file from its go.mod and extraRequires,
// then lets go list add what the rewritten tests need (-mod=mod), sums
// included.
func (o *options) updateModFile(name string, suites []*suite, t *table, work string) error {
	dir := filepath.Join(o.root, modFiles[name])
	for _, ext := range []string{".mod", ".sum"} {
		data, err := os.ReadFile(filepath.Join(dir, "go"+ext))
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.hack(strings.TrimSuffix(name, ".mod")+ext), data, 0o644); err != nil {
			return err
		}
	}
	args := []string{"mod", "edit"}
	for _, r := range extraRequires[name] {
		args = append(args, "-require="+r)
	}
	if out, err := o.goCmd(".", append(args, o.hack(name))...).CombinedOutput(); err != nil {
		return fmt.Errorf("go mod edit: %w\n%s", err, out)
	}
	overlay := map[string]string{}
	var pkgs []string
	for _, s := range suites {
		if s.modfile != name {
			continue
		}
		// The Ginkgo suite's shims import only what its module file has
		// already; its own imports are controller-runtime's, as downloaded.
		if !s.ginkgo {
			if _, err := o.prepare(s, t, work, overlay); err != nil {
				return err
			}
		}
		pkgs = append(pkgs, s.listPattern())
	}
	overlayPath, err := writeOverlay(work, overlay)
	if err != nil {
		return err
	}
	cmd := o.goCmd(modFiles[name], append([]string{"list", "-mod=mod", "-modfile=" + o.hack(name), "-overlay=" + overlayPath, "-test", "-deps", "-e"}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go list: %w\n%s", err, out)
	}
	fmt.Printf("updated hack/upstream/%s and its .sum\n", name)
	return nil
}

// writeOverlay writes the overlay file of go build's -overlay flag.
func writeOverlay(work string, overlay map[string]string) (string, error) {
	path := filepath.Join(work, "overlay.json")
	data, err := json.MarshalIndent(map[string]any{"Replace": overlay}, "", "\t")
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, data, 0o644)
}
