// Package benchkit holds the measuring tools of the informer benchmarks: a
// handler that records latencies and signals when it has seen enough calls,
// and per-unit CPU time and allocation metrics. The benchmarks of the cache
// package and of the compare module (against client-go) share it, so their
// numbers are measured the same way.
package benchkit
