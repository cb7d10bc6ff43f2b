#!/usr/bin/env bash
# Loads and builds beside pylance and DuckDB (issue 52's "create, btree builds and layout ≤ pylance's
# and DuckDB's sorted COPY"): each step a new process under /usr/bin/time (wall, CPU, peak RSS) with
# the bytes it leaves, lakeindex beside its peer on the same source Parquet:
#   create      `lakeindex create T --from SRC` (defaults: 1M rows per file)
#               vs pylance `lance.write_dataset` of SRC read through a pyarrow dataset scanner
#               (streaming; its defaults)
#   btree       `lakeindex index create T --column C --type btree`, C = id, name
#               vs pylance `create_scalar_index(C, "BTREE")` on that dataset
#   layout      `lakeindex layout T2 --otree x,y` (T2: a hard-linked copy of the created table, no
#               index to rebuild; bytes: what the layout added)
#               vs DuckDB `COPY (SELECT * FROM read_parquet(SRC) ORDER BY x, y) TO F (FORMAT parquet,
#               COMPRESSION zstd)` (zstd as lakeindex writes; tests/duckdb's DuckDB through Node, as
#               bench/layout_bench.mjs and bench/large_bench.sh run it)
# LOAD_ROUNDS rounds, each from nothing; the report gives medians and lakeindex ÷ peer ratios. After
# the last round bench/load_bench.py checks the outputs (row counts and sums equal to the source's,
# DuckDB's output in (x, y) order, one id and one name looked up through each engine's btree --
# its plan says it is used -- returning the rows a brute-force filter of the source returns).
#
#   bench/load_bench.sh [BUILD_DIR]      (default: build; needs BUILD_DIR/lakeindex)
#
# Needs node and tests/duckdb's DuckDB (npm ci there).
# Environment: LOAD_ROWS (10000000), LOAD_SEED (42), LOAD_ROUNDS (3). Python: .venv-bench (pylance,
# DuckDB, pyarrow; made by scripts/python-env.sh --bench when missing or stale; BENCH_PYTHON
# overrides it). Data: bench/data/events-<rows>-<seed>/events.parquet (`lakeindex gen`, made once,
# shared with the other benchmarks); this benchmark's outputs in loads/ beside it (remade each
# round), results in loads.jsonl and loads.md there. A smoke run: LOAD_ROWS=20000 LOAD_ROUNDS=1.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
rows=${LOAD_ROWS:-10000000}
seed=${LOAD_SEED:-42}
rounds=${LOAD_ROUNDS:-3}
cli=$build/lakeindex

log() { echo "[loads $(date +%H:%M:%S)] $*" >&2; }
die() { echo "bench/load_bench.sh: $*" >&2; exit 1; }

[[ -x $cli ]] || die "$cli is missing; build the lakeindex_cli target"
if [[ -n ${BENCH_PYTHON:-} ]]; then
  python=$BENCH_PYTHON
else
  "$root/scripts/python-env.sh" --bench || die "scripts/python-env.sh --bench failed"
  python=$root/.venv-bench/bin/python
fi
helper=("$python" "$root/bench/load_bench.py")

data=$root/bench/data/events-$rows-$seed
src=$data/events.parquet
work=$data/loads
out=$data/loads.jsonl
mkdir -p "$data"
if [[ ! -f $src ]]; then
  log "generating $rows rows (seed $seed) into $src"
  "$cli" gen --rows "$rows" --seed "$seed" --output "$src.tmp.parquet" >&2
  mv "$src.tmp.parquet" "$src"
fi
: >"$out"
git=$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- src include 2>/dev/null || echo '+')
log "git $git, $rows rows, $rounds rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$src" >/dev/null  # the source in the OS cache for every step alike

