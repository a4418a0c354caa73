package compare

import (
	"fmt"
	goruntime "runtime"
	"time"
)

// workloads returns every workload of cfg that its filter selects, in the
// order a round runs them.
func (cfg Config) workloads() ([]Workload, error) {
	ups := updatesCache{}
	var ws []Workload
	for k, kind := range cfg.Kinds {
		realistic := k == 0
		in := memoryInput(kind, ups)
		for _, n := range cfg.Sizes {
			if realistic || n <= cfg.MetadataMaxSize {
				ws = append(ws, syncWorkload(cfg, in, n))
			}
		}
		if realistic {
			ws = append(ws, goroutinesWorkload(cfg, in))
		}
		for _, handlers := range []int{1, 4, 16} {
			ws = append(ws, watchWorkload(cfg, in, handlers, false))
		}
		if realistic {
			for _, handlers := range []int{1, 4, 16} {
				ws = append(ws, watchWorkload(cfg, in, handlers, true))
			}
			ws = append(ws, readsWorkload(cfg, in), resyncWorkload(cfg, in))
		}
	}
	if len(cfg.APIKinds) > 0 {
		w, err := newWire(cfg.Wire)
		if err != nil {
			return nil, err
		}
		for _, kind := range cfg.APIKinds {
			for _, n := range cfg.apiSizes() {
				ws = append(ws, syncWorkload(cfg, wireInput(kind, w), n))
			}
			ws = append(ws, readsWorkload(cfg, wireInput(kind, w)))
		}
	}
	if cfg.Filter == nil {
		return ws, nil
	}
	var selected []Workload
	for _, w := range ws {
		if cfg.Filter.MatchString(w.Name) {
			selected = append(selected, w)
		}
	}
	return selected, nil
}

// apiSizes are the sizes of the initial syncs of the API kinds: the sizes
// up to cfg.APIMaxSize.
func (cfg Config) apiSizes() []int {
	var sizes []int
	for _, n := range cfg.Sizes {
		if n <= cfg.APIMaxSize {
			sizes = append(sizes, n)
		}
	}
	return sizes
}

// Run runs every selected workload with every library, cfg.Rounds times.
// Within a round the libraries take turns on each workload, in an order
// that rotates from round to round, so that a change in the machine's load
// weighs on all of them alike. Before every run the heap is collected, so
// that no run pays for the garbage of the one before. A run that fails is reported in the results and the others go
// on.
func Run(cfg Config) (*Results, error) {
	ws, err := cfg.workloads()
	if err != nil {
		return nil, err
	}
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
				if !lib.runs(w) {
					continue
				}
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
			if w.endRound != nil {
				w.endRound()
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
