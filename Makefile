# informer-go: the one entry point for building, checking and measuring.
#
#   make test       everything CI checks (lint, race tests of every module, fuzz smoke, examples)
#   make test-unit  the fast loop: go test of the root module, no race detector
#   make bench      benchmarks of the root module
#   make bench-compare  the informer workloads through client-go and this library: table and chart
#   make bench-compare-quick  the same, one round and no 1M-object sync
#   make bench-e2e  from a real kube-apiserver, client-go and this library: initial sync, heap per cached Pod, restart
#   make fuzz       every fuzz target for FUZZTIME each (default 30s)
#   make chaos      the seeded chaos test of the informer, CHAOS_SCHEDULES seeds per pipeline from CHAOS_FIRST
#   make soak       16 handlers on 100k objects under traffic and faults for SOAK_DURATION (SOAK_MEMORY: a memory mode): heap curve and profile
#   make lint       gofmt, go vet, staticcheck and the go mod tidy diff of every module
#   make demo       runs examples/quickstart against the in-memory fake apiserver
#   make e2e        only the end-to-end tests against a real etcd and kube-apiserver
#   make upstream-tests  client-go's, apimachinery's, k8s.io/utils' and controller-runtime's own tests on this library

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

GO          ?= go
BIN         := $(CURDIR)/bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2

# Every module of the repository: the root and nested modules with their own go.mod (test fixtures
# under testdata/ are not modules of the repository).
MODULES := $(patsubst %/go.mod,%,$(shell find . -name go.mod -not -path './bin/*' -not -path '*/testdata/*' | sort))

FUZZTIME       ?= 30s
FUZZTIME_SMOKE ?= 3000x
BENCHTIME      ?= 1s
BENCHPATTERN   ?= .

# make chaos: how many seeds per pipeline, from which (make test runs the flag's default, seeds 1..300).
CHAOS_SCHEDULES ?= 5000
CHAOS_FIRST     ?= 1
# make soak: how long, how many objects, and where the heap curve (heap.csv) and profile (heap.pprof) go.
SOAK_DURATION ?= 30m
SOAK_OBJECTS  ?= 100000
SOAK_OUT      ?= $(CURDIR)/bin/soak
SOAK_MEMORY   ?= none

# make bench-compare: rounds, initial-sync sizes, output directory (inside compare/) and extra flags
# of compare/cmd/benchcompare, such as -run '^sync/realistic/100k' -libs informer-go -cpuprofile cpu.out.
ROUNDS              ?= 5
SIZES               ?= 10k,100k,1M
BENCH_COMPARE_OUT   ?= results
BENCH_COMPARE_FLAGS ?=

.PHONY: test test-unit upstream-tests race bench bench-compare bench-compare-quick bench-e2e fuzz fuzz-smoke chaos soak lint fmt vet staticcheck tidy examples demo tools clean e2e-bin e2e

test: lint race fuzz-smoke examples upstream-tests

test-unit:
	$(GO) test -count=1 ./...

# etcd and kube-apiserver for the end-to-end tests in e2e/: $$KUBEBUILDER_ASSETS when set, otherwise
# built once from source into ~/.cache/informer-go/e2e-bin (7-10 minutes on 2 cores the first time).
# A step of its own so that its progress shows and its time does not count against go test's timeout.
e2e-bin:
	cd e2e && $(GO) run ./hack/buildbins

race: e2e-bin
	@for m in $(MODULES); do \
	  echo "== go test -race $$m"; \
	  (cd $$m && $(GO) test -race -count=1 -timeout 20m ./...); \
	done

# The upstream projects' own tests against this library, under the race detector: client-go
# v0.37.2's tools/cache (with synctrack and testing), apimachinery's pkg/util/wait and k8s.io/utils'
# buffer compiled into the packages that replace them, and controller-runtime's pkg/cache envtest
# suite with this library's informers in both pipelines. Prints per suite how many tests ran,
# passed, failed and were left out; fails on a failure hack/upstream/DIFFERENCES.md does not list
# (hack/upstream/README.md). UPSTREAM_FLAGS: e.g. -suites client-go/tools/cache -v.
UPSTREAM_FLAGS ?=
upstream-tests: e2e-bin
	$(GO) run ./hack/upstream $(UPSTREAM_FLAGS)

