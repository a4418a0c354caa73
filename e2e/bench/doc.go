// Package bench holds the end-to-end benchmarks, against a real
// kube-apiserver (on a real etcd), of client-go v0.37.2 and of this library
// in both pipelines, alternating on the same server: the initial sync of
// 5,000 ConfigMaps by a plain list and by a streaming list
// (BenchmarkInitialSync), and the heap of an informer of 10,000 Pods
// written as kube-controller-manager and the kubelet write them, also with
// a transform that drops managedFields (BenchmarkPodMemory); and the
// restart of an informer of 20,000 ConfigMaps after a downtime in which
// 300 change, within the watch window and past it, counted on the wire
// (BenchmarkRestart, the scenario of package internal/downtime).
//
// It has only benchmarks, which go test runs with -bench (make bench-e2e at
// the root of the repository); without -bench the package starts no
// cluster and passes at once.
package bench
