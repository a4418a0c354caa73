package compare

import "fmt"

// headline is one ratio the chart draws and the table's summary lists.
type headline struct {
	label    string
	workload string
	metric   string
}

// headlines returns the headlines of cfg's workloads: on realistic objects,
// then the memory of the API kinds at their largest size.
func (cfg Config) headlines() []headline {
	kind := cfg.Kinds[0].Name
	var hs []headline
	for _, n := range cfg.Sizes {
		hs = append(hs, headline{
			label:    fmt.Sprintf("initial sync %s: until the handler has all", sizeName(n)),
			workload: fmt.Sprintf("sync/%s/%s", kind, sizeName(n)),
			metric:   "handled",
		})
	}
	sync100k := fmt.Sprintf("sync/%s/100k", kind)
	hs = append(hs,
		headline{label: "initial sync 100k: until HasSynced", workload: sync100k, metric: "synced"},
		headline{label: "initial sync 100k: CPU", workload: sync100k, metric: "cpu"},
		headline{label: "initial sync 100k: heap beyond the objects", workload: sync100k, metric: "overhead"},
		headline{label: fmt.Sprintf("full resync of %s", sizeName(cfg.ResyncObjects)), workload: fmt.Sprintf("resync/%s/%s", kind, sizeName(cfg.ResyncObjects)), metric: "time"},
	)
	for _, n := range []int{1, 4, 16} {
		hs = append(hs, headline{
			label:    fmt.Sprintf("watch, %d handler%s: time per event", n, plural(n)),
			workload: fmt.Sprintf("watch/%s/%d", kind, n), metric: "rate",
		})
	}
	hs = append(hs,
		headline{label: "watch, 16 handlers: CPU per event", workload: fmt.Sprintf("watch/%s/16", kind), metric: "cpu"},
		headline{label: "paced, 1 handler: p99 latency", workload: fmt.Sprintf("paced/%s/1", kind), metric: "p99"},
		headline{label: "paced, 16 handlers: p99 latency", workload: fmt.Sprintf("paced/%s/16", kind), metric: "p99"},
	)
	reads := fmt.Sprintf("reads/%s/%s", kind, sizeName(cfg.ReadObjects))
	for _, op := range []struct{ id, name string }{{"get", "Get"}, {"getbykey", "GetByKey"}, {"list", "List"}, {"byindex", "ByIndex"}} {
		hs = append(hs, headline{label: fmt.Sprintf("%s of %s", op.name, sizeName(cfg.ReadObjects)), workload: reads, metric: op.id})
	}
	if sizes := cfg.apiSizes(); len(sizes) > 0 {
		size := sizeName(sizes[len(sizes)-1])
		for _, kind := range cfg.APIKinds {
			sync := fmt.Sprintf("sync/%s/%s", kind.Name, size)
			hs = append(hs,
				headline{label: fmt.Sprintf("%ss %s: heap per cached object", kind.Name, size), workload: sync, metric: "total"},
				headline{label: fmt.Sprintf("%ss %s: CPU of a full GC", kind.Name, size), workload: sync, metric: "gc"},
				headline{label: fmt.Sprintf("%ss %s: initial sync until HasSynced", kind.Name, size), workload: sync, metric: "synced"},
			)
		}
	}
	return hs
}

// headlineRatio returns the headline's ratio for lib, and false when the run
// did not measure it. The ratio of a throughput is inverted into one of
// time per event, so that below 1 means informer-go is better for every
// headline.
func (r *Results) headlineRatio(h headline, lib string) (float64, bool) {
	w := r.workload(h.workload)
	if w == nil {
		return 0, false
	}
	v, ok := r.ratio(w, lib, h.metric)
	if !ok || v == 0 {
		return 0, false
	}
	for _, m := range w.Metrics {
		if m.ID == h.metric && m.HigherIsBetter {
			v = 1 / v
		}
	}
	return v, true
}
