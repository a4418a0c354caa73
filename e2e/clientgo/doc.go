// Package clientgo runs the client-go adapter module
// (github.com/informer-go/informer/clientgo) against a real etcd and
// kube-apiserver: a controller-runtime manager whose cache builds this
// library's informers through clientgo.NewSharedIndexInformer, reconciling
// creates, updates and deletes of ConfigMaps in both pipelines; the
// clientgo/informers factory with client-go's generated listers;
// cache.NewListWatchFromTypedClient syncing by streaming list; and the
// drop-in clientgo/cache's NewIndexerInformer beside client-go's, through
// live changes and a relist after missed ones, delivering the same handler
// calls in the same order.
package clientgo
