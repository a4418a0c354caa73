// Package shardselector parses the shard selectors of kube-apiserver's
// sharded list and watch (metav1.ListOptions.ShardSelector, KEP-5866)
// without CEL: the cache package exposes it as cache.ParseShardSelector,
// and the fake apiserver of cache/testing refuses malformed selectors with
// it, as kube-apiserver does. It lives here because cache/testing cannot
// import cache (the tests of cache import cache/testing).
package shardselector
