package cache_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
	"github.com/informer-go/informer/wait"
)

// nopStore is the smallest ReflectorStore.
type nopStore struct{}

func (nopStore) Add(any) error               { return nil }
func (nopStore) Update(any) error            { return nil }
func (nopStore) Delete(any) error            { return nil }
func (nopStore) Replace([]any, string) error { return nil }
func (nopStore) Resync() error               { return nil }

// TestReflectorDefaultName checks that a reflector is named after the code
// that created it, outside this library.
func TestReflectorDefaultName(t *testing.T) {
	_, _, line, _ := runtime.Caller(0)
	r := cache.NewReflector(&cache.ListWatch{}, &metav1.PartialObjectMetadata{}, nopStore{}, 0)
	want := "/cache/reflector_name_external_test.go:" + strconv.Itoa(line+1)
	if !strings.HasSuffix(r.Name(), want) {
		t.Errorf("Name() = %q, want a name ending in %q", r.Name(), want)
	}

	named := cache.NewNamedReflector("pods", &cache.ListWatch{}, nil, nopStore{}, 0)
	if named.Name() != "pods" {
		t.Errorf("Name() = %q, want %q", named.Name(), "pods")
	}
}

// nextLine returns the line after the one that calls it.
func nextLine() int {
	_, _, line, _ := runtime.Caller(1)
	return line + 1
}

// TestReflectorNameOfInformerRunOnItsOwn checks that an informer run only by
// library code (on a goroutine of its own, or by a factory) names its
// reflector after the line that built the informer, and one run from user
// code after the line that ran it.
func TestReflectorNameOfInformerRunOnItsOwn(t *testing.T) {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()
	example := &metav1.PartialObjectMetadata{}
	for _, tc := range []struct {
		name string
		// run builds an informer and runs it until ctx ends; it returns
		// the informer's sync status and the line the reflector must be
		// named after.
		run func(ctx context.Context) (status func() cache.SyncStatus, line int)
	}{{
		name: "go informer.RunWithContext",
		run: func(ctx context.Context) (func() cache.SyncStatus, int) {
			line := nextLine()
			inf := cache.NewSharedIndexInformer(srv, example, 0, cache.Indexers{})
			go inf.RunWithContext(ctx)
			return inf.(cache.SyncStatusReporter).SyncStatus, line
		},
	}, {
		name: "go informer.Run",
		run: func(ctx context.Context) (func() cache.SyncStatus, int) {
			line := nextLine()
			inf := cache.NewSharedInformer(srv, example, 0)
			go inf.Run(ctx.Done())
			return inf.(cache.SyncStatusReporter).SyncStatus, line
		},
	}, {
		name: "go controller.RunWithContext",
		run: func(ctx context.Context) (func() cache.SyncStatus, int) {
			line := nextLine()
			_, ctrl := cache.NewInformerWithOptions(cache.InformerOptions{ListerWatcher: srv, ObjectType: example})
			go ctrl.RunWithContext(ctx)
			return ctrl.(cache.SyncStatusReporter).SyncStatus, line
		},
	}, {
		name: "informer factory",
		run: func(ctx context.Context) (func() cache.SyncStatus, int) {
			factory := cache.NewInformerFactory(cache.InformerFactoryOptions{})
			line := nextLine()
			inf, err := factory.InformerFor(example, cache.InformerSelection{}, func(cache.InformerSelection) cache.ListerWatcher { return srv })
			if err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx)
			context.AfterFunc(ctx, factory.Shutdown)
			return inf.(cache.SyncStatusReporter).SyncStatus, line
		},
	}, {
		name: "run from user code",
		run: func(ctx context.Context) (func() cache.SyncStatus, int) {
			inf := cache.NewSharedIndexInformer(srv, example, 0, cache.Indexers{})
			line := nextLine() + 1
			go func() {
				inf.RunWithContext(ctx)
			}()
			return inf.(cache.SyncStatusReporter).SyncStatus, line
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			status, line := tc.run(ctx)
			// until polls cond until it holds or a generous deadline
			// passes.
			until := func(what string, cond func() bool) {
				deadline := time.Now().Add(wait.ForeverTestTimeout)
				for !cond() {
					if time.Now().After(deadline) {
						t.Fatalf("timed out waiting for %s", what)
					}
					time.Sleep(time.Millisecond)
				}
			}
			defer func() {
				cancel()
				until("the informer to stop", func() bool { return status().Phase == cache.SyncPhaseStopped })
			}()
			until("the reflector", func() bool { return status().Reflector != "" })
			want := "/cache/reflector_name_external_test.go:" + strconv.Itoa(line)
			if got := status().Reflector; !strings.HasSuffix(got, want) {
				t.Errorf("reflector named %q, want a name ending in %q", got, want)
			}
		})
	}
}
