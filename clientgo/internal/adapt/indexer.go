package adapt

import (
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// Indexer returns indexer seen through client-go's interface: every call
// goes to indexer, index functions converted between the two libraries'
// types. A nil indexer yields nil.
func Indexer(indexer cache.Indexer) toolscache.Indexer {
	if indexer == nil {
		return nil
	}
	return indexerAdapter{indexer}
}

// Store returns store seen through client-go's interface: through [Indexer]
// when store is an indexer, so that a type assertion to client-go's Indexer
// succeeds as it does on client-go's stores; else store itself, whose
// methods have client-go's signatures. A nil store yields nil.
func Store(store cache.Store) toolscache.Store {
	if indexer, ok := store.(cache.Indexer); ok {
		return Indexer(indexer)
	}
	if store == nil {
		return nil
	}
	return store
}

// indexerAdapter is a cache.Indexer seen through client-go's interface:
// every method but the two taking index functions has the same signature.
type indexerAdapter struct {
	cache.Indexer
}

// GetIndexers returns the indexer's index functions.
func (i indexerAdapter) GetIndexers() toolscache.Indexers {
	return ToClientGoIndexers(i.Indexer.GetIndexers())
}

// AddIndexers adds index functions to the indexer.
func (i indexerAdapter) AddIndexers(newIndexers toolscache.Indexers) error {
	return i.Indexer.AddIndexers(FromClientGoIndexers(newIndexers))
}

// FromClientGoIndexers converts client-go's index functions; nil stays nil.
func FromClientGoIndexers(indexers toolscache.Indexers) cache.Indexers {
	if indexers == nil {
		return nil
	}
	out := make(cache.Indexers, len(indexers))
	for name, f := range indexers {
		out[name] = cache.IndexFunc(f)
	}
	return out
}

// ToClientGoIndexers converts index functions to client-go's type; nil
// stays nil.
func ToClientGoIndexers(indexers cache.Indexers) toolscache.Indexers {
	if indexers == nil {
		return nil
	}
	out := make(toolscache.Indexers, len(indexers))
	for name, f := range indexers {
		out[name] = toolscache.IndexFunc(f)
	}
	return out
}
