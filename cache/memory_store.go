package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// newInformerCache returns the store of an informer of exampleObject's
// objects, keyed by DeletionHandlingMetaNamespaceKeyFunc, and the memory
// mode of its write path (nil for none). Invalid memory options are
// reported through utilruntime.HandleError, as a nil index function is, and
// the informer gets no memory mode: it keeps full objects, as client-go
// does, rather than fail later.
func newInformerCache(exampleObject runtime.Object, indexers Indexers, opts []StoreOption, memory *MemoryOptions) (*cache, *memoryMode) {
	c := newCache(DeletionHandlingMetaNamespaceKeyFunc, indexers, opts)
	mode, err := newMemoryMode(exampleObject, memory, true)
	if err == nil {
		err = mode.useStore(c, indexers)
	}
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("informer of %T: %w; the informer keeps full objects", exampleObject, err))
		return c, nil
	}
	return c, mode
}

// useStore makes the Encode engine c's storage, when m encodes.
func (m *memoryMode) useStore(c *cache, indexers Indexers) error {
	if m == nil || m.encode == nil {
		return nil
	}
	opts := *m.encode
	if c.withMetrics {
		opts.storeOptions = append(opts.storeOptions, WithThreadSafeStoreMetrics(c.identifier, c.metrics))
	}
	s, err := newEncodedThreadSafeStore(indexers, opts)
	if err != nil {
		return fmt.Errorf("memory options: %w", err)
	}
	c.cacheStorage = s.(*encodedStore)
	return nil
}
