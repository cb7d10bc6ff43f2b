#!/usr/bin/env bash
# Layout benchmark of issue 9: the OTree layout against the comparison layouts (sort, Z-order,
# Hilbert) and the plain (unsorted) table, lakeindex and DuckDB reading the same files, plus
# sampling and layout time. Called by bench/run.sh (BENCH_LAYOUT=1, the default) after its other
# parts, appending to its results file; runnable alone:
#
#   bench/layout_bench.sh [BUILD_DIR] [RESULTS.jsonl]
#
# Alone (no RESULTS argument) it writes bench/data/events-<rows>-<seed>/layout_results.jsonl
# (fresh, with a {"meta": ...} line) and renders it with `node bench/report_layout.mjs` into
# layout_report.md beside it. bench/RESULTS.md is never touched here.
#
# Environment (as bench/run.sh): BENCH_ROWS (10000000), BENCH_SEED (42), BENCH_ROUNDS (3);
# BENCH_LAYOUT_POSITIONS (3): boxes per selectivity; BENCH_LAYOUT_CUBE_ROWS (100000): the OTree's
# cube rows and the row-group rows of the comparison layouts; BENCH_LAYOUT_ARGS: extra options
# for every `layout` command (e.g. "--slices 8 --page-rows 64").
#
# Per round: the (x,y) layouts are redone and timed (OTree, sort, Z-order, Hilbert) beside
# DuckDB's sorted COPY; the (x,y,z) and (x,z) layouts are made and timed in round 1 only. Then
# every query box on every layout of its columns, ours (`explain --analyze --json`, one process
# per query) then DuckDB (one connection per layout), and the samples. DuckDB's row-group counters
# are taken in round 1 only (they do not vary).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
rows=${BENCH_ROWS:-10000000}
seed=${BENCH_SEED:-42}
rounds=${BENCH_ROUNDS:-3}
positions=${BENCH_LAYOUT_POSITIONS:-3}
cube_rows=${BENCH_LAYOUT_CUBE_ROWS:-100000}
read -r -a extra <<<"${BENCH_LAYOUT_ARGS:-}"
cli=$build/lakeindex
lb=(node "$root/bench/layout_bench.mjs")
[[ -x $cli ]] || { echo "bench/layout_bench.sh: $cli is missing; build the lakeindex_cli target" >&2; exit 1; }

data=$root/bench/data/events-$rows-$seed
ldir=$data/layout
mkdir -p "$ldir"
alone=0
if [[ -n ${2:-} ]]; then
  results=$2
else
  alone=1
  results=$data/layout_results.jsonl
  : >"$results"
fi

log() { echo "[layout $(date +%H:%M:%S)] $*" >&2; }
json_str() { node -e 'process.stdout.write(JSON.stringify(process.argv[1]))' -- "$1"; }
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
date_start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
start_s=$(date +%s)

# ---- data (cached) -----------------------------------------------------------------------------
if [[ ! -f $data/events.parquet ]]; then
  log "generating $rows events rows"
  "$cli" gen --rows "$rows" --seed "$seed" --output "$data/events.parquet.tmp.parquet"
  mv "$data/events.parquet.tmp.parquet" "$data/events.parquet"
fi
# The plain table: the generated (unsorted) rows, files of 1M rows. Every layout starts from a
# hard-linked copy of it (a commit only creates files, so the copies never share a written file).
if [[ ! -d $ldir/plain/_versions ]]; then
  log "creating the plain table"
  rm -rf "$ldir/plain"
  "$cli" create "$ldir/plain" --from "$data/events.parquet" --rows-per-file 1000000
fi
"${lb[@]}" boxes --src "$data/events.parquet" --seed "$seed" --positions "$positions" >"$ldir/boxes.tsv"

kinds=(otree hilbert zorder sort)
# lay_out SET KIND: the table $ldir/<set>_<kind>, laid out on the set's columns.
lay_out() {
  local set=$1 kind=$2 columns
  case $set in xy) columns=x,y ;; xyz) columns=x,y,z ;; xz) columns=x,z ;; esac
  log "layout $kind ($columns)"
  "${lb[@]}" layout --cli "$cli" --base "$ldir/plain" --table "$ldir/${set}_$kind" --layout "$kind $set" -- \
    "--$kind" "$columns" --cube-rows "$cube_rows" --rows-per-file 1000000 "${extra[@]}" >>"$results"
}

