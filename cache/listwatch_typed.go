package cache

import (
	"context"
	"errors"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// TypedListerWatcherClient is the part of a Kubernetes API client for one
// resource that [NewListWatchFromTypedClient] uses: List returning the list
// type L and Watch. client-go's typed clientset resource clients
// (clientset.CoreV1().Pods(namespace)), the dynamic client's ResourceInterface
// (dynamicClient.Resource(gvr).Namespace(namespace)) and the metadata client's
// (metadataClient.Resource(gvr).Namespace(namespace)) all have it, as do
// their fakes. It is not part of client-go's API.
type TypedListerWatcherClient[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// errNilTypedClient is returned by both halves of a ListerWatcher made from
// a nil client.
var errNilTypedClient = errors.New("NewListWatchFromTypedClient was given a nil client")

// NewListWatchFromTypedClient returns a [ListerWatcher] that lists and watches
// through c, calling optionsModifier (when not nil) on a copy of the options
// of every list and watch, for instance to set a label or field selector. It
// is the one-line replacement of client-go's NewListWatchFromClient and
// NewFilteredListWatchFromClient for clients that have List and Watch, with L
// inferred from c:
//
//	lw := cache.NewListWatchFromTypedClient(clientset.CoreV1().Pods(namespace), nil)
//
// The result also implements [ListerWatcherWithContext]. It is safe for
// concurrent use when c and optionsModifier are. It is not part of
// client-go's API.
//
// Streaming lists: when c is one of client-go's fake clients, which do not
// implement them (their watches never send the bookmark that ends the
// initial events), the result reports so through an
// IsWatchListSemanticsUnSupported method returning true, and reflectors list
// page by page instead, as client-go's do for its fake clientsets. c counts as
// a fake when it has an IsWatchListSemanticsUnSupported method that returns
// true, or when it is built on client-go's action recorder: a value of a
// struct type that holds, directly or through pointers and struct fields, a
// value of type Fake of package k8s.io/client-go/testing. The typed fake
// clientset's resource clients, and those of the dynamic and metadata fake
// clients, all do; client-gen generates fakes the same way. c is inspected
// once, by this call, through its type only.
//
// A nil c yields a ListerWatcher whose List and Watch return an error.
func NewListWatchFromTypedClient[L runtime.Object](c TypedListerWatcherClient[L], optionsModifier func(options *metav1.ListOptions)) ListerWatcher {
	if isNilObject(c) {
		return &ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return nil, errNilTypedClient
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				return nil, errNilTypedClient
			},
		}
	}
	modify := func(options metav1.ListOptions) metav1.ListOptions {
		if optionsModifier != nil {
			optionsModifier(&options)
		}
		return options
	}
	lw := &ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			return c.List(ctx, modify(options))
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			return c.Watch(ctx, modify(options))
		},
	}
	return &watchListSemanticsListWatch{
		ListWatch:   lw,
		unsupported: clientLacksWatchListSemantics(c) || isClientGoFake(reflect.TypeOf(c)),
	}
}

// clientGoTestingPackage is the import path of client-go's action recorder,
// testing.Fake, on which every client-go fake client is built.
const clientGoTestingPackage = "k8s.io/client-go/testing"

// maxFakeSearchDepth bounds how deep [isClientGoFake] looks into nested
// structs. client-go's fakes hold testing.Fake at depth 2 (dynamic and
// metadata resource clients) or 3 (typed resource clients).
const maxFakeSearchDepth = 5

// isClientGoFake reports whether values of type t hold a
// k8s.io/client-go/testing.Fake, directly or through pointers and struct
// fields (exported or not), within maxFakeSearchDepth levels of structs. It
// looks at types only.
func isClientGoFake(t reflect.Type) bool {
	seen := map[reflect.Type]bool{}
	var search func(t reflect.Type, depth int) bool
	search = func(t reflect.Type, depth int) bool {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct || depth > maxFakeSearchDepth || seen[t] {
			return false
		}
		seen[t] = true
		if t.Name() == "Fake" && t.PkgPath() == clientGoTestingPackage {
			return true
		}
		for i := range t.NumField() {
			if search(t.Field(i).Type, depth+1) {
				return true
			}
		}
		return false
	}
	return search(t, 0)
}
