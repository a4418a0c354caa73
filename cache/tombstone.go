package cache

import "reflect"

// clientGoCachePackage is the import path of client-go's cache package, whose
// DeletedFinalStateUnknown tombstones this package recognises without
// importing client-go.
const clientGoCachePackage = "k8s.io/client-go/tools/cache"

// anyType is the type of the Obj field of a tombstone.
var anyType = reflect.TypeFor[any]()

// asTombstone returns obj as a [DeletedFinalStateUnknown] when it is one: this
// package's type, or client-go's. A program that mixes the two libraries (an
// informer of one, handlers or key functions of the other) gets the
// tombstones of either, and a type assertion on the wrong one would drop the
// deletion silently.
//
// client-go's tombstone is recognised by its shape, since this package must
// not import client-go: a struct type named DeletedFinalStateUnknown declared
// in package k8s.io/client-go/tools/cache, with exactly the fields Key string
// and Obj any, in that order, passed by value as client-go's informers pass
// it. Its Key and Obj are copied into the result; nothing else is compared.
func asTombstone(obj any) (DeletedFinalStateUnknown, bool) {
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d, true
	}
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Struct || !isClientGoTombstoneType(t) {
		return DeletedFinalStateUnknown{}, false
	}
	v := reflect.ValueOf(obj)
	return DeletedFinalStateUnknown{Key: v.Field(0).String(), Obj: v.Field(1).Interface()}, true
}

// isClientGoTombstoneType reports whether t, a struct type, is client-go's
// DeletedFinalStateUnknown; see [asTombstone].
func isClientGoTombstoneType(t reflect.Type) bool {
	if t.Name() != "DeletedFinalStateUnknown" || t.PkgPath() != clientGoCachePackage || t.NumField() != 2 {
		return false
	}
	key, obj := t.Field(0), t.Field(1)
	return key.Name == "Key" && key.Type.Kind() == reflect.String && key.Type.PkgPath() == "" &&
		obj.Name == "Obj" && obj.Type == anyType
}
