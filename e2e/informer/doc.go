// Package informer runs this library's reflector, controller and
// SharedIndexInformer against a real etcd and kube-apiserver, through
// client-go's typed clientset wrapped in a cache.ListWatch: initial sync of
// many objects by paginated and streaming lists, kube-apiserver killed and
// restarted mid-stream, etcd compaction forcing a 410 on resume, selector
// informers, late and removed handlers, resync, WaitForCacheSync with stop,
// and the in-order pipeline.
package informer
