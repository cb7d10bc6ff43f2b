"""lakeindex: lakehouse tables that index themselves, from Python.

A Table is one version of a table directory (Parquet data files + JSON manifests). Queries
return a dict of numpy arrays, one per selected column: numbers and booleans with their dtype,
dates as datetime64[D], timestamps and timestamptz (UTC) as datetime64[us], timestamp_ns as
datetime64[ns] (numpy masked arrays when a column has NULLs), strings as object arrays of str,
binary of bytes, uuid of uuid.UUID, decimal of decimal.Decimal, with None for NULL.

Errors are raised as lakeindex.Error subclasses carrying the library's message:
InvalidArgument (also a ValueError), NotFound (also a LookupError), Conflict, Corruption,
IOError (also an OSError), NotSupported, InternalError, OutcomeUnknown (a write whose outcome is
not known: look at the versions before running it again). Arguments of the wrong type raise
TypeError, and out of range ValueError, before anything is read or written. The GIL is released while the library works, so other
Python threads run meanwhile.

Build the native module with `make build` (it lands in build/python/), then use the checkout
with PYTHONPATH=build/python:python. See docs/python.md.
"""

from __future__ import annotations

import datetime as _datetime
import operator as _operator
import os as _os
import warnings as _warnings
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import _lakeindex as _native

if TYPE_CHECKING:
    import numpy as _np
    import numpy.typing as _npt

    #: A query's columns: {name: numpy array} (masked arrays where a column has NULLs).
    Columns = Dict[str, _npt.NDArray[Any]]

#: A table's location: a directory, file:///abs/path or s3://bucket/prefix.
PathLike = Union[str, "_os.PathLike[str]"]
#: Column names: a list, or "a,b".
Names = Union[str, Sequence[str]]

__version__: str = _native.__version__

_EPOCH = _datetime.date(1970, 1, 1)

__all__ = ["__version__", "Table", "index_kinds", "Field", "Schema", "AggregateResult", "ArrowStream", "Error", "InvalidArgument", "NotFound", "Conflict", "Corruption", "IOError",
           "NotSupported", "InternalError", "OutcomeUnknown"]

Error = _native.Error
InvalidArgument = _native.InvalidArgument
NotFound = _native.NotFound
Conflict = _native.Conflict
Corruption = _native.Corruption
IOError = _native.IOError  # noqa: A001 (lakeindex.IOError, not the builtin)
NotSupported = _native.NotSupported
InternalError = _native.InternalError
# A write whose outcome could not be learned (its answer lost, and reading it back failed): the
# version may or may not be there; Table.open(path).versions() tells.
OutcomeUnknown = _native.OutcomeUnknown
# A query's rows as an Arrow C stream (Table.query(output="arrow")): __arrow_c_stream__ and
# __arrow_c_schema__ give PyCapsules of the Arrow C stream / data interface; `names` the columns.
ArrowStream = _native.ArrowStream


class AggregateResult(Dict[str, Any]):
    """Table.aggregate's {column: numpy array}, with `details`: what the answer rests on
    (estimated, fraction, rounds, confidence, max_relative_half_width, rows_aggregated,
    rows_read). An Arrow source too (`pyarrow.table(r)`, `polars.DataFrame(r)`, DuckDB's
    `FROM r`): __arrow_c_stream__ gives its rows with the aggregates' types."""

    def __init__(self, items: Any, details: Dict[str, Any], arrow_rows: Any = None) -> None:
        super().__init__(items)
        self.details = details
        self._arrow_rows = arrow_rows

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        if self._arrow_rows is None:
            raise NotSupported("this result has no Arrow rows: aggregate(..., output='arrow') gives them")
        return self._arrow_rows().__arrow_c_stream__(requested_schema)


