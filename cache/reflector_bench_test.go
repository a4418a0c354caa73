package cache

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// countingStore is a ReflectorStore that counts updates and closes done at
// the want-th.
type countingStore struct {
	updates, want int
	done          chan struct{}
}

func (s *countingStore) Add(any) error { return nil }
func (s *countingStore) Update(any) error {
	if s.updates++; s.updates == s.want {
		close(s.done)
	}
	return nil
}
func (s *countingStore) Delete(any) error            { return nil }
func (s *countingStore) Replace([]any, string) error { return nil }
func (s *countingStore) Resync() error               { return nil }

// BenchmarkReflectorWatchEvents measures the reflector's path for one watch
// event: the checks of its object, the store call, the observer and the
// resource-version bookkeeping. Each iteration is a ListAndWatch cycle: an
// empty list, then a watch delivering the events, all MODIFIED.
func BenchmarkReflectorWatchEvents(b *testing.B) {
	for _, n := range []int{10_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			events := make([]watch.Event, n)
			for i := range events {
				events[i] = watch.Event{Type: watch.Modified, Object: pom("o"+strconv.Itoa(i%100), strconv.Itoa(11+i))}
			}
			b.ReportAllocs()
			for b.Loop() {
				store := &countingStore{want: n, done: make(chan struct{})}
				ctx, cancel := context.WithCancel(context.Background())
				opened := false
				lw := &ListWatch{
					ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
						return pomList("10", ""), nil
					},
					WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
						if opened { // the first watch closes after its events
							return newScriptedWatch(nil, false), nil
						}
						opened = true
						return newScriptedWatch(events, true), nil
					},
				}
				r := NewReflectorWithOptions(ToListWatcherWithWatchListSemantics(lw, optOut{}), &metav1.PartialObjectMetadata{}, store, ReflectorOptions{Name: "bench"})
				go func() {
					<-store.done
					cancel()
				}()
				if err := r.ListAndWatchWithContext(ctx); err != nil {
					b.Fatal(err)
				}
				cancel()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
		})
	}
}
