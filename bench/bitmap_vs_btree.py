"""The bitmap index against the btree on the events data's `category` (1,000 Zipf-distributed
values), through the command line (builds) and the Python module (queries), one run:

    .venv/bin/python bench/bitmap_vs_btree.py --rows 10000000 --workdir /tmp/bitmap-bench

Reports, per kind: build time and peak memory (`lakeindex index create`, a process each), the
index's bytes on disk, and the medians of
  * count(*) WHERE category = v, and WHERE category IN (v1, v2, v3) — values drawn by frequency
    rank (frequent, middling, rare);
  * the whole rows of category = v for a rare v (time to the rows, Arrow);
over the rows in generated (random) order and laid out sorted by category (`layout --sort`);
each cold (a new process that opens the table and runs the query once: keys not looked up
before, nothing cached) and warm (the same query again in one process), with what a row query
reads (explain --analyze's counters: index bytes and pages, data bytes, requests). Results: one JSON line per measurement on stdout
and a summary table at the end (bench/RESULTS.md keeps it).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from bench_util import dir_bytes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
CLI = ENV = None  # the build's command and module, copied under the workdir (rebuilds may go on meanwhile)

# One query in a fresh process: open, run, time; prints {"s": seconds, "rows": n}.
COLD = r"""
import json, sys, time
import lakeindex
import pyarrow as pa
path, kind, where = sys.argv[1], sys.argv[2], sys.argv[3]
a = time.perf_counter()
t = lakeindex.Table.open(path)
if kind == "count":
    n = t.count(where)
else:
    n = pa.table(t.query(where, output="arrow")).num_rows
s = time.perf_counter() - a
print(json.dumps({"s": s, "rows": n}))
"""
# What a row query reads, run alone in its own fresh process.
EXPLAIN = r"""
import json, sys
import lakeindex
plan = lakeindex.Table.open(sys.argv[1]).explain(sys.argv[2], analyze=True)
print(json.dumps({k: plan[k] for k in ("index_bytes_read", "index_pages_read", "bytes_read", "io_requests")}))
"""


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def run(*args, timeout=3600):
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=ENV)
    if proc.returncode != 0:
        raise SystemExit(f"{args}: exit {proc.returncode}\n{proc.stderr}")
    return proc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--workdir", default="/tmp/bitmap-bench")
    ap.add_argument("--cold", type=int, default=9, help="cold runs per query")
    ap.add_argument("--warm", type=int, default=50, help="warm runs per query")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    global CLI, ENV
    bin_dir = os.path.join(args.workdir, "bin")
    shutil.rmtree(bin_dir, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "build", "python"), bin_dir,
                    ignore=lambda d, names: [n for n in names if not n.startswith("_lakeindex")])
    CLI = shutil.copy(os.path.join(ROOT, "build", "lakeindex"), bin_dir)
    ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([bin_dir, os.path.join(ROOT, "python")]))
    events = os.path.join(args.workdir, f"events-{args.rows}.parquet")
    if not os.path.exists(events):
        log(f"lakeindex gen --rows {args.rows}")
        run(CLI, "gen", "--rows", args.rows, "--seed", 42, "--output", events)
    sys.path[:0] = ENV["PYTHONPATH"].split(os.pathsep)
    import pyarrow as pa
    import pyarrow.parquet as pq
    counts = pq.read_table(events, columns=["category"]).column(0).value_counts().to_pylist()
    by_rank = sorted(counts, key=lambda c: -c["counts"])
    frequent, middling, rare = by_rank[0]["values"], by_rank[len(by_rank) // 10]["values"], by_rank[-1]["values"]
    rank = {c["values"]: i for i, c in enumerate(by_rank)}
    queries = [
        ("count", f"category = '{frequent}'"),
        ("count", f"category = '{middling}'"),
        ("count", f"category IN ('{frequent}', '{middling}', '{rare}')"),
        ("rows", f"category = '{rare}'"),
        ("rows", f"category = '{middling}'"),
    ]
    summary = []
    for order, kind in [(o, k) for o in ("random", "sorted") for k in ("btree", "bitmap")]:
        table = os.path.join(args.workdir, f"t-{order}-{kind}")
        shutil.rmtree(table, ignore_errors=True)
        run(CLI, "create", table, "--from", events)
        if order == "sorted":  # rows clustered by the column: a run of rows per value
            run(CLI, "layout", table, "--sort", "category")
        before = dir_bytes(os.path.join(table, "_indices"))
        a = time.perf_counter()
        proc = run("/usr/bin/time", "-f", "%M", CLI, "index", "create", table, "--column", "category", "--type", kind)
        build_s = time.perf_counter() - a
        peak_kib = int(proc.stderr.strip().splitlines()[-1])
        size = dir_bytes(os.path.join(table, "_indices")) - before
        row = {"kind": kind, "order": order, "rows": args.rows, "build_s": round(build_s, 3), "build_peak_mib": round(peak_kib / 1024, 1),
               "index_bytes": size}
        print(json.dumps(row), flush=True)
        import lakeindex
        t = lakeindex.Table.open(table)
        for what, where in queries:
            cold = []
            plan = None
            for _ in range(args.cold):
                out = json.loads(run(PY, "-c", COLD, table, what, where).stdout)
                cold.append(out["s"])
                n = out["rows"]
            if what == "rows":
                plan = json.loads(run(PY, "-c", EXPLAIN, table, where).stdout)
            warm = []
            for _ in range(args.warm):
                a = time.perf_counter()
                got = t.count(where) if what == "count" else pa.table(t.query(where, output="arrow")).num_rows
                warm.append(time.perf_counter() - a)
                assert got == n, (where, got, n)
            line = {"kind": kind, "order": order, "rows": args.rows, "query": what, "where": where, "matches": n,
                    "cold_ms": round(statistics.median(cold) * 1e3, 3), "warm_ms": round(statistics.median(warm) * 1e3, 4),
                    "plan": plan}
            print(json.dumps(line), flush=True)
            summary.append((order, kind, what, where, n, line["cold_ms"], line["warm_ms"], plan or ""))
        summary.append((order, kind, "build", f"{build_s:.2f} s, peak {peak_kib / 1024:.0f} MiB", "", "", f"{size / 1e6:.2f} MB", ""))
    log("order | kind | query | where / build | matches | cold ms | warm ms / size | cold row query read")
    for s in summary:
        log(" | ".join(map(str, s)))
    log(f"value ranks: {frequent}={rank[frequent]}, {middling}={rank[middling]}, {rare}={rank[rare]}")


if __name__ == "__main__":
    main()
