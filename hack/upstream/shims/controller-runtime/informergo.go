//go:build ignore

// The constructor of controller-runtime's informers, when the runner runs its
// pkg/cache suite: the runner adds this file to pkg/cache/internal and makes
// NewInformers default to it instead of client-go's NewSharedIndexInformer.
// INFORMER_GO_PIPELINE chooses the pipeline: DeltaFIFO (the default) or
// InOrder (client-go's own informers with client-go, for comparison).

package internal

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"

	igcache "github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
)

// informerGoBuilt counts the informers informerGoNewInformer built.
var informerGoBuilt atomic.Int64

// InformerGoInformers returns how many informers this library built.
func InformerGoInformers() int64 { return informerGoBuilt.Load() }

// InformerGoPipeline returns the pipeline the informers use.
func InformerGoPipeline() string {
	if p := os.Getenv("INFORMER_GO_PIPELINE"); p != "" {
		return p
	}
	return "DeltaFIFO"
}

// informerGoNewInformer returns clientgo.NewSharedIndexInformer, or its
// InOrder form, counting what it builds.
func informerGoNewInformer() func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer {
	newInformer := clientgo.NewSharedIndexInformer
	switch p := InformerGoPipeline(); p {
	case "DeltaFIFO":
	case "InOrder":
		newInformer = clientgo.NewSharedIndexInformerFunc(igcache.SharedIndexInformerOptions{InOrder: true})
	case "client-go":
		// For comparison, by hand: client-go's own informers.
		newInformer = toolscache.NewSharedIndexInformer
	default:
		panic(fmt.Sprintf("INFORMER_GO_PIPELINE=%q: want DeltaFIFO, InOrder or client-go", p))
	}
	return func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
		informerGoBuilt.Add(1)
		return newInformer(lw, obj, resync, indexers)
	}
}
