package compare

import (
	"fmt"
	goruntime "runtime"
	"time"
)

// workloads returns every workload of cfg that its filter selects, in the
// order a round runs them.
func (cfg Config) workloads() []Workload {
	ups := updatesCache{}
	var ws []Workload
	for k, kind := range cfg.Kinds {
		realistic := k == 0
		for _, n := range cfg.Sizes {
			if realistic || n <= cfg.MetadataMaxSize {
				ws = append(ws, syncWorkload(cfg, kind, n))
			}
		}
		if realistic {
			ws = append(ws, goroutinesWorkload(cfg, kind))
		}
		for _, handlers := range []int{1, 4, 16} {
			ws = append(ws, watchWorkload(cfg, kind, handlers, false, ups))
		}
		if realistic {
			for _, handlers := range []int{1, 4, 16} {
				ws = append(ws, watchWorkload(cfg, kind, handlers, true, ups))
			}
			ws = append(ws, readsWorkload(cfg, kind, ups), resyncWorkload(cfg, kind))
		}
	}
	if cfg.Filter == nil {
		return ws
	}
	var selected []Workload
	for _, w := range ws {
		if cfg.Filter.MatchString(w.Name) {
			selected = append(selected, w)
		}
	}
	return selected
}

// Run runs every selected workload with every library, cfg.Rounds times.
// Within a round the libraries take turns on each workload, in an order
// that rotates from round to round, so that a change in the machine's load
// weighs on all of them alike. Before every run the heap is collected, so
// that no run pays for the garbage of the one before. A run that fails is reported in the results and the others go
// on.
func Run(cfg Config) (*Results, error) {
	ws := cfg.workloads()
	if len(ws) == 0 {
		return nil, fmt.Errorf("no workload matches %v", cfg.Filter)
	}
	if len(cfg.Libraries) == 0 {
		return nil, fmt.Errorf("no library to compare")
	}
	res := newResults(cfg, ws)
	machine := startMachineReading()
	began := time.Now()
	for round := range cfg.Rounds {
		for wi, w := range ws {
			for k := range cfg.Libraries {
				lib := cfg.Libraries[(k+round)%len(cfg.Libraries)]
				settle()
				start := time.Now()
				span := func() func() {
					if cfg.Span == nil {
						return func() {}
					}
					return cfg.Span(w.Name, lib)
				}
				s, err := w.run(lib, span)
				res.add(wi, lib.Name, s, err)
				if cfg.Log != nil {
					status := "ok"
					if err != nil {
						status = "error: " + err.Error()
					}
					fmt.Fprintf(cfg.Log, "round %d/%d  %-22s %-20s %6.1fs  %s\n", round+1, cfg.Rounds, w.Name, lib.Name, time.Since(start).Seconds(), status)
				}
			}
		}
	}
	res.Duration = time.Since(began)
	res.Machine = machine.finish()
	return res, nil
}

// settle collects the garbage of the previous run. The freed memory stays
// with the process, as in a long-running program: returning it to the
// system would make the next run's fresh allocations page-fault, which costs
// more than what they measure (a List of 100k objects 15 ms instead of 1).
func settle() { goruntime.GC() }
