#!/usr/bin/env bash
# The 2-D / 3-D box part of the "rows at the speed of the index" benchmark in one go: lakeindex
# OTree tables through the Python module (bench/python_boxes.py) beside DuckDB (read_parquet over
# copies sorted by (x, y) / (x, y, z), and native tables sorted the same way) and SQLite (R*Tree),
# the same boxes on the same events data (bench/box_peers.mjs); prints a markdown table. Builds
# nothing itself.
#
#   bench/box_bench.sh [BUILD_DIR]        (default: build; needs BUILD_DIR/lakeindex and
#                                           BUILD_DIR/python/_lakeindex*.so)
#
# Environment: BOX_ROWS (default 10000000), BOX_SEED (42), BOX_RUNS (timed runs per box, 5),
# BOX_BOXES (boxes per selectivity, 5), BOX_CUBE_ROWS (100000), BOX_ENGINES (default
# "lakeindex duckdb sqlite").
# Needs bench/node_modules (better-sqlite3: `(cd bench && npm ci)`) and DuckDB from tests/duckdb.
# Cached under bench/data/events-<rows>-<seed>/ (gitignored; delete a file to redo it):
# events.parquet, and in box/: box_queries.json, otree_xy/ and otree_xyz/ (lakeindex; rebuilt
# when BUILD_DIR/lakeindex is newer than their .build.json), events_xy.parquet and
# events_xyz.parquet (DuckDB sorted copies), box.sqlite. Results: box/boxes.jsonl, box/boxes.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
rows=${BOX_ROWS:-10000000}
seed=${BOX_SEED:-42}
runs=${BOX_RUNS:-5}
nboxes=${BOX_BOXES:-5}
cube_rows=${BOX_CUBE_ROWS:-100000}
engines=${BOX_ENGINES:-lakeindex duckdb sqlite}
cli=$build/lakeindex
python=${BOX_PYTHON:-$root/.venv/bin/python}  # the project venv (scripts/python-env.sh)

log() { echo "[boxes $(date +%H:%M:%S)] $*" >&2; }
die() { echo "bench/box_bench.sh: $*" >&2; exit 1; }
has() { [[ " $engines " = *" $1 "* ]]; }

[[ -x $cli ]] || die "$cli is missing; build first (make build)"
node "$root/tests/duckdb/run.mjs" 'SELECT 1' >/dev/null 2>&1 || die "DuckDB (tests/duckdb) does not load; run scripts/install-deps.sh"
if has sqlite; then
  [[ -d $root/bench/node_modules/better-sqlite3 ]] || die "bench/node_modules/better-sqlite3 is missing; run (cd bench && npm ci)"
fi
if has lakeindex; then
  compgen -G "$build/python/_lakeindex*.so" >/dev/null || die "$build/python/_lakeindex*.so is missing (pybind11 not found at build time?)"
fi

data=$root/bench/data/events-$rows-$seed
dir=$data/box
mkdir -p "$dir"
src=$data/events.parquet
queries=$dir/box_queries.json
out=$dir/boxes.jsonl
node=(node --expose-gc "$root/bench/box_peers.mjs")
start_s=$(date +%s)

if [[ ! -f $src ]]; then
  log "generating $rows rows (seed $seed) into $src"
  "$cli" gen --rows "$rows" --seed "$seed" --output "$src.tmp.parquet" >&2
  mv "$src.tmp.parquet" "$src"
fi
if [[ ! -f $queries || $queries -ot $src ]]; then
  log "writing the boxes $queries"
  "${node[@]}" queries --src "$src" --output "$queries.tmp" --seed "$seed" --boxes "$nboxes"
  mv "$queries.tmp" "$queries"
fi

: >"$out"
if has lakeindex; then
  log "lakeindex (Python module, OTree tables)"
  PYTHONPATH=$build/python:$root/python${PYTHONPATH:+:$PYTHONPATH} "$python" "$root/bench/python_boxes.py" \
    --cli "$cli" --src "$src" --dir "$dir" --queries "$queries" --runs "$runs" --cube-rows "$cube_rows" \
    --version "$("$cli" --version 2>/dev/null | head -1)" >>"$out"
fi
if has duckdb; then
  log "DuckDB (read_parquet of sorted copies, then native sorted tables)"
  "${node[@]}" duckdb --src "$src" --dir "$dir" --queries "$queries" --runs "$runs" >>"$out"
fi
if has sqlite; then
  log "SQLite (R*Tree)"
  "${node[@]}" sqlite --src "$src" --db "$dir/box.sqlite" --queries "$queries" --runs "$runs" >>"$out"
fi
node "$root/bench/report_boxes.mjs" "$out" | tee "$dir/boxes.md"
log "results: $out, $dir/boxes.md ($(($(date +%s) - start_s)) s)"
