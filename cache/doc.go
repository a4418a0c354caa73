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
package cache
