// Package informers is a drop-in replacement for k8s.io/client-go/informers
// whose informers are informer-go's: swap the import path and
// factory.Core().V1().Pods().Informer() and .Lister(), ForResource, Start,
// WaitForCacheSync and Shutdown work as before, on this library's engine.
//
// The factory implements client-go's informers.SharedInformerFactory
// interface ([SharedInformerFactory] is an alias of it) with client-go's
// generated group accessors, so the generated informer and lister interfaces
// (k8s.io/client-go/informers/apps/v1, k8s.io/client-go/listers/apps/v1, ...)
// stay client-go's and code that takes them compiles unchanged. Each informer
// is this library's, built by [cache.NewListWatchFromTypedClient] on the typed
// resource client of the factory's clientset (so client-go's fake clientset
// syncs at once), shared through a [cache.InformerFactory], and seen through
// [clientgo.AsSharedIndexInformer]: handlers whose type is declared in
// informer-go's cache package get informer-go's tombstones, other handlers
// client-go's.
//
// Relation to package clientgo/cache (github.com/informer-go/informer/clientgo/cache),
// the drop-in for k8s.io/client-go/tools/cache: the two are meant to be
// swapped together. Informers that client-go's generated factory builds run
// on client-go's engine whatever tools/cache package a program imports; this
// factory's run on informer-go. Unlike clientgo/cache, whose informers always
// take client-go v0.37.2's default order, this factory uses informer-go's
// default pipeline (DeltaFIFO) unless built with [WithInOrder](true); with
// clientgo/cache's handler types, which are client-go's, every handler gets
// client-go's tombstones.
//
// zz_generated.go holds the group accessors and the table of the resources of
// kubernetes.Interface; regenerate it with go generate after changing the
// client-go version.
package informers
