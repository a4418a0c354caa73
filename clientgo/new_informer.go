package clientgo

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo/internal/adapt"
)

// NewSharedIndexInformer is client-go's toolscache.NewSharedIndexInformer
// built on this library: [cache.NewSharedIndexInformer] with lw,
// exampleObject, resyncPeriod and indexers, seen through
// [AsSharedIndexInformer]. Its type is that of controller-runtime's
// cache.Options.NewInformer, so that a controller-runtime manager's cache
// runs on this library with one option:
//
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
//		Cache: crcache.Options{NewInformer: clientgo.NewSharedIndexInformer},
//	})
//
// The informer uses this library's default pipeline (DeltaFIFO); for
// client-go's default event order use [NewSharedIndexInformerFunc] with
// InOrder set.
func NewSharedIndexInformer(lw toolscache.ListerWatcher, exampleObject runtime.Object, resyncPeriod time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return NewSharedIndexInformerFunc(cache.SharedIndexInformerOptions{})(lw, exampleObject, resyncPeriod, indexers)
}

// NewSharedIndexInformerFunc returns a function of the type of
// [NewSharedIndexInformer] (and of controller-runtime's
// cache.Options.NewInformer) that builds this library's informers with
// options, its ResyncPeriod and Indexers replaced by the function's
// arguments:
//
//	crcache.Options{NewInformer: clientgo.NewSharedIndexInformerFunc(cache.SharedIndexInformerOptions{InOrder: true})}
//
// options.Memory applies to every informer built: each gets its own memory
// state (a Share table, say) and has its options checked against its
// example object, an invalid one being reported through
// utilruntime.HandleError and left out (see [cache.MemoryOptions]). With
// Keep, cached objects are projected: a controller that writes objects it
// read from the cache back to the API server should check them with
// [cache.CheckWritable], or send its writes through [RefuseProjectedWrites].
func NewSharedIndexInformerFunc(options cache.SharedIndexInformerOptions) func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer {
	return func(lw toolscache.ListerWatcher, exampleObject runtime.Object, resyncPeriod time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
		o := options
		o.ResyncPeriod, o.Indexers = resyncPeriod, adapt.FromClientGoIndexers(indexers)
		return AsSharedIndexInformer(cache.NewSharedIndexInformerWithOptions(lw, exampleObject, o))
	}
}
