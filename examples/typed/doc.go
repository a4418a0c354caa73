// Command typed shows the generic API: an informer whose handlers, indexes
// and index queries work with one Go type instead of any, and
// cache.DeletedObject, which carries a deletion whether or not the informer
// knows the object's final state. It runs on the in-memory apiserver.
//
//	go run ./examples/typed
package main