for ((r = 1; r <= rounds; ++r)); do
  echo "{\"round\": $r}" >>"$results"
  log "round $r/$rounds: layouts"
  for kind in "${kinds[@]}"; do lay_out xy "$kind"; done
  "${lb[@]}" copy --src "$data/events.parquet" --out "$ldir/duckdb_sorted.parquet" --order x,y >>"$results"
  if ((r == 1)); then
    for set in xyz xz; do
      for kind in "${kinds[@]}"; do lay_out "$set" "$kind"; done
    done
  fi
  counters=()
  ((r == 1)) && counters=(--counters)
  log "round $r/$rounds: boxes"
  # table \t layout label \t box sets
  while IFS=$'\t' read -r table label sets; do
    "${lb[@]}" ours --cli "$cli" --table "$ldir/$table" --layout "$label" --queries "$ldir/boxes.tsv" --sets "$sets" >>"$results"
    "${lb[@]}" duck --table "$ldir/$table" --layout "$label" --queries "$ldir/boxes.tsv" --sets "$sets" "${counters[@]}" >>"$results"
  done <<EOF
plain	plain	xy,xyz,xz
$(for set in xy xyz xz; do for kind in "${kinds[@]}"; do printf '%s_%s\t%s %s\t%s\n' "$set" "$kind" "$kind" "$set" "$set"; done; done)
EOF
  log "round $r/$rounds: samples"
  for set in xy xyz xz; do
    "${lb[@]}" sample-ours --cli "$cli" --table "$ldir/${set}_otree" --layout "otree $set" --fractions 0.001,0.01,0.1 >>"$results"
  done
  "${lb[@]}" sample-duck --src "$data/events.parquet" --fractions 0.001,0.01,0.1 >>"$results"
done

# The OTree's own account of its shape (depth, cubes, rows per cube), for the report.
for set in xy xyz xz; do
  printf '{"bench": "layout", "part": "stats", "layout": "otree %s", "text": %s}\n' "$set" \
    "$(json_str "$("$cli" stats "$ldir/${set}_otree" | sed -n '/^layout:/,$p')")" >>"$results"
done

build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
cmd="bench/layout_bench.sh ${1:-build}"
[[ $rows = 10000000 ]] || cmd="BENCH_ROWS=$rows $cmd"
[[ $rounds = 3 ]] || cmd="BENCH_ROUNDS=$rounds $cmd"
[[ -z ${BENCH_LAYOUT_ARGS:-} ]] || cmd="BENCH_LAYOUT_ARGS='$BENCH_LAYOUT_ARGS' $cmd"
[[ $cube_rows = 100000 ]] || cmd="BENCH_LAYOUT_CUBE_ROWS=$cube_rows $cmd"
[[ $positions = 3 ]] || cmd="BENCH_LAYOUT_POSITIONS=$positions $cmd"
{
  printf '{"meta": {'
  printf '"layout_command": %s, ' "$(json_str "$cmd")"
  printf '"layout_date_start": "%s", "layout_date_end": "%s", ' "$date_start" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf '"layout_load_start": "%s", "layout_load_end": "%s", ' "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)"
  printf '"layout_git": %s, ' "$(json_str "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)')")"
  printf '"layout_build": %s, ' "$(json_str "$build ($build_type)")"
  printf '"layout_rows": %s, "layout_seed": %s, "layout_rounds": %s, "layout_cube_rows": %s, ' "$rows" "$seed" "$rounds" "$cube_rows"
  printf '"layout_positions": %s, "layout_args": %s, ' "$positions" "$(json_str "${BENCH_LAYOUT_ARGS:-}")"
  printf '"nproc": %s, "cpu_model": %s, ' "$(nproc)" "$(json_str "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)")"
  printf '"layout_elapsed_s": %s' "$(($(date +%s) - start_s))"
  printf '}}\n'
} >>"$results"
if ((alone)); then
  node "$root/bench/report_layout.mjs" "$results" >"$data/layout_report.md"
  log "wrote $results and $data/layout_report.md ($(($(date +%s) - start_s)) s)"
else
  log "layout benchmark done ($(($(date +%s) - start_s)) s)"
fi
