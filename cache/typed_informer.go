package cache

import (
	"context"
	"errors"
	"fmt"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// TypedSharedIndexInformer is a [SharedIndexInformer] whose objects are all of
// type T, with type-safe handlers and indexes. Create one with
// [NewTypedSharedIndexInformer]. It is safe for concurrent use.
type TypedSharedIndexInformer[T Object] interface {
	SharedIndexInformer

	// AddTypedEventHandler adds a typed handler; see
	// [SharedInformer.AddEventHandlerWithOptions]. At most one
	// HandlerOptions may be passed; none means the defaults.
	AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error)

	// AddTypedIndexers adds typed indexes; see
	// [SharedIndexInformer.AddIndexers].
	AddTypedIndexers(indexers TypedIndexers[T]) error

	// GetTypedIndexer returns a typed view of GetIndexer(). It is for
	// reading only.
	GetTypedIndexer() TypedIndexer[T]
}

// NewTypedSharedIndexInformer wraps informer, whose objects must be of type T,
// as a [TypedSharedIndexInformer]. Objects of another type reaching a typed
// handler are reported as errors rather than delivered (client-go panics).
// A nil informer is reported as an error and replaced by a stopped one that
// refuses handlers.
func NewTypedSharedIndexInformer[T Object](informer SharedIndexInformer) TypedSharedIndexInformer[T] {
	if informer == nil {
		informer = newStoppedInformer(errors.New("typed shared index informer: the wrapped informer is nil"))
	}
	return typedSharedIndexInformer[T]{SharedIndexInformer: informer}
}

// typedSharedIndexInformer implements TypedSharedIndexInformer on top of an
// untyped informer.
type typedSharedIndexInformer[T Object] struct {
	SharedIndexInformer
}

// AddTypedEventHandler implements
// [TypedSharedIndexInformer.AddTypedEventHandler].
func (s typedSharedIndexInformer[T]) AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	var o HandlerOptions
	switch len(options) {
	case 0:
	case 1:
		o = options[0]
	default:
		return nil, fmt.Errorf("at most one HandlerOptions may be passed, got %d", len(options))
	}
	if err := checkHandler[TypedResourceEventHandler[T]](handler); err != nil {
		return nil, err
	}
	return s.AddEventHandlerWithOptions(typedResourceEventHandler[T]{handler}, o)
}

// AddTypedIndexers implements [TypedSharedIndexInformer.AddTypedIndexers].
func (s typedSharedIndexInformer[T]) AddTypedIndexers(indexers TypedIndexers[T]) error {
	return s.AddIndexers(TypedIndexersToIndexers(indexers))
}

// GetTypedIndexer implements [TypedSharedIndexInformer.GetTypedIndexer].
func (s typedSharedIndexInformer[T]) GetTypedIndexer() TypedIndexer[T] {
	return typedIndexer[T]{s.GetIndexer()}
}

// SyncStatus implements [SyncStatusReporter] for the wrapped informer; the
// zero status if it reports none.
func (s typedSharedIndexInformer[T]) SyncStatus() SyncStatus {
	st, _ := InformerSyncStatus(s.SharedIndexInformer)
	return st
}

// syncStatusChanges forwards to the wrapped informer, for WaitForSync.
func (s typedSharedIndexInformer[T]) syncStatusChanges() (SyncStatus, <-chan struct{}) {
	if src, ok := s.SharedIndexInformer.(syncStatusSource); ok {
		return src.syncStatusChanges()
	}
	return SyncStatus{}, nil
}

// WaitForResourceVersion implements [ResourceVersionWaiter] for the wrapped
// informer; see [WaitForResourceVersion].
func (s typedSharedIndexInformer[T]) WaitForResourceVersion(ctx context.Context, resourceVersion string) error {
	return WaitForResourceVersion(ctx, s.SharedIndexInformer, resourceVersion)
}

// newStoppedInformer returns an informer that has already stopped, after
// reporting why it stands in for a real one.
func newStoppedInformer(reason error) *sharedIndexInformer {
	utilruntime.HandleError(reason)
	s := newSharedIndexInformer(nil, nil, SharedIndexInformerOptions{}, realClock)
	s.started, s.stopped = true, true
	s.processor.stop()
	return s
}
