package clientgo

import (
	"context"
	"errors"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// errNilGetter is returned by both halves of a ListWatch made from a nil
// Getter. client-go's fake clientsets return a nil RESTClient.
var errNilGetter = errors.New("ListWatch from a nil REST client (the fake clientsets' RESTClient() is nil: use cache.NewListWatchFromTypedClient with a resource client)")

// NewListWatchFromClient is client-go's function of that name, returning this
// library's [cache.ListWatch]: it lists and watches resource in namespace
// ("" for all namespaces and for cluster-scoped resources) through c,
// typically a clientset's RESTClient(), restricted by fieldSelector.
//
//	lw := clientgo.NewListWatchFromClient(clientset.CoreV1().RESTClient(), "pods", namespace, fields.Everything())
//
// [cache.NewListWatchFromTypedClient] does the same from a typed resource
// client and also works with client-go's fake clientsets, whose RESTClient is
// nil. A nil c (or nil pointer) yields a ListWatch whose calls return an
// error.
func NewListWatchFromClient(c toolscache.Getter, resource string, namespace string, fieldSelector fields.Selector) *cache.ListWatch {
	selector := fieldSelector.String()
	return NewFilteredListWatchFromClient(c, resource, namespace, func(options *metav1.ListOptions) {
		options.FieldSelector = selector
	})
}

// NewFilteredListWatchFromClient is client-go's function of that name,
// returning this library's [cache.ListWatch]: it lists and watches resource
// in namespace through c, calling optionsModifier (when not nil) on the
// options of every request, after the reflector set them. Watches are sent
// with Watch set, as client-go's are. A nil c yields a ListWatch whose calls
// return an error.
func NewFilteredListWatchFromClient(c toolscache.Getter, resource string, namespace string, optionsModifier func(options *metav1.ListOptions)) *cache.ListWatch {
	if c == nil || isNilPointer(c) {
		return &cache.ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return nil, errNilGetter
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				return nil, errNilGetter
			},
		}
	}
	modify := func(options *metav1.ListOptions) {
		if optionsModifier != nil {
			optionsModifier(options)
		}
	}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			modify(&options)
			return c.Get().Namespace(namespace).Resource(resource).
				VersionedParams(&options, metav1.ParameterCodec).Do(ctx).Get()
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			options.Watch = true
			modify(&options)
			return c.Get().Namespace(namespace).Resource(resource).
				VersionedParams(&options, metav1.ParameterCodec).Watch(ctx)
		},
	}
}

// isNilPointer reports whether v holds a nil pointer.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
