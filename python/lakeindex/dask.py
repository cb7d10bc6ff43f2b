"""Distributed builds on Dask: workers do the reading and writing, the driver commits once.

build_index: one task per group of fragments writes a segment; the driver commits the index
with all segments as one version. layout_otree: the OTree's passes spread over parts of the
table (samples for the transformations, then one round per tree level of per-cube weight
statistics, then the writes); the result is exactly the single-process layout (same _lakeindex_weight
and cube for every row, same revision), only the files differ (one set per part).

Every worker opens the table at the version the driver started from, so a concurrent commit
makes the final commit fail (Conflict) instead of mixing versions. A failed task is retried by
Dask (`retries` for exceptions, the scheduler's allowed-failures for killed workers); when the
job fails anyway, nothing is committed and the files already written stay unreferenced
(`lakeindex vacuum` removes them).

The workers need the lakeindex package and the native module on their path (the same
PYTHONPATH as the driver, e.g. build/python:python).
"""

from __future__ import annotations

import os
import signal
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import distributed

import _lakeindex as _native
from lakeindex import Names, PathLike, Table, _index_args, _layout_options, _memory_limit, _whole

Inject = Optional[Dict[str, Any]]  # the tests' fault hook (_fault)

__all__ = ["build_index", "layout_otree"]

_MAX_SEGMENTS = 8  # query/index_manager.h kMaxSegments: more would be merged by the next update


def build_index(path: PathLike, column: str, kind: str = "btree", client: Optional[distributed.Client] = None, *,
                name: Optional[str] = None, page_rows: Optional[int] = None, zone_rows: Optional[int] = None,
                groups: Optional[int] = None, retries: int = 2, _inject: Inject = None, **params: Any) -> int:
    """Builds a `kind` index on `column` (parameters as `Table.create_index`'s) with one Dask task
    per group of fragments and commits it as one new version. `groups`: number of segments
    (default: one per worker, at most 8). Returns the new version."""
    client = client or distributed.get_client()
    path = str(path)
    version = Table.open(path).version
    args = _index_args(column, kind, name, page_rows, zone_rows, params)
    _whole("groups", groups, 1)
    _whole("retries", retries, 0)
    _native.index_plan(path, version, *args)  # the errors CreateIndex gives, before any task
    fragments = _native.fragments(path, version)
    n = groups or min(_MAX_SEGMENTS, max(1, len(client.scheduler_info()["workers"])))
    futures = [client.submit(_build_segment, path, version, args, ids, _inject, i, pure=False,
                             retries=retries)
               for i, ids in enumerate(_split(fragments, n))]
    segments = _gather(client, futures)
    return _native.index_commit(path, version, *args, segments)


