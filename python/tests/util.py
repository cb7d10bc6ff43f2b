"""Shared by the Python tests: the events data set made by `lakeindex gen`, read back by hand."""

import csv
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def cli():
    """The lakeindex binary: $LAKEINDEX_CLI (set by CTest), else build/lakeindex."""
    return os.environ.get("LAKEINDEX_CLI") or os.path.join(ROOT, "build", "lakeindex")


def ensure_path():
    """Makes spawned processes (Dask workers) find the package and the native module too."""
    import _lakeindex
    import lakeindex
    dirs = [os.path.dirname(os.path.dirname(os.path.abspath(lakeindex.__file__))),
            os.path.dirname(os.path.abspath(_lakeindex.__file__))]
    current = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(dirs + ([current] if current else []))


class Workdir:
    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="lakeindex-py-")

    def join(self, name):
        return os.path.join(self.path, name)

    def close(self):
        shutil.rmtree(self.path, ignore_errors=True)


def gen_events(path, rows, seed=42):
    subprocess.run([cli(), "gen", "--rows", str(rows), "--output", path, "--seed", str(seed)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def read_csv(path):
    """Rows of the events CSV as dicts (empty fields as None)."""
    with open(path, newline="") as f:
        return [{k: (v if v != "" else None) for k, v in row.items()} for row in csv.DictReader(f)]


def sorted_rows(result, key="id"):
    """A query result as a list of row tuples ordered by `key` (masked values as None)."""
    names = list(result)
    order = np.argsort(np.asarray(result[key]), kind="stable")
    columns = []
    for n in names:
        col = result[n]
        values = col.tolist() if not np.ma.isMaskedArray(col) else col.tolist(None)
        columns.append([values[i] for i in order])
    return list(zip(*columns))


def start_cluster():
    """A LocalCluster of 2 worker processes and its client. A task whose worker died is tried on
    another once more, then the job fails (KilledWorker). Workers see os.environ as it is now."""
    import dask
    import distributed
    ensure_path()
    dask.config.set({"distributed.scheduler.allowed-failures": 1})
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None, silence_logs=50)
    return cluster, distributed.Client(cluster)
