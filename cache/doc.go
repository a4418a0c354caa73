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
package cache
