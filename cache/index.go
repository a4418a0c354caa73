package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
)

// IndexFunc computes the set of indexed values of an object for one index. An
// object may have no value, one, or several; duplicates count once. It must be
// safe for concurrent use: stores call it without holding their lock. A store
// keeps a copy of the result, so the function may reuse its slice.
//
// When an IndexFunc fails while a store writes an object, the write is refused
// with an error and the store is left unchanged (client-go panics instead).
type IndexFunc func(obj any) ([]string, error)

// Indexers maps index names to their index functions.
type Indexers map[string]IndexFunc

// Indices maps index names to their indexes. Callers can only create an empty
// one (Indices{}), for [NewThreadSafeStore].
type Indices map[string]index

// index maps an indexed value to the keys of the objects that have it.
type index map[string]sets.Set[string]

// NamespaceIndex is the conventional name of the index built by
// [MetaNamespaceIndexFunc].
const NamespaceIndex string = "namespace"

// MetaNamespaceIndexFunc indexes an object by its namespace. For an object
// without metadata it returns [""] and the error.
func MetaNamespaceIndexFunc(obj any) ([]string, error) {
	m, err := objectMeta(obj)
	if err != nil {
		return []string{""}, fmt.Errorf("object has no meta: %w", err)
	}
	return []string{m.GetNamespace()}, nil
}

// IndexFuncToKeyFuncAdapter turns an index function that yields exactly one
// value per object into a [KeyFunc]. The key function fails for an object
// with no value or several.
func IndexFuncToKeyFuncAdapter(indexFunc IndexFunc) KeyFunc {
	return func(obj any) (string, error) {
		values, err := indexFunc(obj)
		if err != nil {
			return "", err
		}
		switch len(values) {
		case 1:
			return values[0], nil
		case 0:
			return "", fmt.Errorf("the index function returned no value for %v", obj)
		default:
			return "", fmt.Errorf("the index function returned %d values for %v, a key needs exactly one", len(values), obj)
		}
	}
}
