// Package externalversions stands for a generated informer factory of the
// module itself.
package externalversions

import (
	time "time"

	runtime "k8s.io/apimachinery/pkg/runtime"
	cache "k8s.io/client-go/tools/cache"
)

// New builds an informer as generated code does.
func New(lw cache.ListerWatcher, obj runtime.Object) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(lw, obj, time.Minute, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}
