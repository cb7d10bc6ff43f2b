"""timestamptz, timestamp_ns, binary, uuid and decimal from Python: made from numpy / pandas /
Python objects, read back as the same values, filtered as Python computes it by hand."""

import decimal
import unittest
import uuid

import numpy as np

import lakeindex
import util

N = 600


class TypesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = util.Workdir()

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def columns(self):
        import pandas as pd
        rng = np.random.default_rng(11)
        ns = 1_704_067_200_000_000_000 + rng.integers(0, 10**16, N)  # 2024: sub-microsecond digits
        instants = pd.Series(pd.to_datetime(1_704_067_200_000_000 + rng.integers(0, 10**13, N), unit="us"))
        return {
            "k": np.arange(N, dtype=np.int64),
            "ns": ns.astype("datetime64[ns]"),
            # Time-zone-aware: kept as the UTC instant whatever the zone.
            "tz": instants.dt.tz_localize("UTC").dt.tz_convert("Asia/Kolkata"),
            "b": [None if j % 9 == 0 else bytes(rng.integers(0, 256, j % 7, dtype=np.uint8)) for j in range(N)],
            "u": [None if j % 11 == 0 else uuid.UUID(int=int(rng.integers(0, 2**63)) << 64 | j) for j in range(N)],
        }

    def test_types_are_inferred_and_every_value_reads_back(self):
        import pandas as pd
        cols = self.columns()
        t = lakeindex.Table.create(self.dir.join("typed"), cols, rows_per_file=200)
        self.assertEqual(t.schema, "k:int64,ns:timestamp_ns,tz:timestamptz,b:binary,u:uuid")
        back = t.query(order_by="k")
        self.assertEqual(back["ns"].dtype, np.dtype("datetime64[ns]"))
        self.assertTrue(np.array_equal(back["ns"], cols["ns"]))  # every nanosecond kept
        want_tz = cols["tz"].dt.tz_convert("UTC").dt.tz_localize(None).to_numpy().astype("datetime64[us]")
        self.assertTrue(np.array_equal(back["tz"], want_tz))
        self.assertEqual(list(back["b"]), cols["b"])
        self.assertEqual(list(back["u"]), cols["u"])
        self.assertIsInstance(back["u"][1], uuid.UUID)
        # pandas output marks the instants as UTC, and equals the input's instants.
        frame = t.query(order_by="k", output="pandas")
        self.assertEqual(str(frame["tz"].dt.tz), "UTC")
        pd.testing.assert_series_equal(frame["tz"], cols["tz"].dt.tz_convert("UTC").astype(frame["tz"].dtype),
                                       check_names=False)
        # A frame of the table makes an equal table.
        again = lakeindex.Table.create(self.dir.join("again"), frame)
        self.assertEqual(again.schema, t.schema)
        pd.testing.assert_frame_equal(again.query(order_by="k", output="pandas"), frame)

    def test_filters_match_python(self):
        cols = self.columns()
        t = lakeindex.Table.create(self.dir.join("filtered"), cols, rows_per_file=150)
        t.create_index("u", "btree")
        t.create_index("ns", "btree")
        pivot_ns = cols["ns"][17]
        pivot_u = cols["u"][5]
        ns_text = str(pivot_ns).replace("T", " ")
        utc = cols["tz"].dt.tz_convert("UTC").dt.tz_localize(None).to_numpy()
        cases = [
            (f"ns > '{ns_text}'", lambda j: cols["ns"][j] > pivot_ns),
            (f"ns = '{ns_text}'", lambda j: cols["ns"][j] == pivot_ns),
            (f"u = '{pivot_u}'", lambda j: cols["u"][j] == pivot_u),
            (f"u >= '{pivot_u}'", lambda j: cols["u"][j] is not None and cols["u"][j].bytes >= pivot_u.bytes),
            ("b = '\\x00'", lambda j: cols["b"][j] == b"\x00"),
            ("b IS NULL", lambda j: cols["b"][j] is None),
            ("tz < '2024-03-01 00:00:00+05:30'", lambda j: utc[j] < np.datetime64("2024-02-29T18:30:00")),
        ]
        for where, keep in cases:
            got = sorted(int(k) for k in t.query(where=where, select="k")["k"])
            self.assertEqual(got, [j for j in range(N) if keep(j)], where)

    def test_tables_from_arrow_ipc_files(self):
        import subprocess
        cols = self.columns()
        t = lakeindex.Table.create(self.dir.join("to_ipc"), cols, rows_per_file=250)
        path = self.dir.join("rows.arrows")
        subprocess.run([util.cli(), "query", t.path, "--format", "arrow", "--output", path], check=True)
        back = lakeindex.Table.create(self.dir.join("from_ipc"), path)
        self.assertEqual(back.schema, t.schema)
        want, got = t.query(order_by="k"), back.query(order_by="k")
        for name in want:
            self.assertEqual(list(np.ma.getmaskarray(got[name])), list(np.ma.getmaskarray(want[name])), name)
            self.assertEqual([x for x in np.ma.getdata(got[name])], [x for x in np.ma.getdata(want[name])], name)

    def test_values_of_another_type_are_refused_naming_the_column(self):
        t = lakeindex.Table.create(self.dir.join("uuids"), {"u": [uuid.uuid4(), uuid.uuid4()]})
        self.assertEqual(t.schema, "u:uuid")
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "column 'u' row 0: expected str, bytes or None, got UUID"):
            t.append({"u": [uuid.uuid4(), b"abc"]})  # objects of mixed kinds: no uuid column
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "column 'u' is binary, the table's is uuid"):
            t.append({"u": [b"0123456789abcdef"]})
        # Text is read as uuids, as DuckDB casts on insert; text that is not one is refused.
        t.append({"u": ["A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", None]})
        self.assertEqual(t.count("u = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"), 1)
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "column 'u' row 1: invalid uuid 'nope'"):
            t.append({"u": ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "nope"]})
        self.assertEqual(t.count(), 4)

    def test_decimals_are_exact_both_ways(self):
        import pandas as pd
        D = decimal.Decimal
        rng = np.random.default_rng(5)
        amounts = [None if j % 13 == 0 else D(int(rng.integers(-10**9, 10**9))).scaleb(-2) for j in range(N)]
        amounts[1] = D("0.10")  # 0.1 as a decimal, not the double nearest it
        amounts[2] = D("-9999999999999999.99")  # the most 18 digits at scale 2 hold
        t = lakeindex.Table.create(self.dir.join("dec"), {"k": np.arange(N, dtype=np.int64), "amount": amounts},
                                   rows_per_file=200)
        self.assertEqual(t.schema, "k:int64,amount:decimal(18,2)")
        back = t.query(order_by="k")
        self.assertEqual(list(back["amount"]), amounts)
        self.assertIsInstance(back["amount"][1], D)
        self.assertEqual(str(back["amount"][1]), "0.10")
        frame = t.query(order_by="k", output="pandas")
        self.assertEqual(list(frame["amount"]), amounts)
        present = [a for a in amounts if a is not None]
        self.assertEqual((t.stats()["columns"]["amount"]["min"], t.stats()["columns"]["amount"]["max"]),
                         (min(present), max(present)))
        t.create_index("amount", "btree")
        for where, keep in [("amount = 0.1", lambda a: a == D("0.1")),
                            ("amount > 1234.565", lambda a: a > D("1234.565")),
                            ("amount BETWEEN -100 AND 100.5", lambda a: D(-100) <= a <= D("100.5")),
                            ("amount < -1e6", lambda a: float(a) < -1e6)]:
            got = sorted(int(k) for k in t.query(where=where, select="k")["k"])
            self.assertEqual(got, [j for j in range(N) if amounts[j] is not None and keep(amounts[j])], where)
        # sum keeps the scale, exactly, as Python's Decimal adds; past 18 digits it is refused.
        total = t.aggregate("sum(amount)", where="k <> 2")["sum(amount)"][0]
        self.assertEqual(total, sum(a for j, a in enumerate(amounts) if a is not None and j != 2))
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "overflows decimal"):
            t.aggregate("sum(amount)", where="amount < 0")
        # Numbers appended to the table's decimal column: rounded to its scale, as DuckDB casts;
        # too many digits are refused naming the row.
        t.append({"k": np.array([N, N + 1], dtype=np.int64), "amount": [D("1.005"), D("7")]})
        self.assertEqual(list(t.query(where=f"k >= {N}", order_by="k")["amount"]), [D("1.01"), D("7.00")])
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "column 'amount' row 0"):
            t.append({"k": np.array([N + 2], dtype=np.int64), "amount": [D("1e30")]})
        self.assertEqual(t.count(), N + 2)


if __name__ == "__main__":
    unittest.main()
