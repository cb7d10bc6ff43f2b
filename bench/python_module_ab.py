"""Lookups and aggregates through the Python module, for comparing two builds of the module.

    PYTHONPATH=MODULE_DIR:python .venv-numpy1/bin/python bench/python_module_ab.py TABLE SEED

TABLE: `lakeindex gen --rows 1000000 --seed 7` created as a table with btrees on id and score.
Prints one JSON line of medians (µs): a point lookup by id (2,000 keys drawn with SEED, whole
rows), a 0.01% score range (300), avg(score) (20), a counted score range from the btree (200), and
an Arrow stream of up to 11,000 rows (200). Run builds alternately, several seeds, and compare
medians (bench/RESULTS.md, "Twenty-third session").
"""
import json
import random
import statistics
import sys
import time

import lakeindex


def main():
    t = lakeindex.Table.open(sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    keys = [rng.randrange(1_000_000) for _ in range(2000)]
    out = {}

    def timed(name, fn, n):
        xs = []
        for i in range(n):
            a = time.perf_counter()
            fn(i)
            xs.append(time.perf_counter() - a)
        out[name] = statistics.median(xs) * 1e6

    timed("point_id_us", lambda i: t.query(f"id = {keys[i]}"), 2000)
    timed("range_0.01pct_us", lambda i: t.query(f"score BETWEEN {keys[i]} AND {keys[i] + 100}"), 300)
    timed("avg_score_us", lambda i: t.aggregate("avg(score)"), 20)
    timed("count_where_us", lambda i: t.count(f"score BETWEEN {keys[i]} AND {keys[i] + 100000}"), 200)
    timed("arrow_query_us", lambda i: t.query(f"id < {keys[i] % 10000 + 1000}", output="arrow").__arrow_c_stream__(), 200)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
