// Command workqueue is the classic client-go work queue controller, on this
// library's informer: a ListWatch of the pods of one namespace from the
// clientset's REST client, an indexer and informer from NewIndexerInformer
// whose handlers queue pod keys, and a worker that reads each key from the
// indexer and prints what happened to the pod.
//
//	go run . -kubeconfig ~/.kube/config -namespace default -run-for 30s
//
// It is client-go's pattern with one import swapped: client-go's tools/cache
// becomes github.com/informer-go/informer/clientgo/cache, whose informers
// run on this library in client-go's default order. Every handler call is
// logged at verbosity 5 ("Handler event"): the end-to-end tests build the
// program a second time against client-go's tools/cache and compare both
// logs event for event.
//
// It stops on SIGINT or SIGTERM, or after -run-for, and exits 0 after a
// clean shutdown.
package main
