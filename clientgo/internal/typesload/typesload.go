// Package typesload type-checks packages from the export data the go
// command builds, for the tests that compare APIs.
package typesload

import (
	"bufio"
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Load returns the type-checked packages at paths, read from the export
// data the go command builds (go list -export, run in the current
// directory's module). One importer reads them all, so a type of a package
// they share is the same *types.Named in each.
func Load(paths ...string) (map[string]*types.Package, error) {
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %w\n%s", err, stderr.String())
	}
	files := map[string]string{}
	scanner := bufio.NewScanner(bytes.NewReader(out))
	for scanner.Scan() {
		path, file, _ := strings.Cut(scanner.Text(), "\t")
		files[path] = file
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file := files[path]
		if file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", lookup)
	pkgs := map[string]*types.Package{}
	for _, path := range paths {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", path, err)
		}
		pkgs[path] = pkg
	}
	return pkgs, nil
}
