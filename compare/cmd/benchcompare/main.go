// Command benchcompare runs the informer workloads of package compare with
// client-go v0.37.2 and informer-go, alternating, and prints the results as
// a markdown table; with -out it also writes the table and an SVG chart of
// the headline ratios to a directory. `make bench-compare` runs it.
//
//	go run ./cmd/benchcompare [flags]
//
// The full run (the defaults) takes about 18 minutes on 2 idle cores, and
// needs about 7 GiB of memory for the initial sync of 100k Pods; a quick run
// (-rounds 1 -sizes 10k,100k) takes about 3 minutes. Progress goes to
// stderr.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"

	"k8s.io/klog/v2"

	"github.com/informer-go/informer/compare"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchcompare:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg := compare.DefaultConfig()
	var libNames []string
	for _, lib := range cfg.Libraries {
		libNames = append(libNames, lib.Name)
	}
	flag.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "times every workload runs with every library")
	sizes := flag.String("sizes", "10k,100k,1M", "object counts of the initial-sync workloads")
	flag.IntVar(&cfg.PacedEvents, "paced-events", cfg.PacedEvents, "events of the paced watch workloads, sent at 10k/s")
	filter := flag.String("run", "", "run only the workloads whose name matches this regular expression (names: sync/realistic/100k, watch/metadata/16, paced/realistic/1, reads/realistic/100k, resync/realistic/100k, goroutines/realistic, sync/pod/100k, reads/secret/100k)")
	wire := flag.String("wire", "protobuf", "how the sources of Pods and Secrets serialize them: protobuf or json")
	libs := flag.String("libs", strings.Join(libNames, ","), "libraries to run, the first being the baseline of the ratios")
	out := flag.String("out", "", "directory to write bench-compare.md and bench-compare.svg to")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of each run's measured span to this path with .1, .2... appended (go tool pprof merges them: go tool pprof -top PATH.*)")
	tracePath := flag.String("trace", "", "write an execution trace of each run's measured span to this path with .1, .2... appended (go tool trace -pprof=sched PATH.1: where goroutines waited to run)")
	memProfile := flag.String("memprofile", "", "write a heap profile to this file at the end of every initial sync (after GC, while the informer holds its objects)")
	memProfileRate := flag.Int("memprofilerate", 0, "with -memprofile, sample one allocation per this many bytes (1 records every allocation: exact accounting of what the informer keeps per object, and a much slower run); 0 keeps Go's default, 512 KiB")
	flag.Parse()
	if *memProfileRate > 0 {
		runtime.MemProfileRate = *memProfileRate
	}

	var err error
	if cfg.Sizes, err = compare.ParseSizes(*sizes); err != nil {
		return err
	}
	switch *wire {
	case "protobuf":
		cfg.Wire = compare.WireProtobuf
	case "json":
		cfg.Wire = compare.WireJSON
	default:
		return fmt.Errorf("-wire: %q is neither protobuf nor json", *wire)
	}
	if *filter != "" {
		if cfg.Filter, err = regexp.Compile(*filter); err != nil {
			return fmt.Errorf("-run: %w", err)
		}
	}
	cfg.Libraries = nil
	for _, name := range strings.Split(*libs, ",") {
		i := slices.IndexFunc(compare.Libraries, func(l compare.Library) bool { return l.Name == name })
		if i < 0 {
			return fmt.Errorf("-libs: unknown library %q (known: %s)", name, strings.Join(libNames, ", "))
		}
		cfg.Libraries = append(cfg.Libraries, compare.Libraries[i])
	}
	if *memProfile != "" {
		cfg.AfterSync = func(string, compare.Library) {
			if err := writeHeapProfile(*memProfile); err != nil {
				fmt.Fprintln(os.Stderr, "benchcompare: heap profile:", err)
			}
		}
	}
	cfg.Log = os.Stderr
	// client-go logs some things (slow handler traces) through klog's
	// global logger rather than the informer's context.
	klog.SetLogger(klog.Logger{})

	switch {
	case *cpuProfile != "" && *tracePath != "":
		return fmt.Errorf("-trace and -cpuprofile cannot be combined")
	case *cpuProfile != "":
		cfg.Span = recordSpans(*cpuProfile, "CPU profile", pprof.StartCPUProfile, pprof.StopCPUProfile)
	case *tracePath != "":
		cfg.Span = recordSpans(*tracePath, "trace", trace.Start, trace.Stop)
	}
	res, err := compare.Run(cfg)
	if err != nil {
		return err
	}
	if err := res.WriteMarkdown(os.Stdout); err != nil {
		return err
	}
	if *out == "" {
		return nil
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(*out, "bench-compare.md"), res.WriteMarkdown); err != nil {
		return err
	}
	return writeFile(filepath.Join(*out, "bench-compare.svg"), res.WriteSVG)
}

// recordSpans returns a Config.Span that records each run's span with start
// and stop into path.1, path.2...; what names the recording in errors.
func recordSpans(path, what string, start func(io.Writer) error, stop func()) func(string, compare.Library) func() {
	spans := 0
	return func(string, compare.Library) func() {
		spans++
		f, err := os.Create(fmt.Sprintf("%s.%d", path, spans))
		if err == nil {
			if err = start(f); err != nil {
				f.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchcompare: %s: %v\n", what, err)
			return func() {}
		}
		return func() {
			stop()
			if err := f.Close(); err != nil {
				fmt.Fprintf(os.Stderr, "benchcompare: %s: %v\n", what, err)
			}
		}
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeFile(path string, write func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
