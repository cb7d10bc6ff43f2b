"""The SQL of Python's arguments as the command line reads it: aliases and count(DISTINCT c) in
aggregate(), quoted names in order_by=, "did you mean" for unknown columns in Python's words, and
refusals of SQL beyond the subset that say where it runs (DuckDB over the rows)."""

import unittest

import numpy as np
import pandas as pd
import pyarrow as pa

import lakeindex
import util


class SqlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = util.Workdir()
        cls.t = lakeindex.Table.create(cls.dir.join("flights"), pd.DataFrame({
            "id": np.arange(1, 7, dtype=np.int64),
            "dest": ["LAX", "SFO", "LAX", "ORD", "LAX", "ORD"],
            "Dep Delay": [5, -3, 40, 12, 8, 7],
        }))

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def test_aliases_distinct_and_quoted_order_keys(self):
        got = self.t.aggregate("count(*) AS n, count(DISTINCT dest) dests", group_by=["dest"], order_by="n desc")
        self.assertEqual(list(got), ["dest", "n", "dests"])
        self.assertEqual(list(got["dest"]), ["LAX", "ORD", "SFO"])
        self.assertEqual([int(v) for v in got["n"]], [3, 2, 1])
        rows = self.t.query(select=["id"], order_by='"Dep Delay" desc', limit=2)
        self.assertEqual([int(v) for v in rows["id"]], [3, 4])

    def test_offset_skips_rows_and_groups_as_sql_offset(self):
        # "Dep Delay" descending: ids 3 (40), 4 (12), 5 (8), 6 (7), 1 (5), 2 (-3).
        rows = self.t.query(select=["id"], order_by='"Dep Delay" desc', limit=2, offset=1)
        self.assertEqual([int(v) for v in rows["id"]], [4, 5])
        stream = self.t.query(select=["id"], order_by='"Dep Delay" desc', offset=4, output="arrow")
        self.assertEqual(pa.table(stream).column("id").to_pylist(), [1, 2])
        got = self.t.aggregate(["count(*) AS n"], group_by=["dest"], order_by=["n desc"], offset=1)
        self.assertEqual(list(got["dest"]), ["ORD", "SFO"])
        with self.assertRaisesRegex(ValueError, "offset must be >= 0"):
            self.t.query(offset=-1)
        # numpy's integers count as integers (pandas and pyarrow take them); floats do not.
        rows = self.t.query(select=["id"], order_by='"Dep Delay" desc', limit=np.int64(2), offset=np.uint8(1))
        self.assertEqual([int(v) for v in rows["id"]], [4, 5])
        with self.assertRaisesRegex(TypeError, "limit must be an int, not float"):
            self.t.query(limit=2.0)

    def test_unknown_columns_name_the_nearest_in_python_words(self):
        cases = [
            (lambda: self.t.query(select=["destt"]), "select: unknown column 'destt'; did you mean 'dest'?"),
            (lambda: self.t.query(where="destt = 'LAX'"),
             "where: at position 1: unknown column 'destt'; did you mean 'dest'?"),
            (lambda: self.t.query(order_by="destt"), "order_by: unknown column 'destt'; did you mean 'dest'?"),
            (lambda: self.t.aggregate("count(*)", group_by=["destt"]),
             "group_by: unknown column 'destt'; did you mean 'dest'?"),
            (lambda: self.t.count("dets = 'LAX'"), "unknown column 'dets'; did you mean 'dest'?"),
            # count(*) alone is counted, not scanned: its order keys are bound all the same.
            (lambda: self.t.aggregate("count(*) AS n", order_by="nn"), "unknown column 'nn'; did you mean 'n'?"),
        ]
        for call, words in cases:
            with self.subTest(words=words):
                with self.assertRaises(lakeindex.Error) as caught:
                    call()
                self.assertIn(words, str(caught.exception))

    def test_sql_beyond_the_subset_names_duckdb_as_the_route(self):
        cases = [
            (lambda: self.t.query(where="lower(dest) = 'lax'"),
             "where: at position 1: the function call lower(...) is not supported"),
            (lambda: self.t.aggregate("sum(id) / count(*)"), "aggregates: at position 9: arithmetic ('/') is not supported"),
            (lambda: self.t.query(order_by="lower(dest)"), "order_by: at position 1: the function call lower(...)"),
        ]
        for call, words in cases:
            with self.subTest(words=words):
                with self.assertRaises(lakeindex.Error) as caught:
                    call()
                message = str(caught.exception)
                self.assertIn(words, message)
                self.assertIn('duckdb.sql("SELECT ... FROM s")', message)
                self.assertNotIn("--", message)  # Python's words, not the command line's


if __name__ == "__main__":
    unittest.main()
