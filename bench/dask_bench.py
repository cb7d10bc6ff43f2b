"""Dask builds of the BTree index and the OTree layout with 1 and 2 workers, against the
single-process builds, on the events data (`lakeindex gen`).

  PYTHONPATH=build/python:python .venv/bin/python bench/dask_bench.py --rows 2000000 [--build build]

Every build runs on a fresh copy of the same table (fragments of --rows-per-file rows); the
times are wall-clock seconds of the whole job (tasks, transfers and the commit), best of
--rounds. Workers are processes with one thread each (the library's own thread pool still
works inside each of them).
"""

import argparse
import os
import shutil
import subprocess
import tempfile
import time

import distributed

import lakeindex
import lakeindex.dask as ld


def timed(fn, rounds, fresh):
    best = None
    for _ in range(rounds):
        path = fresh()
        start = time.perf_counter()
        fn(path)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=2000000)
    parser.add_argument("--rows-per-file", type=int, default=250000)
    parser.add_argument("--cube-rows", type=int, default=100000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="lakeindex-dask-bench-")
    try:
        data = os.path.join(work, "events.parquet")
        subprocess.run([os.path.join(args.build, "lakeindex"), "gen", "--rows", str(args.rows), "--output", data],
                       check=True, stderr=subprocess.DEVNULL)
        base = os.path.join(work, "base")
        lakeindex.Table.create(base, data, rows_per_file=args.rows_per_file)
        copies = [0]

        def fresh():
            copies[0] += 1
            path = os.path.join(work, f"t{copies[0]}")
            shutil.copytree(base, path)
            return path

        results = {}
        results["btree, 1 process"] = timed(lambda p: lakeindex.Table.open(p).create_index("id"), args.rounds, fresh)
        results["otree, 1 process"] = timed(
            lambda p: lakeindex.Table.open(p).layout_otree(["x", "y"], cube_rows=args.cube_rows), args.rounds, fresh)
        for workers in (1, 2):
            with distributed.LocalCluster(n_workers=workers, processes=True, threads_per_worker=1,
                                          dashboard_address=None, silence_logs=50) as cluster, \
                    distributed.Client(cluster) as client:
                results[f"btree, dask {workers} worker(s)"] = timed(
                    lambda p: ld.build_index(p, "id", "btree", client), args.rounds, fresh)
                results[f"otree, dask {workers} worker(s)"] = timed(
                    lambda p: ld.layout_otree(p, ["x", "y"], cube_rows=args.cube_rows, client=client),
                    args.rounds, fresh)
        print(f"{args.rows} events rows, {args.rows_per_file} rows per file, best of {args.rounds}")
        for name, seconds in results.items():
            print(f"  {name:28s} {seconds:7.2f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
