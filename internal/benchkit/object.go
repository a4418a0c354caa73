package benchkit

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Object is the realistic kind of the benchmarks: a namespaced object shaped
// like a ConfigMap as a client decodes it from the API server, with a full
// ObjectMeta and a data map. [NewObject] fills one.
//
// Its deep-copy methods are complete (they copy every map, slice and
// pointer), as generated ones would be, so that a mutation detector or a
// caller's DeepCopy pays the real price.
type Object struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Data map[string]string
}

// ObjectList is a list of [Object], as a List call returns it.
type ObjectList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []Object
}

var (
	_ runtime.Object = (*Object)(nil)
	_ runtime.Object = (*ObjectList)(nil)
	_ metav1.Object  = (*Object)(nil)
)

// DeepCopyInto copies o into out, sharing nothing mutable with o.
func (o *Object) DeepCopyInto(out *Object) {
	out.TypeMeta = o.TypeMeta
	o.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Data = maps.Clone(o.Data) // nil stays nil
}

// DeepCopy returns a copy of o that shares nothing mutable with it, or nil
// for a nil o.
func (o *Object) DeepCopy() *Object {
	if o == nil {
		return nil
	}
	out := new(Object)
	o.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements [runtime.Object].
func (o *Object) DeepCopyObject() runtime.Object {
	if c := o.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies l into out, sharing nothing mutable with l.
func (l *ObjectList) DeepCopyInto(out *ObjectList) {
	out.TypeMeta = l.TypeMeta
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Object, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	} else {
		out.Items = nil
	}
}

// DeepCopy returns a copy of l that shares nothing mutable with it, or nil
// for a nil l.
func (l *ObjectList) DeepCopy() *ObjectList {
	if l == nil {
		return nil
	}
	out := new(ObjectList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements [runtime.Object].
func (l *ObjectList) DeepCopyObject() runtime.Object {
	if c := l.DeepCopy(); c != nil {
		return c
	}
	return nil
}
