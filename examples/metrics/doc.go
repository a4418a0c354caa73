// Command metrics shows an informer's run metrics in Prometheus, with no
// cluster: an in-memory kube-apiserver holds a few objects, an informer with
// a handler runs on it with the Prometheus provider of the
// github.com/informer-go/informer/prometheus module, and the program prints
// some lines of the /metrics page while the informer runs and after it
// stopped, when its series are gone. With -listen it serves /metrics on that
// address until interrupted instead.
//
//	cd examples/metrics && go run .
//	cd examples/metrics && go run . -listen localhost:8080   # curl localhost:8080/metrics
//
// It is a module of its own because it depends on Prometheus, which the
// library does not.
package main
