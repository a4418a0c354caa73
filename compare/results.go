package compare

import (
	"slices"
	"time"
)

// Results are the samples of a Run.
type Results struct {
	// Config is the configuration of the run.
	Config Config
	// Workloads are the workloads run, in order.
	Workloads []*WorkloadResult
	// Duration is how long the run took.
	Duration time.Duration
	// Machine describes the machine and its load during the run.
	Machine Machine
}

// WorkloadResult is what the rounds of one workload measured.
type WorkloadResult struct {
	Workload
	// samples holds, per library name, one sample per successful run.
	samples map[string][]sample
	// Errors are the failures of runs, "library: error".
	Errors []string
}

func newResults(cfg Config, ws []Workload) *Results {
	res := &Results{Config: cfg}
	for _, w := range ws {
		res.Workloads = append(res.Workloads, &WorkloadResult{Workload: w, samples: map[string][]sample{}})
	}
	return res
}

func (r *Results) add(workload int, lib string, s sample, err error) {
	w := r.Workloads[workload]
	if err != nil {
		w.Errors = append(w.Errors, lib+": "+err.Error())
		return
	}
	w.samples[lib] = append(w.samples[lib], s)
}

// workload returns the result of the workload named name, or nil.
func (r *Results) workload(name string) *WorkloadResult {
	for _, w := range r.Workloads {
		if w.Name == name {
			return w
		}
	}
	return nil
}

// stat is the median, minimum and maximum of a metric over rounds.
type stat struct {
	median, min, max float64
	n                int
}

// stat returns the statistics of metric id for lib; n is 0 when no run
// measured it.
func (w *WorkloadResult) stat(lib, id string) stat {
	var vs []float64
	for _, s := range w.samples[lib] {
		if v, ok := s[id]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return stat{}
	}
	slices.Sort(vs)
	m := vs[len(vs)/2]
	if len(vs)%2 == 0 {
		m = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
	}
	return stat{median: m, min: vs[0], max: vs[len(vs)-1], n: len(vs)}
}

// ratio returns the ratio of lib's median of metric id to the baseline
// library's, and false when either is missing or the baseline is zero.
func (r *Results) ratio(w *WorkloadResult, lib, id string) (float64, bool) {
	base := w.stat(r.Config.Libraries[0].Name, id)
	s := w.stat(lib, id)
	if base.n == 0 || s.n == 0 || base.median == 0 {
		return 0, false
	}
	return s.median / base.median, true
}
