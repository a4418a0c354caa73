package clientgo

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo/internal/adapt"
)

// Getter is client-go's toolscache.Getter: what has a Get method returning a
// REST request, such as a clientset's RESTClient() (clientset.CoreV1().RESTClient()).
// [NewListWatchFromClient] and [NewFilteredListWatchFromClient] take one.
type Getter = toolscache.Getter

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
func NewListWatchFromClient(c Getter, resource string, namespace string, fieldSelector fields.Selector) *cache.ListWatch {
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
func NewFilteredListWatchFromClient(c Getter, resource string, namespace string, optionsModifier func(options *metav1.ListOptions)) *cache.ListWatch {
	list, watch := adapt.RESTListWatch(c, resource, namespace, optionsModifier)
	return &cache.ListWatch{ListWithContextFunc: list, WatchFuncWithContext: watch}
}
