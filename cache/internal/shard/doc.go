// Package shard is the pure machinery behind cache.ShardedListWatch and the
// shard selector helpers of package cache, for kube-apiserver's sharded list
// and watch (metav1.ListOptions.ShardSelector, KEP-5866). It starts no
// goroutine and holds no lock; package cache adds those.
//
//   - [Parse] reads a shard selector as kube-apiserver does, without CEL:
//     cache.ParseShardSelector exposes it, and the fake apiserver of
//     cache/testing refuses malformed selectors with it, as kube-apiserver
//     does (cache/testing cannot import cache, whose tests import it).
//   - [Range], [Ranges] and [Set] compute with the 64-bit hash space:
//     the ranges of shard i of n ([Bounds], [IndexOf]), unions and
//     differences, and the canonical selector of a set of ranges.
//   - [Filter] keeps, on the client, what a shard selects, with the
//     apiserver's own matcher.
//   - [Stream] is the state machine of one sharded watch: which events it
//     passes on, the resourceVersion its reader has reached, and whether it
//     can hand over to another shard.
//   - [PlanHandover] says which ranges a reader leaves and enters when it
//     moves from one shard to another.
package shard
