package cache

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The layers of this package, lowest first. A file may name what its own
// layer and the layers below it declare, never what a higher layer declares:
// dependencies point one way (see doc.go, "How the code is arranged").
var layers = []string{
	"base",        // what every layer uses: the real clock, metric providers, DoneChecker
	"keys",        // keys, object names, deltas and tombstones
	"storage",     // stores, indexes, listers and the interfaces a reflector writes to
	"queues",      // DeltaFIFO, RealFIFO, FIFO, Heap
	"reflector",   // sources, the reflector, what it reports (sync status, run metrics)
	"handlers",    // ResourceEventHandler and its adapters
	"controller",  // the controller, its processing of popped deltas, its monitor
	"listener",    // one handler's buffer and delivery goroutine
	"processor",   // fan-out to the listeners, resync schedules
	"informer",    // shared informers, NewInformer*, scoped registrations
	"operability", // waits for syncs
	"factory",     // InformerFactory
}

// fileLayers assigns every non-test file of the package to its layer, by
// name or by a pattern (path.Match) that a family of files shares; a name
// wins over a pattern. A new file goes in the lowest layer whose
// declarations it needs.
var fileLayers = map[string]string{
	"doc.go":          "base",
	"clock.go":        "base",
	"done_checker.go": "base",
	"identity.go":     "base",
	"metrics.go":      "base",

	"keys.go":        "keys",
	"object_name.go": "keys",
	"tombstone.go":   "keys",
	"delta.go":       "keys",

	"index.go":                  "storage",
	"thread_safe_store.go":      "storage",
	"store.go":                  "storage",
	"transaction.go":            "storage",
	"expiration_cache.go":       "storage",
	"expiration_cache_fakes.go": "storage",
	"fake_custom_store.go":      "storage",
	"undelta_store.go":          "storage",
	"mutation_cache.go":         "storage",
	"mutation_detector.go":      "storage",
	"listers.go":                "storage",
	"typed_index.go":            "storage",
	"reflector_store.go":        "storage",
	"encoded_store.go":          "storage",

	"queue.go":       "queues",
	"delta_queue.go": "queues",
	"delta_fifo.go":  "queues",
	"real_fifo.go":   "queues",
	"fifo.go":        "queues",
	"heap.go":        "queues",

	"listwatch.go":           "reflector",
	"listwatch_typed.go":     "reflector",
	"pager.go":               "reflector",
	"retry_with_deadline.go": "reflector",
	"reflector.go":           "reflector",
	"reflector_*.go":         "reflector",
	"watch_list.go":          "reflector",
	"watch_liveness.go":      "reflector",
	"shard_*.go":             "reflector",
	"run_metrics.go":         "reflector",
	"sync_status.go":         "reflector",

	"handler.go":       "handlers",
	"handler_name.go":  "handlers",
	"typed_handler.go": "handlers",

	"controller.go":            "controller",
	"process_deltas.go":        "controller",
	"informer_pipeline.go":     "controller",
	"informer_monitor.go":      "controller",
	"resource_version_wait.go": "controller",

	"notification_queue.go": "listener",
	"coalescing_backlog.go": "listener",
	"listener.go":           "listener",
	"listener_backlog.go":   "listener",
	"listener_shutdown.go":  "listener",
	"handler_metrics.go":    "listener",

	"processor.go": "processor",
	"resync.go":    "processor",

	"shared_informer.go":         "informer",
	"shared_informer_options.go": "informer",
	"informer.go":                "informer",
	"typed_informer.go":          "informer",
	"scoped_registration.go":     "informer",
	"informer_status.go":         "informer",

	"synced.go":    "operability",
	"sync_wait.go": "operability",

	"informer_factory.go": "factory",
}

// layerExceptions are the upward references, "file -> file: identifier",
// still allowed. Each must exist; remove an entry once its reference is
// gone.
var layerExceptions = map[string]string{}

