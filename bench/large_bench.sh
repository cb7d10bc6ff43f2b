#!/usr/bin/env bash
# Tables larger than memory (issue 21): each command of a 100M-row run as its own process, with
# wall time, CPU time and peak RSS (/usr/bin/time), the bytes it leaves, and spot checks of the
# answers against DuckDB over the same Parquet files. Not part of `make test`.
#
#   bench/large_bench.sh [BUILD_DIR]      (default: build; needs BUILD_DIR/lakeindex, node and
#                                          tests/duckdb's DuckDB)
# Environment: BENCH_ROWS (100000000), BENCH_SEED (42); LARGE_LAYOUT (1): lay the table out as an
# OTree on (x, y) at --memory-limit LARGE_MEMORY_LIMIT (2G; "default": no --memory-limit) right after create (no index to
# rebuild, so its time compares with DuckDB's), beside DuckDB's sorted COPY of the same rows at the
# same memory_limit, its peak temporary space sampled (_tmp/, every 0.5 s), a 1% sample of it,
# and an append of a tenth more rows into the tree at the same limit, optimize and a layout on
# (x, y, z) at the same limit; the indexes are built on
# the laid-out table and the spot checks run on it.
# Results: bench/data/large_bench.jsonl (one line per step) and a markdown table on stdout.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
rows=${BENCH_ROWS:-100000000}
seed=${BENCH_SEED:-42}
cli=$build/lakeindex
data=$root/bench/data/events-$rows-$seed
table=$data/large_table
out=$root/bench/data/large_bench.jsonl
[[ -x $cli ]] || { echo "bench/large_bench.sh: $cli is missing; build the lakeindex_cli target" >&2; exit 1; }
mkdir -p "$data"
: >"$out"
echo "[large $(date +%H:%M:%S)] git $(git -C "$root" rev-parse --short HEAD), $rows rows, $(nproc) cores" >&2

# step NAME CMD...: runs CMD under /usr/bin/time and appends a JSON line.
step() {
  local name=$1 times
  shift
  times=$(mktemp)
  echo "[large $(date +%H:%M:%S)] $name" >&2
  /usr/bin/time -f '%e %U %S %M' -o "$times" "$@" >/dev/null
  read -r wall user sys rss_kb <"$times"
  rm -f "$times"
  local bytes=0
  [[ -e $table ]] && bytes=$(du -sb "$table" | cut -f1)
  printf '{"step":"%s","rows":%s,"wall_s":%s,"cpu_s":%s,"peak_rss_mb":%s,"table_bytes":%s}\n' \
    "$name" "$rows" "$wall" "$(awk "BEGIN { print $user + $sys }")" "$((rss_kb / 1024))" "$bytes" >>"$out"
}

if [[ ! -f $data/events.parquet ]]; then
  step "gen $rows rows to Parquet" "$cli" gen --rows "$rows" --seed "$seed" --output "$data/events.parquet"
