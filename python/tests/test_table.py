"""lakeindex.Table from Python against a brute-force reading of the source CSV."""

import json
import os
import subprocess
import sys
import threading
import unittest

import numpy as np

import lakeindex
import util

ROWS = 20000


def mask_of(col):
    return np.ma.getmaskarray(col)


class TableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = util.Workdir()
        cls.csv = util.gen_events(cls.dir.join("events.csv"), ROWS)
        cls.rows = util.read_csv(cls.csv)

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def make(self, name, **kw):
        return lakeindex.Table.create(self.dir.join(name), self.csv, rows_per_file=3000, **kw)

    def expected_ids(self, pred):
        return sorted(int(r["id"]) for r in self.rows if pred(r))

    def test_query_types_nulls_and_filters_match_the_csv(self):
        t = self.make("q")
        self.assertEqual(t.version, 1)
        everything = t.query()
        self.assertEqual(list(everything), ["id", "x", "y", "z", "score", "category", "name", "ts", "maybe"])
        self.assertEqual(everything["id"].dtype, np.int64)
        self.assertEqual(everything["x"].dtype, np.float64)
        self.assertEqual(everything["ts"].dtype, np.dtype("datetime64[us]"))
        self.assertEqual(everything["name"].dtype, object)
        self.assertTrue(np.ma.isMaskedArray(everything["maybe"]))  # the column with NULLs
        by_id = {int(r["id"]): r for r in self.rows}
        for i, name, maybe in zip(everything["id"], everything["name"], everything["maybe"].tolist(None)):
            self.assertEqual(name, by_id[int(i)]["name"])
            want = by_id[int(i)]["maybe"]
            self.assertEqual(maybe, None if want is None else int(want))
        cases = {
            "x < 100 AND y >= 500": lambda r: float(r["x"]) < 100 and float(r["y"]) >= 500,
            "category = 'cat_003' OR maybe IS NULL": lambda r: r["category"] == "cat_003" or r["maybe"] is None,
            "name LIKE 'ab%'": lambda r: r["name"].startswith("ab"),
            "id IN (5, 17, 19999, 40000)": lambda r: int(r["id"]) in (5, 17, 19999),
        }
        for where, pred in cases.items():
            got = sorted(int(i) for i in t.query(where, select=["id"])["id"])
            self.assertEqual(got, self.expected_ids(pred), where)
        self.assertEqual(len(t.query(limit=7)["id"]), 7)
        self.assertEqual(list(t.query("id < 3", select="name, id")), ["name", "id"])

    def test_index_delete_versions_stats_explain(self):
        t = self.make("i")
        t.create_index("id").create_index("x", kind="zonemap")
        self.assertEqual([i["name"] for i in t.stats()["indexes"]], ["id_btree", "x_zonemap"])
        plan = t.explain("id = 77")
        self.assertTrue(any("id_btree" in line for line in plan["plan"]), plan["plan"])
        self.assertEqual(t.delete("id < 1000 AND x > 500"), len(self.expected_ids(
            lambda r: int(r["id"]) < 1000 and float(r["x"]) > 500)))
        left = self.expected_ids(lambda r: not (int(r["id"]) < 1000 and float(r["x"]) > 500))
        self.assertEqual(sorted(t.query(select=["id"])["id"].tolist()), left)
        self.assertEqual(sorted(t.query("id < 1000", select=["id"])["id"].tolist()), [i for i in left if i < 1000])
        ops = [v["operation"] for v in t.versions()]
        self.assertEqual(ops[0], "create")
        self.assertEqual(len(ops), t.version)
        stats = t.stats()
        self.assertEqual(stats["rows"], len(left))
        self.assertEqual(stats["deleted_rows"], ROWS - len(left))
        self.assertEqual(stats["columns"]["id"]["min"], 0)
        analyzed = t.explain("id = 1500", analyze=True)
        self.assertEqual(analyzed["rows_returned"], 1)
        # Counts agree with the rows, through the index (exact) and without it (a scan).
        self.assertEqual(t.count(), len(left))
        self.assertEqual(t.count("id < 1000"), len([i for i in left if i < 1000]))
        self.assertEqual(t.count("id < 1000 AND x > 250"), len(t.query("id < 1000 AND x > 250", select=["id"])["id"]))
        # Time travel: version 1 still has every row.
        self.assertEqual(len(lakeindex.Table.open(t.path, version=1).query(select=["id"])["id"]), ROWS)
        # files(): the live rows and deleted positions of each data file add up to the version's.
        files = t.files()
        self.assertEqual(sum(f["live_rows"] for f in files), len(left))
        self.assertEqual(sum(len(f["deleted"]) for f in files), ROWS - len(left))
        for f in files:
            self.assertEqual(f["rows"], f["live_rows"] + len(f["deleted"]))
            self.assertTrue(f["path"].startswith(t.path + "/data/"), f["path"])
            self.assertEqual(f["deleted"], sorted(f["deleted"]))
        self.assertEqual(sum(len(f["deleted"]) for f in lakeindex.Table.open(t.path, version=1).files()), 0)

    def test_prewarm_then_new_keys_read_nothing(self):
        t = self.make("pw")
        t.create_index("id")
        t = lakeindex.Table.open(t.path)
        cold = t.explain("id = 1500", analyze=True)
        self.assertGreater(cold["bytes_read"], 0)
        # Cold, the random doubles' PLAIN uncompressed pages are read value by value.
        self.assertGreater(cold["pages_read_by_value"], 0, cold)
        report = t.prewarm()
        self.assertTrue(report["complete"], report)
        self.assertGreater(report["data_bytes"], 0)
        self.assertGreater(report["index_pages"], 0)
        for key in (17, 4242, 19999, 777):  # never looked up before
            warm = t.explain(f"id = {key}", analyze=True)
            self.assertEqual((warm["bytes_read"], warm["index_bytes_read"], warm["io_requests"]), (0, 0, 0), key)
            self.assertEqual(warm["pages_read_by_value"], 0, key)  # the pages are held whole
            self.assertEqual(t.query(f"id = {key}", select=["id"])["id"].tolist(), [key])
        self.assertEqual(t.prewarm()["data_bytes"], 0)  # all held already
        only = lakeindex.Table.open(t.path).prewarm(columns=["x"], indexes=False, max_bytes=10**9)
        self.assertEqual(only["index_bytes"], 0)
        self.assertLess(only["data_bytes"], report["data_bytes"] / 3)
        with self.assertRaisesRegex(ValueError, r"columns.*'xx'.*did you mean 'x'"):
            t.prewarm(columns=["xx"])
        with self.assertRaisesRegex(TypeError, "max_bytes must be an int"):
            t.prewarm(max_bytes="1GB")

    def test_prewarm_given_the_room_holds_a_table_larger_than_the_cache(self):
        # A process whose cache (1 MiB) is far below the table's decoded pages, as the 1 GiB
        # default is below a 10M-row table's: prewarm stops early, unless given cache_capacity.
        t = self.make("pwroom")
        t.create_index("id")
        script = """
import json, sys, lakeindex
t = lakeindex.Table.open(sys.argv[1])
stopped = t.prewarm()
later = lakeindex.Table.open(sys.argv[1])
held = later.prewarm(cache_capacity=256 << 20)
warm = [later.explain(f"id = {k}", analyze=True) for k in (17, 4242, 19999, 777)]
rows = [later.query(f"id = {k}")["id"].tolist() for k in (17, 4242, 19999, 777)]
print(json.dumps({"stopped": stopped, "held": held, "rows": rows,
                  "read": [w["bytes_read"] + w["index_bytes_read"] for w in warm]}))
"""
        env = dict(os.environ, LAKEINDEX_CACHE_MB="1")
        out = subprocess.run([sys.executable, "-c", script, t.path], capture_output=True, text=True, env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        r = json.loads(out.stdout)
        self.assertFalse(r["stopped"]["complete"], r["stopped"])
        self.assertEqual(r["stopped"]["cache_capacity"], 1 << 20)
        self.assertTrue(r["held"]["complete"], r["held"])
        self.assertEqual(r["held"]["cache_capacity"], 256 << 20)
        self.assertGreater(r["held"]["cache_bytes"], 1 << 20)
        self.assertEqual(r["read"], [0, 0, 0, 0])
        self.assertEqual(r["rows"], [[17], [4242], [19999], [777]])
        with self.assertRaisesRegex(TypeError, "cache_capacity must be an int"):
            t.prewarm(cache_capacity=1.5)

    def test_iceberg_metadata_from_create_or_enable(self):
        import json
        t = self.make("ice", iceberg=True)
        t.delete("id < 100")
        with open(os.path.join(t.path, "metadata", f"v{t.version}.metadata.json")) as f:
            meta = json.load(f)
        self.assertEqual(meta["current-snapshot-id"], t.version)
        self.assertEqual(meta["location"], "file://" + os.path.abspath(t.path))
        self.assertEqual(meta["snapshots"][-1]["summary"]["total-position-deletes"], "100")
        with open(os.path.join(t.path, "metadata", "version-hint.text")) as f:
            self.assertEqual(f.read(), str(t.version))
        # Enabling later: one commit, then none.
        p = self.make("ice2")
        self.assertFalse(os.path.exists(os.path.join(p.path, "metadata")))
        path = p.enable_iceberg()
        self.assertEqual((path, p.version), ("metadata/v2.metadata.json", 2))
        self.assertEqual(p.enable_iceberg(), path)
        self.assertEqual(lakeindex.Table.open(p.path).version, 2)
        with self.assertRaisesRegex(Exception, "absolute URI"):
            self.make("ice3", iceberg_location="not/absolute")

    def test_aggregate_matches_the_csv(self):
        t = self.make("agg")
        r = t.aggregate("count(*), sum(score), avg(x), max(id), count_distinct(category)", where="id < 5000")
        rows = [row for row in self.rows if int(row["id"]) < 5000]
        self.assertEqual(int(r["count(*)"][0]), len(rows))
        self.assertEqual(int(r["sum(score)"][0]), sum(int(row["score"]) for row in rows))
        self.assertAlmostEqual(float(r["avg(x)"][0]), sum(float(row["x"]) for row in rows) / len(rows), places=9)
        self.assertEqual(int(r["max(id)"][0]), 4999)
        self.assertEqual(int(r["count_distinct(category)"][0]), len({row["category"] for row in rows}))
        g = t.aggregate("count(*)", group_by="category")
        counts = {}
        for row in self.rows:
            counts[row["category"]] = counts.get(row["category"], 0) + 1
        self.assertEqual({str(k): int(v) for k, v in zip(g["category"], g["count(*)"])}, counts)
        with self.assertRaisesRegex(Exception, "unknown aggregate"):
            t.aggregate("median(x)")
        self.assertFalse(r.details["estimated"])
        top = t.aggregate("count(*)", group_by="category", order_by="count(*) desc, category", limit=3)
        expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        self.assertEqual([(str(k), int(v)) for k, v in zip(top["category"], top["count(*)"])], expected)

    def test_pandas_frames_equal_the_numpy_results(self):
        import pandas as pd
        t = self.make("pd")
        where = "id < 3000"
        arrays = t.query(where, order_by="id")
        frame = t.query(where, order_by="id", output="pandas")
        self.assertIsInstance(frame, pd.DataFrame)
        self.assertEqual(list(frame.columns), list(arrays))
        self.assertEqual(len(frame), len(arrays["id"]))
        for name, col in arrays.items():
            mask = np.ma.getmaskarray(col)
            got = frame[name]
            self.assertEqual(list(got.isna()), list(mask), name)  # NULL where, and only where, masked
            want = np.ma.getdata(col)[~mask]
            have = got[~mask].to_numpy()
            if want.dtype.kind == "M":
                have = have.astype(want.dtype)
            self.assertEqual(list(have), list(want), name)
        self.assertTrue(mask_of(arrays["maybe"]).any(), "the data has NULLs to carry")
        self.assertEqual(str(frame["maybe"].dtype), "Int64")
        agg = t.aggregate("count(*), avg(score)", group_by="category", output="pandas")
        self.assertEqual(int(agg["count(*)"].sum()), ROWS)
        self.assertIn("details", agg.attrs)
        with self.assertRaisesRegex(Exception, "output must be"):
            t.query(output="arrow-ish")

    def test_create_and_append_from_numpy_and_pandas(self):
        import pandas as pd
        n = 500
        rng = np.random.default_rng(7)
        masked = np.ma.masked_array(rng.integers(-1000, 1000, n), mask=rng.random(n) < 0.2)
        columns = {
            "k": np.arange(n, dtype=np.int64),
            "i": np.ma.masked_array(rng.integers(-5, 5, n).astype(np.int32), mask=rng.random(n) < 0.1),
            "l": masked,
            "f": rng.random(n).astype(np.float32),
            "d": np.where(rng.random(n) < 0.05, np.nan, rng.normal(size=n)),
            "b": rng.random(n) < 0.5,
            "s": [None if j % 7 == 0 else f"s{j}" for j in range(n)],
            "day": np.arange(n).astype("datetime64[D]"),
            "ts": (np.arange(n) * 1_000_003).astype("datetime64[us]"),
        }
        t = lakeindex.Table.create(self.dir.join("from_numpy"), columns, rows_per_file=200)
        self.assertEqual(t.schema, "k:int64,i:int32,l:int64,f:float,d:double,b:bool,s:string,day:date,ts:timestamp")
        back = t.query(order_by="k")
        self.assertEqual(list(back["s"]), columns["s"])  # strings: None for NULL, not masked
        for name, want in columns.items():
            if name == "s":
                continue
            got = back[name]
            want_mask = np.ma.getmaskarray(want) if isinstance(want, np.ma.MaskedArray) else np.zeros(n, dtype=bool)
            self.assertEqual(list(np.ma.getmaskarray(got)), list(want_mask), name)
            w = np.asarray(np.ma.getdata(want), dtype=object)[~want_mask]
            g = np.asarray(np.ma.getdata(got), dtype=object)[~want_mask]
            if name == "d":  # NaN stays NaN (a value, not NULL)
                self.assertEqual([x != x for x in g], [x != x for x in w])
                w, g = [x for x in w if x == x], [x for x in g if x == x]
            self.assertEqual(list(g), list(w), name)
        # A table's pandas frame creates an equal table, and appends to it.
        frame = self.make("pd_src").query(order_by="id", output="pandas")
        copy = lakeindex.Table.create(self.dir.join("from_pandas"), frame)
        again = copy.query(order_by="id", output="pandas")
        pd.testing.assert_frame_equal(again, frame)
        copy.append(frame.iloc[:100])
        self.assertEqual(copy.count(), ROWS + 100)
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "column 'score' is string"):
            copy.append({**{c: frame[c].iloc[:3] for c in frame.columns}, "score": ["a", "b", "c"]})
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "has 2 values, the first 3"):
            lakeindex.Table.create(self.dir.join("bad_lengths"), {"a": [1, 2, 3], "b": [1, 2]})

    def test_scan_yields_the_query_in_batches_of_its_version(self):
        t = lakeindex.Table.create(self.dir.join("scan"), self.csv, rows_per_file=3000)
        where = "score < 600000"
        whole = t.query(where, select=["id"])["id"]
        batches = t.scan(where, select="id")
        first = next(batches)
        t.append(self.csv)  # a new version while the scan runs: the scan keeps to its own
        ids = list(first["id"]) + [i for b in batches for i in b["id"]]
        self.assertEqual(sorted(ids), sorted(whole))
        self.assertGreater(len(whole), len(first["id"]), "more than one batch")
        self.assertEqual(sum(len(b["id"]) for b in t.scan(limit=7)), 7)
        frames = list(t.scan("id < 10", output="pandas"))
        self.assertEqual(sum(len(f) for f in frames), 20)  # the appended copy too
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "position"):
            next(t.scan("id <"))

    def test_csv_delimiters(self):
        semicolons = self.dir.join("semi.csv")
        with open(semicolons, "w") as f:
            f.write("a;b\n1;x\n2;y\n")
        t = lakeindex.Table.create(self.dir.join("semi"), semicolons)  # detected from the header
        self.assertEqual(t.schema, "a:int64,b:string")
        t.append(semicolons, delimiter=";")
        self.assertEqual(list(t.query(order_by="a")["b"]), ["x", "x", "y", "y"])
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "delimiter must be one character"):
            lakeindex.Table.create(self.dir.join("semi2"), semicolons, delimiter=";;")

    def test_query_order_by(self):
        t = self.make("ord")
        t.create_index("score", "btree")
        scores = sorted((int(r["score"]) for r in self.rows), reverse=True)
        self.assertEqual(list(t.query(order_by="score desc", limit=5, select="score")["score"]), scores[:5])
        low = sorted(int(r["score"]) for r in self.rows if int(r["id"]) < 100)
        self.assertEqual(list(t.query(where="id < 100", order_by="SCORE", select=["score"])["score"]), low)
        with self.assertRaisesRegex(lakeindex.InvalidArgument, "^order_by: at position"):
            t.query(order_by="score sideways")

    def test_aggregate_estimates_from_the_otree_sample(self):
        t = self.make("est")
        t.layout_otree(["x", "y"], cube_rows=1500)
        exact = sum(int(row["score"]) for row in self.rows) / len(self.rows)
        r = t.aggregate("count(*), avg(score)", sample=0.2, confidence=0.999)
        self.assertEqual(list(r), ["count(*)", "count(*) ±", "avg(score)", "avg(score) ±"])
        self.assertTrue(r.details["estimated"])
        self.assertEqual((r.details["fraction"], r.details["rounds"]), (0.2, [0.2]))
        weights = t.query(select=["_lakeindex_weight"])["_lakeindex_weight"]
        self.assertEqual(r.details["rows_aggregated"], int((weights < 0.2).sum()))
        self.assertLessEqual(abs(float(r["avg(score)"][0]) - exact), float(r["avg(score) ±"][0]))
        self.assertLessEqual(abs(float(r["count(*)"][0]) - ROWS), float(r["count(*) ±"][0]))
        aimed = t.aggregate("avg(score)", error=0.02)
        self.assertLessEqual(aimed.details["max_relative_half_width"], 0.02)
        self.assertEqual(aimed.details["rounds"][-1], aimed.details["fraction"])
        with self.assertRaisesRegex(Exception, "needs an OTree layout"):
            self.make("est_plain").aggregate("avg(score)", sample=0.1)

    def test_append_and_otree_layout_with_exact_samples(self):
        t = self.make("l")
        report = t.layout_otree(["x", "y"], cube_rows=1500)
        self.assertEqual(report["rows"], ROWS)
        self.assertGreater(report["depth"], 1)
        t.append(self.csv)
        self.assertEqual(len(t.query(select=["id"])["id"]), 2 * ROWS)
        weights = t.query(select=["id", "_lakeindex_weight"])
        for f in (0.01, 0.2):
            got = t.query(sample=f, select=["_lakeindex_weight"])["_lakeindex_weight"]
            self.assertEqual(len(got), int((weights["_lakeindex_weight"] < f).sum()))
            self.assertTrue((got < f).all())
        box = t.query("x < 50 AND y < 50", select=["id"])["id"]
        self.assertEqual(sorted(box.tolist()), sorted(2 * self.expected_ids(
            lambda r: float(r["x"]) < 50 and float(r["y"]) < 50)))

    def test_layout_over_a_memory_limit_works_in_parts_with_the_same_rows_and_weights(self):
        whole, parted = self.make("mem_whole"), self.make("mem_parts")
        a = whole.layout_otree(["x", "y"], cube_rows=500)
        b = parted.layout_otree(["x", "y"], cube_rows=500, memory_limit=64 * 1024)
        # The same tree, files and blocks as in one piece (the parts' rows spilled per file).
        self.assertEqual(a, b)
        key = lambda t: sorted(zip(t.query(select=["id"])["id"].tolist(),
                                   t.query(select=["_lakeindex_weight"])["_lakeindex_weight"].tolist()))
        self.assertEqual(key(whole), key(parted))
        box = "x < 200 AND y BETWEEN 100 AND 400"
        self.assertEqual(sorted(whole.query(box, select=["id"])["id"].tolist()),
                         sorted(parted.query(box, select=["id"])["id"].tolist()))
        for bad in (0, -1, 1.5, True):
            with self.assertRaisesRegex(ValueError, "memory_limit"):
                parted.layout_otree(["x"], memory_limit=bad)

    def test_optimize_rolls_small_files_up_with_the_same_rows(self):
        # A plain table and an OTree one, each with appends (small files) and deletes; on the
        # OTree one the rewritten rows are spilled (a tiny memory_limit).
        for name, otree in (("opt_plain", False), ("opt_otree", True)):
            t = self.make(name)
            if otree:
                t.layout_otree(["x", "y"], cube_rows=500)
            t.append(self.csv, rows_per_file=300)
            t.delete("id BETWEEN 100 AND 3000 OR id > 19000")
            t.create_index("score")
            before = sorted(t.query(select=["id"])["id"].tolist())
            in_range = t.count("score BETWEEN 100 AND 5000")  # through the btree
            version = t.version
            rewritten = t.optimize(rows_per_file=ROWS, memory_limit=64 * 1024 if otree else None)
            self.assertGreater(rewritten, 1, name)
            self.assertEqual(t.version, version + 1, name)
            self.assertEqual(sorted(t.query(select=["id"])["id"].tolist()), before, name)
            self.assertEqual(t.count("score BETWEEN 100 AND 5000"), in_range, name)
            self.assertTrue(all(f["deleted"] == [] for f in t.files()), name)
            self.assertEqual(t.optimize(rows_per_file=ROWS), 0, name)
            self.assertEqual(t.version, version + 1, name)
            with self.assertRaisesRegex(ValueError, "memory_limit"):
                t.optimize(memory_limit=0)

    def test_errors_are_exceptions_with_the_cli_messages(self):
        t = self.make("e")
        with self.assertRaises(lakeindex.InvalidArgument) as ctx:
            t.query("nope = 1")
        cli = subprocess.run([util.cli(), "query", t.path, "--where", "nope = 1"], capture_output=True, text=True)
        self.assertNotEqual(cli.returncode, 0)
        self.assertIn(str(ctx.exception), cli.stderr)
        self.assertIsInstance(ctx.exception, ValueError)
        with self.assertRaises(lakeindex.NotFound):
            lakeindex.Table.open(self.dir.join("missing"))
        with self.assertRaises(lakeindex.InvalidArgument):
            self.make("e")  # exists
        with self.assertRaises(lakeindex.InvalidArgument):
            t.create_index("nope")
        with self.assertRaisesRegex(ValueError, "cube_rows must be >= 1, got 0"):  # checked in Python
            t.layout_otree(["x"], cube_rows=0)

    def test_create_makes_no_missing_parent_and_a_failed_create_leaves_no_directory(self):
        # As `lakeindex create` (and mkdir, DuckDB): the table's directory, not a path of them.
        missing = self.dir.join("no/such")
        with self.assertRaises(lakeindex.NotFound) as caught:
            lakeindex.Table.create(os.path.join(missing, "t"), self.csv)
        self.assertIn("its parent directory '%s' does not exist" % missing, str(caught.exception))
        with self.assertRaises(lakeindex.NotFound):  # rows in memory too
            lakeindex.Table.create(os.path.join(missing, "t"), {"a": np.arange(3, dtype=np.int64)})
        self.assertFalse(os.path.exists(self.dir.join("no")))
        bad = self.dir.join("bad.csv")
        with open(bad, "w") as f:
            f.write("id,name\n1,a\nthree,b\n")
        with self.assertRaises(lakeindex.InvalidArgument):
            lakeindex.Table.create(self.dir.join("failed"), bad, schema="id:int64,name:string")
        self.assertFalse(os.path.exists(self.dir.join("failed")))
        os.mkdir(self.dir.join("there"))
        with self.assertRaises(lakeindex.InvalidArgument):
            lakeindex.Table.create(self.dir.join("there"), bad, schema="id:int64,name:string")
        self.assertTrue(os.path.isdir(self.dir.join("there")))

    def test_threads_query_concurrently(self):
        t = self.make("c")
        want = sorted(t.query("x < 300", select=["id"])["id"].tolist())
        results = []

        def run():
            results.append(sorted(lakeindex.Table.open(t.path).query("x < 300", select=["id"])["id"].tolist()))

        threads = [threading.Thread(target=run) for _ in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.assertEqual(results, [want] * 4)


if __name__ == "__main__":
    unittest.main()