// TestLayers checks that no file names an identifier declared in a file of a
// higher layer, and that every file has a layer.
func TestLayers(t *testing.T) {
	uses, goFiles, err := packageReferences(".")
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, l := range layers {
		rank[l] = i
	}
	for file, layer := range fileLayers {
		if _, ok := rank[layer]; !ok {
			t.Errorf("fileLayers puts %s in %q, which is not one of layers", file, layer)
		}
	}
	layerOf := map[string]string{} // file -> layer
	matched := map[string]bool{}   // entries of fileLayers that name a file
	for _, file := range goFiles {
		layer, ok := fileLayers[file]
		if ok {
			matched[file] = true
		} else {
			for pattern, l := range fileLayers {
				if m, _ := path.Match(pattern, file); m {
					layer, ok = l, true
					matched[pattern] = true
				}
			}
		}
		if !ok {
			t.Errorf("%s has no layer: add it to fileLayers in layers_test.go, in the lowest layer whose declarations it names (doc.go, \"How the code is arranged\", lists the layers)", file)
			continue
		}
		layerOf[file] = layer
	}
	for entry := range fileLayers {
		if !matched[entry] {
			t.Errorf("fileLayers names %s, which is no file of the package: remove it", entry)
		}
	}
	seen := map[string]bool{}
	for _, u := range uses {
		from, okFrom := layerOf[u.from]
		to, okTo := layerOf[u.to]
		if !okFrom || !okTo || rank[from] >= rank[to] {
			continue
		}
		edge := fmt.Sprintf("%s -> %s: %s", u.from, u.to, u.name)
		if _, ok := layerExceptions[edge]; ok {
			seen[edge] = true
			continue
		}
		t.Errorf("%s (layer %s) names %s, declared in %s (layer %s, higher): declare it in the layer of its lowest user, or pass it in from above as a small interface", u.pos, from, u.name, u.to, to)
	}
	for edge := range layerExceptions {
		if !seen[edge] {
			t.Errorf("layerExceptions allows %q, which no longer occurs: remove the entry", edge)
		}
	}
}

// reference is a use, in file from at pos, of name, declared in file to.
type reference struct {
	from, to, name string
	pos            token.Position
}

// packageReferences type-checks the non-test files of the package in dir and
// returns every use, in one file, of a package-level identifier, field or
// method declared in another file, once per file pair and name.
//
// Other packages of the module and its dependencies are imported as empty
// packages, and the type errors that causes are ignored: uses of this
// package's own identifiers are still recorded, except through a value whose
// type comes from such a package (a field of a generic type's result, say).
// The standard library is imported for real, for its generic types
// (atomic.Pointer[T], iter.Seq[T]) through which this package's identifiers
// are used.
func packageReferences(dir string) (refs []reference, goFiles []string, err error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	conf := types.Config{
		Importer: &emptyImporter{std: importer.Default(), pkgs: map[string]*types.Package{}},
		Error:    func(error) {},
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, _ := conf.Check(bp.ImportPath, fset, files, info)
	if pkg == nil {
		return nil, nil, errors.New("type-checking the package returned nothing")
	}
	seen := map[string]bool{}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg || !declaredAtPackageLevel(pkg, obj) {
			continue
		}
		pos := fset.Position(id.Pos())
		from, to := filepath.Base(pos.Filename), filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to || seen[from+" "+to+" "+obj.Name()] {
			continue
		}
		seen[from+" "+to+" "+obj.Name()] = true
		refs = append(refs, reference{from: from, to: to, name: obj.Name(), pos: pos})
	}
	slices.SortFunc(refs, func(a, b reference) int {
		return strings.Compare(a.from+" "+a.to+" "+a.name, b.from+" "+b.to+" "+b.name)
	})
	return refs, bp.GoFiles, nil
}

// declaredAtPackageLevel reports whether obj is a package-level declaration,
// or a field or method of one (not a local variable or parameter).
func declaredAtPackageLevel(pkg *types.Package, obj types.Object) bool {
	if obj.Parent() == pkg.Scope() {
		return true
	}
	switch o := obj.(type) {
	case *types.Var:
		return o.IsField()
	case *types.Func:
		return true // a method
	}
	return false
}

// emptyImporter imports the standard library with std and every other
// package as an empty package.
type emptyImporter struct {
	std  types.Importer
	pkgs map[string]*types.Package
}

func (im *emptyImporter) Import(path string) (*types.Package, error) {
	if p, ok := im.pkgs[path]; ok {
		return p, nil
	}
	var p *types.Package
	if first, _, _ := strings.Cut(path, "/"); !strings.Contains(first, ".") {
		p, _ = im.std.Import(path) // nil on failure: then empty too
	}
	if p == nil {
		p = types.NewPackage(path, filepath.Base(path))
		p.MarkComplete()
	}
	im.pkgs[path] = p
	return p, nil
}
