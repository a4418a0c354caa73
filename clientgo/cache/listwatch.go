package cache

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/clientgo/internal/adapt"
)

// NewListWatchFromClient returns a ListWatch of resource in namespace (""
// for all namespaces and for cluster-scoped resources) through c, typically
// a clientset's RESTClient(), restricted by fieldSelector:
// [NewFilteredListWatchFromClient] setting the field selector.
func NewListWatchFromClient(c Getter, resource string, namespace string, fieldSelector fields.Selector) *ListWatch {
	selector := fieldSelector.String()
	return NewFilteredListWatchFromClient(c, resource, namespace, func(options *metav1.ListOptions) {
		options.FieldSelector = selector
	})
}

// NewFilteredListWatchFromClient returns a ListWatch of resource in
// namespace through c, calling optionsModifier on the options of every
// request after the reflector set them; watches are sent with Watch set. As
// client-go's, it fills all four functions of the ListWatch (the ones
// without a context use context.Background()). Unlike client-go's, a nil c
// (or nil pointer, as the fake clientsets' RESTClient() returns) yields
// functions that return an error instead of panicking, and a nil
// optionsModifier is allowed.
func NewFilteredListWatchFromClient(c Getter, resource string, namespace string, optionsModifier func(options *metav1.ListOptions)) *ListWatch {
	list, watchWithContext := adapt.RESTListWatch(c, resource, namespace, optionsModifier)
	return &ListWatch{
		//lint:ignore SA1019 client-go fills the functions without a context too
		ListFunc: func(options metav1.ListOptions) (runtime.Object, error) {
			return list(context.Background(), options)
		},
		//lint:ignore SA1019 client-go fills the functions without a context too
		WatchFunc: func(options metav1.ListOptions) (watch.Interface, error) {
			return watchWithContext(context.Background(), options)
		},
		ListWithContextFunc:  list,
		WatchFuncWithContext: watchWithContext,
	}
}
