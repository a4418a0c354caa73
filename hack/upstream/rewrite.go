package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// sourceFile is one Go file of an upstream package or of its shims, parsed.
type sourceFile struct {
	name string // base name, prefixed by the runner when written
	shim bool   // from hack/upstream/shims: never pruned, overrides upstream declarations
	fset *token.FileSet
	file *ast.File
}

// declaration is one top-level declaration of a file: a function, a method,
// or one spec of a var, const or type declaration.
type declaration struct {
	key  string // name; "Recv.Method" for methods
	file *sourceFile
	node ast.Node // *ast.FuncDecl or an ast.Spec
	gen  *ast.GenDecl
	// refs are the identifiers the declaration uses, selector names included.
	refs map[string]bool
}

// rewriteResult is what preparing a package produced.
type rewriteResult struct {
	files    map[string][]byte // base name -> rewritten source
	tests    []string          // upstream Test functions, in file order
	leftOut  []string          // upstream Test functions removed, in file order
	shimmed  []string          // upstream declarations replaced by a shim
	external int               // files of an external test package (pkg_test)
}

// parseDir parses the *_test.go files of dir (upstream) or every .go file
// (shims).
func parseDir(dir string, shim bool) ([]*sourceFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if shim && os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var files []*sourceFile
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || (!shim && !strings.HasSuffix(n, "_test.go")) {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, &sourceFile{name: n, shim: shim, fset: fset, file: f})
	}
	return files, nil
}

// rewritePackage rewrites the imports of the upstream test files, replaces
// the declarations that shims redeclare, removes the left-out Test functions,
// prunes every declaration no remaining test reaches (helpers of removed
// tests would otherwise not compile), and formats the result.
func rewritePackage(upstream, shims []*sourceFile, imports map[string]string, leftOut map[string]bool) (*rewriteResult, error) {
	res := &rewriteResult{files: map[string][]byte{}}
	all := append(slices.Clone(upstream), shims...)
	for _, f := range all {
		for _, imp := range f.file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if to, ok := imports[path]; ok {
				if imp.Name == nil {
					// Keep the name the file uses for the package.
					imp.Name = ast.NewIdent(importName(path))
				}
				imp.Path.Value = strconv.Quote(to)
			}
		}
	}

	// Package paths in string literals (expected handler and function
	// names, log lines) name our packages, as the imports do.
	paths := sortedKeys(imports)
	slices.SortFunc(paths, func(a, b string) int { return len(b) - len(a) })
	for _, f := range upstream {
		ast.Inspect(f.file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				for _, from := range paths {
					lit.Value = strings.ReplaceAll(lit.Value, from, imports[from])
				}
			}
			return true
		})
	}

	renames, err := renameDirectives(shims)
	if err != nil {
		return nil, err
	}
	for _, f := range upstream {
		applyRenames(f.file, renames)
	}

	var decls []*declaration
	shimKeys := map[string]bool{}
	testTypes := map[string]bool{} // types declared by the test files
	for _, f := range all {
		for _, d := range splitDecls(f) {
			decls = append(decls, d)
			if f.shim {
				shimKeys[d.key] = true
			}
			if _, ok := d.node.(*ast.TypeSpec); ok {
				testTypes[d.key] = true
			}
		}
	}

	kept := map[*declaration]bool{}
	removed := map[*declaration]bool{}
	for _, d := range decls {
		switch {
		case d.file.shim:
			kept[d] = true
		case shimKeys[d.key]:
			removed[d] = true
			res.shimmed = append(res.shimmed, d.key)
		case isTestFunc(d, "Test") && d.key != "TestMain":
			res.tests = append(res.tests, d.key)
			if leftOut[d.key] {
				removed[d] = true
				res.leftOut = append(res.leftOut, d.key)
			} else {
				kept[d] = true
			}
		case isRoot(d):
			kept[d] = true
		}
	}
	// Grow the kept set to everything kept declarations reach.
	for changed := true; changed; {
		changed = false
		used := map[string]bool{}
		for d := range kept {
			for r := range d.refs {
				used[r] = true
			}
		}
		for _, d := range decls {
			if kept[d] || removed[d] {
				continue
			}
			name, recv, isMethod := strings.Cut(d.key, ".")
			reach := used[d.key]
			if isMethod {
				name, recv = recv, name
				// A method of a type the tests declare lives as long as the
				// type (it may satisfy an interface nobody names); a method the
				// tests add to a library type only when something calls it.
				reach = (testTypes[recv] && used[recv]) || used[name]
			}
			if reach {
				kept[d] = true
				changed = true
			}
		}
	}

	for _, f := range all {
		src, ok, ext, err := printPruned(f, decls, kept)
		if err != nil {
			return nil, err
		}
		if ok {
			res.files[f.name] = src
			if ext && !f.shim {
				res.external++
			}
		}
	}
	return res, nil
}

