// Command workqueue is the classic client-go work queue controller, on this
// library's informer: a ListWatch of the pods of one namespace from the
// clientset's REST client, an indexer and informer from NewIndexerInformer
// whose handlers queue pod keys, and a worker that reads each key from the
// indexer and prints what happened to the pod.
//
//	go run . -kubeconfig ~/.kube/config -namespace default -run-for 30s
//
// Ported from client-go, it differs in the imports (this library's cache
// package, and clientgo for NewListWatchFromClient) and in one line: the
// ListWatch comes from clientgo.NewListWatchFromClient instead of
// cache.NewListWatchFromClient.
//
// It stops on SIGINT or SIGTERM, or after -run-for, and exits 0 after a
// clean shutdown.
package main
