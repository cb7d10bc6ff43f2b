"""Every column type through every way in and every way out, checked against the values written.

In: numpy arrays (masked for NULLs), a pandas DataFrame (nullable dtypes), a pyarrow Table read
batch by batch. Out: numpy, pandas, and the Arrow stream as pyarrow, Polars and DuckDB consume
it. Each result is brought to plain Python values (NULL as None, times as integers in their unit)
and compared with the lists the data was made from; each consumer's column types are checked too.
Runs under numpy 2 (.venv) and numpy 1.26 (.venv-numpy1) with the same module."""

import datetime
import decimal
import math
import os
import unittest
import uuid

import numpy as np

import lakeindex
import util

N = 1000
ROWS_PER_FILE = 300  # 4 files: the Arrow stream has several batches
EPOCH = datetime.date(1970, 1, 1)

# name -> lakeindex type; the same order in every input.
TYPES = {"k": "int64", "flag": "bool", "i32": "int32", "i64": "int64", "f32": "float", "f64": "double",
         "day": "date", "ts": "timestamp", "tstz": "timestamptz", "tsns": "timestamp_ns", "s": "string",
         "bin": "binary", "u": "uuid", "dec": "decimal(18,3)"}
SCHEMA = ",".join(f"{n}:{t}" for n, t in TYPES.items())


def expected_values():
    """{name: list of Python values} with None for NULL; times as integers of their unit (days,
    microseconds, nanoseconds since the epoch, UTC for timestamptz)."""
    rng = np.random.default_rng(2024)
    null = [i % 7 == 3 for i in range(N)]

    def nullable(values, every=True):
        return [None if null[i] and every else v for i, v in enumerate(values)]

    f64 = [float(v) for v in rng.normal(0, 1e6, N)]
    f64[5], f64[6], f64[8], f64[9] = math.nan, math.inf, -math.inf, -0.0
    f32 = [float(np.float32(v)) for v in rng.normal(0, 1e3, N)]
    f32[5], f32[6] = math.nan, -0.0
    i32 = [int(v) for v in rng.integers(-2**31, 2**31, N)]
    i32[1], i32[2] = -2**31, 2**31 - 1
    i64 = [int(v) for v in rng.integers(-2**63, 2**63 - 1, N, dtype=np.int64)]
    i64[1], i64[2] = -2**63, 2**63 - 1
    words = ["", "a", "Zürich", "東京", "emoji 😀", "comma,quote\"", "tab\tnewline\n"]
    return {
        "k": list(range(N)),
        "flag": nullable([bool(v) for v in rng.integers(0, 2, N)]),
        "i32": nullable(i32),
        "i64": nullable(i64),
        "f32": nullable(f32),
        "f64": nullable(f64),
        "day": nullable([int(v) for v in rng.integers(-40000, 40000, N)]),  # 1860 to 2079
        "ts": nullable([int(v) for v in rng.integers(-2 * 10**15, 4 * 10**15, N)]),
        "tstz": nullable([int(v) for v in rng.integers(-10**15, 4 * 10**15, N)]),
        "tsns": nullable([int(v) for v in rng.integers(-10**18, 4 * 10**18, N)]),
        "s": nullable([words[i % len(words)] + str(v) for i, v in enumerate(rng.integers(0, 10**6, N))]),
        "bin": nullable([bytes(rng.integers(0, 256, i % 9, dtype=np.uint8)) for i in range(N)]),
        "u": nullable([uuid.UUID(bytes=bytes(rng.integers(0, 256, 16, dtype=np.uint8))) for _ in range(N)]),
        "dec": nullable([decimal.Decimal(int(v)).scaleb(-3) for v in rng.integers(-10**17, 10**17, N)]),
    }


# ---- inputs -------------------------------------------------------------------------------------

def numpy_input(want):
    """A dict of numpy arrays, NULLs masked (None in object columns, NaT in times); timestamptz as
    a time-zone-aware pandas Series, since numpy has no zone."""
    import pandas as pd
    out = {}
    for name, values in want.items():
        mask = np.array([v is None for v in values])
        filled = lambda zero: [zero if v is None else v for v in values]  # noqa: E731
        kind = TYPES[name]
        if kind in ("bool", "int32", "int64", "float", "double"):
            dtype = {"bool": bool, "int32": np.int32, "int64": np.int64, "float": np.float32, "double": np.float64}[kind]
            out[name] = np.ma.array(np.array(filled(0), dtype=dtype), mask=mask)
        elif kind == "date":
            out[name] = np.ma.array(np.array(filled(0), dtype=np.int64).astype("datetime64[D]"), mask=mask)
        elif kind == "timestamp":
            out[name] = np.ma.array(np.array(filled(0), dtype=np.int64).astype("datetime64[us]"), mask=mask)
        elif kind == "timestamp_ns":
            ns = np.array(filled(0), dtype=np.int64).astype("datetime64[ns]")
            ns[mask] = np.datetime64("NaT")
            out[name] = ns
        elif kind == "timestamptz":
            us = pd.Series(np.array(filled(0), dtype=np.int64).astype("datetime64[us]"))
            out[name] = us.where(~mask).dt.tz_localize("UTC").dt.tz_convert("America/Sao_Paulo")
        else:
            out[name] = np.array(values, dtype=object)
    return out


