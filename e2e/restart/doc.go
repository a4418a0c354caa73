// Package restart runs the restart scenario of issue 24 (package
// internal/downtime) as a test against a real kube-apiserver: informers of
// client-go v0.37.2 and of this library stop, 300 ConfigMaps change while
// they are down, and they start again — within the server's watch window,
// and past it (etcd compacted, kube-apiserver restarted). Every library
// must end with its store and its handler's view equal to the server,
// with the number of lists and the handler calls its outcome promises;
// the restarts from a snapshot are skipped, with the reason, until
// informer-go has the option.
//
// The numbers (lists, bytes, times) are measured by BenchmarkRestart in
// e2e/bench; this test logs them but asserts only counts and states.
package restart
