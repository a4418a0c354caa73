package clientgo

import (
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo/internal/adapt"
)

// AsSharedIndexInformer returns informer as a client-go
// toolscache.SharedIndexInformer, for code that takes client-go's type:
// controller-runtime, client-go's generated informer interfaces and
// listers, toolscache.WaitForCacheSync. Every call goes to informer:
//
//   - Handlers: a handler whose type is declared in this library's cache
//     package (ResourceEventHandlerFuncs and the other adapters) is
//     registered as it is and gets this library's
//     [cache.DeletedFinalStateUnknown] tombstones; any other handler
//     (client-go's adapters, controller-runtime's, a type of the program)
//     gets client-go's toolscache.DeletedFinalStateUnknown, so that its type
//     assertions match. Both libraries' DeletionHandlingMetaNamespaceKeyFunc
//     and DeletionHandlingObjectToName accept either from this library's
//     informers, but client-go's accept only client-go's.
//   - Registrations are this library's, seen through client-go's interface;
//     RemoveEventHandler takes only those an adapter of this package returned,
//     and client-go's ShutDownEventHandler waits for them.
//   - GetStore and GetIndexer return [AsIndexer] of the informer's indexer;
//     AddIndexers, SetTransform and GetController convert between the
//     libraries' types.
//   - A watch error handler gets, instead of the running reflector (a type of
//     this library), a client-go Reflector that only carries its name and
//     type description: what client-go's DefaultWatchErrorHandler and
//     controller-runtime read.
//
// The result is safe for concurrent use; run it (or informer) once. A nil
// informer yields nil.
func AsSharedIndexInformer(informer cache.SharedIndexInformer) toolscache.SharedIndexInformer {
	return adapt.Informer(informer, adapt.ClientGoUnlessNative)
}
