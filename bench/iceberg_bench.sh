#!/usr/bin/env bash
# Iceberg metadata (issue 19): what keeping it costs per command on the 10M-row events table,
# and how many files and bytes an Iceberg planner reads for the (x, y) boxes of the layout
# benchmark by the manifests' bounds, beside lakeindex itself. See bench/iceberg_bench.mjs.
#
#   bench/iceberg_bench.sh [BUILD_DIR]      (default: build; needs BUILD_DIR/lakeindex, node,
#                                            tests/iceberg's icebird and bench's DuckDB)
# Environment: BENCH_ROWS (10000000), BENCH_SEED (42).
# Results: bench/data/iceberg_bench.jsonl and markdown tables on stdout.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
rows=${BENCH_ROWS:-10000000}
seed=${BENCH_SEED:-42}
cli=$build/lakeindex
data=$root/bench/data/events-$rows-$seed
scratch=$root/bench/data/iceberg
out=$root/bench/data/iceberg_bench.jsonl
[[ -x $cli ]] || { echo "bench/iceberg_bench.sh: $cli is missing; build the lakeindex_cli target" >&2; exit 1; }
mkdir -p "$data" "$scratch"
[[ -f $data/events.parquet ]] || "$cli" gen --rows "$rows" --seed "$seed" --output "$data/events.parquet"
[[ -f $scratch/more.parquet ]] || "$cli" gen --rows 100000 --seed 5 --output "$scratch/more.parquet"
node "$root/bench/layout_bench.mjs" boxes --src "$data/events.parquet" --seed "$seed" --positions 3 >"$scratch/boxes.tsv"
echo "[iceberg $(date +%H:%M:%S)] git $(git -C "$root" rev-parse --short HEAD), $rows rows" >&2
node "$root/bench/iceberg_bench.mjs" --cli "$cli" --events "$data/events.parquet" --more "$scratch/more.parquet" \
  --boxes "$scratch/boxes.tsv" --dir "$scratch" >"$out"
node "$root/bench/iceberg_bench.mjs" report "$out"
