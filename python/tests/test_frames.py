"""The first hour of a pandas user (issue 51): frames and dicts in, pandas and Arrow out, as
pyarrow's conversions and the Arrow PyCapsule protocol behave."""

import datetime
import os
import unittest
import warnings

import numpy as np
import pandas as pd

import lakeindex
from util import Workdir


class FramesIn(unittest.TestCase):
    def setUp(self):
        self.dir = Workdir()

    def tearDown(self):
        self.dir.close()

    def test_integer_column_labels_are_named_as_pyarrow_names_them(self):
        # What read_csv(header=None) gives: labels 0, 1, ...; pyarrow's from_pandas names them "0", "1".
        frame = pd.DataFrame([[1, "x"], [2, "y"]])
        t = lakeindex.Table.create(self.dir.join("ints"), frame)
        self.assertEqual(t.schema.names, ["0", "1"])
        self.assertEqual(t.query(order_by="\"0\"")["1"].tolist(), ["x", "y"])
        t.append(pd.DataFrame([[3, "z"]]))
        self.assertEqual(len(t), 3)

    def test_a_dict_of_lists_with_none_takes_pyarrows_types(self):
        source = {"a": [1, 2, None], "b": [1.5, None, 2], "c": [True, None, False], "s": ["x", None, "z"],
                  "ts": [datetime.datetime(2024, 1, 2, 3, 4, 5), None, datetime.datetime(2024, 1, 3)]}
        t = lakeindex.Table.create(self.dir.join("lists"), source)
        self.assertEqual(str(t.schema), "a:int64,b:double,c:bool,s:string,ts:timestamp")
        rows = t.query(order_by="a")
        self.assertEqual(rows["a"].tolist(None), [1, 2, None])
        self.assertEqual(rows["b"].tolist(None), [1.5, None, 2.0])
        self.assertEqual(rows["c"].tolist(None), [True, None, False])

    def test_values_of_several_types_are_refused_naming_the_column(self):
        with self.assertRaisesRegex(lakeindex.InvalidArgument, r"column 'a'.*int.*str"):
            lakeindex.Table.create(self.dir.join("mixed"), {"a": [1, "x", None]})

    def test_scalars_and_nested_values_are_refused_naming_the_column(self):
        for source in ({"a": 5}, {"a": [[1, 2], [3]]}, {"a": [[1], [2]]}):
            with self.subTest(source=source):
                with self.assertRaisesRegex(lakeindex.InvalidArgument, r"^source: column 'a' must be a flat sequence"):
                    lakeindex.Table.create(self.dir.join("nested"), source)

    def test_a_named_index_is_kept_as_a_column(self):
        frame = pd.DataFrame({"v": [10, 20]}, index=pd.Index([5, 6], name="k"))
        t = lakeindex.Table.create(self.dir.join("indexed"), frame)
        self.assertEqual(t.schema.names, ["v", "k"])  # after the columns, as pyarrow puts it
        self.assertEqual(t.query(order_by="k")["k"].tolist(), [5, 6])
        # An unnamed index (0, 1, ... or any other) is positional: not a column.
        t2 = lakeindex.Table.create(self.dir.join("plain"), pd.DataFrame({"v": [1, 2]}, index=[7, 3]))
        self.assertEqual(t2.schema.names, ["v"])
        # Appended, it is a column too: refused naming it when the table has none of its name.
        t.append(pd.DataFrame({"v": [30]}, index=pd.Index([7], name="k")))
        self.assertEqual(t.query(order_by="k")["k"].tolist(), [5, 6, 7])
        with self.assertRaisesRegex(lakeindex.InvalidArgument, r"^source: the DataFrame's index 'k'.*reset_index"):
            t2.append(pd.DataFrame({"v": [3]}, index=pd.Index([9], name="k")))
        # A named index whose name a column has: refused with the way out.
        clash = pd.DataFrame({"k": [1]}, index=pd.Index([1], name="k"))
        with self.assertRaisesRegex(lakeindex.InvalidArgument, r"source: .*index 'k'.*reset_index"):
            lakeindex.Table.create(self.dir.join("clash"), clash)


class PandasOut(unittest.TestCase):
    """Output dtypes follow the table's schema, whatever rows this result or batch holds."""

    @classmethod
    def setUpClass(cls):
        cls.dir = Workdir()
        frame = pd.DataFrame({"id": np.arange(6, dtype=np.int64),
                              "i": pd.array([1, None, 3, 4, 5, 6], dtype="Int64"),
                              "f": pd.array([1.5, 2.5, None, 4.5, 5.5, 6.5], dtype="Float64"),
                              "b": pd.array([True, False, True, None, True, False], dtype="boolean"),
                              "n": np.arange(6, dtype=np.int32)})
        cls.t = lakeindex.Table.create(cls.dir.join("nulls"), frame)

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def test_the_dtypes_do_not_depend_on_the_rows_returned(self):
        with_nulls = self.t.query(output="pandas")
        without = self.t.query(where="id = 0", output="pandas")
        self.assertEqual(dict(with_nulls.dtypes.astype(str)), dict(without.dtypes.astype(str)))
        self.assertEqual(str(without["f"].dtype), "Float64")
        self.assertEqual(str(without["i"].dtype), "Int64")
        self.assertEqual(str(without["b"].dtype), "boolean")
        self.assertEqual(str(without["n"].dtype), "Int32")
        batches = list(self.t.scan(output="pandas"))
        self.assertTrue(all(str(b["f"].dtype) == "Float64" for b in batches))

    def test_aggregates_follow_one_rule_too(self):
        some = self.t.aggregate("count(*), sum(f)", output="pandas")
        none = self.t.aggregate("count(*), sum(f)", where="id > 100", output="pandas")
        self.assertEqual(dict(some.dtypes.astype(str)), dict(none.dtypes.astype(str)))
        self.assertTrue(pd.isna(none["sum(f)"][0]))


