// Package bench holds the end-to-end benchmark of the initial sync: 5,000
// ConfigMaps listed from a real kube-apiserver (on a real etcd) by
// client-go v0.37.2 and by this library in both pipelines, by a plain list
// and by a streaming list, alternating on the same server.
//
// It has only a benchmark, which go test runs with -bench (make bench-e2e at
// the root of the repository); without -bench the package starts no
// cluster and passes at once.
package bench
