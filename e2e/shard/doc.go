// Package shard holds the end-to-end tests of sharded informers
// (cache.ShardedListWatch) against kube-apiserver 1.36.3 started with the
// ShardedListAndWatch feature gate, and restarted without it for the
// client-side fallback.
package shard
