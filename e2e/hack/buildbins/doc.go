// Command buildbins builds (or finds) the etcd and kube-apiserver binaries
// the end-to-end tests run, printing progress to stderr and the two paths to
// stdout. Run it from the e2e module before go test on a fresh machine so
// that the long first build does not count against the test timeout:
//
//	cd e2e && go run ./hack/buildbins
//
// It honours $KUBEBUILDER_ASSETS and $INFORMER_E2E_BIN_DIR like the tests.
package main