fi
rm -rf "$table"
step "create" "$cli" create "$table" --from "$data/events.parquet"
if [[ ${LARGE_LAYOUT:-1} = 1 ]]; then
  limit=${LARGE_MEMORY_LIMIT:-2G}
  # "default": lakeindex at its default limit (a quarter of RAM, at most 2 GiB), DuckDB at
  # LARGE_DUCKDB_LIMIT (2G).
  if [[ $limit = default ]]; then
    limit_args=()
    limit_text="(default limit)"
    duck_limit=${LARGE_DUCKDB_LIMIT:-2G}
  else
    limit_args=(--memory-limit "$limit")
    limit_text="--memory-limit $limit"
    duck_limit=$limit
  fi
  # The largest _tmp/ seen while the layout runs.
  (set +e +o pipefail; peak=0; while sleep 0.5; do
     now=$(du -sb "$table/_tmp" 2>/dev/null | cut -f1); now=${now:-0}
     if ((now > peak)); then peak=$now; echo "$peak" >"$data/tmp_peak"; fi
   done) &
  sampler=$!
  table_bytes=$(du -sb "$table" | cut -f1)
  step "layout otree x,y $limit_text" "$cli" layout "$table" --otree x,y "${limit_args[@]}"
  kill "$sampler" 2>/dev/null || true
  # Bytes written: what the layout added to the table (its files, manifest and layout metadata;
  # the old files stay until vacuum).
  written=$(($(du -sb "$table" | cut -f1) - table_bytes))
  echo "{\"temporary_peak_bytes\":$(cat "$data/tmp_peak" 2>/dev/null || echo 0),\"table_bytes_before\":$table_bytes,\"written_bytes\":$written}" >>"$out"
  rm -f "$data/tmp_peak"
  tail -1 "$out" >&2
  # DuckDB's sorted copy of the same rows at the same memory limit, beside it.
  step "DuckDB COPY ... ORDER BY x, y (memory_limit $duck_limit)" node --input-type=module -e "
    import { openDuckDB, sqlString } from '$root/bench/bench_util.mjs';
    const db = await openDuckDB('default');
    await db.conn.run(\"SET memory_limit = '${duck_limit}B'\");
    await db.conn.run('SET temp_directory = ' + sqlString('$data/duckdb_tmp'));
    await db.conn.run('COPY (SELECT * FROM read_parquet(' + sqlString('$data/events.parquet') +
                      ') ORDER BY x, y) TO ' + sqlString('$data/duckdb_sorted.parquet') + ' (FORMAT parquet)');"
  echo "{\"duckdb_written_bytes\":$(stat -c %s "$data/duckdb_sorted.parquet")}" >>"$out"
  tail -1 "$out" >&2
  rm -rf "$data/duckdb_sorted.parquet" "$data/duckdb_tmp"
  # A 1% sample of the laid-out table: what it reads (blocks, bytes, requests) and how long.
  echo "[large $(date +%H:%M:%S)] 1% sample count" >&2
  "$cli" explain "$table" --agg "count(*)" --sample 0.01 --json | node -e '
    const j = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const blocks = j.plan.find((l) => l.includes("OTree blocks:")) || "";
    console.log(JSON.stringify({sample: 0.01, elapsed_ms: j.elapsed_ms, bytes_read: j.bytes_read,
                                io_requests: j.io_requests, blocks: blocks.trim()}));' >>"$out"
  tail -1 "$out" >&2
  # A tenth more rows (another seed) placed into the tree.
  more=$data/more-$((rows / 10)).parquet
  [[ -f $more ]] || "$cli" gen --rows $((rows / 10)) --seed 7 --output "$more" >/dev/null
  step "append $((rows / 10)) rows into the tree $limit_text" "$cli" append "$table" --from "$more" "${limit_args[@]}"
  step "optimize $limit_text" "$cli" optimize "$table" "${limit_args[@]}"
  # The same rows as an OTree on three columns (the weights kept).
  step "layout otree x,y,z $limit_text" "$cli" layout "$table" --otree x,y,z "${limit_args[@]}"
fi
step "btree on score" "$cli" index create "$table" --column score --type btree
step "zone map on ts" "$cli" index create "$table" --column ts --type zonemap
step "query --format parquet (every row)" "$cli" query "$table" --format parquet --output "$data/large_out.parquet"
rm -f "$data/large_out.parquet"

# Spot checks: the same answers as DuckDB over the table's live files.
checks=(
  "count(*)|"
  "count(*)|score BETWEEN 100000 AND 100999"
  "sum(score)|x BETWEEN 100 AND 110 AND y BETWEEN 500 AND 510"
  "count(*)|ts < '2024-01-05'"
)
files=$("$cli" files "$table" --format csv | tail -n +2 | cut -d, -f1 | sed "s|^|'|; s|$|'|" | paste -sd,)
for c in "${checks[@]}"; do
  agg=${c%%|*} where=${c#*|}
  args=(query "$table" --agg "$agg" --format csv)
  [[ -n $where ]] && args+=(--where "$where")
  ours=$("$cli" "${args[@]}" | tail -1)
  sql="SELECT $agg FROM read_parquet([$files])${where:+ WHERE $where}"
  theirs=$(node --input-type=module -e "
    import { openDuckDB } from '$root/bench/bench_util.mjs';
    const db = await openDuckDB('default');
    const r = await (await db.conn.run(process.argv[1])).getRows();
    console.log(String(r[0][0]));" "$sql")
  echo "[large] $agg${where:+ WHERE $where}: lakeindex $ours, DuckDB $theirs" >&2
  [[ $ours = "$theirs" ]] || { echo "bench/large_bench.sh: answers differ" >&2; exit 1; }
  printf '{"check":"%s","lakeindex":"%s","duckdb":"%s"}\n' "$agg${where:+ WHERE $where}" "$ours" "$theirs" >>"$out"
done

echo "| step | wall s | CPU s | peak RSS MB | table bytes |"
echo "|---|---|---|---|---|"
node -e '
  for (const line of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) {
    const j = JSON.parse(line);
    if (j.step) console.log(`| ${j.step} | ${j.wall_s} | ${j.cpu_s.toFixed(2)} | ${j.peak_rss_mb} | ${j.table_bytes.toLocaleString("en-US")} |`);
  }' "$out"
