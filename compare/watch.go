package compare

import (
	"context"
	"fmt"
	"time"

	"github.com/informer-go/informer/internal/benchkit"
)

var watchMetrics = []Metric{
	{ID: "rate", Label: "thousands of events/s", HigherIsBetter: true},
	{ID: "cpu", Label: "CPU per event", Unit: "µs"},
	{ID: "allocs", Label: "allocations per event"},
	{ID: "bytes", Label: "bytes allocated per event", Unit: "B"},
}

var pacedMetrics = []Metric{
	{ID: "p50", Label: "latency p50", Unit: "µs"},
	{ID: "p99", Label: "latency p99", Unit: "µs"},
	{ID: "cpu", Label: "CPU per event", Unit: "µs"},
}

// watchWorkload measures watch updates delivered to handlers of an
// informer synced with cfg.WatchObjects objects of in. Unpaced, it sends
// cfg.WatchUpdates updates as fast as the watch channel takes them and
// measures the rate at which every handler got them all, and the CPU time
// and allocations per event. Paced, it sends cfg.PacedEvents updates at
// cfg.PacedRate per second and measures the latency from each send to each
// handler call.
func watchWorkload(cfg Config, in input, handlers int, paced bool) Workload {
	w := Workload{
		Name:    fmt.Sprintf("watch/%s/%d", in.kind.Name, handlers),
		Section: sectionWatch,
		Row:     fmt.Sprintf("%s, %d handler%s", in.kind.Name, handlers, plural(handlers)),
		Metrics: watchMetrics,
	}
	if paced {
		w.Name = fmt.Sprintf("paced/%s/%d", in.kind.Name, handlers)
		w.Section = sectionPaced
		w.Metrics = pacedMetrics
	}
	w.run = func(lib Library, span func() func()) (sample, error) {
		return runWatch(cfg, lib, in, handlers, paced, span)
	}
	return w
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func runWatch(cfg Config, lib Library, in input, handlers int, paced bool, span func() func()) (sample, error) {
	ups, err := in.updates(cfg.WatchObjects)
	if err != nil {
		return nil, err
	}
	events, rate := cfg.WatchUpdates, 0
	var sentAt []int64
	if paced {
		events, rate = cfg.PacedEvents, cfg.PacedRate
		sentAt = make([]int64, len(ups))
	}
	hs := make([]*benchkit.LatencyHandler, handlers)
	opts := startOptions{}
	for i := range hs {
		hs[i] = benchkit.NewLatencyHandler(sentAt, events)
		opts.handlers = append(opts.handlers, hs[i])
	}
	s, err := startSynced(cfg, lib, in, cfg.WatchObjects, opts)
	if err != nil {
		return nil, err
	}
	defer s.stop()
	for _, h := range hs {
		h.Expect(h.Calls() + int64(events))
	}
	sender := &benchkit.Sender{Events: s.src.Events, Updates: ups, SentAt: sentAt, Handlers: hs, Rate: rate}
	benchkit.LiveHeap() // the garbage of the sync is not this measurement's
	defer span()()      // also ends the span of a failed run
	usage, began := benchkit.ReadUsage(), time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	if sent := sender.Send(ctx, events); sent < events {
		return nil, fmt.Errorf("timed out after sending %d of %d events", sent, events)
	}
	if err := awaitHandlers(hs, ctx.Done()); err != nil {
		return nil, err
	}
	elapsed, spent := time.Since(began), usage.Spent()
	if paced {
		p50, p99 := benchkit.Percentiles(hs)
		return sample{
			"p50": float64(p50) / float64(time.Microsecond),
			"p99": float64(p99) / float64(time.Microsecond),
			"cpu": perUnit(spent.CPU, events, time.Microsecond),
		}, nil
	}
	return sample{
		"rate":   float64(events) / elapsed.Seconds() / 1000,
		"cpu":    perUnit(spent.CPU, events, time.Microsecond),
		"allocs": float64(spent.Allocs) / float64(events),
		"bytes":  float64(spent.Bytes) / float64(events),
	}, nil
}