def pandas_input(want):
    """A pandas DataFrame as pandas users make one: nullable extension dtypes (NaN and NULL apart in
    float columns), datetime64 columns with NaT, time-zone-aware instants, objects for the rest
    (dates as datetime.date, as pyarrow's to_pandas gives them)."""
    import pandas as pd
    columns = {}
    for name, values in want.items():
        mask = np.array([v is None for v in values])
        filled = [0 if v is None else v for v in values]
        kind = TYPES[name]
        if kind == "bool":
            columns[name] = pd.array(values, dtype="boolean")
        elif kind in ("int32", "int64"):
            columns[name] = pd.array(values, dtype="Int32" if kind == "int32" else "Int64")
        elif kind in ("float", "double"):
            dtype = np.float32 if kind == "float" else np.float64
            columns[name] = pd.arrays.FloatingArray(np.array(filled, dtype=dtype), mask)
        elif kind == "date":
            columns[name] = np.array([None if v is None else EPOCH + datetime.timedelta(days=v) for v in values],
                                     dtype=object)
        elif kind in ("timestamp", "timestamp_ns", "timestamptz"):
            unit = "ns" if kind == "timestamp_ns" else "us"
            series = pd.Series(np.array(filled, dtype=np.int64).astype(f"datetime64[{unit}]")).where(~mask)
            columns[name] = series.dt.tz_localize("UTC") if kind == "timestamptz" else series
        else:
            columns[name] = np.array(values, dtype=object)
    return pd.DataFrame(columns)


def arrow_type(kind):
    import pyarrow as pa
    return {"bool": pa.bool_(), "int32": pa.int32(), "int64": pa.int64(), "float": pa.float32(),
            "double": pa.float64(), "date": pa.date32(), "timestamp": pa.timestamp("us"),
            "timestamptz": pa.timestamp("us", tz="UTC"), "timestamp_ns": pa.timestamp("ns"),
            "string": pa.string(), "binary": pa.binary(), "uuid": pa.uuid(),
            "decimal(18,3)": pa.decimal128(18, 3)}[kind]


def arrow_input(want, batch_rows=256):
    """A pyarrow RecordBatchReader of several batches, every column of its Arrow type."""
    import pyarrow as pa
    arrays = []
    for name, values in want.items():
        kind = TYPES[name]
        t = arrow_type(kind)
        if kind == "uuid":
            storage = pa.array([None if v is None else v.bytes for v in values], pa.binary(16))
            arrays.append(pa.ExtensionArray.from_storage(t, storage))
        elif kind in ("date", "timestamp", "timestamptz", "timestamp_ns"):
            storage = pa.int32() if kind == "date" else pa.int64()
            arrays.append(pa.array(values, storage).view(t))
        else:
            arrays.append(pa.array(values, t))
    table = pa.Table.from_arrays(arrays, names=list(want))
    return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=batch_rows))


# ---- outputs, as plain Python values -----------------------------------------------------------

def from_numpy(column, kind):
    mask = np.ma.getmaskarray(column)
    data = np.ma.getdata(column)
    if data.dtype.kind == "M":
        mask = mask | np.isnat(data)
        data = data.astype(np.int64)
    out = []
    for value, masked in zip(data.tolist(), mask.tolist()):
        out.append(None if masked else value)
    return out


def from_pandas(series, kind):
    import pandas as pd
    if kind in ("timestamp", "timestamptz", "timestamp_ns"):
        unit = "ns" if kind == "timestamp_ns" else "us"
        if kind == "timestamptz":
            assert str(series.dt.tz) == "UTC", series.dtype
            series = series.dt.tz_localize(None)
        assert series.dtype == np.dtype(f"datetime64[{unit}]"), f"{kind}: {series.dtype}"
        mask = series.isna().to_numpy()
        return [None if m else v for v, m in zip(series.to_numpy().astype(np.int64).tolist(), mask)]
    out = []
    for v in series.astype(object).tolist():
        if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v) and kind not in ("float", "double")):
            out.append(None)
        elif kind == "date":
            out.append((v - EPOCH).days)
        elif isinstance(v, (np.generic,)):
            out.append(v.item())
        else:
            out.append(v)
    return out


