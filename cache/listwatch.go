package cache

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Lister performs the LIST half of a [ListerWatcher].
type Lister interface {
	// List returns a list object (a type with an Items field, such as
	// *v1.PodList or *unstructured.UnstructuredList) whose resourceVersion
	// says where a following watch should start.
	//
	// Deprecated: use ListerWithContext.ListWithContext instead.
	List(options metav1.ListOptions) (runtime.Object, error)
}

// ListerWithContext is a [Lister] that takes a context, which it should honour
// to abandon a request early.
type ListerWithContext interface {
	// ListWithContext returns a list object (a type with an Items field)
	// whose resourceVersion says where a following watch should start.
	ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
}

// Watcher performs the WATCH half of a [ListerWatcher].
type Watcher interface {
	// Watch starts a watch at options.ResourceVersion. When it returns an
	// error it must already have released whatever it created, so that the
	// caller can ignore the (nil) watch.
	//
	// Deprecated: use WatcherWithContext.WatchWithContext instead.
	Watch(options metav1.ListOptions) (watch.Interface, error)
}

// WatcherWithContext is a [Watcher] that takes a context. The watch should
// end when the context is cancelled.
type WatcherWithContext interface {
	// WatchWithContext starts a watch at options.ResourceVersion. When it
	// returns an error it must already have released whatever it created,
	// so that the caller can ignore the (nil) watch.
	WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
}

// ListerWatcher is the source a [Reflector] lists and watches: typically a
// thin wrapper around one resource of a Kubernetes API client, see
// [ListWatch].
type ListerWatcher interface {
	Lister
	Watcher
}

// ListerWatcherWithContext is the context-aware form of [ListerWatcher]. The
// reflector uses it internally; [ToListerWatcherWithContext] adapts a plain
// ListerWatcher.
type ListerWatcherWithContext interface {
	ListerWithContext
	WatcherWithContext
}

// ToListerWithContext returns l itself when it already implements
// [ListerWithContext], and otherwise an adapter that calls l.List and ignores
// the context.
func ToListerWithContext(l Lister) ListerWithContext {
	if lc, ok := l.(ListerWithContext); ok {
		return lc
	}
	return contextIgnoringLister{l}
}

// contextIgnoringLister adapts a Lister by dropping the context.
type contextIgnoringLister struct{ Lister }

func (l contextIgnoringLister) ListWithContext(_ context.Context, options metav1.ListOptions) (runtime.Object, error) {
	return l.List(options)
}

// ToWatcherWithContext returns w itself when it already implements
// [WatcherWithContext], and otherwise an adapter that calls w.Watch and
// ignores the context.
func ToWatcherWithContext(w Watcher) WatcherWithContext {
	if wc, ok := w.(WatcherWithContext); ok {
		return wc
	}
	return contextIgnoringWatcher{w}
}

// contextIgnoringWatcher adapts a Watcher by dropping the context.
type contextIgnoringWatcher struct{ Watcher }

func (w contextIgnoringWatcher) WatchWithContext(_ context.Context, options metav1.ListOptions) (watch.Interface, error) {
	return w.Watch(options)
}

// ToListerWatcherWithContext returns lw itself when it already implements
// [ListerWatcherWithContext], and otherwise adapts each half with
// [ToListerWithContext] and [ToWatcherWithContext].
func ToListerWatcherWithContext(lw ListerWatcher) ListerWatcherWithContext {
	if lwc, ok := lw.(ListerWatcherWithContext); ok {
		return lwc
	}
	return struct {
		ListerWithContext
		WatcherWithContext
	}{ToListerWithContext(lw), ToWatcherWithContext(lw)}
}

// ListFunc lists a resource; see [Lister].
//
// Deprecated: use ListWithContextFunc instead.
type ListFunc func(options metav1.ListOptions) (runtime.Object, error)

// ListWithContextFunc lists a resource; see [ListerWithContext].
type ListWithContextFunc func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)

// WatchFunc watches a resource; see [Watcher].
//
// Deprecated: use WatchFuncWithContext instead.
type WatchFunc func(options metav1.ListOptions) (watch.Interface, error)

// WatchFuncWithContext watches a resource; see [WatcherWithContext].
type WatchFuncWithContext func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)

// errNoListFunc and errNoWatchFunc are returned by a [ListWatch] that lacks
// the function a call needs.
var (
	errNoListFunc  = errors.New("ListWatch has neither ListFunc nor ListWithContextFunc")
	errNoWatchFunc = errors.New("ListWatch has neither WatchFunc nor WatchFuncWithContext")
)

