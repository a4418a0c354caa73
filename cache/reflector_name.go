package cache

import (
	"runtime"
	"strconv"
	"strings"
)

// libraryModule is the import path prefix of this library's packages.
const libraryModule = "github.com/informer-go/informer/"

// libraryPackages are the import paths of the library's package trees. Other
// packages under libraryModule (examples, end-to-end tests, nested modules)
// are callers like any other code.
var libraryPackages = []string{libraryModule + "cache", libraryModule + "wait", libraryModule + "buffer"}

// unknownCallsite names a reflector whose creator cannot be found, as in
// client-go.
const unknownCallsite = "????"

// defaultReflectorName names a reflector built without a name: after the
// innermost caller outside this library on the current stack (see
// callSite); when there is none, as for an informer run with
// `go informer.Run(stop)` or started by an [InformerFactory], after creator,
// the call site recorded when the informer or controller running the
// reflector was built; "????" when that is empty too.
func defaultReflectorName(creator string) string {
	if site := callSite(); site != "" {
		return site
	}
	if creator != "" {
		return creator
	}
	return unknownCallsite
}

// callSite returns "file:line" of the innermost caller of its caller that
// is not code of this library (test packages of the library count as
// callers), of the runtime, or of package sync (whose WaitGroup.Go wraps the
// functions of goroutines), or "" when the stack holds no such caller. File
// paths are shortened the way client-go shortens them. client-go looks for
// "client-go/tools/cache/" in file paths, which never matches in module mode;
// looking at package paths does.
func callSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if f.Function != "" && !isLibraryFunction(f.Function) && !isGoroutineMachinery(f.Function) {
			return shortenSourcePath(f.File) + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}

// isGoroutineMachinery reports whether the fully qualified function name fn
// belongs to the runtime or to package sync, which run goroutines rather
// than call the library.
func isGoroutineMachinery(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "sync.")
}

// isLibraryFunction reports whether the fully qualified function name fn
// belongs to a (non-test) package of this library: one of libraryPackages or
// a package below one.
func isLibraryFunction(fn string) bool {
	if !strings.HasPrefix(fn, libraryModule) {
		return false
	}
	pkg := fn
	if slash := strings.LastIndexByte(pkg, '/'); slash >= 0 {
		if dot := strings.IndexByte(pkg[slash:], '.'); dot >= 0 {
			pkg = pkg[:slash+dot]
		}
	}
	if strings.HasSuffix(pkg, "_test") {
		return false
	}
	for _, lib := range libraryPackages {
		if pkg == lib || strings.HasPrefix(pkg, lib+"/") {
			return true
		}
	}
	return false
}

// shortenSourcePath drops the machine-specific prefix of a source path: up to
// the last "/vendor/" or "/src/", or up to (keeping) the last "pkg/".
func shortenSourcePath(file string) string {
	if i := strings.LastIndex(file, "/vendor/"); i >= 0 {
		return file[i+len("/vendor/"):]
	}
	if i := strings.LastIndex(file, "/src/"); i >= 0 {
		return file[i+len("/src/"):]
	}
	if i := strings.LastIndex(file, "/pkg/"); i >= 0 {
		return file[i+1:]
	}
	return file
}
