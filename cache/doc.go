// Package cache keeps a local, indexed, eventually consistent copy of a set of
// Kubernetes-style objects and tells handlers about every change. It is a
// faithful reimplementation of k8s.io/client-go/tools/cache: the exported API
// and its documented behaviour are the same, so code written against
// client-go compiles and behaves the same after swapping the import path.
//
// The pipeline:
//
//	ListerWatcher ─► Reflector ─► DeltaFIFO ─► Indexer ─► processor ─► listener ─► handler
//	 (list+watch)    (RVs, relist,  (per-key     (store +    (fan-out)   (ring buffer,
//	                  backoff)      deltas)      indexes)                 own goroutine)
//
// The storage layer is [Store], [Indexer] and [ThreadSafeStore]; the queues
// are [DeltaFIFO], [RealFIFO] and [FIFO]; keys come from a [KeyFunc], by
// default [MetaNamespaceKeyFunc].
//
// # Sources
//
// This package does not depend on k8s.io/client-go, so it has no Getter and
// no NewListWatchFromClient (the nested module
// github.com/informer-go/informer/clientgo has both).
// [NewListWatchFromTypedClient] adapts, in one line, any client with List and
// Watch: a typed clientset's resource client (clientset.CoreV1().Pods(ns)),
// the dynamic client's (dynamicClient.Resource(gvr).Namespace(ns)) or the
// metadata client's (metadataClient.Resource(gvr).Namespace(ns)), and their
// fakes. A [ListWatch] made of two functions adapts anything else.
// [Reflector] describes how lists, streaming lists, watches, relists and
// backoff behave against a server.
//
// A source that is not a kube-apiserver should opt out of streaming lists:
// the reflector first asks for one (a watch with SendInitialEvents), and a
// source that ignores the option keeps it waiting for the end bookmark until
// the source sends a change or a bookmark, or until
// [ReflectorOptions].WatchListStallTimeout passes without a new object.
// Either fail such watches with an error (the reflector then lists), or wrap
// the source with [ToListWatcherWithWatchListSemantics] and a value whose
// IsWatchListSemanticsUnSupported method returns true.
// [NewListWatchFromTypedClient] does so by itself for client-go's fake
// clients.
//
// client-go's generated listers (corev1listers and friends) and
// controller-runtime take client-go's own Indexer and SharedIndexInformer
// types, not this package's: the clientgo module's AsIndexer and
// AsSharedIndexInformer adapt them, and its informers package is a drop-in
// for client-go's generated SharedInformerFactory. Without it, use
// [NewGenericLister] or a [TypedIndexer].
//
// Tombstones: [DeletionHandlingMetaNamespaceKeyFunc],
// [DeletionHandlingObjectToName] and the typed handlers' [DeletedObject]
// recognise client-go's DeletedFinalStateUnknown as well as this package's,
// so that handlers written against this package also work on client-go's
// informers.
//
// # Informers and queue modes
//
// [NewSharedIndexInformerWithOptions] and [NewInformerWithOptions] build the
// whole pipeline. The queue between the reflector and the store is the one
// deliberate difference from client-go v0.37.2, chosen with the InOrder field
// of [SharedIndexInformerOptions] and [InformerOptions]:
//
//   - InOrder false (the default here): a [DeltaFIFO] that knows the store's
//     objects. Changes to one object that pile up while the informer is busy
//     are processed together, so each handler sees the changes of an object in
//     order, but changes of different objects not necessarily in watch order.
//     A deletion of an object that was never stored and is not queued is
//     dropped, and consecutive deletions collapse into one. A relist is
//     processed object by object: adds and updates in list order, then
//     [DeletedFinalStateUnknown] tombstones for the objects that disappeared.
//     Bookmarks do not reach the store.
//   - InOrder true (client-go v0.37.2's default): a [RealFIFO] with atomic
//     events. Every watch event is processed on its own, in watch order,
//     deletions of never-seen objects included. A relist replaces the store's
//     contents in one step; handlers then get the tombstones first and the
//     adds and updates in list order. A resync is one step. Up to 1000 events
//     for distinct objects are written to the store in one transaction before
//     their handlers run, and bookmarks reach the store's resource version.
//
// In both modes an informer, and each handler registration, reports synced
// only after the last object of the initial list has been processed (for a
// registration: after its handler returned from that object's OnAdd), each
// handler runs on its own goroutine and sees the changes of an object in
// order, and a slow handler delays no other handler and not the store.
package cache