class ArrowSource(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Workdir()
        cls.t = lakeindex.Table.create(cls.dir.join("t"), {"id": np.arange(5, dtype=np.int64),
                                                           "name": ["a", "b", None, "d", "e"]})

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def test_pyarrow_reads_a_table(self):
        import pyarrow as pa
        table = pa.table(self.t)
        self.assertEqual(table.column_names, ["id", "name"])
        self.assertEqual(table.num_rows, 5)
        self.assertEqual(table.column("name").null_count, 1)

    def test_duckdb_reads_a_table(self):
        import duckdb
        t = self.t  # noqa: F841 (DuckDB finds it by its name)
        self.assertEqual(duckdb.sql("SELECT count(*), max(id) FROM t").fetchall(), [(5, 4)])

    def test_polars_reads_a_table(self):
        import polars as pl
        frame = pl.DataFrame(self.t)
        self.assertEqual(frame.shape, (5, 2))
        self.assertEqual(frame["name"].null_count(), 1)

    def test_an_aggregate_result_is_an_arrow_source(self):
        import pyarrow as pa
        result = self.t.aggregate("count(*), max(id)")
        table = pa.table(result)
        self.assertEqual(table.column_names, ["count(*)", "max(id)"])
        self.assertEqual(table.to_pylist(), [{"count(*)": 5, "max(id)": 4}])

    def test_a_table_is_a_source_of_another(self):
        copy = lakeindex.Table.create(self.dir.join("copy"), self.t)
        self.assertEqual(len(copy), 5)


class Arguments(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Workdir()
        cls.t = lakeindex.Table.create(cls.dir.join("t"), {"id": np.arange(6, dtype=np.int64),
                                                           "g": ["a", "b", "a", "b", "a", "c"]})

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def test_aggregates_and_order_by_take_lists(self):
        result = self.t.aggregate(["count(*)", "max(id)"], group_by="g", order_by=["count(*) desc", "g"])
        self.assertEqual(list(result), ["g", "count(*)", "max(id)"])
        self.assertEqual(result["g"].tolist(), ["a", "b", "c"])
        rows = self.t.query(order_by=["g desc", "id"])
        self.assertEqual(rows["id"].tolist(), [5, 1, 3, 0, 2, 4])

    def test_bad_input_is_a_lakeindex_error_naming_the_argument(self):
        """As the package's errors name keyword arguments ("select: ..."): a filter that does not
        parse or bind too."""
        cases = [
            (lambda: self.t.query(select=["nope"]), "select: "),
            (lambda: self.t.query(order_by="nope"), "order_by: "),
            (lambda: self.t.aggregate("sum(nope)"), "aggregates: "),
            (lambda: self.t.aggregate("count(*)", group_by=["nope"]), "group_by: "),
            (lambda: self.t.query(where="nope = 1"), "where: "),
        ]
        for call, name in cases:
            with self.subTest(name=name):
                with self.assertRaises(lakeindex.Error) as caught:
                    call()
                self.assertTrue(str(caught.exception).startswith(name), str(caught.exception))


class Csv(unittest.TestCase):
    def setUp(self):
        self.dir = Workdir()

    def tearDown(self):
        self.dir.close()

    def test_pandas_to_csv_is_read_with_its_index_column(self):
        path = self.dir.join("pandas.csv")
        pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_csv(path)
        t = lakeindex.Table.create(self.dir.join("t"), path)
        self.assertEqual(str(t.schema), "column0:int64,a:int64,b:string")

    def test_lookalike_columns_warn(self):
        path = self.dir.join("us.csv")
        with open(path, "w") as f:
            f.write('d,n\n12/31/2024,"1,234.50"\n01/02/2024,7\n')
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = lakeindex.Table.create(self.dir.join("t"), path)
        self.assertEqual(str(t.schema), "d:string,n:string")
        messages = [str(w.message) for w in caught]
        self.assertEqual(len(messages), 2, messages)
        self.assertIn("column 'd' is read as string", messages[0])
        self.assertIn("dateformat='%m/%d/%Y' reads them as dates", messages[0])
        self.assertIn("thousands=',' reads them as numbers", messages[1])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = lakeindex.Table.create(self.dir.join("t2"), path, dateformat="%m/%d/%Y", thousands=",")
        self.assertEqual(caught, [])
        self.assertEqual(str(t.schema), "d:date,n:double")
        self.assertEqual(t.query(order_by="d")["n"].tolist(), [7.0, 1234.5])

    def test_schema_takes_sql_type_names(self):
        path = self.dir.join("b.csv")
        with open(path, "w") as f:
            f.write("id,ok\n1,yes\n2,n\n")
        t = lakeindex.Table.create(self.dir.join("t"), path, schema="id:INTEGER,ok:BOOLEAN")
        self.assertEqual(str(t.schema), "id:int32,ok:bool")
        self.assertEqual(t.query(order_by="id")["ok"].tolist(), [True, False])


if __name__ == "__main__":
    unittest.main()