class Table:
    """One version of the table at `path`: a local directory, file:///abs/path, or
    s3://bucket/prefix (configured as the AWS tools are: AWS_* variables, ~/.aws)."""

    def __init__(self, native: _native.Table) -> None:
        self._t = native

    @classmethod
    def create(cls, path: PathLike, source: Any, rows_per_file: Optional[int] = None, schema: Optional[str] = None,
               iceberg: bool = False, iceberg_location: Optional[str] = None, delimiter: Optional[str] = None,
               quote: Optional[str] = None, escape: Optional[str] = None, header: Optional[bool] = None,
               null: Optional[str] = None, nan_is_null: bool = True, iceberg_format: int = 2,
               dateformat: Optional[str] = None, thousands: Optional[str] = None) -> Table:
        """Creates version 1 from a .csv or .parquet file, or from rows in memory: a pandas
        DataFrame, a dict of equal-length numpy arrays / lists (see _columns for the types), or
        any object with `__arrow_c_stream__` (a pyarrow Table or RecordBatchReader, a Polars
        DataFrame, an ArrowStream; read batch by batch; types as docs/python.md "Arrow" says).
        `schema` ("id:int64,name:string") and the dialect apply to CSV sources, as the command
        line's options: `delimiter` (one character or "tab"; default ',' or the one of ';', TAB,
        '|' the header line uses), `quote` (default '"'), `escape` (default: the quote doubled),
        `header` (True / False; default sniffed), `null` (unquoted fields equal to it are NULL),
        `dateformat` (dates written so, as DuckDB's: "%m/%d/%Y"), `thousands` (a character between
        the digits of numbers: "," for "1,234.50"); a column inferred as strings whose values look
        like dates or numbers written otherwise is named in a UserWarning. With
        `iceberg` (or an `iceberg_location`, the absolute URI other engines read the table at;
        default the table's own), every commit also writes Iceberg metadata under metadata/, in
        format version `iceberg_format` (2, or 3: deletes as deletion vectors)
        (docs/user-guide.md, "Reading a lakeindex table from other engines"). NaN in a pandas
        float column is NULL, pandas' missing value (as pyarrow, Polars and DuckDB take it);
        `nan_is_null=False` keeps it a NaN. InvalidArgument if a table exists there."""
        rows_per_file = _whole("rows_per_file", rows_per_file, 1)
        _text("schema", schema)
        path = _path(path)
        if iceberg and iceberg_location is None:
            iceberg_location = _native.location_uri(path)
        if iceberg_format not in (2, 3):
            raise ValueError(f"iceberg_format must be 2 or 3, got {iceberg_format!r}")
        ice = None if iceberg_location is None else (_text("iceberg_location", iceberg_location), iceberg_format)
        if hasattr(source, "__arrow_c_stream__") and not _in_memory(source):  # pyarrow / Polars / DuckDB, an ArrowStream
            if schema is not None:
                raise InvalidArgument("schema applies to CSV files; Arrow data carries its own types")
            return cls(_native.Table.create_from_arrow(path, source.__arrow_c_stream__(), rows_per_file, ice))
        if _in_memory(source):
            if schema is not None:
                raise InvalidArgument("schema applies to CSV files; rows in memory carry their own types")
            return cls(_native.Table.create_from_columns(path, _columns(source, nan_is_null), rows_per_file, ice))
        return cls(_native.Table.create(path, _source_path(source), rows_per_file, schema, ice,
                                        _dialect(delimiter, quote, escape, header, null, dateformat, thousands)))

    @classmethod
    def open(cls, path: PathLike, version: Optional[int] = None) -> Table:
        """The newest version, or `version` (time travel). NotFound when there is no table."""
        return cls(_native.Table.open(_path(path), _whole("version", version, 1)))

    @property
    def path(self) -> str:
        return self._t.path

    @property
    def version(self) -> int:
        return self._t.version

    @property
    def schema(self) -> Schema:
        """The columns, hidden ones such as _lakeindex_weight included: a list of Field(name, type,
        nullable); str() gives "name:type,..." (the command line's --schema), and it is an Arrow
        schema to any consumer of the PyCapsule protocol (`pyarrow.schema(t.schema)`)."""
        return Schema(self._t.schema, self._t)

    def __len__(self) -> int:
        """The live rows of this version (from the manifest: nothing is read)."""
        return int(self._t.live_rows)

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The visible columns of every live row of this version as an Arrow C stream (the Arrow
        PyCapsule protocol), read as it is consumed: `pyarrow.table(t)`, `polars.DataFrame(t)`,
        DuckDB's `FROM t`, or another table's `create(path, t)`. As query(output="arrow")."""
        return self._t.arrow_query("", [], None, None, "").__arrow_c_stream__(requested_schema)

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: Any) -> None:
        """Nothing to release but the caches, which go with the object: `with` only scopes it."""
        return None

    def append(self, source: Any, rows_per_file: Optional[int] = None, delimiter: Optional[str] = None,
               memory_limit: Optional[int] = None, quote: Optional[str] = None, escape: Optional[str] = None,
               header: Optional[bool] = None, null: Optional[str] = None, nan_is_null: bool = True,
               dateformat: Optional[str] = None, thousands: Optional[str] = None) -> Table:
        """Appends the rows of a .csv/.parquet file (in the dialect `create` takes), a pandas
        DataFrame or a dict of arrays (the
        table's visible columns, by name; int32 and float32 widen), as `lakeindex append`: an
        OTree table places them into its tree, a file's rows a chunk at a time under
        `memory_limit` (bytes; default a quarter of RAM, at most 2G); indexes are updated. NaN in
        a pandas float column is NULL unless `nan_is_null=False` (as create)."""
        rows_per_file = _whole("rows_per_file", rows_per_file, 1)
        if memory_limit is not None:
            memory_limit = _memory_limit(memory_limit)
        if hasattr(source, "__arrow_c_stream__") and not _in_memory(source):
            self._t.append_arrow(source.__arrow_c_stream__(), rows_per_file)
        elif _in_memory(source):
            index_names = [] if isinstance(source, dict) else [str(n) for n in source.index.names if n is not None]
            for name in index_names:
                if name not in self.schema.names:
                    raise InvalidArgument(f"source: the DataFrame's index {name!r} is kept as a column, which the table "
                                          f"({self.schema}) does not have: drop it (frame.reset_index(drop=True))")
            self._t.append_columns(_columns(source, nan_is_null), rows_per_file)
        else:
            self._t.append(_source_path(source), rows_per_file,
                           _dialect(delimiter, quote, escape, header, null, dateformat, thousands), memory_limit)
        return self

    def delete(self, where: str) -> int:
        """Deletes the rows where the SQL filter is TRUE; returns how many were deleted."""
        return self._t.delete(_text("where", where, optional=False))

    def optimize(self, rows_per_file: Optional[int] = None, memory_limit: Optional[int] = None) -> int:
        """As `lakeindex optimize`: merges small files and folds deleted rows into rewritten ones
        (an OTree table splits overfull cubes and rolls small files up, spilling the rows it
        rewrites under the table's _tmp/ when they would not fit in `memory_limit` bytes; default
        a quarter of RAM, at most 2 GiB), re-indexing them in the same commit. Returns the number
        of files rewritten (0: nothing to do, no new version)."""
        if memory_limit is not None:
            memory_limit = _memory_limit(memory_limit)
        return self._t.optimize(_whole("rows_per_file", rows_per_file, 1), memory_limit)

    def create_index(self, column: str, kind: str = "btree", name: Optional[str] = None,
                     page_rows: Optional[int] = None, zone_rows: Optional[int] = None, **params: Any) -> Table:
        """Builds an index of `kind` over every fragment and commits it: "btree" (exact; ranges,
        counts, ORDER BY ... LIMIT; `page_rows` per leaf page, default 4096), "zonemap" (pruning;
        `zone_rows` per zone, default 8192) or "bitmap" (exact, for columns of few distinct values;
        `max_values`, default 65536). `index_kinds()` lists them; other keyword arguments are the
        kind's parameters."""
        self._t.create_index(*_index_args(column, kind, name, page_rows, zone_rows, params))
        return self

    def indexes(self) -> List[Dict[str, Any]]:
        """The table's indexes, as `lakeindex index list`: [{"name", "column", "kind", "segments",
        "covered_fragments", "uncovered_fragments", "params"}]."""
        return list(self._t.indexes())

    def update_index(self, name: Optional[str] = None, merge: bool = False) -> int:
        """As `lakeindex index update`: indexes the fragments an index (or, without `name`, every
        index) does not cover yet; `merge` also merges each index's segments into one. Returns
        the number of segments built (0: nothing to do, no new version)."""
        return int(self._t.update_index(_text("name", name), bool(merge)))

    def drop_index(self, name: str) -> Table:
        """As `lakeindex index drop`: removes the index from the next version (its files stay
        until vacuum). NotFound when there is no such index."""
        self._t.drop_index(_text("name", name, optional=False))
        return self

    def vacuum(self, older_than_hours: float = 24, force: bool = False,
               keep_versions: Optional[int] = None) -> Dict[str, List[Any]]:
        """As `lakeindex vacuum`: with `keep_versions` first expires all but the newest N
        versions in one commit (a new version with the same rows, counted among the N), then
        removes the files no kept version names that are older than `older_than_hours` (below 1
        hour needs `force`: a write still in progress may own such files). Returns {"expired":
        [versions], "removed": [paths], "warnings": [what was left undone after the expiry's
        commit, which the next vacuum finishes]}."""
        if isinstance(older_than_hours, bool) or not isinstance(older_than_hours, (int, float)):
            raise TypeError(f"older_than_hours must be a number, not {type(older_than_hours).__name__}")
        if not older_than_hours >= 0:
            raise ValueError(f"older_than_hours must be >= 0, got {older_than_hours!r}")
        if older_than_hours < 1 and not force:
            raise ValueError("older_than_hours below 1 may delete the files of a write still in progress (they become "
                             "part of the table when it commits): pass force=True if no other process writes to the table")
        keep = None if keep_versions is None else _whole("keep_versions", keep_versions, 1)
        return dict(self._t.vacuum(float(older_than_hours), bool(force), keep))

    def verify(self, repair: bool = False) -> List[str]:
        """As `lakeindex verify`: reads every file this version names whole and checks it (one
        line per file); Corruption naming every damaged or missing file. `repair=True` (as
        `lakeindex verify --repair`) first writes again the version's Iceberg metadata files
        (manifest list, manifests, delete files) that the store lost (no commit, no data changed), with a line for each."""
        if not isinstance(repair, bool):
            raise TypeError("repair must be a bool, got " + type(repair).__name__)
        lines: List[str] = []
        if repair:
            done = self._t.repair_iceberg()
            lines += ["repair: wrote " + f + " again" for f in done["written"]]
            lines += ["repair: left " + f for f in done["left"]]
        return lines + list(self._t.verify())

    @staticmethod
    def recover(path: PathLike, accept_lost_version: int) -> int:
        """As `lakeindex recover --accept-lost-version`: a table whose newest versions were lost
        (opening it names them) goes on from the newest one left, which is returned."""
        return int(_native.Table.recover(_path(path), _whole("accept_lost_version", accept_lost_version, 1)))

    def layout_otree(self, columns: Names, cube_rows: Optional[int] = None, slices: int = 8,
                     page_rows: Optional[int] = None, transform: str = "default", rows_per_file: int = 1000000,
                     seed: int = 42, memory_limit: Optional[int] = None,
                     row_groups: Optional[str] = None) -> Dict[str, int]:
        """Rewrites the table as an OTree on 1-6 columns (as `lakeindex layout --otree`).
        `memory_limit`: bytes the layout may take (default a quarter of RAM, at most 2G); over it the tree
        is built in parts of the table, one at a time (the same rows, weights and cubes).
        `row_groups`: "slices" (a row group per weight slice of a cube) or "regions" (cubes with
        children cut by space too: for engines that skip only row groups, docs/engines.md);
        default "regions" (small boxes meet fewer row groups; docs/otree.md).
        Returns {"rows", "files", "blocks", "cubes", "depth", "bytes_before", "bytes_after"} (the
        data files' bytes before and after); a UserWarning says when the files grew 1.25x or more."""
        options = _layout_options(columns, cube_rows, slices, page_rows, transform, rows_per_file, seed, row_groups)
        if memory_limit is not None:
            options["memory_limit"] = _memory_limit(memory_limit)
        return _warn_growth(self._t.layout_otree(options))

    def layout_sort(self, columns: Names, rows_per_file: int = 1000000, memory_limit: Optional[int] = None) -> Dict[str, int]:
        """Rewrites the table sorted by `columns` (as `lakeindex layout --sort`): a comparison
        layout, ordinary files whose bounds prune. Returns {"rows", "files", ...}."""
        return self._curve("sort", columns, rows_per_file, memory_limit)

    def layout_zorder(self, columns: Names, rows_per_file: int = 1000000, memory_limit: Optional[int] = None) -> Dict[str, int]:
        """Rewrites the table in Z-order of `columns` (as `lakeindex layout --zorder`)."""
        return self._curve("zorder", columns, rows_per_file, memory_limit)

    def layout_hilbert(self, columns: Names, rows_per_file: int = 1000000, memory_limit: Optional[int] = None) -> Dict[str, int]:
        """Rewrites the table in Hilbert order of `columns` (as `lakeindex layout --hilbert`)."""
        return self._curve("hilbert", columns, rows_per_file, memory_limit)

    def _curve(self, kind: str, columns: Names, rows_per_file: int, memory_limit: Optional[int]) -> Dict[str, int]:
        options: Dict[str, Any] = {"kind": kind, "columns": _names(columns, "columns"),
                                   "rows_per_file": _whole("rows_per_file", rows_per_file, 1)}
        if not options["columns"]:
            raise ValueError("columns must name at least one column")
        if memory_limit is not None:
            options["memory_limit"] = _memory_limit(memory_limit)
        return _warn_growth(self._t.layout_otree(options))

    def query(self, where: Optional[str] = None, select: Optional[Names] = None, sample: Optional[float] = None,
              limit: Optional[int] = None, order_by: Optional[Names] = None, output: str = "numpy",
              offset: int = 0) -> Any:
        """Rows where `where` (SQL) is TRUE: {column: numpy array}. `select`: a list of column
        names or "a,b" (default: the visible columns); `sample`: fraction in (0, 1] of an
        OTree table (exactly the rows with _lakeindex_weight below it); `limit`: at most this many,
        after skipping `offset` rows (SQL's OFFSET, as `--offset`);
        `order_by`: "c [desc], ..." or a list of such terms (NULLs last; one btree column with a
        limit is read in order from the index). `output="pandas"` gives a pandas DataFrame
        instead, its dtypes from the table's schema (docs/python.md "pandas"): numbers and
        booleans of nullable columns as nullable Int / Float / boolean, None, NaT. `output="arrow"` gives
        an ArrowStream: the rows as Arrow record batches, read as they are consumed, for any
        consumer of the Arrow PyCapsule protocol (`pyarrow.table(s)`, `polars.DataFrame(s)`,
        DuckDB's `FROM s`), without copies of the values."""
        _check_output(output, ("numpy", "pandas", "arrow"))
        args = (_text("where", where), _names(select), _fraction("sample", sample), _whole("limit", limit),
                _terms("order_by", order_by), _whole("offset", offset) or 0)
        if output == "arrow":
            return self._t.arrow_query(*args)
        names, columns = self._t.query(*args)
        if output == "numpy":  # (the schema only says how to make a DataFrame)
            return dict(zip(names, columns))
        return _output(dict(zip(names, columns)), output, self._t.schema)

    def scan(self, where: Optional[str] = None, select: Optional[Names] = None, sample: Optional[float] = None,
             limit: Optional[int] = None, output: str = "numpy") -> Any:
        """The rows `query` would return, as an iterator of batches ({column: numpy array}, or
        DataFrames with output="pandas"), read as they are asked for: for results larger than
        memory. It reads the version the table was at when it started, whatever happens after.
        `output="arrow"` gives one ArrowStream of all the batches instead (as query's)."""
        _check_output(output, ("numpy", "pandas", "arrow"))
        args = (_text("where", where), _names(select), _fraction("sample", sample), _whole("limit", limit))
        if output == "arrow":
            return self._t.arrow_query(*args, "")
        return self._batches(args, output)

    def _batches(self, args: Tuple[Any, ...], output: str) -> Iterator[Any]:
        schema = self._t.schema
        for names, columns in self._t.scan(*args):
            yield _output(dict(zip(names, columns)), output, schema)

    def count(self, where: Optional[str] = None) -> int:
        """How many rows `where` (SQL) holds for (every live row when None). A filter that a
        BTree answers exactly is counted from the index and the deletion vectors, without reading
        data files; other filters read only the columns they test."""
        return self._t.count(_text("where", where))

    def aggregate(self, aggregates: Names, where: Optional[str] = None, group_by: Optional[Names] = None,
                  limit: Optional[int] = None, sample: Optional[float] = None, error: Optional[float] = None,
                  confidence: float = 0.95, order_by: Optional[Names] = None, output: str = "numpy",
                  offset: int = 0) -> Any:
        """Aggregates, as `lakeindex query --agg`: {column: numpy array} with the group_by
        columns (a list or "a,b") then one column per aggregate of `aggregates`
        ("count(*), count(c), sum(c), avg(c), min(c), max(c), count_distinct(c)", or a list of
        them), one row per
        group (one row without group_by). SQL semantics: NULLs skipped, count 0 and the others
        NULL (masked) over no rows, an integer sum past int64 an error. `order_by` orders the
        groups by result columns ("avg(score) desc", or a list of such terms), before `limit`.
        `offset` skips that many groups first (SQL's OFFSET; the groups need an `order_by`).
        The result is also an Arrow source (AggregateResult).

        Estimates (OTree tables): with `sample=f` the aggregates are estimated from the rows of
        the f sample, or with `error=E` from the smallest sample found whose intervals are within
        ±E relative; each count / sum / avg is followed by "<name> ±", its interval's half-width
        at `confidence`. The result's `details` says what was read (fraction, rounds,
        rows_aggregated, rows_read, max_relative_half_width). `output="arrow"` gives the rows as
        an ArrowStream (details then unavailable: ask with output="numpy")."""
        _check_output(output, ("numpy", "pandas", "arrow"))
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
            raise TypeError(f"confidence must be a number, not {type(confidence).__name__}")
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
        answer = self._t.aggregate(_terms("aggregates", aggregates, optional=False), _text("where", where),
                                   _names(group_by, "group_by"), _whole("limit", limit),
                                   _fraction("sample", sample), _fraction("error", error, upper=None),
                                   float(confidence), _terms("order_by", order_by), output == "arrow",
                                   _whole("offset", offset) or 0)
        if output == "arrow":
            return answer[1]
        names, columns, details, schema, arrow_rows = answer
        if output == "pandas":
            frame = _output(dict(zip(names, columns)), output, schema)
            frame.attrs["details"] = details
            return frame
        return AggregateResult(zip(names, columns), details, arrow_rows)

    def explain(self, where: Optional[str] = None, sample: Optional[float] = None,
                analyze: bool = False) -> Dict[str, Any]:
        """The plan (as `lakeindex explain --json`): pruning decisions, fragments to scan and,
        with analyze=True, what running it read."""
        return self._t.explain(_text("where", where), _fraction("sample", sample), bool(analyze))

    def versions(self) -> List[Dict[str, Any]]:
        """Every committed version, oldest first: [{"version", "timestamp" (a UTC datetime),
        "timestamp_ms", "operation", "rows", "fragments"}]."""
        out = []
        for v in self._t.versions():
            v = dict(v)
            v["timestamp"] = _datetime.datetime.fromtimestamp(v["timestamp_ms"] / 1000, _datetime.timezone.utc)
            out.append(v)
        return out

    def stats(self) -> Dict[str, Any]:
        """{"version", "schema", "fragments", "rows", "deleted_rows", "data_bytes", "columns":
        {name: {"type", "min", "max", "null_count", "nan_count", "row_count"}}, "indexes",
        "layout"} (indexes and layout as stored in the manifest). min and max are Python values
        of the column's type, as queries give them: str, bytes, uuid.UUID, decimal.Decimal,
        datetime.date, datetime.datetime (UTC-aware for timestamptz), numpy.datetime64 for
        timestamp_ns."""
        out = dict(self._t.stats())
        for column in out.get("columns", {}).values():
            for key in ("min", "max"):
                if column.get(key) is not None:
                    column[key] = _python_value(column["type"], column[key])
        return out

    def prewarm(self, columns: Optional[Names] = None, indexes: bool = True, data: bool = True,
                max_bytes: Optional[int] = None, cache_capacity: Optional[int] = None) -> Dict[str, Any]:
        """Reads the table's index pages and the data pages of `columns` (default: every visible
        column) into this process's cache, so that later queries through this `Table` read nothing
        from the store for them, keys never looked up included — the warm regime, as SQLite keeps
        its pages. (The cache is keyed by the opened files: another `Table.open` starts cold.)
        Stops at `max_bytes` read, or when the cache (`LAKEINDEX_CACHE_MB`, default 1 GiB or a
        quarter of memory) is 80% full. `cache_capacity` (bytes) raises the process cache's
        capacity to that first (never lowers it), for a table whose decoded pages (about twice
        its files) do not fit the default. Returns {"data_bytes", "data_pages", "index_bytes",
        "index_pages", "complete", "cache_bytes", "cache_capacity"}; "complete" is False when a
        limit stopped it."""
        return dict(self._t.prewarm(_names(columns, "columns"), bool(data), bool(indexes),
                                    _whole("max_bytes", max_bytes), _whole("cache_capacity", cache_capacity)))

    def enable_iceberg(self, location: Optional[str] = None, format: Optional[int] = None) -> str:  # noqa: A002
        """As `lakeindex iceberg enable`: keeps Iceberg metadata from now on (a commit writing it
        for the current rows), engines reading the table at `location` (default the table's own
        URI); on a table that keeps it, commits nothing and writes what a crash left unwritten.
        `format`: Iceberg's format version, 2 or 3 (deletes as deletion vectors); default 2, or
        the one the table keeps (another one writes every Iceberg file anew, as a move does).
        Returns the newest version's metadata file (metadata/vN.metadata.json)."""
        if format is not None and format not in (2, 3):
            raise ValueError(f"format must be 2 or 3, got {format!r}")
        return self._t.enable_iceberg(_text("location", location) or None, format)

    def files(self) -> List[Dict[str, Any]]:
        """The live data files of this version, as `lakeindex files --format json`: [{"path",
        "file", "fragment", "rows", "live_rows", "deleted", "file_size", "stats"}], `deleted`
        being the positions (row numbers in the file) of its deleted rows, for engines that read
        the Parquet files themselves."""
        return self._t.files()

    def __repr__(self) -> str:
        return f"lakeindex.Table({self.path!r}, version={self.version})"


class Field(Tuple[str, str, bool]):
    """A column: name, type (as the command line's --schema spells it) and whether it holds NULLs."""

    def __new__(cls, name: str, type: str, nullable: bool) -> Field:  # noqa: A002 - the column's type
        return super().__new__(cls, (name, type, nullable))

    @property
    def name(self) -> str:
        return self[0]

    @property
    def type(self) -> str:
        return self[1]

    @property
    def nullable(self) -> bool:
        return self[2]

    def __repr__(self) -> str:
        return f"Field({self.name!r}, {self.type!r}, nullable={self.nullable})"


class Schema(List[Field]):
    """A table's columns: a list of Field; str() is "name:type,..." ('!' after a NOT NULL type),
    and __arrow_c_schema__ gives it to Arrow consumers (`pyarrow.schema(s)`)."""

    def __init__(self, text: str, native: Any = None) -> None:
        import re
        fields = []
        for entry in re.split(r",(?![^(]*\))", text) if text else []:  # commas outside "decimal(10,2)"
            name, type_name = entry.rsplit(":", 1)
            fields.append(Field(name, type_name.rstrip("!"), not type_name.endswith("!")))
        super().__init__(fields)
        self._text = text
        self._native = native

    def __str__(self) -> str:
        return self._text

    def __eq__(self, other: object) -> bool:
        """Equal to another schema of the same fields, or to its string ("a:int64,b:string")."""
        if isinstance(other, str):
            return self._text == other
        return list.__eq__(self, other)

    __hash__ = None

    @property
    def names(self) -> List[str]:
        return [f.name for f in self]

    def __arrow_c_schema__(self) -> Any:
        if self._native is None:
            raise NotSupported("this schema is not a table's: no Arrow schema")
        return self._native.arrow_schema()


def _path(path: Any) -> str:
    """A table's location: a str or an os.PathLike."""
    if isinstance(path, (str, _os.PathLike)):
        return _os.fspath(path)
    raise TypeError(f"path must be a str or os.PathLike, not {type(path).__name__}")


def _source_path(source: Any) -> str:
    """A source that is a file: its path; TypeError naming what sources are otherwise."""
    if isinstance(source, (str, _os.PathLike)):
        return _os.fspath(source)
    raise TypeError("source must be a file path (.csv, .parquet, .arrow), a pandas DataFrame, a dict of columns or an "
                    f"object with __arrow_c_stream__, not {type(source).__name__}")


def index_kinds() -> Dict[str, str]:
    """The index kinds `create_index` builds, by name, with what each answers."""
    return dict(_native.index_kinds())


def _index_args(column: Any, kind: Any, name: Any, page_rows: Any, zone_rows: Any,
                params: Mapping[str, Any]) -> Tuple[str, str, str, str]:
    """create_index's arguments checked, the kind's parameters as JSON (as the native calls take them)."""
    column = _text("column", column, optional=False)
    kind = _text("kind", kind, optional=False)
    kinds = [k for k, _ in _native.index_kinds()]
    if kind not in kinds:
        raise ValueError(f"kind must be one of {', '.join(map(repr, kinds))}; got {kind!r}")
    given: Dict[str, Any] = {"page_rows": _whole("page_rows", page_rows, 1),
                             "zone_rows": _whole("zone_rows", zone_rows, 1)}
    for key, value in params.items():
        if not isinstance(value, (bool, int, float, str)) and value is not None:
            raise TypeError(f"{key} must be an int, float, str or bool, not {type(value).__name__}")
        given[key] = value
    import json  # here, not at the top: `import lakeindex` stays without json's imports (about 1-6 ms)
    return column, kind, _text("name", name), json.dumps({k: v for k, v in given.items() if v is not None})


def _text(name: str, value: Any, optional: bool = True) -> str:
    """A string argument ("" for None when it may be left out); TypeError naming it otherwise."""
    if value is None and optional:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return value


def _terms(name: str, value: Any, optional: bool = True) -> str:
    """SQL terms ("count(*), max(x)", "a desc, b"): a str, or a list of them joined by commas."""
    if isinstance(value, (list, tuple)):
        for item in value:
            if not isinstance(item, str):
                raise TypeError(f"{name} must hold str terms, not {type(item).__name__}")
        if not value and not optional:
            raise ValueError(f"{name} must name at least one term")
        return ", ".join(value)
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a str or a list of str, not {type(value).__name__}")
    return _text(name, value, optional)


def _whole(name: str, value: Any, minimum: int = 0) -> Any:
    """An integer argument of at least `minimum` (None stays None): an int or any integer that
    says so (numpy's, through __index__), as pandas and pyarrow take them."""
    if value is None:
        return None
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    value = _operator.index(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _fraction(name: str, value: Any, upper: Optional[float] = 1.0) -> Optional[float]:
    """A number in (0, upper] (None stays None)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if not (value > 0 and (upper is None or value <= upper)):
        raise ValueError(f"{name} must be in (0, {upper}], got {value!r}" if upper is not None
                         else f"{name} must be > 0, got {value!r}")
    return float(value)


def _python_value(type_name: str, value: Any) -> Any:
    """A statistic of a column of `type_name` as queries give that type's values."""
    import uuid
    if type_name == "string" and isinstance(value, bytes):
        return value.decode("utf-8", errors="surrogateescape")
    if type_name == "uuid" and isinstance(value, bytes) and len(value) == 16:
        return uuid.UUID(bytes=value)
    if type_name == "date" and isinstance(value, int):
        return _EPOCH + _datetime.timedelta(days=value)
    if type_name in ("timestamp", "timestamptz") and isinstance(value, int):
        naive = _datetime.datetime(1970, 1, 1) + _datetime.timedelta(microseconds=value)
        return naive.replace(tzinfo=_datetime.timezone.utc) if type_name == "timestamptz" else naive
    if type_name == "timestamp_ns" and isinstance(value, int):
        import numpy as np
        return np.datetime64(value, "ns")
    return value


def _memory_limit(value: Any) -> int:
    """A memory limit for the native module: a positive number of bytes."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"memory_limit must be a positive number of bytes, got {value!r}")
    return value


def _dialect(delimiter: Optional[str], quote: Optional[str], escape: Optional[str], header: Optional[bool],
             null: Optional[str], dateformat: Optional[str] = None, thousands: Optional[str] = None) -> Dict[str, Any]:
    """A CSV dialect for the native module (csv::Dialect): None leaves a part default or sniffed."""
    def character(name: str, value: Any) -> Optional[str]:
        if value is None:
            return None
        if value == "tab":
            value = "\t"
        if not isinstance(value, str) or len(value) != 1 or value in "\r\n":
            raise InvalidArgument(f"{name} must be one character other than CR or LF, got {value!r}")
        return value
    out: Dict[str, Any] = {"delimiter": character("delimiter", delimiter), "quote": character("quote", quote),
           "escape": character("escape", escape), "thousands": character("thousands", thousands)}
    if dateformat is not None:
        out["dateformat"] = _text("dateformat", dateformat)
    if header is not None:
        out["header"] = bool(header)
    if null is not None:
        if not isinstance(null, str):
            raise InvalidArgument(f"null must be a string, got {null!r}")
        out["null"] = null
    return out


def _in_memory(source: Any) -> bool:
    """A dict of columns or a pandas DataFrame. A DataFrame is converted by _columns even where
    pandas offers __arrow_c_stream__ (pandas >= 2.2 with pyarrow): its types and NULLs then do not
    depend on whether pyarrow is installed. Other frames (Polars, pyarrow) go by the Arrow stream,
    which keeps their types and NULLs."""
    if isinstance(source, dict):
        return True
    import sys
    pandas = sys.modules.get("pandas")  # a pandas DataFrame exists only once pandas is imported
    return pandas is not None and isinstance(source, pandas.DataFrame)


def _columns(source: Any, nan_is_null: bool = True) -> List[Tuple[str, str, Any, Any]]:
    """Rows in memory as [(name, type, data, mask)] for the native module: a pandas DataFrame or a
    dict {name: numpy array, masked array, pandas Series or list}. Names are str(label) (as
    pyarrow's from_pandas: read_csv(header=None)'s 0, 1, ... are "0", "1"); a DataFrame's named
    index levels follow its columns (as pyarrow's preserve_index=None), an unnamed index is
    positional and left out. Types: bool -> bool, integers
    of at most 32 bits -> int32, other integers -> int64, float32 -> float, float64 -> double,
    datetime64[D] and objects that are all datetime.date -> date, other datetime64 -> timestamp (microseconds; timestamp_ns when a value
    is finer), pandas' time-zone-aware timestamps -> timestamptz (in UTC), objects that are all
    bytes -> binary, all uuid.UUID -> uuid, all decimal.Decimal -> decimal(18, s) with the
    largest number of digits after the point they show; objects (lists) as pyarrow infers them:
    all bool -> bool, all int -> int64, int and float -> double, all datetime.datetime ->
    timestamp (timestamptz, in UTC, when they carry a time zone), all str -> string; values of
    several of these types are InvalidArgument naming the column. NULL: masked
    values, pandas' missing values (None, NaN in object columns, NaT, <NA>), and NaN in a pandas
    float column (a Series, or a DataFrame's) unless `nan_is_null` is False; NaN in a numpy
    array stays NaN."""
    import numpy as np
    import datetime
    import decimal
    import uuid
    if isinstance(source, dict):
        items = [(str(k), v) for k, v in source.items()]
    else:
        items = [(str(c), source.iloc[:, i]) for i, c in enumerate(source.columns)]
        for level, level_name in enumerate(source.index.names):
            if level_name is None:
                continue
            if str(level_name) in {n for n, _ in items}:
                raise InvalidArgument(f"source: the DataFrame's index {str(level_name)!r} has the name of one of its "
                                      "columns: rename it, or drop it (frame.reset_index(drop=True))")
            items.append((str(level_name), source.index.get_level_values(level).to_series().reset_index(drop=True)))
    seen: set[str] = set()
    for name, _ in items:
        if name in seen:
            raise InvalidArgument(f"source: two columns are named {name!r}")
        seen.add(name)
    out: List[Tuple[str, str, Any, Any]] = []
    for name, values in items:
        mask = None
        zoned = False
        if type(values).__module__.split(".")[0] in ("polars", "pyarrow"):
            # Their NULLs and types would not survive numpy; a frame of them goes by Arrow.
            raise TypeError(f"column {name!r} is a {type(values).__module__.split('.')[0]} "
                            f"{type(values).__name__}: pass the columns as a frame (polars.DataFrame({{...}}) or "
                            "pyarrow.table({...})), which keeps their types and NULLs")
        if hasattr(values, "isna") and hasattr(values, "to_numpy"):  # a pandas Series
            numpy_dtype = getattr(values.dtype, "numpy_dtype", None)
            if getattr(values.dtype, "tz", None) is not None:  # instants: kept in UTC
                zoned = True
                mask = values.isna().to_numpy()
                values = values.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy()
            elif numpy_dtype is not None:  # nullable Int64 / Float64 / boolean: values, NULLs masked
                mask = values.isna().to_numpy()
                values = values.to_numpy(dtype=numpy_dtype, na_value=numpy_dtype.type(0))
            elif isinstance(values.dtype, np.dtype):  # plain numpy columns
                if nan_is_null and values.dtype.kind == "f":  # pandas' missing value, as pyarrow takes it
                    mask = values.isna().to_numpy()
                values = values.to_numpy()
            else:  # string and other extension dtypes: objects, missing values as None
                values = values.astype(object).where(values.notna(), None).to_numpy()
        elif isinstance(values, np.ma.MaskedArray):
            mask = np.ma.getmaskarray(values)
            values = np.ma.getdata(values)
        try:
            values = np.asarray(values)
        except ValueError:  # ragged nested sequences
            values = None
        if values is None or values.ndim != 1 or (values.dtype.kind == "O" and any(
                isinstance(v, (list, tuple, dict, np.ndarray)) for v in values)):
            raise InvalidArgument(f"source: column {name!r} must be a flat sequence of values (nested values and "
                                  "scalars have no lakeindex type)")
        kind = values.dtype.kind
        if kind == "b":
            out.append((name, "bool", values.astype(bool), mask))
        elif kind in "iu":
            narrow = values.dtype.itemsize <= 4 and not (kind == "u" and values.dtype.itemsize == 4)
            if kind == "u" and values.dtype.itemsize == 8 and values.size and values.max() > np.iinfo(np.int64).max:
                raise InvalidArgument(f"column {name!r}: unsigned values past int64")
            out.append((name, "int32" if narrow else "int64", values.astype(np.int32 if narrow else np.int64), mask))
        elif kind == "f":
            out.append((name, "float" if values.dtype.itemsize == 4 else "double",
                        values.astype(np.float32 if values.dtype.itemsize == 4 else np.float64), mask))
        elif kind == "M":
            nat = np.isnat(values)
            mask = nat if mask is None else (mask | nat)
            if values.dtype == np.dtype("datetime64[D]"):
                out.append((name, "date", values.astype(np.int64).astype(np.int32), mask))
            else:
                us = values.astype("datetime64[us]")
                if np.array_equal(us.astype(values.dtype)[~mask], values[~mask]):
                    out.append((name, "timestamptz" if zoned else "timestamp", us.astype(np.int64), mask))
                elif zoned:
                    raise InvalidArgument(f"column {name!r}: timestamps with a time zone finer than microseconds "
                                          "would be cut (timestamptz keeps microseconds)")
                else:  # finer than microseconds: kept as nanoseconds
                    ns = values.astype("datetime64[ns]")
                    if not np.array_equal(ns.astype(values.dtype)[~mask], values[~mask]):
                        raise InvalidArgument(f"column {name!r}: timestamps finer than nanoseconds would be cut")
                    out.append((name, "timestamp_ns", ns.astype(np.int64), mask))
        elif kind in "OUS":
            objects = values.astype(object)
            nulls = np.array([v is None or (isinstance(v, float) and v != v) for v in objects], dtype=bool)
            mask = nulls if mask is None else (mask | nulls)
            present = [v for v, m in zip(objects, mask) if not m]
            type_name = "string"
            python_types = {type(v) for v in present}
            if present and python_types <= {bool, np.bool_}:
                out.append((name, "bool", np.array([bool(v) if not m else False for v, m in zip(objects, mask)]), mask))
                continue
            if present and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in present):
                try:
                    ints = np.array([0 if m else v for v, m in zip(objects, mask)], dtype=np.int64)
                except OverflowError:
                    raise InvalidArgument(f"column {name!r}: integers past int64") from None
                out.append((name, "int64", ints, mask))
                continue
            if present and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
                               for v in present):
                out.append((name, "double", np.array([0.0 if m else float(v) for v, m in zip(objects, mask)]), mask))
                continue
            if present and all(isinstance(v, datetime.datetime) for v in present):
                aware = {v.tzinfo is not None and v.utcoffset() is not None for v in present}
                if len(aware) > 1:
                    raise InvalidArgument(f"column {name!r}: datetimes with and without a time zone")
                zoned = aware == {True}
                micros = np.array([0 if m else _micros(v) for v, m in zip(objects, mask)], dtype=np.int64)
                out.append((name, "timestamptz" if zoned else "timestamp", micros, mask))
                continue
            kinds = {_python_type_name(v) for v in present}
            if len(kinds) > 1 and kinds & {"int", "float", "bool", "datetime", "date"}:
                raise InvalidArgument(f"column {name!r}: values of several types ({', '.join(sorted(kinds))}); "
                                      "a column holds one type (and None for NULL)")
            if present and all(type(v) is datetime.date for v in present):  # pyarrow's to_pandas gives dates so
                type_name = "date"
                days = np.array([0 if m else (v - _EPOCH).days for v, m in zip(objects, mask)], dtype=np.int32)
                out.append((name, type_name, days, mask))
                continue
            if present and all(isinstance(v, (bytes, bytearray)) for v in present):
                type_name = "binary"
                objects = np.array([bytes(v) if isinstance(v, bytearray) else v for v in objects], dtype=object)
            elif present and all(isinstance(v, uuid.UUID) for v in present):
                type_name = "uuid"
            elif present and all(isinstance(v, decimal.Decimal) for v in present):
                # The digits the values show after the point (at most 18), 18 in all.
                scale = max((-v.as_tuple().exponent for v in present if v.is_finite()), default=0)
                type_name = f"decimal(18,{min(max(scale, 0), 18)})"
            out.append((name, type_name, [None if m else v for v, m in zip(objects, mask)], mask))
        else:
            raise InvalidArgument(f"column {name!r}: numpy dtype {values.dtype} has no lakeindex type")
    return out


def _micros(value: _datetime.datetime) -> int:
    """Microseconds since 1970 of a datetime: a naive one as it reads, an aware one in UTC."""
    if value.tzinfo is not None and value.utcoffset() is not None:
        value = value.astimezone(_datetime.timezone.utc).replace(tzinfo=None)
    delta = value - _datetime.datetime(1970, 1, 1)
    return (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds


def _python_type_name(value: Any) -> str:
    """A value's type as errors name it: int, float, bool, str, bytes, datetime, date, ..."""
    import numpy as np
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, _datetime.datetime):
        return "datetime"
    return type(value).__name__


def _check_output(output: str, allowed: Tuple[str, ...] = ("numpy", "pandas")) -> None:
    if output not in allowed:
        names = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise InvalidArgument(f"output must be {names}, got {output!r}")


def _output(columns: Columns, output: str, schema: str = "") -> Any:
    """{name: numpy array} as asked: as it is, or a pandas DataFrame whose dtypes follow the
    columns' types in `schema` ("name:type,...", '!' after a NOT NULL one), never the rows this
    result holds: numbers and booleans of a nullable column as pandas' nullable Int32 / Int64 /
    Float32 / Float64 / boolean (<NA> for NULL), of a NOT NULL one as numpy's dtype; timestamps
    as datetime64 with NaT (timestamptz marked UTC: numpy's datetime64 has no time zone); dates
    as datetime.date objects (as pyarrow gives them); strings, binary, uuid and decimal as
    objects with None."""
    if output == "numpy":
        return columns
    import numpy as np
    import pandas as pd
    try:
        fields = {f.name: f for f in Schema(schema)}
    except ValueError:  # a name with a comma outside parentheses splits the text: nullable then
        fields = {}
    data = {}
    for name, col in columns.items():
        field = fields.get(name)
        mask = np.ma.getmaskarray(col)
        values = np.ma.getdata(col)
        kind = values.dtype.kind
        if values.dtype == np.dtype("datetime64[D]"):  # as pyarrow's to_pandas: datetime.date objects
            dates = values.astype(object)
            dates[mask] = None
            data[name] = dates
        elif kind in "iufb" and (field is None or field.nullable):
            array_class = {"i": pd.arrays.IntegerArray, "u": pd.arrays.IntegerArray, "f": pd.arrays.FloatingArray,
                           "b": pd.arrays.BooleanArray}[kind]
            data[name] = array_class(values.copy(), mask.copy())
        elif not mask.any():
            data[name] = values
        elif kind == "M":
            v = values.copy()
            v[mask] = np.datetime64("NaT")
            data[name] = v
        else:
            v = values.astype(object)
            v[mask] = None
            data[name] = v
    frame = pd.DataFrame(data)
    for name, field in fields.items():
        if field.type == "timestamptz" and name in frame.columns:
            frame[name] = frame[name].dt.tz_localize("UTC")
    return frame


def _names(select: Optional[Names], name: str = "select") -> List[str]:
    """Column names from a list or "a,b"; TypeError naming the argument otherwise."""
    if select is None:
        return []
    if isinstance(select, str):
        return [s.strip() for s in select.split(",") if s.strip()]
    if isinstance(select, (bytes, dict)) or not hasattr(select, "__iter__"):
        raise TypeError(f"{name} must be a list of column names or a str, not {type(select).__name__}")
    out = list(select)
    for item in out:
        if not isinstance(item, str):
            raise TypeError(f"{name} must hold column names (str), not {type(item).__name__}")
    return out


def _warn_growth(report: Dict[str, int]) -> Dict[str, int]:
    """A layout's report, warning as `lakeindex layout` notes when it grew the data files 1.25x or more."""
    before, after = report.get("bytes_before", 0), report.get("bytes_after", 0)
    if before > 0 and after >= _native.LAYOUT_GROWTH_TO_TELL * before:
        _warnings.warn("the data files grew from %.1f MB to %.1f MB (%.1fx): the rows left their old order (time "
                       "order, say) for the layout's, so the columns that followed it compress worse"
                       % (before / 1e6, after / 1e6, after / before), UserWarning, stacklevel=3)
    return report


def _layout_options(columns: Names, cube_rows: Optional[int], slices: int, page_rows: Optional[int], transform: str,
                    rows_per_file: int, seed: int, row_groups: Optional[str] = None) -> Dict[str, Any]:
    if transform not in ("default", "linear", "quantile"):
        raise ValueError(f"transform must be 'default', 'linear' or 'quantile', got {transform!r}")
    if _text("row_groups", row_groups) not in ("", "slices", "regions"):
        raise ValueError(f"row_groups must be 'slices' or 'regions', got {row_groups!r}")
    options = {"columns": _names(columns, "columns"), "slices": _whole("slices", slices, 1),
               "row_groups": row_groups or "",
               "transform": transform, "rows_per_file": _whole("rows_per_file", rows_per_file, 1),
               "seed": _whole("seed", seed, 0)}
    if cube_rows is not None:
        options["cube_rows"] = _whole("cube_rows", cube_rows, 1)
    if page_rows is not None:  # default: 64, 32 for an OTree on three or more columns
        options["page_rows"] = _whole("page_rows", page_rows, 1)
    return options
