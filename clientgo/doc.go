// Package clientgo fits informer-go into client-go's ecosystem. It is a
// module of its own (github.com/informer-go/informer/clientgo) so that the
// root module does not depend on client-go; it requires client-go v0.37.2.
//
//   - Package cache (github.com/informer-go/informer/clientgo/cache): a
//     drop-in replacement for k8s.io/client-go/tools/cache whose types are
//     client-go's and whose informers run on this library in client-go's
//     default order. Swapping that one import path is a whole migration;
//     the command clientgo/cmd/informer-migrate does it for a whole module
//     and reports what it cannot prove safe.
//   - [Getter] (client-go's cache.Getter), [NewListWatchFromClient] and
//     [NewFilteredListWatchFromClient]: the client-go functions of those
//     names (taking a Getter such as clientset.CoreV1().RESTClient()),
//     returning this library's [cache.ListWatch]. The root's
//     [cache.NewListWatchFromTypedClient] does the same from a typed, dynamic
//     or metadata resource client, fakes included, without this module.
//   - [AsIndexer] and [AsSharedIndexInformer]: this library's indexer and
//     informer seen through client-go's interfaces, so that client-go's
//     generated listers, toolscache.WaitForCacheSync and controller-runtime
//     work on them. Handlers written against client-go get client-go's
//     tombstones.
//   - [NewSharedIndexInformer]: of the type of controller-runtime's
//     cache.Options.NewInformer, to run a manager's cache on this library.
//   - Package informers (github.com/informer-go/informer/clientgo/informers):
//     a drop-in replacement for k8s.io/client-go/informers, the generated
//     SharedInformerFactory, on this library's informers.
//
// Nothing here starts goroutines of its own; the adapters forward every call
// to the wrapped value and are safe for concurrent use as it is.
package clientgo
