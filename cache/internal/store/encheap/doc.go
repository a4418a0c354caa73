// Package encheap measures the Encode memory mode's store engine on real
// core/v1 Pods and Secrets, those of the compare module's kinds package,
// decoded from protobuf as a client decodes them, beside client-go's own
// Indexer holding the same objects: heap per object held, Get latency, and
// the time to decode and store a list.
//
// It is a module of its own because the measurement needs k8s.io/api and
// client-go, which the root module must not import, and the package it
// measures (cache/internal/store) is internal to cache/. It drives the
// engine as cache's encoded ThreadSafeStore does (encode, index values from
// the object written, store, drop the source; decode or copy on read),
// without the store's lock, which holds nothing per object. It holds only
// benchmarks:
//
//	cd cache/internal/store/encheap
//	go test -run '^$' -bench . -benchtime 1x -objects 10000
package encheap
