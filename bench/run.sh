#!/usr/bin/env bash
# End-to-end benchmarks of lakeindex against DuckDB on the same files, in one run; rewrites
# bench/RESULTS.md. Called by `make bench` (which builds first); builds nothing itself.
#
#   bench/run.sh [BUILD_DIR]        (default: build)
#
# Environment: BENCH_ROWS (default 10000000), BENCH_SEED (42), BENCH_ROUNDS (3),
# BENCH_OUT (default bench/RESULTS.md).
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

cli=$build/lakeindex
pq=$build/parquet_bench
scan=$build/scan_bench
for exe in "$cli" "$pq" "$scan"; do
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
if [[ ! -f $data/events.parquet ]]; then
  log "generating $rows events rows"
  "$cli" gen --rows "$rows" --seed "$seed" --output "$data/events.parquet.tmp.parquet"
  mv "$data/events.parquet.tmp.parquet" "$data/events.parquet"
fi
if [[ ! -f $data/events_by_ts.parquet ]]; then
  log "generating the copy sorted by ts"
  "$pq" sortgen --rows "$rows" --seed "$seed" --output "$data/events_by_ts.tmp.parquet"
  mv "$data/events_by_ts.tmp.parquet" "$data/events_by_ts.parquet"
fi
for t in events events_by_ts; do
  if [[ ! -d $data/tables/$t/_versions ]]; then
    log "creating table $t"
    rm -rf "$data/tables/$t"
    mkdir -p "$data/tables"
    "$cli" create "$data/tables/$t" --from "$data/$t.parquet" --rows-per-file 1000000
  fi
done
sed "s#{data}#$data#g" "$root/bench/scan_queries.tsv" >"$data/scan_queries.tsv"

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

# ---- report ----------------------------------------------------------------------------------
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
cmd="bench/run.sh ${1:-build}"
[[ $rows = 10000000 ]] || cmd="BENCH_ROWS=$rows $cmd"
[[ $rounds = 3 ]] || cmd="BENCH_ROUNDS=$rounds $cmd"
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
  printf '"elapsed_s": %s' "$(($(date +%s) - start_s))"
  printf '}}\n'
} >>"$results"
node "$root/bench/report.mjs" "$results" >"$out"
log "wrote $out ($(($(date +%s) - start_s)) s)"
