// Package restart runs the restart scenario of issue 24 (package
// internal/downtime) as a test against a real kube-apiserver: informers of
// client-go v0.37.2 and of this library stop, 300 ConfigMaps change while
// they are down, and they start again — within the server's watch window,
// and past it (etcd compacted, kube-apiserver restarted). Every library
// must end with its store and its handler's view equal to the server,
// with the number of lists and the handler calls its outcome promises;
// informer-go restarted from its snapshot (cache.SnapshotOptions) makes no
// list within the window and exactly one past it.
//
// The numbers (lists, bytes, times) are measured by BenchmarkRestart in
// e2e/bench; this test logs them but asserts only counts and states.
package restart
