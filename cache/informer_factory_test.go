package cache_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

var objectType = reflect.TypeFor[*metav1.PartialObjectMetadata]()

// factoryServer is an in-memory apiserver with a constructor of
// ListerWatchers on it that counts its calls.
type factoryServer struct {
	srv   *framework.Server[*metav1.PartialObjectMetadata]
	calls atomic.Int32
}

func newFactoryServer(t *testing.T) *factoryServer {
	t.Helper()
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	t.Cleanup(srv.Close)
	for _, o := range []struct{ ns, name, app string }{{"a", "x", "web"}, {"a", "y", "db"}, {"b", "z", "web"}} {
		if _, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: o.ns, Name: o.name, Labels: map[string]string{"app": o.app},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	return &factoryServer{srv: srv}
}

// newListerWatcher lists and watches the selected objects.
func (s *factoryServer) newListerWatcher(sel cache.InformerSelection) cache.ListerWatcher {
	s.calls.Add(1)
	view := s.srv.Namespace(sel.Namespace)
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			sel.ApplyTo(&o)
			return view.ListWithContext(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			sel.ApplyTo(&o)
			return view.WatchWithContext(ctx, o)
		},
	}
}

func informerFor(t *testing.T, f *cache.InformerFactory, sel cache.InformerSelection, newLW func(cache.InformerSelection) cache.ListerWatcher) cache.SharedIndexInformer {
	t.Helper()
	informer, err := f.InformerFor(&metav1.PartialObjectMetadata{}, sel, newLW)
	if err != nil {
		t.Fatalf("InformerFor(%+v): %v", sel, err)
	}
	return informer
}

func TestInformerFactorySharesInformersPerTypeAndSelection(t *testing.T) {
	s := newFactoryServer(t)
	f := cache.NewInformerFactory(cache.InformerFactoryOptions{})
	defer f.Shutdown()

	first := informerFor(t, f, cache.InformerSelection{Namespace: "a", LabelSelector: "app=web,tier!=x"}, s.newListerWatcher)
	same := informerFor(t, f, cache.InformerSelection{Namespace: "a", LabelSelector: "tier!=x, app=web"}, s.newListerWatcher)
	if first != same {
		t.Error("two requests for the same type and selection returned different informers")
	}
	if got := s.calls.Load(); got != 1 {
		t.Errorf("the ListerWatcher constructor ran %d times, want 1", got)
	}

	others := map[string]cache.InformerSelection{
		"other namespace":      {Namespace: "b", LabelSelector: "app=web,tier!=x"},
		"all namespaces":       {LabelSelector: "app=web,tier!=x"},
		"other label selector": {Namespace: "a", LabelSelector: "app=web"},
		"field selector":       {Namespace: "a", LabelSelector: "app=web,tier!=x", FieldSelector: "metadata.name=x"},
	}
	seen := map[cache.SharedIndexInformer]string{first: "first"}
	for name, sel := range others {
		informer := informerFor(t, f, sel, s.newListerWatcher)
		if prev, ok := seen[informer]; ok {
			t.Errorf("%s: got the informer of %s", name, prev)
		}
		seen[informer] = name
	}
	otherType, err := f.InformerFor(&metav1.PartialObjectMetadataList{}, cache.InformerSelection{Namespace: "a", LabelSelector: "app=web,tier!=x"}, s.newListerWatcher)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := seen[otherType]; ok {
		t.Error("another object type got a shared informer")
	}
}

