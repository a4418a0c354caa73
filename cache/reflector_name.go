package cache

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// libraryModule is the import path prefix of this library's packages.
const libraryModule = "github.com/informer-go/informer/"

// unknownCallsite names a reflector whose creator cannot be found.
const unknownCallsite = "????"

// callerOutsideLibrary returns "file:line" of the innermost caller that is
// not part of this library (test packages of the library count as callers),
// falling back to the place that started the current goroutine when the
// whole stack is library code. File paths are shortened the way client-go
// shortens them. client-go looks for "client-go/tools/cache/" in file paths,
// which never matches in module mode; looking at package paths does.
func callerOutsideLibrary() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if f.Function != "" && !isLibraryFunction(f.Function) && !strings.HasPrefix(f.Function, "runtime.") {
			return shortenSourcePath(f.File) + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			break
		}
	}
	if fn, file, line, ok := goroutineCreator(); ok && !isLibraryFunction(fn) {
		return shortenSourcePath(file) + ":" + strconv.Itoa(line)
	}
	return unknownCallsite
}

// isLibraryFunction reports whether the fully qualified function name fn
// belongs to a (non-test) package of this library.
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
	return !strings.HasSuffix(pkg, "_test")
}

// creatorLine matches the "created by" trailer of a goroutine's stack.
var creatorLine = regexp.MustCompile(`(?m)^created by (\S+).*\n\s+(.*):(\d+) \+0x[[:xdigit:]]+$`)

// goroutineCreator returns the function, file and line that started the
// current goroutine.
func goroutineCreator() (fn, file string, line int, ok bool) {
	m := creatorLine.FindSubmatch(debug.Stack())
	if m == nil {
		return "", "", 0, false
	}
	line, err := strconv.Atoi(string(m[3]))
	if err != nil {
		return "", "", 0, false
	}
	return string(m[1]), string(m[2]), line, true
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
