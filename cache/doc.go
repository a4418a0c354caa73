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
// no NewListWatchFromClient. A [ListWatch] made of two functions adapts any
// client instead: a typed clientset (clientset.CoreV1().Pods(ns).List and
// .Watch), the dynamic client (dynamicClient.Resource(gvr).Namespace(ns)) or
// the metadata client (metadataClient.Resource(gvr).Namespace(ns)); the
// [ListWatch] documentation shows each. [Reflector] describes how lists,
// streaming lists, watches, relists and backoff behave against a server.
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
