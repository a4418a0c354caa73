package cache

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// BenchmarkShardedWatch measures the cost of a ShardedListWatch per watch
// event: the client-side check with the apiserver's matcher and the hop
// through its stream goroutine, against the same events read straight from
// the source. Every event is inside the shard, as from a server that
// honours the selector.
func BenchmarkShardedWatch(b *testing.B) {
	const events = 10_000
	objs := make([]runtime.Object, 0, events)
	sel := mustShard(b, 0, 2)
	for i := 0; len(objs) < events; i++ {
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: fmt.Sprintf("obj-%d", i), ResourceVersion: fmt.Sprint(i + 1),
			UID: types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", i*2654435761, i)),
		}}
		if ok, _ := sel.Matches(obj); ok {
			objs = append(objs, obj)
		}
	}
	source := func() *watch.FakeWatcher {
		w := watch.NewFakeWithChanSize(events, false)
		for _, obj := range objs {
			w.Modify(obj)
		}
		return w
	}
	for _, sharded := range []bool{false, true} {
		b.Run(fmt.Sprintf("sharded=%v", sharded), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				var lw ListerWatcherWithContext = &ListWatch{WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
					return source(), nil
				}}
				if sharded {
					var err error
					if lw, err = NewShardedListWatch(lw.(*ListWatch), sel, ShardedListWatchOptions{}); err != nil {
						b.Fatal(err)
					}
				}
				w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for range events {
					<-w.ResultChan()
				}
				b.StopTimer()
				w.Stop()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
		})
	}
}
