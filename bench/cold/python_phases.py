# The Python module's cold lookup by phase, in a new process each: `import lakeindex`, numpy (and
# numpy.ma: a column with NULLs comes back masked) imported before or by the first query,
# Table.open, the first query, a second new key. Wall and CPU (user + sys, all threads) per phase,
# medians over the runs. Run (a table `ev` with a btree on score, docs/random-access-plan.md):
#   PYTHONPATH=build/python:python .venv/bin/python bench/cold/python_phases.py /tmp/c/ev [runs]
# Found with it (2026-12-07, 2M and 10M rows): the first query's wait is numpy's import (30-60 ms,
# numpy.ma 7 ms of it) done inside it by the result's conversion, and OpenBLAS's threads, which
# spin for about 100 ms after numpy's import, taking a core from the query on a 2-core machine.
import os, resource, statistics, subprocess, sys, time

CHILD = r'''
import resource, sys, time
def snap():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), r.ru_utime + r.ru_stime
s = [snap()]
import lakeindex
s.append(snap())
if sys.argv[3] == "numpy first":
    import numpy, numpy.ma
s.append(snap())
t = lakeindex.Table.open(sys.argv[1])
s.append(snap())
t.query(f"score = {sys.argv[2]}")
s.append(snap())
t.query(f"score = {int(sys.argv[2]) + 1}")
s.append(snap())
print(" ".join(f"{1e3 * (b[0] - a[0]):.3f},{1e3 * (b[1] - a[1]):.3f}" for a, b in zip(s, s[1:])))
'''
PHASES = ["import lakeindex", "import numpy", "Table.open", "first query", "second new key"]

table = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
for mode in ("numpy first", "numpy by the query"):
    got = []
    for i in range(runs):
        out = subprocess.run([sys.executable, "-c", CHILD, table, str(300000 + 7919 * i), mode],
                             capture_output=True, text=True, check=True).stdout.split()
        got.append([tuple(map(float, p.split(","))) for p in out])
    print(mode + ":")
    for k, name in enumerate(PHASES):
        print(f"  {name:16s} wall {statistics.median(g[k][0] for g in got):7.2f} ms   "
              f"cpu {statistics.median(g[k][1] for g in got):7.2f} ms")
