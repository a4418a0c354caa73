package cache

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ObjectName is the structured form of a namespace and name. Its String form is
// the key [MetaNamespaceKeyFunc] produces. The zero value names nothing; it is
// an ordinary comparable value, safe to copy and use as a map key.
type ObjectName struct {
	Namespace string
	Name      string
}

// NewObjectName returns the ObjectName of the given namespace and name.
func NewObjectName(namespace, name string) ObjectName {
	return ObjectName{Namespace: namespace, Name: name}
}

// Parts returns the namespace and the name.
func (n ObjectName) Parts() (namespace, name string) {
	return n.Namespace, n.Name
}

// String returns "namespace/name", or just "name" when the namespace is empty.
func (n ObjectName) String() string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// AsNamespacedName converts n to a [types.NamespacedName].
func (n ObjectName) AsNamespacedName() types.NamespacedName {
	return types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
}

// NamespacedNameAsObjectName converts a [types.NamespacedName] to an ObjectName.
func NamespacedNameAsObjectName(nn types.NamespacedName) ObjectName {
	return ObjectName{Namespace: nn.Namespace, Name: nn.Name}
}

// ParseObjectName parses the encoding produced by [ObjectName.String]. It
// fails on the same inputs as [SplitMetaNamespaceKey].
func ParseObjectName(str string) (ObjectName, error) {
	namespace, name, err := SplitMetaNamespaceKey(str)
	return ObjectName{Namespace: namespace, Name: name}, err
}

// ObjectToName returns the name of any object that has object metadata, and an
// error for anything else (including nil).
func ObjectToName(obj any) (ObjectName, error) {
	m, err := objectMeta(obj)
	if err != nil {
		return ObjectName{}, err
	}
	return MetaObjectToName(m), nil
}

// objectMeta returns the object metadata of obj. Unlike [meta.Accessor] it
// also rejects a typed nil pointer, whose getters would panic.
func objectMeta(obj any) (metav1.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("object has no meta: %w", err)
	}
	if isNilObject(m) {
		return nil, fmt.Errorf("object has no meta: nil %T", obj)
	}
	return m, nil
}

// MetaObjectToName returns the name of a metadata-bearing object.
func MetaObjectToName(obj metav1.Object) ObjectName {
	return ObjectName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// DeletionHandlingObjectToName is [ObjectToName] that also understands
// tombstones: for a [DeletedFinalStateUnknown], this package's or client-go's,
// it parses the key the tombstone carries.
func DeletionHandlingObjectToName(obj any) (ObjectName, error) {
	if d, ok := asTombstone(obj); ok {
		return ParseObjectName(d.Key)
	}
	return ObjectToName(obj)
}

// isNilObject reports whether obj is nil or a nil pointer, whose accessors
// would panic.
func isNilObject(obj any) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
