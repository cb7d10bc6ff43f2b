#!/usr/bin/env bash
# Tables on S3 (issue 18): requests, sequential round trips and time of cold whole-row lookups,
# each in a new process (open the table, open the index, look up, read the rows), then hot ones
# through the open table (the next point; the same query again), two ways:
#   1. the 10M-row lookup table of bench/lookup_bench.sh on the local disk, with LATENCY_US
#      (default 20000: a realistic S3 first-byte latency) added to every request by the
#      counting store; round trips = times the store went from idle to busy; and on the same
#      events laid out as an OTree on (x, y), a 1% box and a 1% sample;
#   2. a 1M-row table on moto (real HTTP and SigV4 on loopback, no added latency), uploaded by
#      boto3 as `aws s3 cp --recursive` would.
#
#   bench/s3_bench.sh [BUILD_DIR]      (default: build; needs BUILD_DIR/lakeindex and index_bench,
#                                       the lookup table from bench/lookup_bench.sh for part 1,
#                                       a python3 with moto and boto3 for part 2)
# Environment: LATENCY_US (20000), S3_BENCH_RUNS (lookups per query, 5), S3_BENCH_PARTS ("1 2").
# Results: bench/data/s3_bench.jsonl and a markdown table on stdout.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_arg=${1:-build}
[[ $build_arg = /* ]] || build_arg=$root/$build_arg
build=$(cd "$build_arg" && pwd)
latency=${LATENCY_US:-20000}
runs=${S3_BENCH_RUNS:-5}
parts=${S3_BENCH_PARTS:-1 2}
data=$root/bench/data
out=$data/s3_bench.jsonl
queries=("point id" "IN 100 ids" "range score 0.01%" "prefix name 'abc'")
log() { echo "[s3 $(date +%H:%M:%S)] $*" >&2; }
die() { echo "bench/s3_bench.sh: $*" >&2; exit 1; }
mkdir -p "$data"
: >"$out"

tag() { python3 -c "import json,sys; d=json.load(sys.stdin); d['mode']='$1'; print(json.dumps(d))" >>"$out"; }

# Runs every query $runs times (different values), one process each; tags each JSON line.
lookups() {  # table queries-file mode
  local table=$1 qfile=$2 mode=$3 q i
  for q in "${queries[@]}"; do
    for ((i = 1; i <= runs; i++)); do
      "$build/index_bench" rows-once --table "$table" --queries "$qfile" --query "$q" --i "$i" \
        --latency-us "$([[ $mode = latency ]] && echo "$latency" || echo 0)" 2>/dev/null | tail -1 | tag "$mode"
    done
  done
}

if [[ " $parts " = *" 1 "* ]]; then
  table=$data/events-10000000-42/lookup_table
  [[ -d $table ]] || die "$table is missing: run bench/lookup_bench.sh first"
  q10=$data/index_queries_10M.json
  [[ -f $q10 ]] || "$build/index_bench" queries --rows 10000000 --seed 42 --output "$q10"
  log "part 1: 10M rows on disk, ${latency} us per request"
  lookups "$table" "$q10" latency
  # The OTree's reads: a 1% box of the (x, y) plane and a 1% sample, on the same events laid out
  # as an OTree on (x, y) (made here once: create + layout, about a minute).
  otree=$data/events-10000000-42/otree_xy
  if [[ ! -d $otree ]]; then
    log "part 1: making the OTree table"
    "$build/lakeindex" create "$otree" --from "$data/events-10000000-42/events.parquet" >&2
    "$build/lakeindex" layout "$otree" --otree x,y >&2
  fi
  for ((i = 1; i <= runs; i++)); do
    x=$((100 * i)) y=$((900 - 100 * i))
    "$build/index_bench" rows-once --table "$otree" --query "box 1% (x, y)" --latency-us "$latency" \
      --where "x BETWEEN $x AND $((x + 100)) AND y BETWEEN $y AND $((y + 100))" 2>/dev/null | tail -1 | tag latency
    "$build/index_bench" rows-once --table "$otree" --query "sample 1%" --sample 0.01 --latency-us "$latency" \
      2>/dev/null | tail -1 | tag latency
  done
fi

if [[ " $parts " = *" 2 "* ]]; then
  python=${LAKEINDEX_MOTO_PYTHON:-python3}
  "$python" -c "import moto.server, boto3" 2>/dev/null || die "$python has no moto and boto3"
  small=$data/events-1000000-42
  mkdir -p "$small"
  if [[ ! -d $small/table ]]; then
    log "part 2: making the 1M-row table"
    "$build/lakeindex" gen --rows 1000000 --seed 42 --output "$small/events.parquet" >&2
    "$build/lakeindex" create "$small/table" --from "$small/events.parquet" --rows-per-file 250000 >&2
    for c in id score name; do "$build/lakeindex" index create "$small/table" --column "$c" --type btree >&2; done
  fi
  q1=$small/index_queries.json
  [[ -f $q1 ]] || "$build/index_bench" queries --rows 1000000 --seed 42 --output "$q1"
  coproc MOTO { "$python" "$root/tests/s3/moto_server.py" --bucket lakeindex-bench 2>/dev/null; }
  read -r -t 90 info <&"${MOTO[0]}" || die "moto did not start"
  endpoint=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['endpoint'])" "$info")
  export AWS_ENDPOINT_URL=$endpoint AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
  log "part 2: uploading to moto at $endpoint"
  "$python" - "$small/table" "$endpoint" <<'PY'
import os, sys, boto3
root, endpoint = sys.argv[1], sys.argv[2]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing")
for d, _, files in os.walk(root):
    for f in files:
        p = os.path.join(d, f)
        s3.upload_file(p, "lakeindex-bench", "events/" + os.path.relpath(p, root))
PY
  log "part 2: lookups over HTTP"
  lookups "s3://lakeindex-bench/events" "$q1" moto
  exec {MOTO[1]}>&-
  wait "$MOTO_PID" || true
fi

python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
groups = {}
for r in rows:
    groups.setdefault((r["mode"], r["case"]), []).append(r)
print("| table | query | rows | round trips: open / index / lookup / total | requests: open / index / lookup | bytes read | median time | p90 | hot: next point / same query, round trips (time) |")
print("|---|---|--:|---|---|--:|--:|--:|---|")
for (mode, case), rs in groups.items():
    med = lambda k: statistics.median(r[k] for r in rs)
    ts = sorted(r["median_us"] for r in rs)
    p90 = ts[min(len(ts) - 1, int(0.9 * len(ts)))]
    where = "10M rows on disk, %d ms a request" % (rs[0].get("latency_us", 0) // 1000) if mode == "latency" else "1M rows on moto (HTTP)"
    print(f"| {where} | {case} | {med('rows_returned'):,.0f} | {med('open_round_trips'):.0f} / {med('index_round_trips'):.0f} / "
          f"{med('scan_round_trips'):.0f} / {med('round_trips'):.0f} | {med('open_requests'):.0f} / {med('index_requests'):.0f} / "
          f"{med('scan_requests'):.0f} | {med('bytes_read'):,.0f} | {med('median_us')/1000:.1f} ms | {p90/1000:.1f} ms | "
          + (f"{med('hot_next_round_trips'):.0f} ({med('hot_next_us')/1000:.1f} ms) / " if "hot_next_us" in rs[0] else "– / ")
          + f"{med('hot_same_round_trips'):.0f} ({med('hot_same_us')/1000:.1f} ms) |")
PY