func TestInformerFactoryInformerForRejectsBadInput(t *testing.T) {
	s := newFactoryServer(t)
	tests := []struct {
		name    string
		example runtime.Object
		sel     cache.InformerSelection
		newLW   func(cache.InformerSelection) cache.ListerWatcher
	}{
		{name: "nil example object", newLW: s.newListerWatcher},
		{name: "nil pointer example object", example: (*metav1.PartialObjectMetadata)(nil), newLW: s.newListerWatcher},
		{name: "malformed label selector", example: &metav1.PartialObjectMetadata{}, sel: cache.InformerSelection{LabelSelector: "app in (x"}, newLW: s.newListerWatcher},
		{name: "malformed field selector", example: &metav1.PartialObjectMetadata{}, sel: cache.InformerSelection{FieldSelector: "metadata.name"}, newLW: s.newListerWatcher},
		{name: "nil constructor", example: &metav1.PartialObjectMetadata{}},
		{
			name:    "nil ListerWatcher",
			example: &metav1.PartialObjectMetadata{},
			newLW:   func(cache.InformerSelection) cache.ListerWatcher { return nil },
		},
		{
			name:    "nil *ListWatch",
			example: &metav1.PartialObjectMetadata{},
			newLW:   func(cache.InformerSelection) cache.ListerWatcher { return (*cache.ListWatch)(nil) },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := cache.NewInformerFactory(cache.InformerFactoryOptions{})
			defer f.Shutdown()
			informer, err := f.InformerFor(tc.example, tc.sel, tc.newLW)
			if err == nil || informer != nil {
				t.Fatalf("InformerFor = %v, %v; want an error and no informer", informer, err)
			}
			if got := f.WaitForCacheSync(t.Context()); len(got) != 0 {
				t.Errorf("the factory holds informers after failed requests: %v", got)
			}
		})
	}
}

func TestInformerFactoryStartsLateInformersAndSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFactoryServer(t)
		f := cache.NewInformerFactory(cache.InformerFactoryOptions{})
		ctx, cancel := context.WithCancel(t.Context())
		early := informerFor(t, f, cache.InformerSelection{Namespace: "a"}, s.newListerWatcher)
		f.Start(ctx)
		late := informerFor(t, f, cache.InformerSelection{LabelSelector: "app=web"}, s.newListerWatcher)

		want := map[cache.InformerKey]error{
			{Type: objectType, InformerSelection: cache.InformerSelection{Namespace: "a"}}:           nil,
			{Type: objectType, InformerSelection: cache.InformerSelection{LabelSelector: "app=web"}}: nil,
		}
		if diff := cmp.Diff(want, f.WaitForCacheSync(ctx), cmp.Comparer(errors.Is)); diff != "" {
			t.Errorf("WaitForCacheSync (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"a/x", "a/y"}, sortedKeys(early.GetStore())); diff != "" {
			t.Errorf("namespace a (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"a/x", "b/z"}, sortedKeys(late.GetStore())); diff != "" {
			t.Errorf("app=web (-want +got):\n%s", diff)
		}

		cancel()
		f.Shutdown()
		for name, informer := range map[string]cache.SharedIndexInformer{"early": early, "late": late} {
			if !informer.IsStopped() {
				t.Errorf("%s informer still runs after Shutdown", name)
			}
		}
	})
}

// neverLists returns a ListerWatcher whose calls block until their context
// ends: its informer never syncs.
func neverLists(cache.InformerSelection) cache.ListerWatcher {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
		WatchFuncWithContext: func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}
}

func TestInformerFactoryWaitForCacheSyncSaysWhy(t *testing.T) {
	errGaveUp := errors.New("gave up")
	key := cache.InformerKey{Type: objectType}
	tests := []struct {
		name string
		// run starts the factory's informer (or not) and returns the
		// context to wait with.
		run  func(t *testing.T, f *cache.InformerFactory) context.Context
		want error
	}{
		{
			name: "not started",
			run:  func(t *testing.T, _ *cache.InformerFactory) context.Context { return t.Context() },
			want: cache.ErrInformerNotStarted,
		},
		{
			name: "stopped before syncing",
			run: func(t *testing.T, f *cache.InformerFactory) context.Context {
				ctx, cancel := context.WithCancel(t.Context())
				f.Start(ctx)
				cancel()
				return t.Context()
			},
			want: cache.ErrInformerStopped,
		},
		{
			name: "waiting context ends",
			run: func(t *testing.T, f *cache.InformerFactory) context.Context {
				f.Start(t.Context())
				ctx, cancel := context.WithTimeoutCause(t.Context(), time.Minute, errGaveUp)
				t.Cleanup(cancel)
				return ctx
			},
			want: errGaveUp,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := cache.NewInformerFactory(cache.InformerFactoryOptions{})
				informerFor(t, f, cache.InformerSelection{}, neverLists)
				ctx := tc.run(t, f)
				got := f.WaitForCacheSync(ctx)
				if len(got) != 1 || !errors.Is(got[key], tc.want) {
					t.Errorf("WaitForCacheSync = %v, want {%v: %v}", got, key, tc.want)
				}
				t.Cleanup(f.Shutdown) // after the test's context is cancelled
			})
		})
	}
}

