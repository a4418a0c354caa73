package cache

import "fmt"

// TypedIndexFunc is an [IndexFunc] for objects of type T.
type TypedIndexFunc[T any] func(obj T) ([]string, error)

// TypedIndexers maps index names to typed index functions; see [Indexers].
type TypedIndexers[T any] map[string]TypedIndexFunc[T]

// TypedIndexer is an [Indexer] whose objects are all of type T, with typed
// variants of the index queries. Objects of another type found in the
// indexer make the typed queries fail with an error (client-go panics).
type TypedIndexer[T any] interface {
	Indexer

	// TypedIndex is [Indexer.Index] with typed argument and results.
	TypedIndex(indexName string, obj T) ([]T, error)

	// ByTypedIndex is [Indexer.ByIndex] with typed results.
	ByTypedIndex(indexName, indexedValue string) ([]T, error)

	// AddTypedIndexers is [Indexer.AddIndexers] with typed index
	// functions.
	AddTypedIndexers(newIndexers TypedIndexers[T]) error
}

// TypedIndexersToIndexers converts typed index functions to untyped ones, for
// example for [SharedIndexInformerOptions.Indexers]; see
// [TypedIndexerFuncToIndexerFunc].
func TypedIndexersToIndexers[T any](indexers TypedIndexers[T]) Indexers {
	untyped := make(Indexers, len(indexers))
	for name, indexer := range indexers {
		untyped[name] = TypedIndexerFuncToIndexerFunc(indexer)
	}
	return untyped
}

// TypedIndexerFuncToIndexerFunc converts a typed index function to an
// [IndexFunc]. The result fails with an error for objects that are not of
// type T (client-go panics). A nil function yields nil.
func TypedIndexerFuncToIndexerFunc[T any](indexer TypedIndexFunc[T]) IndexFunc {
	if indexer == nil {
		return nil
	}
	return func(obj any) ([]string, error) {
		typed, ok := obj.(T)
		if !ok {
			return nil, wrongTypeError[T](obj)
		}
		return indexer(typed)
	}
}

// wrongTypeError describes an object found where a T was expected.
func wrongTypeError[T any](obj any) error {
	var want T
	return fmt.Errorf("object of type %T is not a %T", obj, want)
}

// typedIndexer implements TypedIndexer on top of an untyped Indexer.
type typedIndexer[T any] struct {
	Indexer
}

// TypedIndex implements [TypedIndexer.TypedIndex].
func (i typedIndexer[T]) TypedIndex(indexName string, obj T) ([]T, error) {
	untyped, err := i.Index(indexName, obj)
	if err != nil {
		return nil, err
	}
	return typedObjects[T](untyped)
}

// ByTypedIndex implements [TypedIndexer.ByTypedIndex].
func (i typedIndexer[T]) ByTypedIndex(indexName, indexedValue string) ([]T, error) {
	untyped, err := i.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return typedObjects[T](untyped)
}

// AddTypedIndexers implements [TypedIndexer.AddTypedIndexers].
func (i typedIndexer[T]) AddTypedIndexers(newIndexers TypedIndexers[T]) error {
	return i.AddIndexers(TypedIndexersToIndexers(newIndexers))
}

// typedObjects converts objects to T, failing on the first that is not one.
func typedObjects[T any](objs []any) ([]T, error) {
	typed := make([]T, len(objs))
	for i, obj := range objs {
		t, ok := obj.(T)
		if !ok {
			return nil, wrongTypeError[T](obj)
		}
		typed[i] = t
	}
	return typed, nil
}
