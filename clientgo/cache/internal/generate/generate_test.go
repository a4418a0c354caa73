package generate

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/informer-go/informer/clientgo/internal/typesload"
)

var update = flag.Bool("update", false, "rewrite zz_generated.go")

// dropInDir is the directory of the drop-in package, from this one.
const dropInDir = "../.."

// generatedFile is the file TestGeneratedSourceIsUpToDate writes, in
// dropInDir.
const generatedFile = "zz_generated.go"

// TestGeneratedSourceIsUpToDate generates zz_generated.go from client-go's
// tools/cache and fails if the file differs; with -update (go generate) it
// writes the file instead.
func TestGeneratedSourceIsUpToDate(t *testing.T) {
	pkgs, err := typesload.Load(clientGoCache)
	if err != nil {
		t.Fatal(err)
	}
	written, err := handWritten()
	if err != nil {
		t.Fatal(err)
	}
	deprecated, err := deprecatedNames(clientGoCache)
	if err != nil {
		t.Fatal(err)
	}
	src, err := generateSource(pkgs[clientGoCache], written, deprecated)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(filepath.Join(dropInDir, generatedFile), src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	current, err := os.ReadFile(filepath.Join(dropInDir, generatedFile))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(src), string(current)); diff != "" {
		t.Errorf("%s is out of date: run go generate (-want +got):\n%s", generatedFile, diff)
	}
}

// handWritten returns the names declared at package level by the package's
// files other than the generated one and the tests.
func handWritten() (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dropInDir, "*.go"))
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range files {
		if filepath.Base(file) == generatedFile || strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names, nil
}

