package framework

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// NamespaceView is a ListerWatcher (and ListerWatcherWithContext) for one
// namespace of a [Server], like a typed client's Pods(namespace): its lists
// and watches see only that namespace, and continue tokens are relative to
// it. It is safe for concurrent use and shares everything else (state,
// faults, recorded requests) with its server.
type NamespaceView[T runtime.Object] struct {
	server    *Server[T]
	namespace string
}

// List lists the namespace; see [Server.ListWithContext].
//
// Deprecated: use [NamespaceView.ListWithContext].
func (v *NamespaceView[T]) List(options metav1.ListOptions) (runtime.Object, error) {
	return v.ListWithContext(context.Background(), options)
}

// ListWithContext lists the namespace; see [Server.ListWithContext].
func (v *NamespaceView[T]) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	return v.server.list(ctx, v.namespace, options)
}

// Watch watches the namespace; see [Server.WatchWithContext].
//
// Deprecated: use [NamespaceView.WatchWithContext].
func (v *NamespaceView[T]) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return v.WatchWithContext(context.Background(), options)
}

// WatchWithContext watches the namespace; see [Server.WatchWithContext].
func (v *NamespaceView[T]) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	return v.server.watch(ctx, v.namespace, options)
}

// IsWatchListSemanticsUnSupported reports what the server reports; see
// [Server.IsWatchListSemanticsUnSupported].
func (v *NamespaceView[T]) IsWatchListSemanticsUnSupported() bool {
	return v.server.IsWatchListSemanticsUnSupported()
}
