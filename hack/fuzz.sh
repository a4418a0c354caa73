#!/usr/bin/env bash
# Runs every Fuzz target of the root module for the given budget each (default 30s).
# Usage: hack/fuzz.sh [BUDGET]
#
# BUDGET is what go test's -fuzztime takes: a duration (30s) or a count of executions (2000x).
# make test uses a count: with a duration, Go 1.26's fuzz coordinator can report a bare "context
# deadline exceeded" when the time runs out while a worker is mid-call (golang/go#75804, fixed in
# Go 1.27), which is no finding. With a duration, that one failure is reported as a warning when the
# run wrote no failing input under testdata/fuzz; every other failure fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-30s}
# count_inputs prints how many inputs the corpus directory $1 holds (0 when it does not exist).
count_inputs() { if [ -d "$1" ]; then find "$1" -type f | wc -l; else echo 0; fi; }
found=0
while IFS= read -r file; do
  dir=$(dirname "$file")
  for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
    found=1
    echo "== fuzz ./$dir $target ($budget)"
    corpus="$dir/testdata/fuzz/$target"
    before=$(count_inputs "$corpus")
    log=$(mktemp)
    if go test -run='^$' -fuzz="^${target}\$" -fuzztime="$budget" -fuzzminimizetime=5s "./$dir" 2>&1 | tee "$log"; then
      rm -f "$log"
      continue
    fi
    after=$(count_inputs "$corpus")
    if [ "$after" = "$before" ] && grep -q '^    context deadline exceeded$' "$log" &&
      [ "$(grep -c '^--- FAIL' "$log")" = 1 ]; then
      echo "warning: $target stopped with the fuzz coordinator's deadline race (golang/go#75804), no failing input"
      rm -f "$log"
      continue
    fi
    rm -f "$log"
    echo "fuzz target $target failed; a failing input, if any, is under $corpus"
    exit 1
  done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' || true)
[ "$found" = 1 ] || echo "no fuzz targets"