// deprecatedNames returns the package-level names whose documentation in
// the package at importPath (read from its source in the module cache) has
// a paragraph starting with "Deprecated:".
func deprecatedNames(importPath string) (map[string]bool, error) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", importPath).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", importPath, err)
	}
	dir := strings.TrimSpace(string(out))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	isDeprecated := func(doc *ast.CommentGroup) bool {
		return doc != nil && (strings.HasPrefix(doc.Text(), "Deprecated: ") || strings.Contains(doc.Text(), "\n\nDeprecated: "))
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && isDeprecated(d.Doc) {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if isDeprecated(s.Doc) || len(d.Specs) == 1 && isDeprecated(d.Doc) {
							names[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if isDeprecated(s.Doc) || len(d.Specs) == 1 && isDeprecated(d.Doc) {
								names[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names, nil
}

// generateSource returns the source of zz_generated.go: for every exported
// name of client-go's tools/cache that no hand-written file declares, a
// type alias, a constant or variable of the same value, or a function that
// calls client-go's; the names deprecated in client-go are marked so here
// too.
func generateSource(cg *types.Package, skip, deprecated map[string]bool) ([]byte, error) {
	imports := map[string]string{"k8s.io/client-go/tools/cache": "toolscache"} // path -> name
	names := map[string]string{"toolscache": "k8s.io/client-go/tools/cache"}   // name -> path
	var qualifyErr error
	qualifier := func(p *types.Package) string {
		if p == cg {
			return "" // the aliases of this package have client-go's names
		}
		if name, ok := imports[p.Path()]; ok {
			return name
		}
		name := p.Name()
		if strings.HasPrefix(name, "v") && len(name) > 1 && name[1] >= '0' && name[1] <= '9' {
			name = path.Base(path.Dir(p.Path())) + name // k8s.io/apimachinery/pkg/apis/meta/v1 is metav1
		}
		if other, taken := names[name]; taken && qualifyErr == nil {
			qualifyErr = fmt.Errorf("import name %s of %s is taken by %s", name, p.Path(), other)
		}
		imports[p.Path()], names[name] = name, p.Path()
		return name
	}
	typeString := func(t types.Type) string {
		return strings.ReplaceAll(types.TypeString(t, qualifier), "interface{}", "any")
	}

	deprecation := func(name, indent string) string {
		if !deprecated[name] {
			return ""
		}
		return indent + "//\n" + indent + "// Deprecated: client-go's " + name + " is deprecated; see its documentation.\n"
	}
	var typesOut, constsOut, varsOut, funcsOut bytes.Buffer
	scope := cg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() || skip[name] {
			continue
		}
		switch obj := obj.(type) {
		case *types.TypeName:
			params, args := typeParams(obj.Type(), typeString)
			fmt.Fprintf(&typesOut, "\n// %s is client-go's [toolscache.%s].\n%stype %s%s = toolscache.%s%s\n", name, name, deprecation(name, ""), name, params, name, args)
		case *types.Const:
			fmt.Fprintf(&constsOut, "\n\t// %s is client-go's [toolscache.%s].\n%s\t%s = toolscache.%s\n", name, name, deprecation(name, "\t"), name, name)
		case *types.Var:
			fmt.Fprintf(&varsOut, "\n\t// %s is client-go's [toolscache.%s]: the same value.\n%s\t%s = toolscache.%s\n", name, name, deprecation(name, "\t"), name, name)
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			fmt.Fprintf(&funcsOut, "\n// %s calls client-go's [toolscache.%s], on client-go's code.\n%s", name, name, deprecation(name, ""))
			fmt.Fprintf(&funcsOut, "func %s%s {\n\t", name, signature(sig, typeString))
			if sig.Results().Len() > 0 {
				funcsOut.WriteString("return ")
			}
			_, args := typeParamList(sig.TypeParams(), typeString)
			fmt.Fprintf(&funcsOut, "toolscache.%s%s(%s)\n}\n", name, args, callArgs(sig))
		default:
			return nil, fmt.Errorf("%s: unexpected %T", name, obj)
		}
	}
	if qualifyErr != nil {
		return nil, qualifyErr
	}

	paths := make([]string, 0, len(imports))
	for p := range imports {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b string) int {
		if isStd(a) != isStd(b) {
			if isStd(a) {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	var out bytes.Buffer
	out.WriteString("// Code generated by TestGeneratedSourceIsUpToDate (go generate); DO NOT EDIT.\n\n" +
		"//lint:file-ignore SA1019 every name of client-go's tools/cache is here, deprecated ones too\n\npackage cache\n\nimport (\n")
	for i, p := range paths {
		// The standard library first, a blank line, then the others.
		if i > 0 && isStd(paths[i-1]) && !isStd(p) {
			out.WriteString("\n")
		}
		if name := imports[p]; name != path.Base(p) {
			fmt.Fprintf(&out, "\t%s %q\n", name, p)
		} else {
			fmt.Fprintf(&out, "\t%q\n", p)
		}
	}
	out.WriteString(")\n")
	out.Write(typesOut.Bytes())
	fmt.Fprintf(&out, "\nconst (%s)\n", constsOut.Bytes())
	fmt.Fprintf(&out, "\nvar (%s)\n", varsOut.Bytes())
	out.Write(funcsOut.Bytes())
	src, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format: %w\n%s", err, out.String())
	}
	return src, nil
}

// typeParams returns the type parameter list of a generic type t ("[T
// Object]") and its use as type arguments ("[T]"); two empty strings for
// other types.
func typeParams(t types.Type, typeString func(types.Type) string) (params, args string) {
	switch t := t.(type) {
	case *types.Named:
		return typeParamList(t.TypeParams(), typeString)
	case *types.Alias:
		return typeParamList(t.TypeParams(), typeString)
	}
	return "", ""
}

func typeParamList(list *types.TypeParamList, typeString func(types.Type) string) (params, args string) {
	if list.Len() == 0 {
		return "", ""
	}
	var p, a []string
	for tp := range list.TypeParams() {
		p = append(p, tp.Obj().Name()+" "+typeString(tp.Constraint()))
		a = append(a, tp.Obj().Name())
	}
	return "[" + strings.Join(p, ", ") + "]", "[" + strings.Join(a, ", ") + "]"
}

// signature returns sig as written after a function's name: type
// parameters, named parameters (p0, p1... where client-go has none) and
// results.
func signature(sig *types.Signature, typeString func(types.Type) string) string {
	tparams, _ := typeParamList(sig.TypeParams(), typeString)
	var params []string
	for i, p := range paramNames(sig) {
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			params = append(params, p+" ..."+typeString(t.(*types.Slice).Elem()))
			continue
		}
		params = append(params, p+" "+typeString(t))
	}
	var results []string
	for r := range sig.Results().Variables() {
		if r.Name() != "" {
			results = append(results, r.Name()+" "+typeString(r.Type()))
		} else {
			results = append(results, typeString(r.Type()))
		}
	}
	s := tparams + "(" + strings.Join(params, ", ") + ")"
	switch {
	case len(results) == 1 && sig.Results().At(0).Name() == "":
		s += " " + results[0]
	case len(results) > 0:
		s += " (" + strings.Join(results, ", ") + ")"
	}
	return s
}

// paramNames returns the names of sig's parameters, made up where client-go
// has none.
func paramNames(sig *types.Signature) []string {
	var names []string
	for i := range sig.Params().Len() {
		name := sig.Params().At(i).Name()
		if name == "" || name == "_" {
			name = fmt.Sprintf("p%d", i)
		}
		names = append(names, name)
	}
	return names
}

// callArgs returns the arguments that pass sig's parameters on.
func callArgs(sig *types.Signature) string {
	names := paramNames(sig)
	if sig.Variadic() && len(names) > 0 {
		names[len(names)-1] += "..."
	}
	return strings.Join(names, ", ")
}

// isStd reports whether the import path p is of the standard library: its
// first element has no dot.
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}
