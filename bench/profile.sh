#!/usr/bin/env bash
# Where our side of a benchmark spends its time: runs one lakeindex measurement of bench/run.sh
# under `perf record` (cpu-clock, which works in VMs without hardware counters, with DWARF call
# graphs) and prints the top functions by self time and by inclusive time.
#
#   bench/profile.sh [BUILD_DIR] write|read|project|filter
#
# Uses the data cached by bench/run.sh (run it first, same BENCH_ROWS / BENCH_SEED). Release builds
# keep symbols, so functions are named; inlined callees are counted in their callers.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -ge 2 ]]; then build_arg=$1; shift; else build_arg=build; fi
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
what=${1:?usage: bench/profile.sh [BUILD_DIR] write|read|project|filter}
rows=${BENCH_ROWS:-10000000}
seed=${BENCH_SEED:-42}
data=$root/bench/data/events-$rows-$seed
[[ -f $data/scan_queries.tsv ]] || { echo "no data in $data: run bench/run.sh first" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $what in
  write) cmd=("$build/parquet_bench" write --rows "$rows" --seed "$seed" --dir "$tmp" --codec zstd) ;;
  read) cmd=("$build/parquet_bench" read --dir "$data" lakeindex_zstd.parquet) ;;
  project) cmd=("$build/scan_bench" "$data/scan_queries.tsv" project_xy_sum) ;;
  filter) cmd=("$build/scan_bench" "$data/scan_queries.tsv" filter_score_1pct) ;;
  *) echo "unknown benchmark '$what'" >&2; exit 1 ;;
esac

perf record -q -e cpu-clock -F 999 --call-graph dwarf,16384 -o "$tmp/perf.data" -- "${cmd[@]}" >&2
set +o pipefail  # `head` closes the pipes early
echo "== self time, by shared object"
perf report -i "$tmp/perf.data" --stdio --no-children --sort dso -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -6
echo "== self time, top functions"
perf report -i "$tmp/perf.data" --stdio --no-children --sort dso,symbol -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
echo "== inclusive time, lakeindex functions"
perf report -i "$tmp/perf.data" --stdio --children --sort symbol -g none 2>/dev/null | grep -v '^#' | grep 'lakeindex::' | head -25
