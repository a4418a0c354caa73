package cache

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// defaultExpectedTypeName describes a reflector built without an
// expected type.
const defaultExpectedTypeName = "<unspecified>"

// expectedObjects says which objects a reflector hands to its store: objects
// of its expected Go type and, for an expected *unstructured.Unstructured with
// apiVersion and kind, of that kind; with metadata; and no server-side Table
// renderings. One check serves the items of lists and the objects of watch
// events. The zero value accepts every object with metadata that is not a
// Table.
type expectedObjects struct {
	// goType is the Go type of accepted objects, nil to accept any.
	goType reflect.Type
	// kind is the kind of accepted objects when the expected type is an
	// Unstructured with apiVersion and kind, else nil.
	kind *schema.GroupVersionKind
}

// newExpectedObjects returns what a reflector built with expectedType
// accepts.
func newExpectedObjects(expectedType any) expectedObjects {
	e := expectedObjects{goType: reflect.TypeOf(expectedType)}
	if u, ok := expectedType.(*unstructured.Unstructured); ok && u != nil {
		if gvk := u.GroupVersionKind(); !gvk.Empty() {
			e.kind = &gvk
		}
	}
	return e
}

// description is the default type description: "<unspecified>" without an
// expected type, the expected kind if there is one, else the Go type.
func (e expectedObjects) description() string {
	switch {
	case e.goType == nil:
		return defaultExpectedTypeName
	case e.kind != nil:
		return e.kind.String()
	default:
		return e.goType.String()
	}
}

// objectSource is where an object the reflector checks comes from.
type objectSource struct {
	// noun names the object in errors.
	noun string
	// carriesKind: the object carries its own apiVersion and kind, which
	// must be the expected kind. The items of a list need not carry
	// theirs, so it is not checked.
	carriesKind bool
}

var (
	// fromWatchEvent is the object of a watch event.
	fromWatchEvent = objectSource{noun: "event object", carriesKind: true}
	// fromList is an item of a list.
	fromList = objectSource{noun: "list item"}
)

// check returns the metadata of obj, which came from src, when the reflector
// accepts it, or why it does not.
func (e expectedObjects) check(obj runtime.Object, src objectSource) (metav1.Object, error) {
	if isNilObject(obj) {
		return nil, fmt.Errorf("%s is a nil %T", src.noun, obj)
	}
	if e.goType != nil {
		if got := reflect.TypeOf(obj); got != e.goType {
			return nil, fmt.Errorf("unexpected %s type: expected %v, got %v", src.noun, e.goType, got)
		}
	}
	if e.kind != nil && src.carriesKind {
		if got := obj.GetObjectKind().GroupVersionKind(); got != *e.kind {
			return nil, fmt.Errorf("unexpected %s kind: expected %v, got %v", src.noun, *e.kind, got)
		}
	}
	if isUnsupportedTableObject(obj) {
		return nil, fmt.Errorf("unsupported %s kind %v", src.noun, obj.GetObjectKind().GroupVersionKind())
	}
	return objectMeta(obj)
}

// tableKinds are the kinds of server-side table renderings, which carry rows
// instead of objects.
var tableKinds = map[schema.GroupVersionKind]bool{
	metav1beta1.SchemeGroupVersion.WithKind("Table"): true,
	metav1.SchemeGroupVersion.WithKind("Table"):      true,
}

// isUnsupportedTableObject reports an unstructured Table.
func isUnsupportedTableObject(obj runtime.Object) bool {
	u, ok := obj.(*unstructured.Unstructured)
	return ok && u != nil && tableKinds[u.GroupVersionKind()]
}

// isUnsupportedTableList reports an unstructured list of kind Table, and its
// kind.
func isUnsupportedTableList(obj runtime.Object) (schema.GroupVersionKind, bool) {
	u, ok := obj.(*unstructured.UnstructuredList)
	if !ok || u == nil {
		return schema.GroupVersionKind{}, false
	}
	gvk := u.GroupVersionKind()
	return gvk, tableKinds[gvk]
}
