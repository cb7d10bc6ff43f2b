"""The lakeindex side of the box benchmark ("rows at the speed of the index", 2-D / 3-D boxes),
through the Python module.

    PYTHONPATH=BUILD/python:python .venv/bin/python bench/python_boxes.py --cli BUILD/lakeindex \
        --src EVENTS.parquet --dir CACHE_DIR --queries Q.json [--runs 5] [--cube-rows 100000] [--version V]

Creates (once, cached; rebuilt when the lakeindex binary is newer) two OTree tables from SRC:
CACHE_DIR/otree_xy (`lakeindex create T --from SRC --rows-per-file 1000000`, then
`lakeindex layout T --otree x,y --cube-rows 100000`) and CACHE_DIR/otree_xyz (the same, laid out
on x,y,z), timing both steps into T.build.json. Then runs the boxes that
`node bench/box_peers.mjs queries` wrote (2-D boxes on otree_xy, 3-D on otree_xyz): both tables
opened once with `Table.open`, then `Table.query(where=..., select=None or ["id"])` per box, every
box once as a warm-up (rows counted and checked against the query file), then --runs times.
Prints the JSON lines of box_peers.mjs (engine "lakeindex_python"; median / p90 over all runs of
the boxes of a selectivity), with `Table.explain(where, analyze=True)` rows_read / rows_returned
(and blocks) per box, then one "boxes_engine" line (setup times, open time, memory).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import lakeindex

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import dir_bytes, emit, p90, status_bytes  # noqa: E402

SETS = {"xy": "x,y", "xyz": "x,y,z"}


def log(s):
    sys.stderr.write(f"python_boxes: {s}\n")


def ensure_table(cli, src, table, columns, cube_rows):
    """The OTree table on `columns`, created when missing or older than the binary."""
    build_file = table + ".build.json"
    if os.path.exists(build_file) and os.path.getmtime(build_file) >= os.path.getmtime(cli):
        with open(build_file) as f:
            return json.load(f)
    log(f"creating {table} (OTree on {columns}; once, reused afterwards)")
    shutil.rmtree(table, ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run([cli, "create", table, "--from", src, "--rows-per-file", "1000000"], check=True,
                   stdout=sys.stderr)
    t1 = time.perf_counter()
    subprocess.run([cli, "layout", table, "--otree", columns, "--cube-rows", str(cube_rows)], check=True,
                   stdout=sys.stderr)
    t2 = time.perf_counter()
    build = {"create_s": t1 - t0, "layout_s": t2 - t1, "columns": columns, "cube_rows": cube_rows}
    with open(build_file, "w") as f:
        json.dump(build, f)
    log(f"{table}: create {build['create_s']:.1f} s, layout {build['layout_s']:.1f} s")
    return build


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cube-rows", type=int, default=100000)
    ap.add_argument("--version", default=None, help="the lakeindex version, for the report")
    args = ap.parse_args()

    with open(args.queries) as f:
        qs = json.load(f)
    os.makedirs(args.dir, exist_ok=True)
    paths = {s: os.path.join(args.dir, f"otree_{s}") for s in SETS}
    builds = {s: ensure_table(args.cli, args.src, paths[s], cols, args.cube_rows) for s, cols in SETS.items()}

    rss0 = status_bytes("VmRSS")
    t0 = time.perf_counter()
    tables = {s: lakeindex.Table.open(p) for s, p in paths.items()}
    open_s = time.perf_counter() - t0
    for s, t in tables.items():
        rows = t.stats()["rows"]
        if rows != qs["rows"]:
            raise SystemExit(f"{paths[s]} has {rows} rows, the queries {qs['rows']}")

    for q in qs["queries"]:
        table = tables[q["set"]]
        for select in qs["selects"]:
            cols = None if select == "*" else [select]

            def run(box):
                out = table.query(where=box["where"], select=cols)
                return len(next(iter(out.values()))) if out else 0

            rows_each = [run(b) for b in q["boxes"]]  # warm-up
            expected = [b["rows"] for b in q["boxes"]]
            rows_ok = rows_each == expected
            if not rows_ok:
                log(f"{q['name']} select {select}: rows {rows_each} != expected {expected}")
            us = []
            for _ in range(args.runs):
                for b in q["boxes"]:
                    t = time.perf_counter()
                    run(b)
                    us.append((time.perf_counter() - t) * 1e6)
            explains = []
            for b in q["boxes"]:
                e = table.explain(b["where"], analyze=True)
                explains.append({k: e.get(k) for k in ("rows_read", "rows_returned", "blocks_read", "blocks_total",
                                                       "bytes_read")})
            line = {"bench": "boxes", "engine": "lakeindex_python", "query": q["name"], "set": q["set"],
                    "pct": q["pct"], "select": select, "rows": sum(rows_each), "rows_each": rows_each,
                    "rows_ok": rows_ok, "boxes": len(q["boxes"]), "median_us": statistics.median(us),
                    "p90_us": p90(us), "runs": len(us), "explain": explains,
                    "rows_read": sum(e["rows_read"] or 0 for e in explains),
                    "rows_returned": sum(e["rows_returned"] or 0 for e in explains)}
            emit(line)
            log(f"{q['name']} {select}: {line['rows']} rows, median {line['median_us']:.0f} us, "
                f"read {line['rows_read']} for {line['rows_returned']}")

    rss = status_bytes("VmRSS")
    setup = {}
    for s, b in builds.items():
        setup[f"create ({s})"] = b["create_s"]
        setup[f"layout --otree {SETS[s]}"] = b["layout_s"]
    emit({"bench": "boxes_engine", "engine": "lakeindex_python", "lakeindex_version": args.version,
          "rows": qs["rows"], "setup": setup, "open_s": open_s, "rss_before_bytes": rss0,
          "rss_held_bytes": rss - rss0, "peak_rss_bytes": status_bytes("VmHWM"),
          "data_bytes": sum(t.stats()["data_bytes"] for t in tables.values()),
          "disk_bytes": sum(dir_bytes(p) for p in paths.values())})


if __name__ == "__main__":
    main()
