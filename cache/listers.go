package cache

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// AppendFunc receives each object a listing selects.
type AppendFunc func(any)

// errNilAppendFunc is returned by the listing functions when given no
// AppendFunc.
var errNilAppendFunc = errors.New("append function is nil")

// ListAll calls appendFn with each object of store whose labels match
// selector, in the store's List order. [labels.Nothing] selects nothing and
// an empty selector (such as [labels.Everything]) everything, without
// looking at the objects; a nil selector is treated as empty. Otherwise an
// object without metadata stops the listing with an error, after appendFn
// has seen the objects before it. The objects are the store's own: treat them
// as read-only.
func ListAll(store Store, selector labels.Selector, appendFn AppendFunc) error {
	if appendFn == nil {
		return errNilAppendFunc
	}
	if selector == nil {
		selector = labels.Everything()
	}
	if labels.MatchesNothing(selector) {
		return nil
	}
	return appendMatching(store.List(), selector, appendFn)
}

// appendMatching calls appendFn with each of objs whose labels match
// selector.
func appendMatching(objs []any, selector labels.Selector, appendFn AppendFunc) error {
	if selector.Empty() {
		for _, obj := range objs {
			appendFn(obj)
		}
		return nil
	}
	for _, obj := range objs {
		m, err := objectMeta(obj)
		if err != nil {
			return err
		}
		if selector.Matches(labels.Set(m.GetLabels())) {
			appendFn(obj)
		}
	}
	return nil
}

// ListAllByNamespace is [ListAll] restricted to the objects of one namespace,
// found through the indexer's [NamespaceIndex]. [metav1.NamespaceAll] lists
// every namespace. When the index does not exist it logs a warning and scans
// every object instead.
func ListAllByNamespace(indexer Indexer, namespace string, selector labels.Selector, appendFn AppendFunc) error {
	if appendFn == nil {
		return errNilAppendFunc
	}
	if selector == nil {
		selector = labels.Everything()
	}
	if labels.MatchesNothing(selector) {
		return nil
	}
	if namespace == metav1.NamespaceAll {
		return ListAll(indexer, selector, appendFn)
	}
	items, err := indexer.Index(NamespaceIndex, &metav1.ObjectMeta{Namespace: namespace})
	if err == nil {
		return appendMatching(items, selector, appendFn)
	}
	// Generated listers call this without a context, so there is no
	// contextual logger to use.
	klog.TODO().Info("Warning: can not retrieve list of objects using index", "err", err)
	for _, obj := range indexer.List() {
		m, err := objectMeta(obj)
		if err != nil {
			return err
		}
		if m.GetNamespace() == namespace && selector.Matches(labels.Set(m.GetLabels())) {
			appendFn(obj)
		}
	}
	return nil
}

// GenericLister lists and gets the objects of an [Indexer] as
// [runtime.Object]s. The objects are the indexer's own: treat them as
// read-only.
type GenericLister interface {
	// List returns the objects of every namespace whose labels match
	// selector.
	List(selector labels.Selector) (ret []runtime.Object, err error)
	// Get returns the object stored under the key name, that is a
	// cluster-scoped object, or a NotFound error.
	Get(name string) (runtime.Object, error)
	// ByNamespace returns a lister of the objects of one namespace.
	ByNamespace(namespace string) GenericNamespaceLister
}

// GenericNamespaceLister lists and gets the objects of one namespace of an
// [Indexer] as [runtime.Object]s.
type GenericNamespaceLister interface {
	// List returns the objects of the namespace whose labels match selector.
	List(selector labels.Selector) (ret []runtime.Object, err error)
	// Get returns the object of the namespace with the given name, or a
	// NotFound error.
	Get(name string) (runtime.Object, error)
}

// NewGenericLister returns a [GenericLister] over indexer. NotFound errors
// name resource. Stored objects that are not runtime.Objects make List and
// Get fail with an error.
func NewGenericLister(indexer Indexer, resource schema.GroupResource) GenericLister {
	return &genericLister{indexer: indexer, resource: resource}
}

type genericLister struct {
	indexer  Indexer
	resource schema.GroupResource
}

// List returns the matching objects of every namespace.
func (s *genericLister) List(selector labels.Selector) (ret []runtime.Object, err error) {
	var typeErr error
	err = ListAll(s.indexer, selector, func(obj any) {
		ret, typeErr = appendRuntimeObject(ret, obj, typeErr)
	})
	return ret, errors.Join(err, typeErr)
}

// ByNamespace returns a lister of one namespace.
func (s *genericLister) ByNamespace(namespace string) GenericNamespaceLister {
	return &genericNamespaceLister{indexer: s.indexer, namespace: namespace, resource: s.resource}
}

// Get returns the object stored under the key name.
func (s *genericLister) Get(name string) (runtime.Object, error) {
	return getRuntimeObject(s.indexer, name, name, s.resource)
}

type genericNamespaceLister struct {
	indexer   Indexer
	namespace string
	resource  schema.GroupResource
}

// List returns the matching objects of the namespace.
func (s *genericNamespaceLister) List(selector labels.Selector) (ret []runtime.Object, err error) {
	var typeErr error
	err = ListAllByNamespace(s.indexer, s.namespace, selector, func(obj any) {
		ret, typeErr = appendRuntimeObject(ret, obj, typeErr)
	})
	return ret, errors.Join(err, typeErr)
}

// Get returns the object of the namespace with the given name.
func (s *genericNamespaceLister) Get(name string) (runtime.Object, error) {
	return getRuntimeObject(s.indexer, s.namespace+"/"+name, name, s.resource)
}

// appendRuntimeObject appends obj to list if it is a runtime.Object, and
// otherwise records the first such failure in firstErr.
func appendRuntimeObject(list []runtime.Object, obj any, firstErr error) ([]runtime.Object, error) {
	if o, ok := obj.(runtime.Object); ok {
		return append(list, o), firstErr
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("stored object of type %T is not a runtime.Object", obj)
	}
	return list, firstErr
}

// getRuntimeObject returns the runtime.Object stored under key, or a
// NotFound error for name.
func getRuntimeObject(indexer Indexer, key, name string, resource schema.GroupResource) (runtime.Object, error) {
	obj, exists, err := indexer.GetByKey(key)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(resource, name)
	}
	o, ok := obj.(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("object stored under %q is of type %T, not a runtime.Object", key, obj)
	}
	return o, nil
}
