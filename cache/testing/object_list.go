package framework

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// ObjectList is a list of T for object types that have no list type of their
// own at hand; it is the default list of a [Server] whose objects are neither
// unstructured nor PartialObjectMetadata. meta.ExtractList, meta.SetList and
// meta.ListAccessor accept it. The zero value is an empty list.
type ObjectList[T runtime.Object] struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []T `json:"items"`
}

var _ runtime.Object = (*ObjectList[runtime.Object])(nil)

// DeepCopyObject returns a deep copy of the list and its items. An item
// whose DeepCopyObject does not return a T is reported through
// utilruntime.HandleError and copied as the zero T.
func (l *ObjectList[T]) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &ObjectList[T]{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]T, 0, len(l.Items))
		for _, item := range l.Items {
			if isNil(item) {
				var zero T
				out.Items = append(out.Items, zero)
				continue
			}
			c, ok := item.DeepCopyObject().(T)
			if !ok {
				utilruntime.HandleError(fmt.Errorf("deep copy of %T is not a %T", item, item))
			}
			out.Items = append(out.Items, c)
		}
	}
	return out
}
