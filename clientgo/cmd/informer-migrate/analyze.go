package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
)

// fileInfo is what the analysis needs of one file, as it reads after the
// migration.
type fileInfo struct {
	dir          string           // the package's directory, relative to the module root
	imports      []importInfo     // import paths after the rewrite
	tombstones   []token.Position // type assertions and type switch cases on the cache package's DeletedFinalStateUnknown
	constructors int              // calls of the cache package's informer constructors
	missing      []use            // with the native target, names the native cache package lacks
}

type importInfo struct {
	path string
	pos  token.Position
}

type use struct {
	name string
	pos  token.Position
}

// scan returns the fileInfo of f as it reads after migrating to t.
func scan(fset *token.FileSet, f *ast.File, t target) *fileInfo {
	info := &fileInfo{dir: path.Dir(fset.Position(f.Package).Filename)}
	cacheNames := map[string]bool{} // local names of the cache package
	for _, spec := range f.Imports {
		old, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue // rewrite reported it
		}
		p := old
		if replacement, ok := t.rewrites[old]; ok {
			p = replacement
		}
		info.imports = append(info.imports, importInfo{p, fset.Position(spec.Pos())})
		name := packageName(old)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if p == t.cachePath && name != "_" && name != "." {
			cacheNames[name] = true
		}
	}
	if len(cacheNames) == 0 {
		return info
	}
	// isCache reports whether e is a selector of the cache package, and
	// returns the selected name.
	isCache := func(e ast.Expr) (string, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || !cacheNames[x.Name] {
			return "", false
		}
		return sel.Sel.Name, true
	}
	isTombstone := func(e ast.Expr) bool {
		for {
			switch x := e.(type) {
			case *ast.StarExpr:
				e = x.X
				continue
			case *ast.ParenExpr:
				e = x.X
				continue
			}
			break
		}
		name, ok := isCache(e)
		return ok && name == "DeletedFinalStateUnknown"
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil && isTombstone(n.Type) {
				info.tombstones = append(info.tombstones, fset.Position(n.Type.Pos()))
			}
		case *ast.TypeSwitchStmt:
			for _, clause := range n.Body.List {
				for _, e := range clause.(*ast.CaseClause).List {
					if isTombstone(e) {
						info.tombstones = append(info.tombstones, fset.Position(e.Pos()))
					}
				}
			}
		case *ast.CallExpr:
			if name, ok := isCache(n.Fun); ok && informerConstructors[name] {
				info.constructors++
			}
		case *ast.SelectorExpr:
			if name, ok := isCache(n); ok && t.native && slices.Contains(notInNative, name) {
				info.missing = append(info.missing, use{name, fset.Position(n.Pos())})
			}
		}
		return true
	})
	return info
}

// analyze returns the reports on files, the files of module modPath, as
// they read after migrating to t, sorted by position.
func analyze(files []*fileInfo, modPath string, t target) []finding {
	inModule := func(p string) bool { return p == modPath || strings.HasPrefix(p, modPath+"/") }
	moduleConstructs, moduleUsesNative := false, false
	pkgConstructs := map[string]bool{} // by directory
	pkgFactories := map[string][]string{}
	for _, f := range files {
		if f.constructors > 0 {
			moduleConstructs, pkgConstructs[f.dir] = true, true
		}
		for _, imp := range f.imports {
			if imp.path == nativeCache && !t.native {
				moduleUsesNative = true
			}
			if isFactory(imp.path) && !inModule(imp.path) && !slices.Contains(pkgFactories[f.dir], imp.path) {
				pkgFactories[f.dir] = append(pkgFactories[f.dir], imp.path)
			}
		}
	}

	var findings []finding
	report := func(pos token.Position, format string, args ...any) {
		findings = append(findings, finding{pos, fmt.Sprintf(format, args...)})
	}
	for _, f := range files {
		for _, pos := range f.tombstones {
			switch {
			case !t.native && moduleUsesNative:
				report(pos, "type assertion on client-go's DeletedFinalStateUnknown: this module also uses informer-go's native cache package, whose informers give its handler types informer-go's tombstone; check which informers feed this handler")
			case t.native && len(pkgFactories[f.dir]) > 0:
				report(pos, "type assertion on DeletedFinalStateUnknown, now informer-go's: the informers of %s, which this package uses, deliver client-go's tombstone and it would miss it; cache.DeletionHandlingMetaNamespaceKeyFunc and DeletionHandlingObjectToName accept both", strings.Join(pkgFactories[f.dir], ", "))
			case t.native && !pkgConstructs[f.dir]:
				report(pos, "type assertion on DeletedFinalStateUnknown, now informer-go's: this package builds no informer, and one of client-go's would deliver client-go's tombstone, which it would miss; cache.DeletionHandlingMetaNamespaceKeyFunc and DeletionHandlingObjectToName accept both")
			}
		}
		for _, imp := range f.imports {
			if !isFactory(imp.path) || inModule(imp.path) {
				continue
			}
			hint := ""
			if imp.path == clientGoInformers {
				hint = "; " + dropInInformers + " replaces it (-factory)"
			}
			switch {
			case t.native:
				if imp.path == clientGoInformers {
					hint = "; " + dropInInformers + " replaces it"
				}
				report(imp.pos, "the informers of %s are client-go's: values of informer-go's cache types cannot hold them, and their handlers get client-go's tombstone%s", imp.path, hint)
			case moduleConstructs:
				report(imp.pos, "the informers of %s run on client-go's engine, beside this module's informers on informer-go: two engines side by side%s", imp.path, hint)
			default:
				report(imp.pos, "the informers of %s stay on client-go's engine: this module builds none through the cache package%s", imp.path, hint)
			}
		}
		for _, u := range f.missing {
			report(u.pos, "informer-go's cache package has no %s: use github.com/informer-go/informer/clientgo's", u.name)
		}
	}
	slices.SortFunc(findings, func(a, b finding) int {
		return cmp.Or(strings.Compare(a.pos.Filename, b.pos.Filename), cmp.Compare(a.pos.Line, b.pos.Line), cmp.Compare(a.pos.Column, b.pos.Column))
	})
	return findings
}
