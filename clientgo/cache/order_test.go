package cache_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/clientgo/cache"
)

// runner is what the constructors return that runs the informer.
type runner interface{ RunWithContext(ctx context.Context) }

// constructor builds an informer of lw whose events go to h.
type constructor func(t *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner

// constructors are the informer constructors of the drop-in and of
// client-go, by name.
var constructors = []struct {
	name             string
	clientGo, dropIn constructor
}{
	{
		name: "NewSharedIndexInformer",
		clientGo: func(t *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			return withHandler(t, toolscache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, toolscache.Indexers{}), h)
		},
		dropIn: func(t *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			return withHandler(t, cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{}), h)
		},
	},
	{
		name: "NewSharedInformer",
		clientGo: func(t *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			return withHandler(t, toolscache.NewSharedInformer(lw, &corev1.Pod{}, 0), h)
		},
		dropIn: func(t *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			return withHandler(t, cache.NewSharedInformer(lw, &corev1.Pod{}, 0), h)
		},
	},
	{
		name: "NewIndexerInformer",
		clientGo: func(_ *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			_, c := toolscache.NewIndexerInformer(lw, &corev1.Pod{}, 0, h, toolscache.Indexers{}) //lint:ignore SA1019 the constructor under test
			return c
		},
		dropIn: func(_ *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			_, c := cache.NewIndexerInformer(lw, &corev1.Pod{}, 0, h, cache.Indexers{})
			return c
		},
	},
	{
		name: "NewInformer",
		clientGo: func(_ *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			_, c := toolscache.NewInformer(lw, &corev1.Pod{}, 0, h) //lint:ignore SA1019 the constructor under test
			return c
		},
		dropIn: func(_ *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			_, c := cache.NewInformer(lw, &corev1.Pod{}, 0, h)
			return c
		},
	},
	{
		name: "NewInformerWithOptions",
		clientGo: func(_ *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			_, c := toolscache.NewInformerWithOptions(toolscache.InformerOptions{ListerWatcher: lw, ObjectType: &corev1.Pod{}, Handler: h, Transform: identity})
			return c
		},
		dropIn: func(_ *testing.T, lw cache.ListerWatcher, h cache.ResourceEventHandler) runner {
			_, c := cache.NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: &corev1.Pod{}, Handler: h, Transform: identity})
			return c
		},
	},
}

func identity(obj any) (any, error) { return obj, nil }

// withHandler registers h with informer.
func withHandler(t *testing.T, informer cache.SharedInformer, h cache.ResourceEventHandler) runner {
	t.Helper()
	if _, err := informer.AddEventHandler(h); err != nil {
		t.Fatal(err)
	}
	return informer
}

// record runs an informer of build over a fresh script until its handler
// saw the script's last event, and returns what the handler saw.
func record(t *testing.T, build constructor) []string {
	t.Helper()
	var lines []string
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder()
		informer := build(t, newScript(), rec)
		defer start(t, informer)()
		select {
		case <-rec.last:
		case <-time.After(time.Hour): // virtual time: only if the script stalls
			t.Fatalf("the handler did not get %q; it got %q", lastEvent, rec.lines())
		}
		synctest.Wait() // nothing else is on its way
		lines = rec.lines()
	})
	return lines
}

// TestSameEventsAsClientGo runs each informer constructor of the drop-in
// and client-go's over the same script (a list, watch events, a 410 Gone, a
// relist with a vanished, a changed, a new and an unchanged object) and
// checks that their handlers see the same calls in the same order: client-go
// v0.37.2's default order, the relist's tombstone first.
func TestSameEventsAsClientGo(t *testing.T) {
	want := []string{
		"add ns/a 1 initial",
		"add ns/b 2 initial",
		"add ns/c 3 initial",
		"update ns/a 1->11",
		"add ns/d 12",
		"delete ns/c 13",
		"update ns/b 2->14",
		// The relist: the tombstone of d, then the listed objects in list order.
		"delete ns/d tombstone of 12",
		"update ns/a 11->11",
		"update ns/b 14->15",
		"add ns/e 16",
		lastEvent,
	}
	for _, c := range constructors {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(want, record(t, c.clientGo)); diff != "" {
				t.Errorf("client-go's %s (-want +got):\n%s", c.name, diff)
			}
			if diff := cmp.Diff(want, record(t, c.dropIn)); diff != "" {
				t.Errorf("the drop-in's %s (-want +got):\n%s", c.name, diff)
			}
		})
	}
}
