package adapt

import (
	"reflect"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// cachePackage is the import path of informer-go's cache package.
var cachePackage = reflect.TypeFor[cache.DeletedFinalStateUnknown]().PkgPath()

// toClientGoTombstone returns obj with informer-go's tombstone replaced by
// client-go's, carrying the same key and object; any other obj unchanged.
func toClientGoTombstone(obj any) any {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return toolscache.DeletedFinalStateUnknown{Key: d.Key, Obj: d.Obj}
	}
	return obj
}

// declaredInCache reports whether v's type (or the type it points to) is
// declared in informer-go's cache package: its handler types are written
// against informer-go's tombstones.
func declaredInCache(v any) bool {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.PkgPath() == cachePackage
}
