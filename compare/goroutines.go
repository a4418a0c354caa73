package compare

import (
	"fmt"

	"github.com/informer-go/informer/internal/benchkit"
)

var goroutineMetrics = []Metric{
	{ID: "informer", Label: "goroutines per informer (without handlers)"},
	{ID: "handler", Label: "goroutines per handler"},
}

// goroutineHandlers is the number of handlers of the second informer of the
// goroutines workload.
const goroutineHandlers = 16

// goroutinesWorkload counts the goroutines of a synced informer with one
// handler and with goroutineHandlers handlers (including the one that runs
// Run), and derives the goroutines per handler and per informer.
func goroutinesWorkload(cfg Config, in input) Workload {
	return Workload{
		Name:    "goroutines/" + in.kind.Name,
		Section: sectionGoroutines,
		Row:     "synced informer",
		Metrics: goroutineMetrics,
		run:     func(lib Library, _ func() func()) (sample, error) { return runGoroutines(cfg, lib, in) },
	}
}

func runGoroutines(cfg Config, lib Library, in input) (sample, error) {
	base := settledGoroutines()
	count := func(handlers int) (int, error) {
		opts := startOptions{}
		for range handlers {
			opts.handlers = append(opts.handlers, benchkit.NewLatencyHandler(nil, 0))
		}
		s, err := startSynced(cfg, lib, in, 10, opts)
		if err != nil {
			return 0, err
		}
		defer s.stop()
		return settledGoroutines() - base, nil
	}
	one, err := count(1)
	if err != nil {
		return nil, err
	}
	many, err := count(goroutineHandlers)
	if err != nil {
		return nil, err
	}
	if after := settledGoroutines(); after != base {
		return nil, fmt.Errorf("%d goroutines before the informers and %d after they stopped", base, after)
	}
	perHandler := float64(many-one) / float64(goroutineHandlers-1)
	return sample{"informer": float64(one) - perHandler, "handler": perHandler}, nil
}
