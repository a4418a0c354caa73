// Package metrics runs informers with the Prometheus provider of the
// prometheus module against a real etcd and kube-apiserver, scrapes their
// /metrics page over HTTP, and checks that their series appear while they run
// and disappear when they stop; it also checks WaitForSync's status and
// WaitForResourceVersion's read-your-writes against the real server, in both
// pipelines.
package metrics
