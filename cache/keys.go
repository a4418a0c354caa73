package cache

import (
	"fmt"
	"reflect"
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

// metaKeys names this package's metadata key functions, whose keys can be
// computed without allocating (see appendKey). A store built with one of them
// looks objects up without allocating their keys.
type metaKeys int

const (
	notMetaKeys              metaKeys = iota // any other KeyFunc
	metaNamespaceKeys                        // MetaNamespaceKeyFunc
	deletionHandlingMetaKeys                 // DeletionHandlingMetaNamespaceKeyFunc
)

// metaKeysOf tells whether keyFunc is one of the metadata key functions. A
// function value carries nothing but its code, so they are recognised by
// identity: a function that wraps one of them is, like any other, called to
// compute a key.
func metaKeysOf(keyFunc KeyFunc) metaKeys {
	if keyFunc == nil {
		return notMetaKeys
	}
	switch reflect.ValueOf(keyFunc).Pointer() {
	case reflect.ValueOf(MetaNamespaceKeyFunc).Pointer():
		return metaNamespaceKeys
	case reflect.ValueOf(DeletionHandlingMetaNamespaceKeyFunc).Pointer():
		return deletionHandlingMetaKeys
	}
	return notMetaKeys
}

// metaKeyBufSize fits a key of a namespace (63 bytes) and a name (253).
const metaKeyBufSize = 320

// appendKey computes, without allocating, the key that the metadata key
// function k names would return for obj. When the key exists as a string
// already (an [ExplicitKey], a tombstone's key, the name of a cluster-scoped
// object) it is returned as key and built is nil; otherwise the key is built
// by appending "namespace/name" to buf and returned as built. ok is false
// when the key function would fail on obj, or is not a metadata key
// function: callers then call the key function.
func (k metaKeys) appendKey(obj any, buf []byte) (key string, built []byte, ok bool) {
	if k == notMetaKeys {
		return "", nil, false
	}
	switch o := obj.(type) {
	case ExplicitKey:
		return string(o), nil, true
	case DeletedFinalStateUnknown:
		if k != deletionHandlingMetaKeys {
			return "", nil, false
		}
		return o.Key, nil, true
	}
	m, err := objectMeta(obj)
	if err != nil {
		return "", nil, false
	}
	namespace, name := m.GetNamespace(), m.GetName()
	if namespace == "" {
		return name, nil, true
	}
	return "", append(append(append(buf, namespace...), '/'), name...), true
}

// isMetaKeyOf reports, without allocating, whether key is what
// [DeletionHandlingMetaNamespaceKeyFunc] returns for obj. It is false for
// client-go's tombstones, which it does not unwrap.
func isMetaKeyOf(key string, obj any) bool {
	switch o := obj.(type) {
	case ExplicitKey:
		return key == string(o)
	case DeletedFinalStateUnknown:
		return key == o.Key
	}
	m, err := objectMeta(obj)
	if err != nil {
		return false
	}
	namespace, name := m.GetNamespace(), m.GetName()
	if namespace == "" {
		return key == name
	}
	return len(key) == len(namespace)+1+len(name) &&
		key[len(namespace)] == '/' && key[:len(namespace)] == namespace && key[len(namespace)+1:] == name
}
