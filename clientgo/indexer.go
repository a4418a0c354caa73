package clientgo

import (
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
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
	if indexer == nil {
		return nil
	}
	return indexerAdapter{indexer}
}

// indexerAdapter is a cache.Indexer seen through client-go's interface:
// every method but the two taking index functions has the same signature.
type indexerAdapter struct {
	cache.Indexer
}

// GetIndexers returns the indexer's index functions.
func (i indexerAdapter) GetIndexers() toolscache.Indexers {
	return toClientGoIndexers(i.Indexer.GetIndexers())
}

// AddIndexers adds index functions to the indexer.
func (i indexerAdapter) AddIndexers(newIndexers toolscache.Indexers) error {
	return i.Indexer.AddIndexers(fromClientGoIndexers(newIndexers))
}

// fromClientGoIndexers converts client-go's index functions; nil stays nil.
func fromClientGoIndexers(indexers toolscache.Indexers) cache.Indexers {
	if indexers == nil {
		return nil
	}
	out := make(cache.Indexers, len(indexers))
	for name, f := range indexers {
		out[name] = cache.IndexFunc(f)
	}
	return out
}

// toClientGoIndexers converts index functions to client-go's type; nil
// stays nil.
func toClientGoIndexers(indexers cache.Indexers) toolscache.Indexers {
	if indexers == nil {
		return nil
	}
	out := make(toolscache.Indexers, len(indexers))
	for name, f := range indexers {
		out[name] = toolscache.IndexFunc(f)
	}
	return out
}