// renameDirectivePrefix starts a comment of a shim file that renames an
// identifier of the upstream files: "//upstream:rename old=new" renames
// every identifier old (selectors and keys included), and
// "//upstream:rename T.field=new" only the key field in composite literals
// of type T. They bridge unexported names that differ here and are the
// same thing (a field, a type, a method).
const renameDirectivePrefix = "//upstream:rename "

type renames struct {
	idents map[string]string            // old -> new
	keys   map[string]map[string]string // type -> field -> new
}

func renameDirectives(shims []*sourceFile) (*renames, error) {
	r := &renames{idents: map[string]string{}, keys: map[string]map[string]string{}}
	for _, f := range shims {
		for _, cg := range f.file.Comments {
			for _, c := range cg.List {
				spec, ok := strings.CutPrefix(c.Text, renameDirectivePrefix)
				if !ok {
					continue
				}
				from, to, ok := strings.Cut(strings.TrimSpace(spec), "=")
				if !ok || from == "" || to == "" {
					return nil, fmt.Errorf("%s: bad directive %q", f.name, c.Text)
				}
				if typ, field, ok := strings.Cut(from, "."); ok {
					if r.keys[typ] == nil {
						r.keys[typ] = map[string]string{}
					}
					r.keys[typ][field] = to
				} else {
					r.idents[from] = to
				}
			}
		}
	}
	return r, nil
}

func applyRenames(f *ast.File, r *renames) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if to, ok := r.idents[n.Name]; ok {
				n.Name = to
			}
		case *ast.CompositeLit:
			typ := n.Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			id, ok := typ.(*ast.Ident)
			if !ok || r.keys[id.Name] == nil {
				return true
			}
			for _, elt := range n.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok {
						if to, ok := r.keys[id.Name][k.Name]; ok {
							k.Name = to
						}
					}
				}
			}
		}
		return true
	})
}

func isTestFunc(d *declaration, prefix string) bool {
	fn, ok := d.node.(*ast.FuncDecl)
	return ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, prefix)
}

// isRoot reports whether go test or the runtime uses d without a reference.
func isRoot(d *declaration) bool {
	if d.key == "_" || d.key == "init" || d.key == "TestMain" {
		return true
	}
	// Benchmarks are not run, and so not compiled.
	for _, p := range []string{"Test", "Example", "Fuzz"} {
		if isTestFunc(d, p) {
			return true
		}
	}
	return false
}

// splitDecls lists the top-level declarations of f with what they reference.
func splitDecls(f *sourceFile) []*declaration {
	var out []*declaration
	for _, decl := range f.file.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			key := decl.Name.Name
			if decl.Recv != nil && len(decl.Recv.List) == 1 {
				key = receiverType(decl.Recv.List[0].Type) + "." + key
			}
			out = append(out, &declaration{key: key, file: f, node: decl, refs: references(decl)})
		case *ast.GenDecl:
			if decl.Tok == token.IMPORT {
				continue
			}
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					out = append(out, &declaration{key: spec.Name.Name, file: f, node: spec, gen: decl, refs: references(spec)})
				case *ast.ValueSpec:
					// A spec declaring several names counts as each of them.
					refs := references(spec)
					for _, n := range spec.Names {
						out = append(out, &declaration{key: n.Name, file: f, node: spec, gen: decl, refs: refs})
					}
				}
			}
		}
	}
	return out
}

func receiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