bytes_of() { if [[ -e $1 ]]; then du -sb "$1" | cut -f1; else echo 0; fi; }
# step ROUND NAME DIR CMD...: runs CMD as a new process under /usr/bin/time; appends a JSON line with
# its wall, CPU, peak RSS, the bytes DIR grew by, and op_s: the seconds the command reports for its
# own work (lakeindex's "in X s", the Python workers' op_s), null when it reports none.
step() {
  local round=$1 name=$2 dir=$3 times output before after op
  shift 3
  times=$(mktemp)
  output=$(mktemp)
  before=$(bytes_of "$dir")
  log "round $round: $name"
  /usr/bin/time -f '%e %U %S %M' -o "$times" "$@" >"$output" 2>&1 || { cat "$output" >&2; die "$name failed"; }
  read -r wall user sys rss_kb <"$times"
  after=$(bytes_of "$dir")
  op=$(sed -n 's/.*"op_s": *\([0-9.e-]*\).*/\1/p; s/.* in \([0-9.]*\) s[:,].*/\1/p' "$output" | head -1)
  printf '{"round":%s,"step":"%s","rows":%s,"wall_s":%s,"cpu_s":%s,"peak_rss_mb":%s,"bytes":%s,"op_s":%s}\n' \
    "$round" "$name" "$rows" "$wall" "$(awk "BEGIN { print $user + $sys }")" "$((rss_kb / 1024))" \
    "$((after - before))" "${op:-null}" >>"$out"
  tail -1 "$out" >&2
  rm -f "$times" "$output"
}

# DuckDB's sorted COPY, from tests/duckdb's DuckDB (Node), as bench/layout_bench.mjs and
# bench/large_bench.sh run it: default threads and memory limit.
duck_copy="
  import { openDuckDB, sqlString } from '$root/bench/bench_util.mjs';
  const [src, out] = process.argv.slice(1);
  const db = await openDuckDB('default');
  const t0 = performance.now();
  await db.conn.run('COPY (SELECT * FROM read_parquet(' + sqlString(src) + ') ORDER BY x, y) TO ' + sqlString(out) +
                    ' (FORMAT parquet, COMPRESSION zstd)');
  console.log(JSON.stringify({ op_s: (performance.now() - t0) / 1000, duckdb_version: db.version, threads: db.threads }));"
table=$work/table
layout=$work/layout
lance_dir=$work/lance
duck=$work/duckdb_sorted.parquet
for ((r = 1; r <= rounds; ++r)); do
  rm -rf "$work"
  mkdir -p "$work"
  step "$r" "lakeindex create" "$table" "$cli" create "$table" --from "$src"
  step "$r" "pylance write_dataset" "$lance_dir" "${helper[@]}" lance-write "$src" "$lance_dir"
  cp -al "$table" "$layout"
  for c in id name; do
    step "$r" "lakeindex btree $c" "$table" "$cli" index create "$table" --column "$c" --type btree
    step "$r" "pylance btree $c" "$lance_dir" "${helper[@]}" lance-index "$lance_dir" "$c"
  done
  step "$r" "lakeindex layout otree x,y" "$layout" "$cli" layout "$layout" --otree x,y
  step "$r" "duckdb COPY ORDER BY x, y" "$duck" node --input-type=module -e "$duck_copy" "$src" "$duck"
done

log "checking the outputs"
"${helper[@]}" check --src "$src" --cli "$cli" --table "$table" --layout "$layout" --lance "$lance_dir" \
  --duck "$duck" >>"$out" || { grep '"ok": false' "$out" >&2; die "the outputs differ (see $out)"; }
peers="$("$python" -c 'import lance; print(f"pylance {lance.__version__}")'), DuckDB $(node --input-type=module -e "
  import { openDuckDB } from '$root/bench/bench_util.mjs'; console.log((await openDuckDB('default')).version);") (Node)"
printf '{"meta": {"rows": %s, "seed": %s, "rounds": %s, "nproc": %s, "git": "%s", "peers": "%s", "load_end": "%s"}}\n' \
  "$rows" "$seed" "$rounds" "$(nproc)" "$git" "$peers" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
"${helper[@]}" report "$out" | tee "$data/loads.md"
