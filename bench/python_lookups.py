"""The lakeindex side of the whole-row lookup benchmark (issue 16), through the Python module.

    PYTHONPATH=BUILD/python:python .venv/bin/python bench/python_lookups.py --table T --queries Q.json \
        [--runs 5] [--points P] [--slow-s 5] [--slow-points 20] [--build BUILD.json] [--version V]

Runs the query set that `node bench/lookup_peers.mjs queries` wrote (the same lookups as the
peers) on the lakeindex table T (made with `lakeindex create T --from events.parquet` and BTree
indexes on id, score and name): `Table.open` once, then `Table.query(where=..., select=...)` per
lookup, each lookup once as a warm-up (rows counted and checked against the query file), then
timed, a point query once per point and the others --runs times. A point query whose warm-up
lookups average more than --slow-s seconds stops its warm-up at --slow-points points and times
only those (so that a slow build stays bounded). Prints the JSON lines of lookup_peers.mjs
(engine "lakeindex_python"), then one "lookups_engine" line (open time, memory; the create and
index times from --build when given).
"""

import argparse
import json
import os
import statistics
import sys
import time

import lakeindex

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import dir_bytes, emit, p90, status_bytes  # noqa: E402


def log(s):
    sys.stderr.write(f"python_lookups: {s}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--points", type=int, default=None)
    ap.add_argument("--slow-s", type=float, default=5.0)
    ap.add_argument("--slow-points", type=int, default=20)
    ap.add_argument("--build", default=None)
    ap.add_argument("--version", default=None, help="the lakeindex version, for the report")
    args = ap.parse_args()

    with open(args.queries) as f:
        qs = json.load(f)
    rss0 = status_bytes("VmRSS")
    t0 = time.perf_counter()
    table = lakeindex.Table.open(args.table)
    open_s = time.perf_counter() - t0
    rows = table.stats()["rows"]
    if rows != qs["rows"]:
        raise SystemExit(f"table has {rows} rows, the queries {qs['rows']}")

    for q in qs["queries"]:
        for select in qs["selects"]:
            cols = None if select == "*" else [select]
            k = len(q["wheres"]) if q["kind"] == "points" else 1
            if args.points is not None:
                k = min(k, args.points)

            def run(i):
                out = table.query(where=q["wheres"][i], select=cols)
                return len(next(iter(out.values()))) if out else 0

            plan = table.explain(q["wheres"][0])
            plan_text = json.dumps(plan.get("plan", plan))
            rows_each = []
            w0 = time.perf_counter()
            for i in range(k):
                rows_each.append(run(i))
                if (q["kind"] == "points" and len(rows_each) >= args.slow_points
                        and (time.perf_counter() - w0) / len(rows_each) > args.slow_s):
                    log(f"{q['name']} {select}: slow ({(time.perf_counter() - w0) / len(rows_each):.1f} s a lookup), "
                        f"{len(rows_each)} points only")
                    break
            k = len(rows_each)
            expected = q["rows_each"][:k]
            rows_ok = rows_each == expected
            if not rows_ok:
                log(f"{q['name']} select {select}: rows {rows_each[:5]} != expected {expected[:5]}")
            passes = 1 if q["kind"] == "points" else args.runs
            us = []
            for _ in range(passes):
                for i in range(k):
                    t = time.perf_counter()
                    run(i)
                    us.append((time.perf_counter() - t) * 1e6)
            line = {"bench": "lookups", "engine": "lakeindex_python", "query": q["name"], "select": select,
                    "rows": sum(rows_each), "rows_ok": rows_ok, "lookups": k, "median_us": statistics.median(us),
                    "p90_us": p90(us), "runs": len(us), "plan": plan_text}
            if q["kind"] == "points":
                line["rows_each"] = rows_each
            emit(line)
            log(f"{q['name']} {select}: {line['rows']} rows, median {line['median_us']:.0f} us")

    build = {}
    if args.build and os.path.exists(args.build):
        with open(args.build) as f:
            build = json.load(f)
    rss = status_bytes("VmRSS")
    emit({"bench": "lookups_engine", "engine": "lakeindex_python", "lakeindex_version": args.version, **build, "rows": rows, "open_s": open_s,
          "rss_before_bytes": rss0, "rss_held_bytes": rss - rss0, "peak_rss_bytes": status_bytes("VmHWM"),
          "disk_bytes": dir_bytes(args.table)})


if __name__ == "__main__":
    main()