// ListWatch is a [ListerWatcher] and [ListerWatcherWithContext] made of
// functions. Set a list function and a watch function, preferably the
// context-aware ones; a ListWatch with neither function of a half, and a nil
// *ListWatch, returns an error from that half's methods. A ListWatch is safe
// for concurrent use when its functions are. The functions must pass the
// options on to the server as given: the reflector paginates by setting Limit
// and Continue itself, and streams lists through SendInitialEvents.
//
// This package does not depend on k8s.io/client-go, so it has no Getter and no
// NewListWatchFromClient: [NewListWatchFromTypedClient] builds a ListerWatcher
// from a typed, dynamic or metadata client in one line. A ListWatch adapts any
// other source. With a typed clientset:
//
//	pods := clientset.CoreV1().Pods(namespace)
//	lw := &cache.ListWatch{
//		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
//			return pods.List(ctx, opts)
//		},
//		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
//			return pods.Watch(ctx, opts)
//		},
//	}
//
// With the dynamic client (objects are *unstructured.Unstructured; pass an
// Unstructured with apiVersion and kind as the expected type so that objects
// of another kind are rejected):
//
//	ri := dynamicClient.Resource(gvr).Namespace(namespace)
//	lw := &cache.ListWatch{
//		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
//			return ri.List(ctx, opts)
//		},
//		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
//			return ri.Watch(ctx, opts)
//		},
//	}
//
// With the metadata client (objects are *metav1.PartialObjectMetadata) the
// functions call metadataClient.Resource(gvr).Namespace(namespace).List and
// .Watch the same way. To restrict what is listed, as NewFilteredListWatchFromClient
// does in client-go, set the selectors on opts inside both functions.
//
// The client-go fake clientsets do not implement streaming lists. Wrap such a
// ListWatch with [ToListWatcherWithWatchListSemantics], passing the client, so
// that reflectors detect the fake and use paginated lists instead
// ([NewListWatchFromTypedClient] detects client-go's fakes by itself).
type ListWatch struct {
	// ListFunc is the legacy list function; List prefers it.
	//
	// Deprecated: use ListWithContextFunc instead.
	ListFunc ListFunc
	// WatchFunc is the legacy watch function; Watch prefers it.
	//
	// Deprecated: use WatchFuncWithContext instead.
	WatchFunc WatchFunc

	// ListWithContextFunc is the list function; ListWithContext prefers it.
	ListWithContextFunc ListWithContextFunc
	// WatchFuncWithContext is the watch function; WatchWithContext prefers it.
	WatchFuncWithContext WatchFuncWithContext

	// DisableChunking is kept for compatibility with client-go, where it is
	// not read either: the reflector decides on pagination itself.
	DisableChunking bool
}

var (
	_ ListerWatcher            = (*ListWatch)(nil)
	_ ListerWatcherWithContext = (*ListWatch)(nil)
)

// List calls ListFunc, or ListWithContextFunc with context.Background when
// ListFunc is nil.
//
// Deprecated: use ListWithContext instead.
func (lw *ListWatch) List(options metav1.ListOptions) (runtime.Object, error) {
	switch {
	case lw == nil:
		return nil, errNoListFunc
	case lw.ListFunc != nil:
		return lw.ListFunc(options)
	case lw.ListWithContextFunc != nil:
		return lw.ListWithContextFunc(context.Background(), options)
	default:
		return nil, errNoListFunc
	}
}

// ListWithContext calls ListWithContextFunc, or ListFunc (without the context)
// when ListWithContextFunc is nil.
func (lw *ListWatch) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	switch {
	case lw == nil:
		return nil, errNoListFunc
	case lw.ListWithContextFunc != nil:
		return lw.ListWithContextFunc(ctx, options)
	case lw.ListFunc != nil:
		return lw.ListFunc(options)
	default:
		return nil, errNoListFunc
	}
}

// Watch calls WatchFunc, or WatchFuncWithContext with context.Background when
// WatchFunc is nil.
//
// Deprecated: use WatchWithContext instead.
func (lw *ListWatch) Watch(options metav1.ListOptions) (watch.Interface, error) {
	switch {
	case lw == nil:
		return nil, errNoWatchFunc
	case lw.WatchFunc != nil:
		return lw.WatchFunc(options)
	case lw.WatchFuncWithContext != nil:
		return lw.WatchFuncWithContext(context.Background(), options)
	default:
		return nil, errNoWatchFunc
	}
}

// WatchWithContext calls WatchFuncWithContext, or WatchFunc (without the
// context) when WatchFuncWithContext is nil.
func (lw *ListWatch) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	switch {
	case lw == nil:
		return nil, errNoWatchFunc
	case lw.WatchFuncWithContext != nil:
		return lw.WatchFuncWithContext(ctx, options)
	case lw.WatchFunc != nil:
		return lw.WatchFunc(options)
	default:
		return nil, errNoWatchFunc
	}
}

// watchListSemanticsOptOut is implemented by clients and ListerWatchers that
// can say they do not implement streaming lists. The method name is the one
// client-go's fake clientsets use, so that they keep opting out here.
type watchListSemanticsOptOut interface {
	IsWatchListSemanticsUnSupported() bool
}

// clientLacksWatchListSemantics reports whether client opted out of streaming
// lists: it implements IsWatchListSemanticsUnSupported and that returns true.
// Anything else, including nil and a method that panics (say on a nil
// pointer), is assumed to support them.
func clientLacksWatchListSemantics(client any) (lacks bool) {
	optOut, ok := client.(watchListSemanticsOptOut)
	if !ok {
		return false
	}
	defer func() {
		if recover() != nil {
			lacks = false
		}
	}()
	return optOut.IsWatchListSemanticsUnSupported()
}

// ToListWatcherWithWatchListSemantics wraps lw so that reflectors can ask
// whether client supports streaming lists: the result implements
// IsWatchListSemanticsUnSupported() bool, reporting true when client itself
// implements that method and it returns true (as the client-go fake clientsets
// do). client is only inspected, once, by this call.
func ToListWatcherWithWatchListSemantics(lw *ListWatch, client any) ListerWatcher {
	return &watchListSemanticsListWatch{
		ListWatch:   lw,
		unsupported: clientLacksWatchListSemantics(client),
	}
}

// watchListSemanticsListWatch is a ListWatch that knows whether its client
// supports streaming lists.
type watchListSemanticsListWatch struct {
	*ListWatch
	unsupported bool // fixed at construction
}

// IsWatchListSemanticsUnSupported reports whether the wrapped client opted out
// of streaming lists.
func (lw *watchListSemanticsListWatch) IsWatchListSemanticsUnSupported() bool {
	return lw.unsupported
}
