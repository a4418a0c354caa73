// Package clientgo runs the client-go adapter module
// (github.com/informer-go/informer/clientgo) against a real etcd and
// kube-apiserver: a controller-runtime manager whose cache builds this
// library's informers through clientgo.NewSharedIndexInformer, reconciling
// creates, updates and deletes of ConfigMaps in both pipelines; the
// clientgo/informers factory with client-go's generated listers; and
// cache.NewListWatchFromTypedClient syncing by streaming list.
package clientgo