func references(n ast.Node) map[string]bool {
	refs := map[string]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			refs[id.Name] = true
		}
		return true
	})
	return refs
}

// printPruned prints f without the declarations that are not kept and
// without the imports nothing uses any more. ok is false when nothing of
// the file is left; ext reports an external test package.
func printPruned(f *sourceFile, decls []*declaration, kept map[*declaration]bool) (src []byte, ok, ext bool, err error) {
	keepNode := map[ast.Node]bool{}
	dropNode := map[ast.Node]bool{}
	for _, d := range decls {
		if d.file != f {
			continue
		}
		if kept[d] {
			keepNode[d.node] = true
		} else {
			dropNode[d.node] = true
		}
	}
	var dropped []ast.Node // for their comments
	var out []ast.Decl
	left := 0
	for _, decl := range f.file.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if keepNode[decl] {
				out = append(out, decl)
				left++
			} else {
				dropped = append(dropped, decl)
			}
		case *ast.GenDecl:
			if decl.Tok == token.IMPORT {
				out = append(out, decl)
				continue
			}
			var specs []ast.Spec
			for _, s := range decl.Specs {
				if keepNode[s] || !dropNode[s] {
					specs = append(specs, s)
				} else {
					dropped = append(dropped, s)
				}
			}
			if len(specs) == 0 {
				dropped = append(dropped, decl)
				continue
			}
			left += len(specs)
			decl.Specs = specs
			out = append(out, decl)
		}
	}
	if left == 0 {
		return nil, false, false, nil
	}
	f.file.Decls = out
	f.file.Comments = slices.DeleteFunc(f.file.Comments, func(c *ast.CommentGroup) bool {
		for _, n := range dropped {
			start := n.Pos()
			if fd, ok := n.(*ast.FuncDecl); ok && fd.Doc != nil {
				start = fd.Doc.Pos()
			}
			if gd, ok := n.(*ast.GenDecl); ok && gd.Doc != nil {
				start = gd.Doc.Pos()
			}
			if c.Pos() >= start && c.End() <= n.End() {
				return true
			}
		}
		return false
	})
	if f.shim {
		// Shims carry a build constraint so that the module's own builds
		// skip them; in the package under test they always apply.
		f.file.Comments = slices.DeleteFunc(f.file.Comments, func(c *ast.CommentGroup) bool {
			return c.Pos() < f.file.Package && strings.HasPrefix(c.Text(), "go:build") ||
				c.Pos() < f.file.Package && strings.HasPrefix(c.List[0].Text, "//go:build")
		})
	}
	dropUnusedImports(f.file)
	var buf bytes.Buffer
	if err := format.Node(&buf, f.fset, f.file); err != nil {
		return nil, false, false, fmt.Errorf("%s: %w", f.name, err)
	}
	return buf.Bytes(), true, strings.HasSuffix(f.file.Name.Name, "_test"), nil
}

// dropUnusedImports removes the imports no remaining code names. An import
// without an explicit name is known by the last element of its path (a
// major-version suffix and a "go-" prefix skipped), which holds for every
// package the upstream tests import.
func dropUnusedImports(f *ast.File) {
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var specs []*ast.ImportSpec
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		gd.Specs = slices.DeleteFunc(gd.Specs, func(s ast.Spec) bool {
			is := s.(*ast.ImportSpec)
			path, _ := strconv.Unquote(is.Path.Value)
			name := importName(path)
			if is.Name != nil {
				name = is.Name.Name
			}
			if name == "_" || name == "." || used[name] {
				specs = append(specs, is)
				return false
			}
			return true
		})
	}
	f.Decls = slices.DeleteFunc(f.Decls, func(d ast.Decl) bool {
		gd, ok := d.(*ast.GenDecl)
		return ok && gd.Tok == token.IMPORT && len(gd.Specs) == 0
	})
	f.Imports = specs
}

func importName(path string) string {
	parts := strings.Split(path, "/")
	name := parts[len(parts)-1]
	// k8s.io's API packages are named v1, v1beta1...; elsewhere a vN element
	// is a major-version suffix.
	if len(parts) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" && (parts[0] != "k8s.io" || parts[1] == "klog") {
		name = parts[len(parts)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	return name
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
