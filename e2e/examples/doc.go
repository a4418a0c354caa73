// Package examples runs the programs of the repository's examples/
// directory that need a real cluster against a real etcd and
// kube-apiserver. Each program is built from its own module with the go
// command, as a user builds it (under the race detector when the tests run
// under it), and run as a separate process with a kubeconfig for the test
// cluster: the tests check its exit code, its logs and what it wrote to the
// cluster.
//
// workqueue and sample-controller import the drop-in packages clientgo/cache
// and clientgo/informers. Each is also built against client-go's tools/cache
// and informers (the same files with those import paths replaced, through go
// build -overlay), both builds run at once on one namespace, and their
// handler calls, logged at verbosity 5, must be the same, event for event, in
// the same order.
package examples
