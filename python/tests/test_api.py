"""The Python API as a pandas / Arrow user meets it: missing values, every CLI operation as a
method, arguments refused in Python's words before anything is touched, exceptions of the
lakeindex package, Python types out of stats() and versions(), Arrow out of every read."""

import datetime
import decimal
import os
import subprocess
import sys
import traceback
import unittest
import uuid

import numpy as np
import pandas as pd
import pyarrow as pa

import lakeindex
import util

ROWS = 3000


def frame(seed, n=ROWS, start=0):
    """Rows as a pandas user has them after read_csv: NaN where a float is missing."""
    rng = np.random.default_rng(seed)
    tip = rng.normal(3, 1, n).round(2)
    tip[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({
        "id": np.arange(start, start + n, dtype=np.int64),
        "x": rng.random(n),
        "y": rng.random(n),
        "tip": tip,
        "city": rng.choice(["Oslo", "Lima", "Pune", None], n),
    })


class ApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = util.Workdir()
        cls.df = frame(1)

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def make(self, name, df=None, **kw):
        return lakeindex.Table.create(self.dir.join(name), self.df if df is None else df, rows_per_file=1000, **kw)

    def ids(self, t, where):
        return sorted(int(i) for i in np.ma.getdata(t.query(where=where, select=["id"])["id"]))

    # -- missing values ----------------------------------------------------------------------

    def test_pandas_nan_is_null_as_pyarrow_polars_and_duckdb_take_it(self):
        t = self.make("nan")
        missing = int(self.df["tip"].isna().sum())
        self.assertGreater(missing, 0)
        self.assertEqual(t.count("tip IS NULL"), missing)
        got = t.aggregate("count(tip), avg(tip), sum(tip)")
        self.assertEqual(int(got["count(tip)"][0]), int(self.df["tip"].count()))
        self.assertAlmostEqual(float(got["avg(tip)"][0]), float(self.df["tip"].mean()), places=9)
        self.assertAlmostEqual(float(got["sum(tip)"][0]), float(self.df["tip"].sum()), places=6)
        # pyarrow's own reading of the same frame agrees, row by row
        arrow = pa.Table.from_pandas(self.df, preserve_index=False)
        self.assertEqual(pa.table(t.query(output="arrow"))["tip"].null_count, arrow["tip"].null_count)
        # an append from pandas too
        more = frame(2, 500, start=ROWS)
        t.append(more)
        self.assertEqual(t.count("tip IS NULL"), missing + int(more["tip"].isna().sum()))

    def test_nan_is_null_false_keeps_nan_and_numpy_arrays_keep_it(self):
        t = self.make("keepnan", nan_is_null=False)
        self.assertEqual(t.count("tip IS NULL"), 0)
        self.assertTrue(np.isnan(t.aggregate("avg(tip)")["avg(tip)"][0]))
        arrays = lakeindex.Table.create(self.dir.join("arrays"), {"v": np.array([1.0, np.nan, 3.0])})
        self.assertEqual(arrays.count("v IS NULL"), 0)
        self.assertEqual(arrays.count(), 3)

    def test_a_polars_frame_keeps_its_types_and_nulls(self):
        """A Polars DataFrame goes by its Arrow stream: int64 stays int64, null is NULL, NaN is NaN."""
        import polars as pl
        frame = pl.DataFrame({"a": [1, 2, None], "b": ["x", None, "z"], "f": [1.5, float("nan"), None]})
        t = lakeindex.Table.create(self.dir.join("polars"), frame)
        self.assertEqual(t.schema, "a:int64,b:string,f:double")
        self.assertEqual((t.count("a IS NULL"), t.count("b IS NULL"), t.count("f IS NULL")), (1, 1, 1))
        self.assertEqual(t.count("f > 0"), 2)  # NaN is a value, the largest (as in DuckDB), not NULL
        t.append(pl.DataFrame({"a": [7], "b": ["w"], "f": [2.5]}))
        self.assertEqual(pl.DataFrame(t.query(output="arrow")).sort("a", nulls_last=True)["a"].to_list(), [1, 2, 7, None])
        import pyarrow as pa
        for column in (pl.Series([1, None]), pa.array([1, None])):  # in a dict: refused, not made numpy
            with self.assertRaisesRegex(TypeError, "pass the columns as a frame"):
                lakeindex.Table.create(self.dir.join("series"), {"a": column})

    # -- the CLI's operations as methods ------------------------------------------------------

    def test_every_operation_keeps_the_rows_a_brute_force_reading_gives(self):
        t = self.make("ops")
        where = "x BETWEEN 0.2 AND 0.4 AND y < 0.5"
        want = sorted(int(i) for i in self.df.query("x >= 0.2 and x <= 0.4 and y < 0.5")["id"])
        self.assertEqual(len(t), ROWS)
        t.create_index("id")
        t.create_index("x", kind="zonemap", zone_rows=256)
        t.create_index("city", kind="bitmap", max_values=16)
        self.assertIn("bitmap", lakeindex.index_kinds())
        listed = {i["name"]: i for i in t.indexes()}
        self.assertEqual(set(listed), {"id_btree", "x_zonemap", "city_bitmap"})
        self.assertEqual(listed["city_bitmap"]["params"], {"max_values": 16})
        for cities, pandas in (("city IN ('Oslo', 'Pune')", self.df["city"].isin(["Oslo", "Pune"])),
                              ("city IS NULL", self.df["city"].isna()), ("city >= 'Oslo'", self.df["city"].fillna("") >= "Oslo")):
            self.assertEqual(t.count(cities), int(pandas.sum()), cities)
            self.assertEqual(self.ids(t, cities), sorted(int(i) for i in self.df[pandas]["id"]), cities)
        self.assertEqual(listed["id_btree"]["kind"], "btree")
        self.assertEqual(listed["id_btree"]["uncovered_fragments"], 0)
        t.append(frame(3, 700, start=ROWS))
        self.assertEqual(t.update_index(), 0)  # appends are indexed as they commit
        self.assertGreaterEqual(t.update_index("id_btree", merge=True), 0)
        for layout in (t.layout_sort, t.layout_zorder, t.layout_hilbert):
            report = layout(["x", "y"], rows_per_file=1000)
            self.assertEqual(report["rows"], ROWS + 700)
            self.assertEqual([i for i in self.ids(t, where) if i < ROWS], want, layout.__name__)
            self.assertEqual(self.ids(t, "id = 17"), [17])
            self.assertEqual(t.stats()["layout"]["kind"], layout.__name__.split("_")[1])
        version = t.version
        t.drop_index("x_zonemap")
        self.assertEqual([i["name"] for i in t.indexes()], ["id_btree", "city_bitmap"])
        self.assertEqual(t.version, version + 1)
        lines = t.verify()
        for f in t.files():  # every data file read and checked
            self.assertTrue(any(line.startswith(f["file"] + ": ok") for line in lines), (f["file"], lines))
        cleaned = t.vacuum(older_than_hours=0, force=True, keep_versions=2)
        self.assertEqual(cleaned["expired"], list(range(1, t.version - 1)))
        self.assertTrue(cleaned["removed"])
        self.assertEqual([v["version"] for v in t.versions()], [t.version - 1, t.version])
        self.assertEqual([i for i in self.ids(t, where) if i < ROWS], want)

    def test_an_otree_by_region_answers_as_by_slice(self):
        where = "x BETWEEN 0.2 AND 0.4 AND y < 0.5"
        got = {}
        for row_groups in ("slices", "regions"):
            t = self.make("otree-" + row_groups)
            report = t.layout_otree(["x", "y"], cube_rows=200, row_groups=row_groups)
            self.assertEqual(report["rows"], ROWS)
            got[row_groups] = (self.ids(t, where), sorted(int(i) for i in t.query(sample=0.1, select=["id"])["id"]))
            self.assertEqual(t.stats()["layout"].get("row_groups", "slices"), row_groups)
        self.assertEqual(got["slices"], got["regions"])
        # The default: by region, whether or not other engines read the table (Iceberg metadata).
        for iceberg, want_groups in ((True, "regions"), (False, "regions")):
            t = self.make(f"otree-default-{iceberg}", iceberg=iceberg)
            t.layout_otree(["x", "y"], cube_rows=200)
            self.assertEqual(t.stats()["layout"].get("row_groups", "slices"), want_groups)
        want = sorted(int(i) for i in self.df.query("x >= 0.2 and x <= 0.4 and y < 0.5")["id"])
        self.assertEqual(got["regions"][0], want)

    def test_recover_accepts_a_lost_newest_version(self):
        path = self.dir.join("lost")
        t = self.make("lost")
        t.append(frame(4, 100, start=ROWS))
        os.remove(os.path.join(path, "_versions", "%020d.manifest" % 2))
        with self.assertRaises(lakeindex.Corruption) as caught:
            lakeindex.Table.open(path)
        self.assertIn("2", str(caught.exception))
        self.assertEqual(lakeindex.Table.recover(path, accept_lost_version=2), 1)
        with lakeindex.Table.open(path) as again:
            self.assertEqual((again.version, len(again)), (1, ROWS))

    def test_iceberg_format_3_from_python(self):
        t = self.make("v3", iceberg=True, iceberg_format=3)
        t.delete("id < 10")
        import json
        with open(os.path.join(t.path, "metadata", "v%d.metadata.json" % t.version)) as f:
            meta = json.load(f)
        self.assertEqual(meta["format-version"], 3)
        self.assertEqual(meta["next-row-id"], ROWS)
        deletes = os.listdir(os.path.join(t.path, "metadata", "deletes"))
        self.assertTrue(deletes and all(name.endswith(".puffin") for name in deletes), deletes)
        with self.assertRaisesRegex(ValueError, "iceberg_format must be 2 or 3, got 4"):
            self.make("v4", iceberg=True, iceberg_format=4)
        with self.assertRaisesRegex(ValueError, "format must be 2 or 3, got 1"):
            t.enable_iceberg(format=1)
        plain = self.make("v2then3")
        plain.enable_iceberg(format=3)
        with open(os.path.join(plain.path, "metadata", "v%d.metadata.json" % plain.version)) as f:
            self.assertEqual(json.load(f)["format-version"], 3)

    # -- arguments ----------------------------------------------------------------------------

    def test_arguments_are_refused_in_python_words_and_nothing_changes(self):
        t = self.make("args")
        version = t.version
        refused = [
            (lambda: t.query(5), TypeError, "where must be a str, not int"),
            (lambda: t.query(limit=-1), ValueError, "limit must be >= 0, got -1"),
            (lambda: t.query(limit="3"), TypeError, "limit must be an int, not str"),
            (lambda: t.query(limit=True), TypeError, "limit must be an int, not bool"),
            (lambda: t.query(select=[1]), TypeError, "select must hold column names (str), not int"),
            (lambda: t.query(select=3), TypeError, "select must be a list of column names or a str, not int"),
            (lambda: t.query(sample=0), ValueError, "sample must be in (0, 1.0], got 0"),
            (lambda: t.query(order_by=1), TypeError, "order_by must be a str or a list of str, not int"),
            (lambda: t.query(output="csv"), lakeindex.InvalidArgument, "output must be"),
            (lambda: list(t.scan(where=b"x")), TypeError, "where must be a str, not bytes"),
            (lambda: t.count(1), TypeError, "where must be a str, not int"),
            (lambda: t.delete(None), TypeError, "where must be a str, not NoneType"),
            (lambda: t.aggregate(None), TypeError, "aggregates must be a str, not NoneType"),
            (lambda: t.aggregate("count(*)", confidence=2), ValueError, "confidence must be in (0, 1), got 2"),
            (lambda: t.aggregate("count(*)", group_by=[None]), TypeError, "group_by must hold column names"),
            (lambda: t.aggregate("avg(x)", error=-1), ValueError, "error must be > 0, got -1"),
            (lambda: t.create_index("id", kind="hash"), ValueError,
             "kind must be one of 'btree', 'zonemap', 'bitmap'; got 'hash'"),
            (lambda: t.create_index("city", kind="bitmap", max_values=[9]), TypeError,
             "max_values must be an int, float, str or bool, not list"),
            (lambda: t.create_index(3), TypeError, "column must be a str, not int"),
            (lambda: t.create_index("id", page_rows=0), ValueError, "page_rows must be >= 1, got 0"),
            (lambda: t.drop_index(None), TypeError, "name must be a str, not NoneType"),
            (lambda: t.vacuum(older_than_hours=0), ValueError, "force=True"),
            (lambda: t.vacuum(keep_versions=0), ValueError, "keep_versions must be >= 1, got 0"),
            (lambda: t.layout_hilbert([]), ValueError, "columns must name at least one column"),
            (lambda: t.layout_otree(["x", "y"], row_groups="cells"), ValueError,
             "row_groups must be 'slices' or 'regions', got 'cells'"),
            (lambda: t.layout_sort("x", rows_per_file=0), ValueError, "rows_per_file must be >= 1, got 0"),
            (lambda: t.optimize(rows_per_file="many"), TypeError, "rows_per_file must be an int, not str"),
            (lambda: t.append(self.df, rows_per_file=-5), ValueError, "rows_per_file must be >= 1, got -5"),
            (lambda: lakeindex.Table.recover(t.path, accept_lost_version="2"), TypeError,
             "accept_lost_version must be an int, not str"),
        ]
        for call, kind, words in refused:
            with self.subTest(words=words):
                with self.assertRaises(kind) as caught:
                    call()
                self.assertIn(words, str(caught.exception))
                self.assertNotIn("(self:", str(caught.exception))  # no C++ signature
        self.assertEqual(lakeindex.Table.open(t.path).version, version)

    def test_library_errors_name_the_argument_in_python_words(self):
        """What the library refuses names the keyword argument, never the command line's flag."""
        t = self.make("words")
        cases = [
            (lambda: t.query(select=["nope"]), "select: unknown column 'nope'"),
            (lambda: t.query(order_by="x sideways"), "order_by: at position"),
            (lambda: t.aggregate("median(x)"), "aggregates: at position 1: unknown aggregate 'median'"),
            (lambda: t.aggregate("count(*)", group_by=["nope"]), "group_by: unknown column"),
            (lambda: t.query(sample=0.5), "sample: a sample needs an OTree layout"),
            (lambda: t.aggregate("min(x)", error=0.1), "error: needs an aggregate with an interval"),
            (lambda: t.create_index("nope"), "column: unknown column 'nope'"),
            (lambda: t.create_index("city", kind="bitmap", page_rows=64),
             "page_rows: a bitmap index takes no parameter 'page_rows' (it takes max_values)"),
            (lambda: t.create_index("city", kind="bitmap", max_values=0),
             "max_values: must be a whole number between 1 and 1048576, not 0"),
            (lambda: t.create_index("id", kind="bitmap", max_values=10), "column: 'id' has more than 10 distinct values"),
            (lambda: lakeindex.Table.create(self.dir.join("words2"), self.dir.join("missing.parquet"), delimiter=";"),
             "delimiter, quote, escape, header, null, dateformat, thousands:"),
        ]
        for call, words in cases:
            with self.subTest(words=words):
                with self.assertRaises(lakeindex.Error) as caught:
                    call()
                self.assertIn(words, str(caught.exception))
                self.assertNotIn("--", str(caught.exception))

    def test_no_argument_of_any_method_reaches_the_native_layer_unchecked(self):
        """Every public method and argument, given values of the wrong type or range: each is
        refused in Python's words (TypeError / ValueError / lakeindex.Error naming it), never with
        pybind11's C++ signature or cast error, never a crash."""
        import inspect
        t = self.make("every")
        t.create_index("id")
        plausible = {"path": None, "source": None, "columns": ["x", "y"], "where": "id < 3",
                     "aggregates": "count(*)", "column": "id", "name": "id_btree", "accept_lost_version": 99}
        wrong = [object(), "zz", -3, 1.5, [1], {"a": 1}, b"x", float("nan")]
        tried = 0
        for name, member in vars(lakeindex.Table).items():
            if name.startswith("_") or isinstance(member, property):
                continue
            bound = getattr(t, name)
            params = [p for p in inspect.signature(bound).parameters.values()
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            for p in params:
                for value in wrong:
                    kwargs = {}
                    for q in params:
                        if q is not p and q.default is inspect.Parameter.empty:
                            kwargs[q.name] = plausible[q.name]
                    if "path" in kwargs:
                        kwargs["path"] = self.dir.join(f"every-{name}-{p.name}-{tried}")
                    if "source" in kwargs:
                        kwargs["source"] = {"a": np.arange(3)}
                    kwargs[p.name] = value
                    tried += 1
                    with self.subTest(call=f"{name}({p.name}={value!r})"):
                        try:
                            result = bound(**kwargs)
                            if hasattr(result, "__next__"):
                                list(result)
                        except (TypeError, ValueError, lakeindex.Error) as e:
                            text = str(e)
                            self.assertNotIn("incompatible function arguments", text)
                            self.assertNotIn("Unable to cast", text)
                            self.assertNotIn("_lakeindex.", text)
                            self.assertNotIn("--", text)
        self.assertGreater(tried, 400)

    def test_exceptions_are_the_packages(self):
        with self.assertRaises(lakeindex.NotFound) as caught:
            lakeindex.Table.open(self.dir.join("nothing here"))
        self.assertIsInstance(caught.exception, LookupError)
        text = "".join(traceback.format_exception(caught.exception))
        self.assertIn("lakeindex.NotFound:", text)
        self.assertNotIn("_lakeindex", text)
        self.assertTrue(issubclass(lakeindex.IOError, OSError))
        self.assertTrue(issubclass(lakeindex.InvalidArgument, ValueError))
        for name in ("Error", "InvalidArgument", "NotFound", "Conflict", "Corruption", "IOError", "NotSupported",
                     "InternalError", "OutcomeUnknown"):
            self.assertEqual(getattr(lakeindex, name).__module__, "lakeindex", name)

    # -- what comes out ------------------------------------------------------------------------

    def test_schema_stats_and_versions_in_python_types(self):
        df = pd.DataFrame({
            "k": np.array([1, 2], dtype=np.int64),
            "s": ["béta", "alpha"],
            "d": [datetime.date(1969, 12, 31), datetime.date(2024, 2, 29)],
            "ts": np.array(["1960-01-01T00:00:01.5", "2030-01-01"], dtype="datetime64[us]"),
            "tz": pd.to_datetime(["2020-01-01T00:00:00Z", "2021-06-01T12:00:00Z"], utc=True),
            "u": [uuid.UUID(int=5), uuid.UUID(int=2**127)],
            "b": [b"\x00\x01", b"\xff"],
            "dec": [decimal.Decimal("1.25"), decimal.Decimal("-3.50")],
        })
        with lakeindex.Table.create(self.dir.join("typed"), df) as t:
            self.assertEqual(len(t), 2)
            self.assertEqual(t.schema.names, list(df.columns))
            self.assertEqual([f.type for f in t.schema],
                             ["int64", "string", "date", "timestamp", "timestamptz", "uuid", "binary", "decimal(18,2)"])
            self.assertEqual(t.schema, "k:int64,s:string,d:date,ts:timestamp,tz:timestamptz,u:uuid,b:binary,dec:decimal(18,2)")
            self.assertEqual(str(t.schema), "k:int64,s:string,d:date,ts:timestamp,tz:timestamptz,u:uuid,b:binary,dec:decimal(18,2)")
            arrow = pa.schema(t.schema)
            self.assertEqual(arrow, pa.table(t.query(output="arrow")).schema)
            cols = t.stats()["columns"]
            self.assertEqual((cols["s"]["min"], cols["s"]["max"]), ("alpha", "béta"))
            self.assertEqual((cols["d"]["min"], cols["d"]["max"]), (datetime.date(1969, 12, 31), datetime.date(2024, 2, 29)))
            self.assertEqual(cols["ts"]["min"], datetime.datetime(1960, 1, 1, 0, 0, 1, 500000))
            self.assertEqual(cols["tz"]["max"], datetime.datetime(2021, 6, 1, 12, tzinfo=datetime.timezone.utc))
            self.assertEqual((cols["u"]["min"], cols["u"]["max"]), (uuid.UUID(int=5), uuid.UUID(int=2**127)))
            self.assertEqual(cols["b"]["min"], b"\x00\x01")
            self.assertEqual(cols["dec"]["min"], decimal.Decimal("-3.50"))
            (v,) = t.versions()
            self.assertEqual(v["timestamp"].tzinfo, datetime.timezone.utc)
            self.assertLess(abs((datetime.datetime.now(datetime.timezone.utc) - v["timestamp"]).total_seconds()), 600)
            self.assertEqual(int(v["timestamp"].timestamp() * 1000), v["timestamp_ms"])

    def test_arrow_out_of_query_scan_and_aggregate(self):
        t = self.make("arrowout")
        everything = pa.table(t.scan(output="arrow"))
        self.assertEqual(everything.num_rows, ROWS)
        self.assertEqual(pa.table(t.scan(where="id < 10", select=["id"], output="arrow"))["id"].to_pylist(), list(range(10)))
        grouped = pa.table(t.aggregate("count(*), avg(x)", group_by=["city"], order_by="city", output="arrow"))
        self.assertEqual(grouped.column_names, ["city", "count(*)", "avg(x)"])
        want = self.df.groupby("city", dropna=False)["x"].agg(["count", "mean"])
        for row in grouped.to_pylist():
            key = row["city"] if row["city"] is not None else np.nan
            expect = want.loc[key] if row["city"] is not None else want[want.index.isna()].iloc[0]
            self.assertEqual(row["count(*)"], int(expect["count"]))
            self.assertAlmostEqual(row["avg(x)"], float(expect["mean"]), places=12)


class ImportTest(unittest.TestCase):
    def test_import_leaves_numpy_and_json_to_their_first_use(self):
        # A new process's `import lakeindex` is part of a cold lookup's time: it loads neither
        # numpy (the first query's result does) nor json (index options do).
        probe = "import sys, lakeindex; print(','.join(m for m in ('numpy', 'json', 'pandas') if m in sys.modules))"
        got = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
        self.assertEqual(got.stdout.strip(), "")


if __name__ == "__main__":
    unittest.main()
