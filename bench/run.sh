#!/usr/bin/env bash
# End-to-end benchmarks of lakeindex against DuckDB on the same files, in one run; rewrites
# bench/RESULTS.md. Called by `make bench` (which builds first); builds nothing itself.
#
#   bench/run.sh [BUILD_DIR]        (default: build)
#
# Environment: BENCH_ROWS (default 10000000), BENCH_SEED (42), BENCH_ROUNDS (3),
# BENCH_OUT (default bench/RESULTS.md); BENCH_INDEX (default 1: also the index benchmarks, BTree
# vs DuckDB ART / SQLite / in-memory and zone map vs DuckDB, after the rounds) on their own data
# of BENCH_INDEX_ROWS rows (default 10000000), each measurement BENCH_INDEX_REPEAT times (5);
# BENCH_LOOKUPS (default 1: also the whole-row lookups beside Lance, DuckDB and SQLite of issue
# 16, bench/lookup_bench.sh, after the index benchmarks; needs `(cd bench && npm ci)`);
# BENCH_LAYOUT (default 1: also the layout benchmarks of issue 9, bench/layout_bench.sh, last).
# The index peers need SQLite: `(cd bench && npm ci)` (better-sqlite3, bench/package.json).
# Generated data is cached under bench/data/events-<rows>-<seed>/ (gitignored); delete it to
# regenerate. Each round runs every measurement once, lakeindex and DuckDB alternating, so that
# changes in machine load hit both; the report quotes medians over the rounds.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
rows=${BENCH_ROWS:-10000000}
seed=${BENCH_SEED:-42}
rounds=${BENCH_ROUNDS:-3}
out=${BENCH_OUT:-$root/bench/RESULTS.md}
index=${BENCH_INDEX:-1}
index_rows=${BENCH_INDEX_ROWS:-10000000}
index_repeat=${BENCH_INDEX_REPEAT:-5}
layout=${BENCH_LAYOUT:-1}
lookups=${BENCH_LOOKUPS:-1}

cli=$build/lakeindex
pq=$build/parquet_bench
scan=$build/scan_bench
ib=$build/index_bench
exes=("$cli" "$pq" "$scan")
[[ $index = 1 ]] && exes+=("$ib")
for exe in "${exes[@]}"; do
  if [[ ! -x $exe ]]; then
    echo "bench/run.sh: $exe is missing; build with benchmarks on (make build, or cmake -DLAKEINDEX_BENCH=ON)" >&2
    exit 1
  fi
done
duck=(node "$root/bench/duckdb_bench.mjs")
if ! node "$root/tests/duckdb/run.mjs" 'SELECT 1' >/dev/null; then
  echo "bench/run.sh: DuckDB (tests/duckdb) does not load; run scripts/install-deps.sh" >&2
  exit 1
fi
if [[ $index = 1 ]] && ! node -e "require(process.argv[1])" "$root/bench/node_modules/better-sqlite3" 2>/dev/null; then
  echo "bench/run.sh: better-sqlite3 is missing for the index benchmarks; run (cd bench && npm ci), or BENCH_INDEX=0" >&2
  exit 1
fi

data=$root/bench/data/events-$rows-$seed
mkdir -p "$data"
results=$data/results.jsonl
: >"$results"

log() { echo "[bench $(date +%H:%M:%S)] $*" >&2; }
json_str() { node -e 'process.stdout.write(JSON.stringify(process.argv[1]))' "$1"; }

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
date_start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
start_s=$(date +%s)

# ---- data (cached) ---------------------------------------------------------------------------
# prepare_data DIR ROWS: the events file, its copy sorted by ts, a table of each, and the scan
# queries pointing at DIR.
prepare_data() {
  local dir=$1 n=$2 t
  mkdir -p "$dir"
  if [[ ! -f $dir/events.parquet ]]; then
    log "generating $n events rows"
    "$cli" gen --rows "$n" --seed "$seed" --output "$dir/events.parquet.tmp.parquet"
    mv "$dir/events.parquet.tmp.parquet" "$dir/events.parquet"
  fi
  if [[ ! -f $dir/events_by_ts.parquet ]]; then
    log "generating the copy sorted by ts"
    "$pq" sortgen --rows "$n" --seed "$seed" --output "$dir/events_by_ts.tmp.parquet"
    mv "$dir/events_by_ts.tmp.parquet" "$dir/events_by_ts.parquet"
  fi
  for t in events events_by_ts; do
    if [[ ! -d $dir/tables/$t/_versions ]]; then
      log "creating table $t"
      rm -rf "$dir/tables/$t"
      mkdir -p "$dir/tables"
      "$cli" create "$dir/tables/$t" --from "$dir/$t.parquet" --rows-per-file 1000000
    fi
  done
  sed "s#{data}#$dir#g" "$root/bench/scan_queries.tsv" >"$dir/scan_queries.tsv"
}
prepare_data "$data" "$rows"

# ---- measurements ----------------------------------------------------------------------------
for ((r = 1; r <= rounds; ++r)); do
  echo "{\"round\": $r}" >>"$results"
  log "round $r/$rounds: write"
  "$pq" write --rows "$rows" --seed "$seed" --dir "$data" --codec zstd,snappy >>"$results"
  "${duck[@]}" write --threads 1 --src "$data/events.parquet" --dir "$data" >>"$results"
  log "round $r/$rounds: read"
  "$pq" read --dir "$data" lakeindex_zstd.parquet duckdb_zstd.parquet duckdb_snappy.parquet >>"$results"
  "${duck[@]}" read --threads 1 "$data/lakeindex_zstd.parquet" "$data/duckdb_zstd.parquet" \
    "$data/duckdb_snappy.parquet" >>"$results"
  log "round $r/$rounds: scans"
  "$scan" "$data/scan_queries.tsv" >>"$results"
  counters=()
  ((r == 1)) && counters=(--counters)  # load-independent counters once (they re-run each query)
  "${duck[@]}" scan --threads 1 "${counters[@]}" "$data/scan_queries.tsv" >>"$results"
  "${duck[@]}" scan --threads default "$data/scan_queries.tsv" >>"$results"
