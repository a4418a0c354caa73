package cache_test

import (
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	nativecache "github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
	"github.com/informer-go/informer/clientgo/cache"
)

// TestTombstonesMatchTheAssertion checks that the tombstone of a deletion
// noticed only by a relist satisfies the drop-in's DeletedFinalStateUnknown
// type assertion whichever engine delivered it: client-go's informer, the
// drop-in's informers, informer-go's informer seen through
// clientgo.AsSharedIndexInformer, and the drop-in's informer with a handler
// type of informer-go's native package.
func TestTombstonesMatchTheAssertion(t *testing.T) {
	// Each case registers onDelete on an informer of lw and returns it.
	cases := map[string]func(t *testing.T, lw cache.ListerWatcher, onDelete func(any)) runner{
		"client-go's NewSharedIndexInformer": func(t *testing.T, lw cache.ListerWatcher, onDelete func(any)) runner {
			return withHandler(t, toolscache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, toolscache.Indexers{}), toolscache.ResourceEventHandlerFuncs{DeleteFunc: onDelete})
		},
		"drop-in NewSharedIndexInformer": func(t *testing.T, lw cache.ListerWatcher, onDelete func(any)) runner {
			return withHandler(t, cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{}), cache.ResourceEventHandlerFuncs{DeleteFunc: onDelete})
		},
		"drop-in NewIndexerInformer": func(_ *testing.T, lw cache.ListerWatcher, onDelete func(any)) runner {
			_, c := cache.NewIndexerInformer(lw, &corev1.Pod{}, 0, cache.ResourceEventHandlerFuncs{DeleteFunc: onDelete}, cache.Indexers{})
			return c
		},
		"informer-go's informer through AsSharedIndexInformer": func(t *testing.T, lw cache.ListerWatcher, onDelete func(any)) runner {
			informer := clientgo.AsSharedIndexInformer(nativecache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nativecache.Indexers{}))
			return withHandler(t, informer, cache.ResourceEventHandlerFuncs{DeleteFunc: onDelete})
		},
		"drop-in NewSharedIndexInformer, informer-go's handler type": func(t *testing.T, lw cache.ListerWatcher, onDelete func(any)) runner {
			return withHandler(t, cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil), nativecache.ResourceEventHandlerFuncs{DeleteFunc: onDelete})
		},
		// client-go's typed wrapper turns the tombstone it gets into a
		// DeletedObject that carries it.
		"drop-in informer through NewTypedSharedIndexInformer": func(t *testing.T, lw cache.ListerWatcher, onDelete func(any)) runner {
			informer := cache.NewTypedSharedIndexInformer[*corev1.Pod](cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil))
			if _, err := informer.AddTypedEventHandler(cache.TypedResourceEventHandlerFuncs[*corev1.Pod]{
				DeleteFunc: func(obj cache.DeletedObject[*corev1.Pod]) {
					if obj.FinalStateUnknown != nil {
						onDelete(*obj.FinalStateUnknown)
						return
					}
					onDelete(obj.OptionalObj)
				},
			}); err != nil {
				t.Fatal(err)
			}
			return informer
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				deleted := make(chan any, 2) // the script deletes c, then d by a relist
				informer := build(t, newScript(), func(obj any) { deleted <- obj })
				defer start(t, informer)()
				var got []any
				for len(got) < 2 {
					select {
					case obj := <-deleted:
						got = append(got, obj)
					case <-time.After(time.Hour): // virtual time: only if the script stalls
						t.Fatalf("deletions seen: %v, want 2", got)
					}
				}
				if _, ok := got[0].(*corev1.Pod); !ok {
					t.Errorf("the watched deletion is a %T, want *v1.Pod", got[0])
				}
				tombstone, ok := got[1].(cache.DeletedFinalStateUnknown)
				if !ok {
					t.Fatalf("the deletion found by the relist is a %T, which misses the drop-in's DeletedFinalStateUnknown", got[1])
				}
				if p, ok := tombstone.Obj.(*corev1.Pod); tombstone.Key != "ns/d" || !ok || p.ResourceVersion != "12" {
					t.Errorf("tombstone %+v, want key ns/d with pod d at 12", tombstone)
				}
				if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(got[1]); key != "ns/d" || err != nil {
					t.Errorf("DeletionHandlingMetaNamespaceKeyFunc(tombstone) = %q, %v; want ns/d", key, err)
				}
			})
		})
	}
}
