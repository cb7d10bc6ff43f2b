#!/usr/bin/env python3
"""Boxes on some of an OTree's columns (issue 21): on a 3-D tree over (x, y, z), a box on (x, y)
leaves z unconstrained. Reports, per layout and box kind, rows read / rows returned summed over
random boxes (the read amplification), bytes and pages, from `lakeindex explain --analyze --json`.

    bench/partial_box_bench.py [BUILD_DIR]   (default build)

Environment: BENCH_ROWS (1000000), BENCH_CUBE_ROWS (20000), BENCH_BOXES (20 per fraction),
BENCH_LAYOUT_ARGS (more `layout` options, e.g. "--slices 4 --page-rows 32": the trade-offs).
Also reports, on the (x, y, z) tree, the rows a sample at each of several fractions reads ÷ the
fraction's share of the rows, and the files' bytes.
Layouts: otree on (x, y) and on (x, y, z). Boxes at 0.1%, 1% and 10%: squares on (x, y) covering the
fraction of the plane (x, y uniform in [0, 1000)), and cubes on (x, y, z) covering the fraction
of the rows (z's bounds at its quantiles). Not part of `make test`.
"""
import json
import os
import random
import shutil
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else "build"
cli = os.path.join(build if os.path.isabs(build) else os.path.join(root, build), "lakeindex")
rows = int(os.environ.get("BENCH_ROWS", "1000000"))
cube_rows = int(os.environ.get("BENCH_CUBE_ROWS", "20000"))
boxes = int(os.environ.get("BENCH_BOXES", "20"))
data = os.path.join(root, "bench", "data", f"partial-{rows}")
os.makedirs(data, exist_ok=True)


def run(*args):
    return subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout


events = os.path.join(data, "events.parquet")
if not os.path.exists(events):
    run("gen", "--rows", str(rows), "--seed", "42", "--output", events)
tables = {}
for name, columns in (("otree xy", "x,y"), ("otree xyz", "x,y,z")):
    path = os.path.join(data, name.replace(" ", "_"))
    shutil.rmtree(path, ignore_errors=True)
    run("create", path, "--from", events)
    run("layout", path, "--otree", columns, "--cube-rows", str(cube_rows), *os.environ.get("BENCH_LAYOUT_ARGS", "").split())
    tables[name] = path

# z's quantiles, from every row of one table.
zs = sorted(float(line) for line in run("query", tables["otree xy"], "--select", "z", "--format", "csv").split()[1:])


def z_at(q):
    return zs[min(len(zs) - 1, max(0, int(q * len(zs))))]


rng = random.Random(7)
workload = []
for fraction in (0.01, 0.1, 0.001):  # 0.1% last: the 1% and 10% boxes stay those of earlier runs
    for _ in range(boxes):
        side = 1000 * fraction ** 0.5
        x0, y0 = rng.uniform(0, 1000 - side), rng.uniform(0, 1000 - side)
        workload.append(("xy", fraction, f"x BETWEEN {x0} AND {x0 + side} AND y BETWEEN {y0} AND {y0 + side}"))
    for _ in range(boxes):
        p = fraction ** (1 / 3)
        x0, y0, q0 = rng.uniform(0, 1000 * (1 - p)), rng.uniform(0, 1000 * (1 - p)), rng.uniform(0, 1 - p)
        s = 1000 * p
        workload.append(("xyz", fraction, f"x BETWEEN {x0} AND {x0 + s} AND y BETWEEN {y0} AND {y0 + s} "
                                          f"AND z BETWEEN {z_at(q0)} AND {z_at(q0 + p)}"))

print(f"{rows:,} events rows, cube rows {cube_rows:,}, {boxes} boxes per kind and fraction")
print("| layout | box | fraction | rows read ÷ returned | rows returned | MB read per box | pages read per box |")
print("|---|---|---|---|---|---|---|")
for name, path in tables.items():
    for kind in ("xy", "xyz"):
        if kind == "xyz" and name == "otree xy":
            continue
        for fraction in (0.001, 0.01, 0.1):
            read = returned = nbytes = pages = 0
            n = 0
            for k, f, where in workload:
                if k != kind or f != fraction:
                    continue
                j = json.loads(run("explain", path, "--where", where, "--analyze", "--json"))
                read += j["rows_read"]
                returned += j["rows_returned"]
                nbytes += j["bytes_read"]
                pages += j["pages_read"]
                n += 1
            print(f"| {name} | {kind} | {fraction:.1%} | {read / returned:.2f} | {returned:,} | "
                  f"{nbytes / n / 1e6:.2f} | {pages / n:,.0f} |")

path = tables["otree xyz"]
reads = []
for fraction in (0.001, 0.003, 0.01, 0.03, 0.07, 0.1, 0.15, 0.25, 0.3, 0.4, 0.7):
    j = json.loads(run("explain", path, "--sample", str(fraction), "--agg", "avg(score)", "--analyze", "--json"))
    reads.append(f"{fraction:g}: {j['rows_read'] / (fraction * rows):.2f}")
print("\nsample rows read ÷ f·N on otree xyz: " + ", ".join(reads))
for name, path in tables.items():
    size = sum(f["file_size"] for f in json.loads(run("files", path, "--format", "json")))
    print(f"{name}: {size:,} file bytes")