done

# ---- index benchmarks (issues 4 and 5) -------------------------------------------------------
if [[ $index = 1 ]]; then
  idata=$root/bench/data/events-$index_rows-$seed
  prepare_data "$idata" "$index_rows"
  # Fresh copies that get the indexes (the tables above stay index-free for the scans).
  rm -rf "$idata/tables/events_idx" "$idata/tables/events_by_ts_idx" "$idata/scratch"
  cp -r "$idata/tables/events" "$idata/tables/events_idx"
  cp -r "$idata/tables/events_by_ts" "$idata/tables/events_by_ts_idx"
  queries=$idata/index_queries.json
  "$ib" queries --rows "$index_rows" --seed "$seed" --output "$queries"
  log "index: btree, lakeindex ($index_rows rows)"
  "$ib" btree --table "$idata/tables/events_idx" --queries "$queries" --scratch "$idata/scratch" \
    --repeat "$index_repeat" >>"$results"
  for ((i = 0; i < 11; ++i)); do  # whole-row point lookups, each in a new process
    "$ib" rows-once --table "$idata/tables/events_idx" --queries "$queries" --query "point id" --i "$i" >>"$results"
  done
  log "index: btree, DuckDB"
  node "$root/bench/index_peers.mjs" duckdb --src "$idata/events.parquet" --table "$idata/tables/events" \
    --queries "$queries" --repeat "$index_repeat" >>"$results"
  log "index: btree, SQLite"
  node "$root/bench/index_peers.mjs" sqlite --src "$idata/events.parquet" --db "$idata/events.sqlite" \
    --queries "$queries" --repeat "$index_repeat" >>"$results"
  log "index: zone map"
  "$ib" zonemap --table "$idata/tables/events_by_ts_idx" --queries "$idata/scan_queries.tsv" \
    --repeat "$index_repeat" ts_0.1pct_sorted ts_1pct_sorted >>"$results"
  for threads in 1 default; do
    "${duck[@]}" scan --threads "$threads" --counters --repeat "$index_repeat" --bench zonemap \
      "$idata/scan_queries.tsv" ts_0.1pct_sorted ts_1pct_sorted >>"$results"
  done
  rm -rf "$idata/scratch"
fi

# ---- whole-row lookups beside Lance (issue 16): bench/lookup_bench.sh -----------------------------
if [[ $lookups = 1 ]]; then
  log "lookups beside Lance, DuckDB and SQLite (bench/lookup_bench.sh)"
  LOOKUP_ROWS=$index_rows LOOKUP_SEED=$seed "$root/bench/lookup_bench.sh" "$build" >&2
  cat "$root/bench/data/events-$index_rows-$seed/lookups.jsonl" >>"$results"
fi

# ---- layouts (issue 9): bench/layout_bench.sh, appending to the same results ----------------------
if [[ $layout = 1 ]]; then
  log "layouts (bench/layout_bench.sh)"
  "$root/bench/layout_bench.sh" "$build" "$results"
fi

# ---- report ----------------------------------------------------------------------------------
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
cmd="bench/run.sh ${1:-build}"
[[ $rows = 10000000 ]] || cmd="BENCH_ROWS=$rows $cmd"
[[ $rounds = 3 ]] || cmd="BENCH_ROUNDS=$rounds $cmd"
[[ $index = 1 ]] || cmd="BENCH_INDEX=$index $cmd"
[[ $index_rows = 10000000 ]] || cmd="BENCH_INDEX_ROWS=$index_rows $cmd"
[[ $index_repeat = 5 ]] || cmd="BENCH_INDEX_REPEAT=$index_repeat $cmd"
[[ $layout = 1 ]] || cmd="BENCH_LAYOUT=$layout $cmd"
[[ $lookups = 1 ]] || cmd="BENCH_LOOKUPS=$lookups $cmd"
{
  printf '{"meta": {'
  printf '"command": %s, ' "$(json_str "$cmd   (or: make bench)")"
  printf '"date_start": "%s", "date_end": "%s", ' "$date_start" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf '"nproc": %s, ' "$(nproc)"
  printf '"cpu_model": %s, ' "$(json_str "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)")"
  printf '"mem_total": %s, ' "$(json_str "$(awk '/MemTotal/ {printf "%.1f GiB RAM", $2 / 1048576}' /proc/meminfo)")"
  printf '"load_start": "%s", "load_end": "%s", ' "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf '"git": %s, ' "$(json_str "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)')")"
  printf '"build_dir": %s, "build_type": %s, ' "$(json_str "$build")" "$(json_str "${build_type:-default}")"
  printf '"rows": %s, "seed": %s, "rounds": %s, ' "$rows" "$seed" "$rounds"
  printf '"index": %s, "index_rows": %s, "index_repeat": %s, ' "$index" "$index_rows" "$index_repeat"
  printf '"elapsed_s": %s' "$(($(date +%s) - start_s))"
  printf '}}\n'
} >>"$results"
node "$root/bench/report.mjs" "$results" >"$out"
log "wrote $out ($(($(date +%s) - start_s)) s)"
