package adapt

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

// errNilGetter is returned by both halves of a ListWatch made from a nil
// Getter. client-go's fake clientsets return a nil RESTClient.
var errNilGetter = errors.New("ListWatch from a nil REST client (the fake clientsets' RESTClient() is nil: use cache.NewListWatchFromTypedClient with a resource client)")

// RESTListWatch returns the list and watch functions of client-go's
// NewFilteredListWatchFromClient: they list and watch resource in namespace
// through c, calling optionsModifier (when not nil) on the options of every
// request after the reflector set them; watches are sent with Watch set. A
// nil c (or nil pointer) yields functions that return an error.
func RESTListWatch(c toolscache.Getter, resource, namespace string, optionsModifier func(options *metav1.ListOptions)) (
	list func(context.Context, metav1.ListOptions) (runtime.Object, error),
	watchFunc func(context.Context, metav1.ListOptions) (watch.Interface, error),
) {
	if c == nil || isNilPointer(c) {
		return func(context.Context, metav1.ListOptions) (runtime.Object, error) { return nil, errNilGetter },
			func(context.Context, metav1.ListOptions) (watch.Interface, error) { return nil, errNilGetter }
	}
	modify := func(options *metav1.ListOptions) {
		if optionsModifier != nil {
			optionsModifier(options)
		}
	}
	list = func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
		modify(&options)
		return c.Get().Namespace(namespace).Resource(resource).
			VersionedParams(&options, metav1.ParameterCodec).Do(ctx).Get()
	}
	watchFunc = func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
		options.Watch = true
		modify(&options)
		return c.Get().Namespace(namespace).Resource(resource).
			VersionedParams(&options, metav1.ParameterCodec).Watch(ctx)
	}
	return list, watchFunc
}
