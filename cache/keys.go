package cache

import (
	"fmt"
	"strings"
)

// KeyFunc computes the storage key of an object. It must be deterministic: the
// same object always yields the same key.
type KeyFunc func(obj any) (string, error)

// KeyError is returned whenever a [KeyFunc] fails. It carries the object whose
// key could not be computed and the underlying error.
type KeyError struct {
	Obj any
	Err error
}

// Error describes the object and the cause.
func (k KeyError) Error() string {
	return fmt.Sprintf("couldn't create key for object %+v: %v", k.Obj, k.Err)
}

// Unwrap returns the underlying error, for [errors.Is] and [errors.As].
func (k KeyError) Unwrap() error {
	return k.Err
}

// ExplicitKey is a key that the caller already knows. [MetaNamespaceKeyFunc]
// returns it unchanged, so an ExplicitKey can stand in for an object wherever
// only its key matters (for example a delete by key).
type ExplicitKey string

// MetaNamespaceKeyFunc is the default [KeyFunc]. It returns "<namespace>/<name>"
// for namespaced objects and "<name>" for cluster-scoped ones, or the key itself
// for an [ExplicitKey]. Objects without object metadata yield an error.
func MetaNamespaceKeyFunc(obj any) (string, error) {
	if key, ok := obj.(ExplicitKey); ok {
		return string(key), nil
	}
	name, err := ObjectToName(obj)
	if err != nil {
		return "", err
	}
	return name.String(), nil
}

// DeletionHandlingMetaNamespaceKeyFunc is [MetaNamespaceKeyFunc] that also
// understands tombstones: for a [DeletedFinalStateUnknown] it returns the key
// the tombstone carries. Informer stores use it. client-go's
// DeletedFinalStateUnknown counts as a tombstone too, so that handlers written
// against this package work on client-go's informers.
func DeletionHandlingMetaNamespaceKeyFunc(obj any) (string, error) {
	if d, ok := asTombstone(obj); ok {
		return d.Key, nil
	}
	return MetaNamespaceKeyFunc(obj)
}

// SplitMetaNamespaceKey is the inverse of [MetaNamespaceKeyFunc]: "name" yields
// an empty namespace and "namespace/name" both parts. Any other shape is an
// error.
func SplitMetaNamespaceKey(key string) (namespace, name string, err error) {
	first, rest, found := strings.Cut(key, "/")
	if !found {
		return "", key, nil
	}
	if strings.Contains(rest, "/") {
		return "", "", fmt.Errorf("unexpected key format: %q", key)
	}
	return first, rest, nil
}
