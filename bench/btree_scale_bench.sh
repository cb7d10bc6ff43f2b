#!/usr/bin/env bash
# The BTree build at two table sizes, side by side (issue 21: "the BTree build at 100M rows within
# its 512 MiB budget, time per row no worse than at 10M"). Tables created from `lakeindex gen`
# Parquet files (seed 42); `index create --column score --type btree` run REPEAT times per size,
# interleaved (large, small, large, ...), each build its own process under /usr/bin/time, the
# index dropped between builds. Prints one markdown row per build and the medians. Not part of
# `make test`.
#
#   bench/btree_scale_bench.sh [BUILD_DIR]     (default: build)
# Environment: BENCH_LARGE (100000000), BENCH_SMALL (10000000), BENCH_REPEAT (3).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
cli=$(cd "$build_arg" && pwd)/lakeindex
[[ -x $cli ]] || { echo "bench/btree_scale_bench.sh: $cli is missing" >&2; exit 1; }
large=${BENCH_LARGE:-100000000}
small=${BENCH_SMALL:-10000000}
repeat=${BENCH_REPEAT:-3}
echo "[btree-scale $(date -u +%H:%M:%S)] git $(git -C "$root" rev-parse --short HEAD), $(nproc) cores" >&2

for rows in "$large" "$small"; do
  data=$root/bench/data/events-$rows-42
  mkdir -p "$data"
  [[ -f $data/events.parquet ]] || "$cli" gen --rows "$rows" --seed 42 --output "$data/events.parquet" >/dev/null
  rm -rf "$data/btree_table"
  "$cli" create "$data/btree_table" --from "$data/events.parquet" >/dev/null
done

echo "| rows | run | wall s | µs a row | user s | sys s | peak RSS MiB |"
echo "|---|---|---|---|---|---|---|"
results=$(mktemp)
for ((run = 1; run <= repeat; run++)); do
  for rows in "$large" "$small"; do
    table=$root/bench/data/events-$rows-42/btree_table
    "$cli" index drop "$table" --name score_btree >/dev/null 2>&1 || true
    times=$(mktemp)
    /usr/bin/time -f '%e %U %S %M' -o "$times" "$cli" index create "$table" --column score --type btree >/dev/null
    read -r wall user sys rss_kb <"$times"
    rm -f "$times"
    per_row=$(awk "BEGIN { printf \"%.3f\", $wall * 1e6 / $rows }")
    echo "| $rows | $run | $wall | $per_row | $user | $sys | $((rss_kb / 1024)) |"
    echo "$rows $wall $per_row" >>"$results"
  done
done
for rows in "$large" "$small"; do
  median=$(awk -v r="$rows" '$1 == r { print $3 }' "$results" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  echo "median µs a row at $rows rows: $median"
done
rm -f "$results"
