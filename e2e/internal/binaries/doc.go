// Package binaries obtains the etcd and kube-apiserver executables the
// end-to-end tests run: from $KUBEBUILDER_ASSETS when it is set (the envtest
// convention), otherwise built once from source with the Go toolchain into
// a cache directory keyed by the versions, and reused from there.
//
// Building kube-apiserver from source takes about ten minutes on two cores
// the first time; [Ensure] prints progress while it builds. Concurrent
// callers (several test binaries, or go run ./hack/buildbins next to a
// test) serialise on a lock file, and a binary appears under its final name
// only once complete, so a reader never sees half a binary.
package binaries