def layout_otree(path: PathLike, columns: Names, cube_rows: int = 100000,
                 client: Optional[distributed.Client] = None, *, parts: Optional[int] = None, slices: int = 8,
                 page_rows: Optional[int] = None, transform: str = "default", rows_per_file: int = 1000000,
                 seed: int = 42, retries: int = 2, memory_limit: Optional[int] = None,
                 row_groups: Optional[str] = None,
                 _inject: Inject = None) -> Dict[str, int]:
    """Rewrites the table as an OTree on `columns` with the work spread over `parts` parts of the
    table (default: one per worker) and commits once. `memory_limit` (bytes a task may take):
    at least as many parts as keep each part's rows within a third of it (a task writing a part
    holds about three times its decoded rows). Returns {"rows", "files", "blocks", "cubes",
    "depth"}."""
    client = client or distributed.get_client()
    path = str(path)
    version = Table.open(path).version
    options = _layout_options(columns, cube_rows, slices, page_rows, transform, rows_per_file, seed, row_groups)
    if not options["row_groups"]:  # as ops::Layout: by region when the table keeps Iceberg metadata
        options["row_groups"] = _native.default_row_groups(path, version)
    _native.layout_fit(path, version, options, [])  # checks the options before any task
    n = parts or max(1, len(client.scheduler_info()["workers"]))
    if memory_limit is not None:
        memory_limit = _memory_limit(memory_limit)
        need = _native.layout_estimate(path, version, options)
        n = max(n, -(-need // max(1, memory_limit // 3)))
    partitions = _native.layout_partitions(path, version, n)

    def submit(fn: Callable[..., Any], *args: Any, part: int) -> Any:
        return client.submit(fn, *args, _inject, part, pure=False, retries=retries)

    # Each part's layout columns are read once and kept on its worker (as bytes) for the sample and
    # the points; its whole rows are read once more to be written: the table is read twice.
    reads = [submit(_read, path, version, options, p, part=i) for i, p in enumerate(partitions)]
    samples = _gather(client, [submit(_sample, path, version, options, p, r, part=i)
                               for i, (p, r) in enumerate(zip(partitions, reads))])
    revision = _native.layout_fit(path, version, options, samples)
    # Each part's coordinates and weights stay on its worker between the rounds (Dask recomputes
    # them, and the columns they come from, if the worker dies).
    points = [submit(_points, path, version, options, p, revision, r, part=i)
              for i, (p, r) in enumerate(zip(partitions, reads))]
    del reads  # the scheduler frees each part's columns once its points are computed
    try:
        builder = _native.TreeBuilder(len(options["columns"]), cube_rows)
        while not builder.done:
            tree = builder.tree_json()
            builder.add_level(_gather(client, [submit(_level, pf, tree, builder.depth, part=i)
                                               for i, pf in enumerate(points)]))
        revision = _native.layout_revision(revision, builder.tree_json())
    finally:
        client.cancel(points)
    written = _gather(client, [submit(_write, path, version, options, p, revision, part=i)
                               for i, p in enumerate(partitions)])
    return _native.layout_commit(path, version, options, revision, written)


def _split(fragments: Sequence[Tuple[int, int]], n: int) -> List[List[int]]:
    """Consecutive groups of fragment ids with about equal rows (at most n, none empty)."""
    total = sum(rows for _, rows in fragments)
    target = max(1, -(-total // max(1, n)))
    out: List[List[int]] = []
    rows_in = 0
    for fid, rows in fragments:
        if not out or (rows_in >= target and len(out) < n):
            out.append([])
            rows_in = 0
        out[-1].append(fid)
        rows_in += rows
    return out


def _gather(client: distributed.Client, futures: List[Any]) -> List[Any]:
    try:
        return client.gather(futures)
    except BaseException:
        client.cancel(futures)
        raise


def _fault(inject: Inject, step: str, part: int) -> None:
    """Test hook: fails the task of `part` at `step` as `inject` says ({"step", "part", "kill":
    kill the worker process instead of raising, "once": a marker file so that only the first
    attempt fails})."""
    if not inject or inject.get("step") != step or inject.get("part", 0) != part:
        return
    once = inject.get("once")
    if once:
        try:
            os.close(os.open(once, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return
    if inject.get("kill"):
        os.kill(os.getpid(), signal.SIGKILL)
    raise RuntimeError(f"lakeindex.dask: injected failure at {step} of part {part}")


def _build_segment(path: str, version: int, args: Tuple[str, str, str, str], ids: List[int], inject: Inject,
                   part: int) -> Dict[str, Any]:
    segment = _native.index_build_segment(path, version, *args, ids)
    _fault(inject, "segment", part)  # after its files are written: they must stay unreferenced
    return segment


def _read(path: str, version: int, options: Dict[str, Any], partition: Any, inject: Inject, part: int) -> Any:
    _fault(inject, "read", part)
    return _native.layout_read(path, version, options, partition)


def _sample(path: str, version: int, options: Dict[str, Any], partition: Any, read: Any, inject: Inject,
            part: int) -> Any:
    _fault(inject, "sample", part)
    return _native.layout_sample(path, version, options, partition, read)


def _points(path: str, version: int, options: Dict[str, Any], partition: Any, revision: str, read: Any,
            inject: Inject, part: int) -> Any:
    _fault(inject, "points", part)
    return _native.layout_points(path, version, options, partition, revision, read)


def _level(points: Tuple[List[Any], Any], tree: str, depth: int, inject: Inject, part: int) -> Any:
    _fault(inject, "level", part)
    coords, weights = points
    return _native.layout_level(coords, weights, tree, depth)


def _write(path: str, version: int, options: Dict[str, Any], partition: Any, revision: str, inject: Inject,
           part: int) -> Any:
    written = _native.layout_write(path, version, options, partition, revision)
    _fault(inject, "write", part)
    return written
