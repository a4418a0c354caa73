// Package store is the engine under cache's Store, Indexer and
// ThreadSafeStore: the objects by key and their secondary indexes, as pure
// data structures. It holds no lock and starts no goroutine; cache adds
// the locking, the resource version and the metrics.
//
// [Contents] holds the objects and their indexes and answers every query
// of an Indexer. [IndexSet] is an immutable, ordered set of index
// functions: writers compute an object's indexed values with it before
// they take the store's lock, and [Contents.Put] then applies the write
// without calling any index function, so that a failing index function
// refuses a write before anything changes.
//
// Inside, an open-addressing table (objectTable) gives every stored key a
// small integer id, and the indexes (storeIndex) hold sets of those ids
// (idSet) instead of sets of keys.
//
// For the Encode memory mode, an [Encoding] turns objects into [Encoded]
// values, their serialized bytes, which Contents then holds in place of
// the objects: the index functions, wrapped by [Encoding.IndexFunc], see
// the object being written, and readers decode a fresh object, or copy
// one of the few recently read objects the Encoding keeps decoded.
package store
