package compare

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/informer-go/informer/internal/benchkit"
)

// Metric is one quantity a workload measures.
type Metric struct {
	// ID keys the metric in a sample; unique within its workload.
	ID string
	// Label and Unit describe the metric's row in the table.
	Label, Unit string
	// HigherIsBetter is set for throughputs.
	HigherIsBetter bool
	// Section, when set, is the table the metric's row goes to instead of
	// its workload's.
	Section string
	// NotVariants marks a metric that only the libraries keeping every
	// object as decoded measure: not the variant libraries.
	NotVariants bool
}

// sample is what one run of a workload measured, by Metric.ID.
type sample map[string]float64

// Workload is one measurement, run once per library in every round.
type Workload struct {
	// Name identifies the workload, "family/kind/parameter"; the runner's
	// filter matches it.
	Name string
	// Section is the table the workload's rows go to; Row starts their
	// labels.
	Section, Row string
	Metrics      []Metric
	// run measures lib once, calling span as the span its numbers cover
	// begins and the function span returns as it ends. It may return an
	// error for a run that could not be measured; the runner reports it and
	// goes on.
	run func(lib Library, span func() (end func())) (sample, error)
	// api marks the workloads of the kinds of k8s.io/api, the only ones
	// the variant libraries run.
	api bool
	// endRound, when not nil, is called once every library ran the
	// workload in a round: it drops what the runs shared.
	endRound func()
}

// The sections of the table, in order.
const (
	sectionSync       = "Initial sync"
	sectionMemory     = "Memory after sync and GC"
	sectionGoroutines = "Goroutines"
	sectionWatch      = "Watch updates, unpaced"
	sectionPaced      = "Watch updates, paced"
	sectionReads      = "Reads"
	sectionResync     = "Full resync"
)

var sections = []string{sectionSync, sectionMemory, sectionGoroutines, sectionWatch, sectionPaced, sectionReads, sectionResync}

// sizeName writes n as the -sizes flag does: 10k, 100k, 1M.
func sizeName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1_000 && n%1_000 == 0:
		return strconv.Itoa(n/1_000) + "k"
	default:
		return strconv.Itoa(n)
	}
}

// ParseSizes parses a comma-separated list of object counts such as
// "10k,100k,1M".
func ParseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		mult := 1
		switch {
		case strings.HasSuffix(f, "k"):
			mult, f = 1_000, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "M"):
			mult, f = 1_000_000, strings.TrimSuffix(f, "M")
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("size %q: want a positive count such as 5000, 10k or 1M", f)
		}
		sizes = append(sizes, n*mult)
	}
	if len(sizes) == 0 {
		return nil, errors.New("no sizes")
	}
	return sizes, nil
}

// started is an informer started for a workload, fed by src.
type started struct {
	*running
	src *benchkit.Source
}

// startSynced starts lib's informer with opts on a source of n objects of
// in, and waits until the informer and every handler have synced.
func startSynced(cfg Config, lib Library, in input, n int, opts startOptions) (*started, error) {
	f, err := in.newFeed(n)
	if err != nil {
		return nil, err
	}
	r, err := lib.start(f.lw, in.kind.Example(), opts)
	if err != nil {
		return nil, err
	}
	deadline := time.After(cfg.Timeout)
	waits := append([]<-chan struct{}{r.synced}, r.handlersSynced...)
	for _, ch := range waits {
		if err := await(ch, "the initial sync", deadline); err != nil {
			r.stop()
			return nil, err
		}
	}
	return &started{running: r, src: f.src}, nil
}

// await blocks until ch is ready or deadline passes.
func await[T any](ch <-chan struct{}, what string, deadline <-chan T) error {
	select {
	case <-ch:
		return nil
	case <-deadline:
		return fmt.Errorf("timed out waiting for %s", what)
	}
}

// awaitHandlers blocks until every handler reached the count it expects or
// deadline passes.
func awaitHandlers[T any](hs []*benchkit.LatencyHandler, deadline <-chan T) error {
	for i, h := range hs {
		if err := await(h.Reached(), fmt.Sprintf("handler %d (at %d calls)", i, h.Calls()), deadline); err != nil {
			return err
		}
	}
	return nil
}

// settledGoroutines returns the number of goroutines once it stopped
// changing, so that goroutines that are about to exit (a finished list
// request's, say) are not counted.
func settledGoroutines() int {
	last := goruntime.NumGoroutine()
	for stable := 0; stable < 3; {
		time.Sleep(20 * time.Millisecond)
		n := goruntime.NumGoroutine()
		if n == last {
			stable++
		} else {
			stable, last = 0, n
		}
	}
	return last
}

// perUnit returns d per unit in unit (time.Millisecond, time.Microsecond...).
func perUnit(d time.Duration, units int, unit time.Duration) float64 {
	return float64(d) / float64(units) / float64(unit)
}
