"""Exact aggregates (issue 20, first cut) through the Python module, hot: lakeindex alone.

    PYTHONPATH=BUILD/python:python /usr/bin/python3 bench/python_aggregates.py --table T [--runs 5]

T is the 10M-row lookup table of bench/lookup_bench.sh (events, BTree on score). `Table.open`
once, then each aggregate once as a warm-up and --runs times timed; prints one JSON line per
aggregate with the median. No peer runs here: the issue's goals compare with DuckDB in the same
run, which this script does not do.
"""

import argparse
import os
import statistics
import sys
import time

import lakeindex

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import emit  # noqa: E402

CASES = [
    ("avg(score)", None, None),
    ("count(*)", None, "maybe IS NULL"),
    ("count(*)", None, None),
    ("count(*)", None, "score BETWEEN 100000 AND 200000"),
    ("avg(score)", "category", None),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    t = lakeindex.Table.open(args.table)
    for aggs, group_by, where in CASES:
        t.aggregate(aggs, where=where, group_by=group_by)
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            result = t.aggregate(aggs, where=where, group_by=group_by)
            times.append(time.perf_counter() - start)
        emit({"bench": "aggregates", "engine": "lakeindex_python", "aggregates": aggs, "where": where,
              "group_by": group_by, "groups": len(next(iter(result.values()))),
              "median_ms": statistics.median(times) * 1000, "runs_ms": [x * 1000 for x in times]})


if __name__ == "__main__":
    main()