# Only the end-to-end tests.
e2e: e2e-bin
	cd e2e && $(GO) test -race -count=1 -timeout 20m ./...

bench:
	$(GO) test -run='^$$' -bench='$(BENCHPATTERN)' -benchtime=$(BENCHTIME) -benchmem ./...

# The informer workloads of compare/ through client-go v0.37.2 and this library, alternating: prints
# the markdown table and writes it, with an SVG chart of the headline ratios, to
# compare/$(BENCH_COMPARE_OUT). compare/README.md says how long it takes and how much memory it needs.
bench-compare:
	cd compare && $(GO) run ./cmd/benchcompare -rounds=$(ROUNDS) -sizes=$(SIZES) -out=$(BENCH_COMPARE_OUT) $(BENCH_COMPARE_FLAGS)

bench-compare-quick:
	$(MAKE) bench-compare ROUNDS=1 SIZES=10k,100k BENCH_COMPARE_OUT=results/quick

# From a real etcd and kube-apiserver, client-go against this library (e2e/bench): the initial sync
# of 5,000 ConfigMaps, by list and by streaming list, alternating; the heap per cached Pod of 10k Pods;
# a restart of 20,000 ConfigMaps after 300 changes (lists, bytes on the wire, time to equal the server).
bench-e2e: e2e-bin
	cd e2e && $(GO) test -run='^$$' -bench=. -benchtime=5x -timeout 30m ./bench

fuzz:
	hack/fuzz.sh $(FUZZTIME)

fuzz-smoke:
	hack/fuzz.sh $(FUZZTIME_SMOKE)

# The chaos test (cache/chaos_test.go) over many more seeds than make test runs, under the race
# detector; it prints the statistics of each pipeline. A failing seed prints the command replaying it.
# (Run from cache/, so that go test shows the statistics of a passing run.)
chaos:
	cd cache && $(GO) test -race -count=1 -timeout 0 -run '^TestChaos$$' -chaos.schedules=$(CHAOS_SCHEDULES) -chaos.first=$(CHAOS_FIRST) -chaos.summary

# The soak test (cache/soak_test.go), not part of make test: it fails if the heap or the goroutines
# grow after warm-up, or a handler has not converged at the end.
soak:
	mkdir -p $(SOAK_OUT)
	$(GO) test -count=1 -timeout 0 -run '^TestSoak$$' ./cache -soak.duration=$(SOAK_DURATION) -soak.objects=$(SOAK_OBJECTS) -soak.memory=$(SOAK_MEMORY) -soak.out=$(SOAK_OUT) -v

lint: fmt vet staticcheck tidy

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	@for m in $(MODULES); do echo "== go vet $$m"; (cd $$m && $(GO) vet ./...); done

staticcheck: $(STATICCHECK)
	@for m in $(MODULES); do echo "== staticcheck $$m"; (cd $$m && $(STATICCHECK) ./...); done

tidy:
	@for m in $(MODULES); do echo "== go mod tidy -diff $$m"; (cd $$m && $(GO) mod tidy -diff); done

examples:
	@if [ -d examples ]; then \
	  for d in $$(find examples -name '*.go' -exec dirname {} \; | sort -u); do \
	    echo "== go build ./$$d"; \
	    m=$$(cd $$d && $(GO) env GOMOD); \
	    (cd $$(dirname $$m) && $(GO) build -o /dev/null ./$$(realpath --relative-to=$$(dirname $$m) $(CURDIR)/$$d)); \
	  done; \
	fi

demo:
	@if [ -d examples/quickstart ]; then $(GO) run ./examples/quickstart; \
	else echo "examples/quickstart does not exist yet"; exit 1; fi

tools: $(STATICCHECK)

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

clean:
	rm -rf $(BIN)
