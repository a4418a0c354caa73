package clientgo

import (
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo/internal/adapt"
)

// AsIndexer returns indexer as a client-go toolscache.Indexer, so that
// client-go's generated listers (corev1listers.NewPodLister and the like),
// NewGenericLister and controller-runtime read this library's stores:
//
//	pods := corev1listers.NewPodLister(clientgo.AsIndexer(informer.GetIndexer()))
//
// Every call goes to indexer, which keeps its contract: safe for concurrent
// use, and the objects it returns are shared, not to be modified. Index
// functions are converted between the two libraries' types. Deleting a
// tombstone of either library deletes the object it names. A nil indexer
// yields nil.
func AsIndexer(indexer cache.Indexer) toolscache.Indexer {
	return adapt.Indexer(indexer)
}
