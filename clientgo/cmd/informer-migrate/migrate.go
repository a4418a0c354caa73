package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// change is the new content of one file.
type change struct {
	path     string // absolute
	rel      string // relative to the module root, with slashes
	old, new []byte
}

// finding is one report.
type finding struct {
	pos token.Position // Filename relative to the module root
	msg string
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", f.pos.Filename, f.pos.Line, f.pos.Column, f.msg)
}

// result is what a migration would change and report.
type result struct {
	changes  []change  // by path
	findings []finding // by position
	requires bool      // the module's go.mod already requires the target's module
}

// migrate reads the module rooted at dir and returns what migrating it to t
// changes and reports. It writes nothing.
func migrate(dir string, t target) (*result, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	modPath, requires, err := readGoMod(root, t.module)
	if err != nil {
		return nil, err
	}
	paths, err := goFiles(root)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	res := &result{requires: requires}
	var files []*fileInfo
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		newSrc, err := rewrite(fset, f, src, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		if !bytes.Equal(newSrc, src) {
			res.changes = append(res.changes, change{path: path, rel: rel, old: src, new: newSrc})
		}
		files = append(files, scan(fset, f, t))
	}
	res.findings = analyze(files, modPath, t)
	return res, nil
}

// readGoMod returns the module path declared by root/go.mod, and whether
// the file mentions module (a requirement or a replacement of it).
func readGoMod(root, module string) (string, bool, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", false, fmt.Errorf("%s is not the root of a module: %w", root, err)
	}
	var modPath string
	requires := false
	scanner := bufio.NewScanner(bytes.NewReader(data))
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && modPath == "" && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			modPath = strings.TrimSpace(rest)
			if unquoted, err := strconv.Unquote(modPath); err == nil {
				modPath = unquoted
			}
		}
		if slices.Contains(strings.Fields(line), module) {
			requires = true
		}
	}
	if modPath == "" {
		return "", false, fmt.Errorf("%s/go.mod has no module line", root)
	}
	return modPath, requires, nil
}

// goFiles returns the .go files of the module rooted at root, sorted:
// not in vendor or testdata directories, directories whose name starts with
// "." or "_", or nested modules.
func goFiles(root string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			name := d.Name()
			if name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && d.Type().IsRegular() {
			paths = append(paths, path)
		}
		return nil
	})
	slices.Sort(paths)
	return paths, err
}

// rewrite returns src with the import paths of f rewritten for t and, if
// any was, formatted by gofmt (which sorts the imports); otherwise src.
// Only the import path literals change: an import that had no name gets the
// old package name when the new package has another.
func rewrite(fset *token.FileSet, f *ast.File, src []byte, t target) ([]byte, error) {
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	for _, spec := range f.Imports {
		old, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return nil, err
		}
		replacement, ok := t.rewrites[old]
		if !ok {
			continue
		}
		text := strconv.Quote(replacement)
		if spec.Name == nil && packageName(old) != packageName(replacement) {
			text = packageName(old) + " " + text
		}
		edits = append(edits, edit{fset.Position(spec.Path.Pos()).Offset, fset.Position(spec.Path.End()).Offset, text})
	}
	if len(edits) == 0 {
		return src, nil
	}
	out := slices.Clone(src)
	for _, e := range slices.Backward(edits) { // f.Imports are in source order
		out = slices.Concat(out[:e.start], []byte(e.text), out[e.end:])
	}
	formatted, err := format.Source(out)
	if err != nil {
		return nil, fmt.Errorf("gofmt: %w", err)
	}
	return formatted, nil
}

// write writes every change.
func (r *result) write() error {
	var errs []error
	for _, c := range r.changes {
		info, err := os.Stat(c.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, os.WriteFile(c.path, c.new, info.Mode().Perm()))
	}
	return errors.Join(errs...)
}

// diff prints every change as a unified diff.
func (r *result) diff(w io.Writer) error {
	for _, c := range r.changes {
		text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A:        difflib.SplitLines(string(c.old)),
			B:        difflib.SplitLines(string(c.new)),
			FromFile: "a/" + c.rel,
			ToFile:   "b/" + c.rel,
			Context:  3,
		})
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "diff -u a/%s b/%s\n%s", c.rel, c.rel, text); err != nil {
			return err
		}
	}
	return nil
}
