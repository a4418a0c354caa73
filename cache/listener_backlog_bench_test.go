package cache

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/informer-go/informer/internal/benchkit"
)

// BenchmarkBlockedHandlerLatency measures how fast a handler hears of watch
// updates while another handler of the same informer is blocked for the whole
// run, with each backlog policy of the blocked handler (blocked=none: no
// second handler). Each iteration sends 20,000 updates of 100 realistic
// objects at 10,000 per second.
//
// Metrics: p50-µs and p99-µs, the latency from each send to the measured
// handler's call; blocked-backlog, the blocked handler's pending
// notifications at the end.
func BenchmarkBlockedHandlerLatency(b *testing.B) {
	const objects, events, rate = 100, 20_000, 10_000
	kind := benchkit.Realistic
	list := kind.List(objects)
	ups := kind.Updates(objects, 10_000)
	policies := []struct {
		name    string
		options *HandlerOptions // nil: no blocked handler
	}{
		{name: "none"},
		{name: "unbounded", options: &HandlerOptions{}},
		{name: "coalesce", options: &HandlerOptions{Coalesce: true}},
		{name: "cap", options: &HandlerOptions{MaxBacklog: 1000}},
	}
	for _, mode := range queueModes {
		for _, policy := range policies {
			b.Run(fmt.Sprintf("%s/blocked=%s", mode.name, policy.name), func(b *testing.B) {
				lw := benchkit.NewSource(list)
				inf := benchInformer(lw, kind, mode.inOrder)
				sentAt := make([]int64, len(ups))
				h := benchkit.NewLatencyHandler(sentAt, 10*events)
				h.Expect(objects)
				if _, err := inf.AddEventHandler(h); err != nil {
					b.Fatal(err)
				}
				release := make(chan struct{})
				var blocked *processorListener
				if policy.options != nil {
					block := func() { <-release }
					reg, err := inf.AddEventHandlerWithOptions(ResourceEventHandlerFuncs{
						AddFunc:    func(any) { block() },
						UpdateFunc: func(any, any) { block() },
						DeleteFunc: func(any) { block() },
					}, *policy.options)
					if err != nil {
						b.Fatal(err)
					}
					blocked = reg.(*processorListener)
				}
				stop := runBenchInformer(inf)
				defer stop()
				defer close(release) // before stop: the blocked handler returns
				h.Wait()

				sender := &benchkit.Sender{Events: lw.Events, Updates: ups, SentAt: sentAt, Handlers: []*benchkit.LatencyHandler{h}, Rate: rate}
				for b.Loop() {
					h.Expect(h.Calls() + events)
					sender.Send(b.Context(), events)
					h.Wait()
				}
				p50, p99 := benchkit.Percentiles([]*benchkit.LatencyHandler{h})
				b.ReportMetric(float64(p50)/float64(time.Microsecond), "p50-µs")
				b.ReportMetric(float64(p99)/float64(time.Microsecond), "p99-µs")
				if blocked != nil {
					b.ReportMetric(float64(blocked.backlog()), "blocked-backlog")
				}
			})
		}
	}
}

// BenchmarkBoundedListenerDistribute is BenchmarkListenerDistribute for
// listeners whose backlog is bounded, over 4,096 objects: with Coalesce
// merging from the first notification (coalesce-after=0), and with a
// CoalesceAfter that is never reached (coalesce-after=max), so that every
// notification is delivered as it is.
func BenchmarkBoundedListenerDistribute(b *testing.B) {
	const objects = 4096
	objs := make([]any, objects)
	for i := range objs {
		objs[i] = benchkit.NewObject(i, 1)
	}
	for _, after := range []struct {
		name string
		n    int
	}{{"0", 0}, {"max", math.MaxInt}} {
		for _, handlers := range []int{1, 16} {
			b.Run(fmt.Sprintf("coalesce-after=%s/handlers=%d", after.name, handlers), func(b *testing.B) {
				p := newSharedProcessor(realClock)
				ls := make([]*processorListener, handlers)
				for i := range ls {
					ls[i] = newProcessorListener(discardLogger(), ResourceEventHandlerFuncs{}, realClock, "bench")
					ls[i].setBacklog(backlogBounds{coalesce: true, coalesceAfter: after.n}, MetaNamespaceKeyFunc, nil)
					p.addListener(ls[i], resyncSchedule{})
				}
				p.run()
				defer p.stop()
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					obj := objs[i%objects]
					p.distribute(notification{kind: updateNotification, oldObj: obj, newObj: obj})
				}
				for _, l := range ls {
					for l.backlog() > 0 || l.delivering.Load() {
						runtime.Gosched()
					}
				}
			})
		}
	}
}
