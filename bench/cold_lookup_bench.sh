#!/usr/bin/env bash
# Cold and warm whole-row lookups beside pylance, SQLite and DuckDB (issue 52), in one go: the
# lakeindex Python module and command line, pylance (a BTREE scalar index), SQLite (indexed table)
# and DuckDB (read_parquet of the same Parquet files, no index) on the same keys over the same
# events rows; prints a markdown report (bench/cold_lookup_bench.py says what is measured how).
# Builds nothing itself.
#
#   bench/cold_lookup_bench.sh [BUILD_DIR]      (default: build; needs BUILD_DIR/lakeindex and
#                                                BUILD_DIR/python/_lakeindex*.so)
#
# Environment: LOOKUP_ROWS (default 2000000), LOOKUP_SEED (42), COLD_KEYS (keys a query, each a new
# process per engine, 10), WARM_KEYS (keys of each warm set, new and cached, 50), SCAN_KEYS (at
# most this many keys for DuckDB's full scans, 5), COLD_ENGINES (default "lakeindex_py
# lakeindex_prewarm lakeindex_cli lance sqlite duckdb"; lakeindex_prewarm, the module with
# Table.prewarm(cache_capacity=PREWARM_CACHE_MB MiB, default 4096; 0: the default cache) after the
# open, runs warm only). A smoke run: LOOKUP_ROWS=20000 COLD_KEYS=2 WARM_KEYS=3.
# Python: .venv-bench (pylance, DuckDB, pyarrow, numpy; pinned in bench/requirements.txt), made
# here by scripts/python-env.sh --bench when missing or stale (BENCH_PYTHON overrides it: a Python
# with numpy, pyarrow, duckdb, and pylance when "lance" is among the engines).
# Cached under bench/data/events-<rows>-<seed>/ (gitignored; delete a file to rebuild it), shared
# with bench/lookup_bench.sh: events.parquet, lookup_table/ (lakeindex, 1M rows per file, BTree on
# id, score, name; rebuilt when BUILD_DIR/lakeindex is newer); this benchmark's own: lance_py/
# (rebuilt for another pylance), cold_lookups.sqlite, cold_keys.json. Results: cold_lookups.jsonl
# and cold_lookups.md there.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lookup_table.sh
. "$root/bench/lookup_table.sh"
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
rows=${LOOKUP_ROWS:-2000000}
seed=${LOOKUP_SEED:-42}
engines=${COLD_ENGINES:-lakeindex_py lakeindex_prewarm lakeindex_cli lance sqlite duckdb}
cli=$build/lakeindex

log() { echo "[cold_lookups $(date +%H:%M:%S)] $*" >&2; }
die() { echo "bench/cold_lookup_bench.sh: $*" >&2; exit 1; }

[[ -x $cli ]] || die "$cli is missing; build first (make build)"
compgen -G "$build/python/_lakeindex*.so" >/dev/null || die "$build/python/_lakeindex*.so is missing (pybind11 not found at build time?)"
if [[ -n ${BENCH_PYTHON:-} ]]; then
  python=$BENCH_PYTHON
else
  "$root/scripts/python-env.sh" --bench || die "scripts/python-env.sh --bench failed"
  python=$root/.venv-bench/bin/python
fi

data=$root/bench/data/events-$rows-$seed
mkdir -p "$data"
src=$data/events.parquet
table=$data/lookup_table
if [[ ! -f $src ]]; then
  log "generating $rows rows (seed $seed) into $src"
  "$cli" gen --rows "$rows" --seed "$seed" --output "$src.tmp.parquet" >&2
  mv "$src.tmp.parquet" "$src"
fi
ensure_lookup_table "$cli" "$src" "$table"  # the same table as bench/lookup_bench.sh's

PYTHONPATH=$build/python:$root/python${PYTHONPATH:+:$PYTHONPATH} "$python" "$root/bench/cold_lookup_bench.py" run \
  --data "$data" --src "$src" --table "$table" --cli "$cli" --seed "$seed" \
  --cold-keys "${COLD_KEYS:-10}" --warm-keys "${WARM_KEYS:-50}" --scan-keys "${SCAN_KEYS:-5}" --engines "$engines"
