#!/usr/bin/env bash
# Runs every Fuzz target of the root module for the given time each (default 30s).
# Usage: hack/fuzz.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-30s}
found=0
while IFS= read -r file; do
  dir=$(dirname "$file")
  for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
    found=1
    echo "== fuzz ./$dir $target ($fuzztime)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime=5s "./$dir"
  done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' || true)
[ "$found" = 1 ] || echo "no fuzz targets"
