// Package conformance runs the shared apiserver conformance scenarios of
// github.com/informer-go/informer/cache/testing/conformance against a real
// etcd and kube-apiserver, with ConfigMaps as the resource type. Every
// scenario that passes against the in-memory fake must pass here too.
package conformance