func TestInformerFactoryShutdownWaitsForInformers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFactoryServer(t)
		f := cache.NewInformerFactory(cache.InformerFactoryOptions{})
		ctx, cancel := context.WithCancel(t.Context())
		informer := informerFor(t, f, cache.InformerSelection{}, s.newListerWatcher)
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx)[cache.InformerKey{Type: objectType}]; err != nil {
			t.Fatal(err)
		}

		done := make(chan struct{})
		go func() {
			f.Shutdown()
			close(done)
		}()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Shutdown returned while an informer still ran")
		default:
		}
		if informer.IsStopped() {
			t.Fatal("Shutdown stopped the informer; it should wait for its context")
		}

		cancel()
		<-done
		if !informer.IsStopped() {
			t.Error("the informer runs after Shutdown returned")
		}
		// After Shutdown: known informers are still handed out, new ones not,
		// and Start does nothing.
		if again := informerFor(t, f, cache.InformerSelection{}, s.newListerWatcher); again != informer {
			t.Error("InformerFor after Shutdown returned another informer for a known key")
		}
		if _, err := f.InformerFor(&metav1.PartialObjectMetadata{}, cache.InformerSelection{Namespace: "new"}, s.newListerWatcher); !errors.Is(err, cache.ErrFactoryShutDown) {
			t.Errorf("InformerFor of a new key after Shutdown: error = %v, want %v", err, cache.ErrFactoryShutDown)
		}
		f.Start(t.Context())
		f.Shutdown() // returns at once: Start started nothing
	})
}

// sortedKeys returns the keys of store, sorted.
func sortedKeys(store cache.Store) []string {
	keys := store.ListKeys()
	slices.Sort(keys)
	return keys
}

func TestInformerFactoryWaitForCacheSyncAfterTheStartEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFactoryServer(t)
		f := cache.NewInformerFactory(cache.InformerFactoryOptions{})
		defer f.Shutdown()
		ctx, cancel := context.WithCancel(t.Context())
		f.Start(ctx)
		cancel()
		// Requested after the only Start's context ended, maybe before its
		// goroutine saw it: no Start will run this informer.
		informerFor(t, f, cache.InformerSelection{Namespace: "a"}, s.newListerWatcher)
		waitCtx, waitCancel := context.WithTimeout(t.Context(), time.Hour)
		defer waitCancel()
		start := time.Now()
		got := f.WaitForCacheSync(waitCtx)
		key := cache.InformerKey{Type: objectType, InformerSelection: cache.InformerSelection{Namespace: "a"}}
		if err := got[key]; !errors.Is(err, cache.ErrInformerNotStarted) {
			t.Errorf("WaitForCacheSync = %v, want %v for %v", got, cache.ErrInformerNotStarted, key)
		}
		if waited := time.Since(start); waited > 0 {
			t.Errorf("WaitForCacheSync waited %v for an informer no Start will run", waited)
		}
	})
}

func TestInformerFactoryShutdownLeavesNoGoroutine(t *testing.T) {
	s := newFactoryServer(t)
	base := goleak.IgnoreCurrent()
	f := cache.NewInformerFactory(cache.InformerFactoryOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	informerFor(t, f, cache.InformerSelection{Namespace: "a"}, s.newListerWatcher)
	f.Start(ctx)
	f.Start(ctx) // a second Start's goroutine is waited for too
	informerFor(t, f, cache.InformerSelection{LabelSelector: "app=web"}, s.newListerWatcher)
	for key, err := range f.WaitForCacheSync(ctx) {
		if err != nil {
			t.Errorf("%v: %v", key, err)
		}
	}
	cancel()
	f.Shutdown()
	goleak.VerifyNone(t, base)
}
