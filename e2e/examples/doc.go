// Package examples runs the programs of the repository's examples/
// directory that need a real cluster against a real etcd and
// kube-apiserver. Each program is built from its own module with the go
// command, as a user builds it (under the race detector when the tests run
// under it), and run as a separate process with a kubeconfig for the test
// cluster: the tests check its exit code, its logs and what it wrote to the
// cluster.
package examples
