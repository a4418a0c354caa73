// Package cache is a drop-in replacement for k8s.io/client-go/tools/cache
// (client-go v0.37.2) whose informers run on informer-go. Swapping the import
// path is the whole migration:
//
//	import "k8s.io/client-go/tools/cache"
//
// becomes
//
//	import "github.com/informer-go/informer/clientgo/cache"
//
// Its exported names are exactly those of client-go's package, and its types
// are client-go's: every type is an alias (Store, Indexer, SharedIndexInformer,
// ResourceEventHandlerFuncs, DeletedFinalStateUnknown, ListWatch, Getter,
// Reflector, DeltaFIFO...), so values pass freely between this package,
// client-go's, generated informers and listers, dynamicinformer and
// controller-runtime, and a type assertion on [DeletedFinalStateUnknown]
// matches client-go's tombstone whichever engine delivered it.
//
// # What runs on which engine
//
// On informer-go (github.com/informer-go/informer/cache), in client-go
// v0.37.2's default order (informer-go's InOrder pipeline: every event in
// watch order, a relist's tombstones before its adds and updates):
//
//   - the informers of [NewSharedInformer], [NewSharedIndexInformer] and
//     [NewSharedIndexInformerWithOptions], seen through client-go's
//     [SharedIndexInformer] interface, with their stores and indexers
//     (GetStore, GetIndexer), controllers (GetController) and handler
//     registrations;
//   - the stores, indexers and controllers of [NewInformer],
//     [NewIndexerInformer], [NewTransformingInformer],
//     [NewTransformingIndexerInformer] and [NewInformerWithOptions].
//
// Every handler registered on them, whatever its type, receives client-go's
// [DeletedFinalStateUnknown] for a deletion noticed only by a relist, so
// client-go's [DeletionHandlingMetaNamespaceKeyFunc] and type assertions
// work unchanged. A watch error handler of theirs gets a [*Reflector] that
// only carries the name and type description of the running reflector (an
// informer-go reflector), which is what client-go's DefaultWatchErrorHandler
// reads. [SetInformerMetricsProvider] sets the provider of their metrics
// (and client-go's); a provider set only through client-go's function does
// not reach them.
//
// [NewListWatchFromClient] and [NewFilteredListWatchFromClient] return
// client-go's [ListWatch] with all four functions filled, as client-go's do;
// their requests are client-go's REST requests. Unlike client-go's, a nil
// [Getter] (the fake clientsets' RESTClient()) makes them return an error
// instead of panicking.
//
// Everything else is client-go's own code, called through a function of the
// same signature: the low-level pieces whose concrete types cannot be backed
// by another engine without changing their types ([New] and [Config],
// [*Reflector] and NewReflector*, [*DeltaFIFO], [*RealFIFO], [*FIFO],
// [*Heap], [NewStore], [NewIndexer], [NewThreadSafeStore] and their options,
// the expiration, TTL, undelta and mutation caches, [MutationDetector],
// [FakeCustomStore]); the helpers (key functions, [ObjectName], listers,
// [WaitForCacheSync] and the other waits, [ShutDownEventHandler], informer
// names, the reflector metrics provider, [ListWatch] conversions). Generic
// wrappers such as [NewTypedSharedIndexInformer] run on the engine of the
// informer they wrap. Informers built by client-go's code outside this
// package (client-go's generated factories, dynamicinformer,
// metadatainformer) stay on client-go's engine; the module
// github.com/informer-go/informer/clientgo/informers is a drop-in for the
// generated SharedInformerFactory of k8s.io/client-go/informers on
// informer-go.
//
// zz_generated.go holds the aliases, constants, variables and forwarding
// functions; the hand-written files hold the names listed above as running
// on informer-go. Regenerate with go generate after changing the client-go
// version; the tests of ./internal/generate check that the package has every
// exported name of client-go's tools/cache, denoting the same thing.
package cache

//go:generate go test -C internal/generate -run TestGeneratedSourceIsUpToDate -update .
