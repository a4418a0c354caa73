package cache

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
)

// wrappingHandler is a handler of this package that wraps another (the typed
// and scoped adapters): it is named after the handler it wraps.
type wrappingHandler interface {
	name() string
}

// handlerName is the name a registration of handler logs under: that of the
// handler an adapter of this package wraps, or nameForHandler's.
func handlerName(handler ResourceEventHandler) string {
	if named, ok := handler.(wrappingHandler); ok {
		return named.name()
	}
	return nameForHandler(handler)
}

// nameForHandler describes handler for logs and metrics, as client-go does:
//
//   - for [ResourceEventHandlerFuncs] (or a pointer to it), the common
//     qualifier of its functions when they are all declared in the same
//     place (e.g. "example.com/pkg.(*Controller)"), otherwise their full names
//     joined with "+";
//   - for any other handler, the package path and name of its type (non-nil
//     pointers dereferenced), e.g. "example.com/pkg.Handler";
//   - "%T" of the handler when neither yields anything, which is "<nil>" for
//     nil.
func nameForHandler(handler ResourceEventHandler) string {
	if handler == nil {
		return fmt.Sprintf("%T", handler)
	}
	var name string
	switch h := handler.(type) {
	case ResourceEventHandlerFuncs:
		name = nameForFunctions(h.AddFunc, h.UpdateFunc, h.DeleteFunc)
	case *ResourceEventHandlerFuncs:
		if h != nil {
			name = nameForFunctions(h.AddFunc, h.UpdateFunc, h.DeleteFunc)
		}
	default:
		t := reflect.TypeOf(handler)
		if v := reflect.ValueOf(handler); v.Kind() == reflect.Pointer && !v.IsNil() {
			t = t.Elem()
		}
		name = t.PkgPath()
		if name != "" {
			name += "."
		}
		name += t.Name()
	}
	if name == "" {
		name = fmt.Sprintf("%T", handler)
	}
	return name
}

// nameForFunctions names a set of functions (nil ones are skipped): their
// common qualifier (the full name up to the last ".") when they share one,
// else their full names joined with "+".
func nameForFunctions(fns ...any) string {
	var names []string
	qualifier, single := "", true
	for _, fn := range fns {
		name := nameForFunction(fn)
		if name == "" {
			continue
		}
		names = append(names, name)
		q := name
		if i := strings.LastIndexByte(q, '.'); i > 0 {
			q = q[:i]
		}
		switch qualifier {
		case "":
			qualifier = q
		case q:
		default:
			single = false
		}
	}
	if single {
		return qualifier
	}
	return strings.Join(names, "+")
}

// nameForFunction returns the full name of the function fn, or "" for nil or
// a non-function.
func nameForFunction(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return ""
	}
	return f.Name()
}
