#!/usr/bin/env bash
# The aggregate benchmark (issue 20) in one run: lakeindex through its Python module
# (bench/python_aggregates.py) and DuckDB (bench/aggregate_peers.mjs, 2 threads) over the same
# events rows, hot; prints the JSON lines and keeps them in aggregates.jsonl.
#
#   bench/aggregate_bench.sh [BUILD_DIR]      (default: build)
#
# Environment: AGG_ROWS (default 10000000), AGG_SEED (42), AGG_RUNS (5).
# Cached under bench/data/events-<rows>-<seed>/ (gitignored): events.parquet, agg_table/
# (1M rows per file, BTree on score), agg_otree/ (OTree on x, y). Delete one to rebuild it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
rows=${AGG_ROWS:-10000000}
seed=${AGG_SEED:-42}
runs=${AGG_RUNS:-5}
cli=$build/lakeindex
log() { echo "[aggregates $(date +%H:%M:%S)] $*" >&2; }

data=$root/bench/data/events-$rows-$seed
mkdir -p "$data"
if [[ ! -f $data/events.parquet ]]; then
  log "generating $rows rows"
  "$cli" gen --rows "$rows" --seed "$seed" --output "$data/events.tmp.parquet" >&2
  mv "$data/events.tmp.parquet" "$data/events.parquet"
fi
if [[ ! -d $data/agg_table ]]; then
  log "creating agg_table (BTree on score)"
  "$cli" create "$data/agg_table.tmp" --from "$data/events.parquet" --rows-per-file 1000000 >&2
  "$cli" index create "$data/agg_table.tmp" --column score --type btree >&2
  mv "$data/agg_table.tmp" "$data/agg_table"
fi
if [[ ! -d $data/agg_otree ]]; then
  log "creating agg_otree (OTree on x, y)"
  "$cli" create "$data/agg_otree.tmp" --from "$data/events.parquet" --rows-per-file 1000000 >&2
  "$cli" layout "$data/agg_otree.tmp" --otree x,y >&2
  mv "$data/agg_otree.tmp" "$data/agg_otree"
fi

out=$data/aggregates.jsonl
: >"$out"
log "lakeindex (Python module)"
PYTHONPATH=$build/python:$root/python "$root/.venv/bin/python" "$root/bench/python_aggregates.py" \
  --table "$data/agg_table" --otree "$data/agg_otree" --runs "$runs" | tee -a "$out"
log "DuckDB (2 threads)"
node "$root/bench/aggregate_peers.mjs" --threads 2 --runs "$runs" \
  --source "parquet=$data/events.parquet" --source "table_files=$data/agg_table/data/*.parquet" | tee -a "$out"
