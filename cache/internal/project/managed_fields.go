package project

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DropManagedFields deletes obj's metadata.managedFields in place and
// returns obj; it fits client-go's TransformFunc. An object without
// metadata has none and is returned untouched, as is a nil one.
//
// Like [Projection.Apply], it writes into obj: call it only on an object
// fresh from the decoder that no one else holds, before the cache
// publishes it, as client-go calls a TransformFunc. The object is not
// marked: kube-apiserver keeps an object's stored managedFields when an
// update omits them, so the object stays safe to write back.
func DropManagedFields(obj any) (any, error) {
	switch u := obj.(type) {
	case nil:
		return obj, nil
	case *unstructured.Unstructured:
		if u != nil && u.Object != nil {
			if md, ok := u.Object["metadata"].(map[string]any); ok {
				// Deleting an absent key is still a write to the map,
				// which may be shared once the object is cached.
				//lint:ignore S1033 the guard keeps a second application read-only
				if _, present := md["managedFields"]; present {
					delete(md, "managedFields")
				}
			}
		}
		return obj, nil
	}
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer && v.IsNil() {
		return obj, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	if m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
