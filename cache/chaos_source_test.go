package cache

import (
	"context"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// chaosLW is the source of a chaos informer: the server, behind a
// ShardedListWatch for sharded runs, with the run's label selector on every
// request. It also forces relists: while forceRelist is set, a plain watch
// (the resumption of a watch after a list) fails with 410 Gone, and the
// first list or streaming list clears it, so that events the server lost in
// transit are repaired whatever the informer is doing when the schedule asks.
type chaosLW struct {
	inner         ListerWatcherWithContext
	optOut        bool
	labelSelector string
	forceRelist   atomic.Bool
}

func (c *chaosLW) IsWatchListSemanticsUnSupported() bool { return c.optOut }

func (c *chaosLW) List(options metav1.ListOptions) (runtime.Object, error) {
	return c.ListWithContext(context.Background(), options)
}

func (c *chaosLW) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	c.forceRelist.Store(false)
	options.LabelSelector = c.labelSelector
	return c.inner.ListWithContext(ctx, options)
}

func (c *chaosLW) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return c.WatchWithContext(context.Background(), options)
}

func (c *chaosLW) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if options.SendInitialEvents != nil && *options.SendInitialEvents {
		c.forceRelist.Store(false)
	} else if c.forceRelist.Load() {
		return nil, errExpired
	}
	options.LabelSelector = c.labelSelector
	return c.inner.WatchWithContext(ctx, options)
}
