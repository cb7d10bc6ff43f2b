#!/usr/bin/env bash
# The whole-row lookup benchmark (issue 16) in one go: lakeindex (through the library,
# `index_bench lookups`, and through its Python module) and its peers Lance, DuckDB (ART indexes / read_parquet) and SQLite on the same query set over the
# same events data; prints a markdown table. Builds nothing itself.
#
#   bench/lookup_bench.sh [BUILD_DIR]        (default: build; needs BUILD_DIR/lakeindex,
#                                              BUILD_DIR/index_bench and BUILD_DIR/python/_lakeindex*.so)
#
# Environment: LOOKUP_ROWS (default 10000000), LOOKUP_SEED (42), LOOKUP_RUNS (timed runs of a
# non-point query, 5), LOOKUP_POINTS (points of a point query, 200), LOOKUP_PY_POINTS (at most
# this many points on the lakeindex side, default LOOKUP_POINTS), LOOKUP_SCAN_POINTS (points on
# DuckDB read_parquet, each a full scan, 20), LOOKUP_ENGINES (default "lakeindex lance duckdb
# sqlite").
# Needs bench/node_modules: `(cd bench && npm ci)` (@lancedb/lancedb, apache-arrow,
# better-sqlite3) and DuckDB from tests/duckdb (scripts/install-deps.sh).
# Cached under bench/data/events-<rows>-<seed>/ (gitignored; delete a file to rebuild it):
# events.parquet, lookup_queries.json, lookup_table/ (lakeindex, 1M rows per file, BTree on id,
# score, name; rebuilt when BUILD_DIR/lakeindex is newer, as the file layout may have changed),
# lance/, lookups.sqlite. Results: lookups.jsonl and lookups.md there.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lookup_table.sh
. "$root/bench/lookup_table.sh"
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
rows=${LOOKUP_ROWS:-10000000}
seed=${LOOKUP_SEED:-42}
runs=${LOOKUP_RUNS:-5}
points=${LOOKUP_POINTS:-200}
py_points=${LOOKUP_PY_POINTS:-$points}
scan_points=${LOOKUP_SCAN_POINTS:-20}
engines=${LOOKUP_ENGINES:-lakeindex lance duckdb sqlite}
cli=$build/lakeindex
python=${LOOKUP_PYTHON:-$root/.venv/bin/python}  # the project venv (scripts/python-env.sh)

log() { echo "[lookups $(date +%H:%M:%S)] $*" >&2; }
die() { echo "bench/lookup_bench.sh: $*" >&2; exit 1; }
has() { [[ " $engines " = *" $1 "* ]]; }

[[ -x $cli ]] || die "$cli is missing; build first (make build)"
if has lakeindex; then
  [[ -x $build/index_bench ]] || die "$build/index_bench is missing; build with benchmarks on (make build)"
fi
node "$root/tests/duckdb/run.mjs" 'SELECT 1' >/dev/null 2>&1 || die "DuckDB (tests/duckdb) does not load; run scripts/install-deps.sh"
for m in @lancedb/lancedb apache-arrow better-sqlite3; do
  [[ -d $root/bench/node_modules/$m ]] || die "bench/node_modules/$m is missing; run (cd bench && npm ci)"
done
if has lakeindex; then
  compgen -G "$build/python/_lakeindex*.so" >/dev/null || die "$build/python/_lakeindex*.so is missing (pybind11 not found at build time?)"
fi

data=$root/bench/data/events-$rows-$seed
mkdir -p "$data"
src=$data/events.parquet
queries=$data/lookup_queries.json
table=$data/lookup_table
out=$data/lookups.jsonl
node=(node --expose-gc "$root/bench/lookup_peers.mjs")

if [[ ! -f $src ]]; then
  log "generating $rows rows (seed $seed) into $src"
  "$cli" gen --rows "$rows" --seed "$seed" --output "$src.tmp.parquet" >&2
  mv "$src.tmp.parquet" "$src"
fi
if [[ ! -f $queries || $queries -ot $src ]]; then
  log "writing the query set $queries"
  "${node[@]}" queries --src "$src" --output "$queries.tmp" --seed "$seed" --points "$points"
  mv "$queries.tmp" "$queries"
fi

if has lakeindex; then
  ensure_lookup_table "$cli" "$src" "$table"
fi

: >"$out"
if has lakeindex; then
  log "lakeindex (library: index_bench lookups)"
  "$build/index_bench" lookups --table "$table" --queries "$queries" --repeat "$runs" >>"$out"
  log "lakeindex (Python module)"
  PYTHONPATH=$build/python:$root/python${PYTHONPATH:+:$PYTHONPATH} "$python" "$root/bench/python_lookups.py" \
    --table "$table" --queries "$queries" --runs "$runs" --points "$py_points" --build "$table.build.json" \
    --version "$("$cli" --version 2>/dev/null | head -1)" >>"$out"
fi
if has lance; then
  log "Lance"
  "${node[@]}" lance --src "$src" --dir "$data/lance" --queries "$queries" --runs "$runs" --points "$points" >>"$out"
fi
if has duckdb; then
  log "DuckDB (in-memory table with ART indexes, then read_parquet)"
  "${node[@]}" duckdb --src "$src" --queries "$queries" --runs "$runs" --points "$points" \
    --scan-points "$scan_points" >>"$out"
fi
if has sqlite; then
  log "SQLite"
  "${node[@]}" sqlite --src "$src" --db "$data/lookups.sqlite" --queries "$queries" --runs "$runs" \
    --points "$points" >>"$out"
fi
node "$root/bench/report_lookups.mjs" "$out" | tee "$data/lookups.md"
log "results: $out, $data/lookups.md"
