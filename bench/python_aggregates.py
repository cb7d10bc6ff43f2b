"""Aggregates (issue 20) through the Python module, hot: the lakeindex side of
bench/aggregate_bench.sh (DuckDB's side is bench/aggregate_peers.mjs, in the same run).

    PYTHONPATH=BUILD/python:python .venv/bin/python bench/python_aggregates.py --table T --otree O [--runs 5]

T is an events table with a BTree on score, O the same rows laid out as an OTree on (x, y).
`Table.open` once each, then each case once as a warm-up and --runs times timed; prints one JSON
line per case with the median and what the answer rests on (rows read and aggregated, the
sample fraction and the widest interval for estimates).
"""

import argparse
import os
import statistics
import sys
import time

import lakeindex

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import emit  # noqa: E402

# (case name as aggregate_peers.mjs names it, table, aggregate keyword arguments)
CASES = [
    ("avg(score)", "table", dict(aggregates="avg(score)")),
    ("count(*) WHERE maybe IS NULL", "table", dict(aggregates="count(*)", where="maybe IS NULL")),
    ("count(*) WHERE score BETWEEN 100000 AND 200000", "table",
     dict(aggregates="count(*)", where="score BETWEEN 100000 AND 200000")),
    ("min(score), max(score), count(maybe)", "table", dict(aggregates="min(score), max(score), count(maybe)")),
    ("avg(score) GROUP BY category", "table", dict(aggregates="avg(score)", group_by="category")),
    ("ORDER BY score DESC LIMIT 10 (whole rows)", "table", dict(order_by="score desc", limit=10)),
    ("avg(score) sample 1% with interval", "otree", dict(aggregates="avg(score)", sample=0.01)),
    ("avg(score) to ±1% (--error 0.01)", "otree", dict(aggregates="avg(score)", error=0.01)),
    ("avg(score) GROUP BY category to ±5% (--error 0.05), top-3 categories", "otree",
     dict(aggregates="avg(score)", group_by="category", error=0.05,
          where="category IN ('cat_000', 'cat_001', 'cat_002')")),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--otree", required=True)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tables = {"table": lakeindex.Table.open(args.table), "otree": lakeindex.Table.open(args.otree)}
    for name, which, kw in CASES:
        t = tables[which]
        run = t.query if "order_by" in kw and "aggregates" not in kw else t.aggregate
        run(**kw)
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            result = run(**kw)
            times.append(time.perf_counter() - start)
        def plain(x):
            x = x.item() if hasattr(x, "item") else x
            return x if x is None or isinstance(x, (bool, int, float, str)) else str(x)
        first = {k: (None if v.size == 0 else plain(v[0])) for k, v in result.items()}
        emit({"bench": "aggregates", "engine": "lakeindex_python", "case": name, "table": which,
              "groups": len(next(iter(result.values()))), "first": first,
              "details": getattr(result, "details", None),
              "median_ms": statistics.median(times) * 1000, "runs_ms": [x * 1000 for x in times]})


if __name__ == "__main__":
    main()