def from_arrow(column, kind):
    """A pyarrow (Chunked)Array as plain values; uuids may come as 16-byte binaries (Polars)."""
    import pyarrow as pa
    t = column.type
    if pa.types.is_date32(t):
        return column.cast(pa.int32()).to_pylist()
    if pa.types.is_timestamp(t):
        return column.cast(pa.int64()).to_pylist()
    values = column.to_pylist()
    if kind == "uuid":  # an arrow.uuid, or a 16-byte binary (Polars), or text (DuckDB's default export)
        return [None if v is None else v if isinstance(v, uuid.UUID) else uuid.UUID(v) if isinstance(v, str)
                else uuid.UUID(bytes=v) for v in values]
    return values


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return type(a) is type(b) and a == b or (a is None and b is None)


class RoundTripTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = util.Workdir()
        cls.want = expected_values()

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def test_numpy_major_is_the_one_this_venv_promises(self):
        major = int(os.environ.get("LAKEINDEX_EXPECT_NUMPY_MAJOR", "2"))
        self.assertEqual(int(np.__version__.split(".")[0]), major, np.__version__)

    def assert_values(self, got, where):
        self.assertEqual(list(got), list(TYPES), where)
        for name, values in got.items():
            want = self.want[name]
            self.assertEqual(len(values), len(want), f"{where}: {name}")
            bad = [i for i, (a, b) in enumerate(zip(values, want)) if not same(a, b)]
            self.assertEqual(bad, [], f"{where}: {name} differs at rows {bad[:5]}: got {[values[i] for i in bad[:3]]}, "
                                      f"want {[want[i] for i in bad[:3]]}")

    def check_every_output(self, table, where):
        import pandas as pd
        import polars as pl
        import pyarrow as pa
        import duckdb
        self.assertEqual(table.schema, SCHEMA, where)
        self.assertEqual(len(table.files()), math.ceil(N / ROWS_PER_FILE), where)

        result = table.query(order_by="k")
        self.assert_values({n: from_numpy(c, TYPES[n]) for n, c in result.items()}, f"{where} -> numpy")
        frame = table.query(order_by="k", output="pandas")
        self.assertIsInstance(frame, pd.DataFrame)
        self.assert_values({n: from_pandas(frame[n], TYPES[n]) for n in frame.columns}, f"{where} -> pandas")

        reader = pa.RecordBatchReader.from_stream(table.query(output="arrow"))
        batches = list(reader)
        self.assertGreater(len(batches), 1, f"{where}: one Arrow batch only")
        arrow = pa.Table.from_batches(batches, reader.schema).sort_by("k")
        ordered = pa.table(table.query(output="arrow", order_by="k"))
        self.assert_values({n: from_arrow(ordered[n], TYPES[n]) for n in ordered.column_names}, f"{where} -> ordered")
        self.assertEqual(arrow.schema, pa.schema([(n, arrow_type(t)) for n, t in TYPES.items()]), where)
        self.assert_values({n: from_arrow(arrow[n], TYPES[n]) for n in arrow.column_names}, f"{where} -> pyarrow")

        polars = pl.from_arrow(pa.table(table.query(output="arrow", order_by="k")))
        polars_types = {"bool": pl.Boolean, "int32": pl.Int32, "int64": pl.Int64, "float": pl.Float32,
                        "double": pl.Float64, "date": pl.Date, "timestamp": pl.Datetime("us"),
                        "timestamptz": pl.Datetime("us", "UTC"), "timestamp_ns": pl.Datetime("ns"),
                        "string": pl.String, "binary": pl.Binary, "uuid": pl.Binary,
                        "decimal(18,3)": pl.Decimal(18, 3)}
        self.assertEqual(dict(polars.schema), {n: polars_types[t] for n, t in TYPES.items()}, where)
        direct = pl.DataFrame(table.query(output="arrow", order_by="k"))  # the PyCapsule protocol itself
        self.assertTrue(direct.equals(polars), f"{where}: Polars from the capsule differs")
        as_arrow = polars.to_arrow()
        self.assert_values({n: from_arrow(as_arrow[n], TYPES[n]) for n in as_arrow.column_names},
                           f"{where} -> polars")

        stream = table.query(output="arrow")  # noqa: F841 (DuckDB finds it by name)
        con = duckdb.connect()
        relation = con.sql("SELECT * FROM stream ORDER BY k")
        duck_types = {"bool": "BOOLEAN", "int32": "INTEGER", "int64": "BIGINT", "float": "FLOAT",
                      "double": "DOUBLE", "date": "DATE", "timestamp": "TIMESTAMP",
                      "timestamptz": "TIMESTAMP WITH TIME ZONE", "timestamp_ns": "TIMESTAMP_NS",
                      "string": "VARCHAR", "binary": "BLOB", "uuid": "UUID", "decimal(18,3)": "DECIMAL(18,3)"}
        self.assertEqual([str(t) for t in relation.types], [duck_types[t] for t in TYPES.values()], where)
        duck = relation.fetch_arrow_table()
        self.assert_values({n: from_arrow(duck[n], TYPES[n]) for n in duck.column_names}, f"{where} -> duckdb")

        # NULL counts as SQL sees them, through DuckDB over the same stream.
        stream = table.query(output="arrow")  # noqa: F841
        counts = con.sql("SELECT " + ", ".join(f'count("{n}")' for n in TYPES) + " FROM stream").fetchone()
        self.assertEqual(list(counts), [sum(v is not None for v in self.want[n]) for n in TYPES], where)

    def test_numpy_in(self):
        t = lakeindex.Table.create(self.dir.join("from_numpy"), numpy_input(self.want), rows_per_file=ROWS_PER_FILE)
        self.check_every_output(t, "numpy")

    def test_pandas_in(self):
        t = lakeindex.Table.create(self.dir.join("from_pandas"), pandas_input(self.want), rows_per_file=ROWS_PER_FILE)
        self.check_every_output(t, "pandas")

    def test_arrow_in(self):
        t = lakeindex.Table.create(self.dir.join("from_arrow"), arrow_input(self.want), rows_per_file=ROWS_PER_FILE)
        self.check_every_output(t, "arrow")

    def test_pandas_out_makes_the_same_table(self):
        t = lakeindex.Table.create(self.dir.join("first"), arrow_input(self.want), rows_per_file=ROWS_PER_FILE)
        again = lakeindex.Table.create(self.dir.join("again"), t.query(order_by="k", output="pandas"),
                                       rows_per_file=ROWS_PER_FILE)
        self.check_every_output(again, "pandas out, in again")

    def test_appends_from_each_source_add_the_same_rows(self):
        t = lakeindex.Table.create(self.dir.join("appended"), arrow_input(self.want), rows_per_file=ROWS_PER_FILE)
        t.append(numpy_input(self.want)).append(pandas_input(self.want)).append(arrow_input(self.want))
        self.assertEqual(t.count(), 4 * N)
        for name in ("f64", "tstz", "u", "dec", "day"):
            self.assertEqual(t.count(f"{name} IS NULL"), 4 * sum(v is None for v in self.want[name]), name)
        self.assertEqual(t.count("tsns = TIMESTAMP_NS '1970-01-01 00:00:00.000000001'"),
                         4 * sum(v == 1 for v in self.want["tsns"]))

    def test_empty_results_keep_every_type(self):
        import pandas as pd
        import pyarrow as pa
        import polars as pl
        t = lakeindex.Table.create(self.dir.join("empty"), arrow_input(self.want), rows_per_file=ROWS_PER_FILE)
        none = t.query(where="k < 0")
        self.assertEqual(list(none), list(TYPES))
        self.assertTrue(all(len(c) == 0 for c in none.values()))
        frame = t.query(where="k < 0", output="pandas")
        self.assertIsInstance(frame, pd.DataFrame)
        self.assertEqual((len(frame), list(frame.columns)), (0, list(TYPES)))
        arrow = pa.table(t.query(where="k < 0", output="arrow"))
        self.assertEqual(arrow.num_rows, 0)
        self.assertEqual(arrow.schema, pa.schema([(n, arrow_type(k)) for n, k in TYPES.items()]))
        self.assertEqual(pl.DataFrame(t.query(where="k < 0", output="arrow")).shape, (0, len(TYPES)))
        # A table whose every row is deleted reads as empty through each output.
        self.assertEqual(t.delete("k >= 0"), N)
        self.assertEqual(t.count(), 0)
        self.assertEqual(pa.table(t.query(output="arrow")).num_rows, 0)
        self.assertEqual(len(t.query(output="pandas")), 0)

    def test_an_empty_source_makes_an_empty_table_of_its_types(self):
        import pyarrow as pa
        empty = {n: v[:0] for n, v in self.want.items()}
        t = lakeindex.Table.create(self.dir.join("from_empty"), arrow_input(empty))
        self.assertEqual(t.schema, SCHEMA)
        self.assertEqual(t.count(), 0)
        self.assertEqual(pa.table(t.query(output="arrow")).num_rows, 0)


if __name__ == "__main__":
    unittest.main()
