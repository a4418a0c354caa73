package compare

import (
	"io"
	"regexp"
	"time"

	"github.com/informer-go/informer/internal/benchkit"
)

// Config says what Run measures and how often.
type Config struct {
	// Rounds is how many times every workload runs with every library.
	Rounds int
	// Sizes are the object counts of the initial-sync workloads.
	Sizes []int
	// MetadataMaxSize bounds the sizes the tiny kind syncs (it is there as a
	// second case, not to repeat every size).
	MetadataMaxSize int

	// WatchObjects is the number of objects of the watch workloads, which
	// send WatchUpdates updates unpaced and PacedEvents updates at
	// PacedRate events per second.
	WatchObjects, WatchUpdates int
	PacedEvents, PacedRate     int

	// ReadObjects is the size of the store the read workload reads with
	// GetOps Get and GetByKey calls, ListOps List calls and ByIndexOps
	// ByIndex calls, alone and while a writer sends WriterRate updates per
	// second.
	ReadObjects                 int
	GetOps, ListOps, ByIndexOps int
	WriterRate                  int
	// APIGetOps and APIWriterRate replace GetOps and WriterRate for the
	// kinds of k8s.io/api, whose Get costs more and whose updates the
	// source decodes (at 10k Pods per second a third of a CPU).
	APIGetOps, APIWriterRate int
	// ResyncObjects is the size of the store the resync workload resyncs.
	ResyncObjects int

	// Kinds are the in-memory object kinds, whose sources list objects
	// built for the run; the first is the realistic one.
	Kinds []benchkit.Kind
	// APIKinds are kinds of k8s.io/api (Pods, Secrets), whose sources
	// serve their lists and updates serialized in the media type Wire and
	// decode them on every List and every event, as a client does. Their
	// initial syncs run at the sizes up to APIMaxSize, their reads at
	// ReadObjects; the variant libraries run only these.
	APIKinds   []benchkit.Kind
	Wire       string
	APIMaxSize int
	// Libraries are the libraries compared; ratios are against the first.
	Libraries []Library
	// Filter, when not nil, selects the workloads whose name it matches.
	Filter *regexp.Regexp
	// Timeout bounds every wait of a run.
	Timeout time.Duration
	// Log, when not nil, receives a line per run.
	Log io.Writer
	// Span, when not nil, is called as a run begins the span its numbers
	// cover (once its inputs are built and the heap collected), and the
	// function it returns as the span ends: the moments to profile what is
	// measured and nothing else.
	Span func(workload string, lib Library) (end func())
	// AfterSync, when not nil, is called at the end of every initial-sync
	// run, after the garbage collection that measures the heap and while the
	// informer still runs: the moment for a heap profile.
	AfterSync func(workload string, lib Library)
}

// DefaultConfig returns the full run: 5 rounds, initial syncs of 10k, 100k
// and 1M realistic objects and of 10k and 100k Pods and Secrets (as
// protobuf), and the other workloads at the sizes of the issue that
// defines them.
func DefaultConfig() Config {
	return Config{
		Rounds:          5,
		Sizes:           []int{10_000, 100_000, 1_000_000},
		MetadataMaxSize: 100_000,
		WatchObjects:    10_000,
		WatchUpdates:    200_000,
		PacedEvents:     50_000,
		PacedRate:       10_000,
		ReadObjects:     100_000,
		GetOps:          1_000_000,
		ListOps:         20,
		ByIndexOps:      2_000,
		WriterRate:      10_000,
		APIGetOps:       200_000,
		APIWriterRate:   1_000,
		ResyncObjects:   100_000,
		Kinds:           benchkit.Kinds,
		APIKinds:        APIKinds,
		Wire:            WireProtobuf,
		APIMaxSize:      100_000,
		Libraries:       Libraries,
		Timeout:         10 * time.Minute,
	}
}
