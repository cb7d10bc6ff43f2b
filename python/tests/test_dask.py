"""lakeindex.dask on a LocalCluster of 2 worker processes: the distributed index and OTree builds
give exactly the single-process results; a killed or failing worker either is retried (and the
result is still exact) or fails the job, which then commits nothing."""

import os
import shutil
import unittest

import distributed
import numpy

import _lakeindex as _native
import lakeindex
import lakeindex.dask as ld
import util
from lakeindex import _layout_options

ROWS = 30000
FILTERS = ["id = 12345", "id BETWEEN 100 AND 2500", "id IN (1, 7, 29999, 50000)", "x < 40 AND y > 900",
           "x BETWEEN 200 AND 260", "score < 10000 OR category = 'cat_001'", "maybe IS NULL AND x < 100"]
cluster = client = None


def setUpModule():
    global cluster, client
    cluster, client = util.start_cluster()


def tearDownModule():
    client.close()
    cluster.close()


class DaskTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = util.Workdir()
        cls.csv = util.gen_events(cls.dir.join("events.csv"), ROWS)
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def make(self):
        DaskTest.n += 1
        t = lakeindex.Table.create(self.dir.join(f"t{self.n}"), self.csv, rows_per_file=4000)
        t.delete("x > 990")  # some deleted rows
        return lakeindex.Table.open(t.path)

    def assert_same_results(self, a, b, samples=()):
        a, b = lakeindex.Table.open(a.path), lakeindex.Table.open(b.path)
        for where in FILTERS:
            self.assertEqual(util.sorted_rows(a.query(where)), util.sorted_rows(b.query(where)), where)
        for f in samples:
            self.assertEqual(util.sorted_rows(a.query(sample=f, select=["id", "_lakeindex_weight"])),
                             util.sorted_rows(b.query(sample=f, select=["id", "_lakeindex_weight"])), f"sample {f}")

    def assert_every_file_checksummed(self, table):
        """The workers' files carry the checksums they were written with, as a single process's do:
        verify reads each against it and lists none without one."""
        lines = table.verify()
        self.assertFalse([line for line in lines if "no checksum" in line], lines)
        self.assertTrue(any(line.startswith("_indices/") or line.startswith("data/") for line in lines), lines)

    def test_index_build_matches_single_process(self):
        for kind in ("btree", "zonemap", "bitmap"):
            single, dist = self.make(), self.make()
            single.create_index("id", kind=kind)
            version = ld.build_index(dist.path, "id", kind, client, groups=3)
            dist = lakeindex.Table.open(dist.path)
            self.assertEqual(version, dist.version)
            [index] = dist.stats()["indexes"]
            self.assertEqual(index["name"], "id_" + kind)
            self.assertEqual(len(index["segments"]), 3)
            covered = sorted(f for s in index["segments"] for f in s["fragments"])
            self.assertEqual(len(covered), dist.stats()["fragments"])
            self.assertTrue(any("id_" + kind in line for line in dist.explain("id = 5")["plan"]))
            self.assert_same_results(single, dist)
            self.assert_every_file_checksummed(dist)

    def test_layout_matches_single_process(self):
        single, dist = self.make(), self.make()
        want = single.layout_otree(["x", "y"], cube_rows=1000)
        got = ld.layout_otree(dist.path, ["x", "y"], cube_rows=1000, client=client, parts=3)
        self.assertEqual((got["rows"], got["cubes"], got["depth"]), (want["rows"], want["cubes"], want["depth"]))
        single, dist = lakeindex.Table.open(single.path), lakeindex.Table.open(dist.path)
        # Same transformations, cubes, max weights and rows per cube; same weight for every row.
        self.assertEqual(single.stats()["layout"]["revisions"], dist.stats()["layout"]["revisions"])
        self.assertEqual(util.sorted_rows(single.query(select=["id", "_lakeindex_weight"])),
                         util.sorted_rows(dist.query(select=["id", "_lakeindex_weight"])))
        self.assert_same_results(single, dist, samples=(0.01, 0.3))
        self.assert_every_file_checksummed(dist)

    def test_a_memory_limit_cuts_the_layout_into_more_parts(self):
        one, limited = self.make(), self.make()
        a = ld.layout_otree(one.path, ["x", "y"], cube_rows=1000, client=client, parts=1)
        # A limit a fraction of the table's estimate: more parts (a cube then has a block per
        # part), the same tree.
        b = ld.layout_otree(limited.path, ["x", "y"], cube_rows=1000, client=client, parts=1,
                            memory_limit=200 * 1024)
        self.assertEqual((a["rows"], a["cubes"], a["depth"]), (b["rows"], b["cubes"], b["depth"]))
        self.assertGreater(b["blocks"], a["blocks"])
        self.assertEqual(lakeindex.Table.open(one.path).stats()["layout"]["revisions"],
                         lakeindex.Table.open(limited.path).stats()["layout"]["revisions"])
        with self.assertRaisesRegex(ValueError, "memory_limit"):
            ld.layout_otree(limited.path, ["x"], client=client, memory_limit=0)

    def test_parts_sample_and_place_from_the_columns_they_read_once(self):
        # A part reads its layout columns once (layout_read); its sample and points come from those
        # bytes, not the table: the same answers with the table's data files gone.
        t = self.make()
        options = _layout_options(["x", "category"], 1000, 8, 64, "default", 1000000, 42)
        parts = _native.layout_partitions(t.path, t.version, 3)
        reads = [_native.layout_read(t.path, t.version, options, p) for p in parts]
        samples = [_native.layout_sample(t.path, t.version, options, p) for p in parts]
        revision = _native.layout_fit(t.path, t.version, options, samples)
        points = [_native.layout_points(t.path, t.version, options, p, revision) for p in parts]
        bare = self.dir.join(f"bare{self.n}")
        shutil.copytree(t.path, bare)
        for name in os.listdir(os.path.join(bare, "data")):
            os.remove(os.path.join(bare, "data", name))
        for p, read, sample, (coords, weights) in zip(parts, reads, samples, points):
            self.assertEqual(_native.layout_sample(bare, t.version, options, p, read), sample)
            got_coords, got_weights = _native.layout_points(bare, t.version, options, p, revision, read)
            self.assertTrue(all(numpy.array_equal(a, b) for a, b in zip(got_coords, coords)))
            self.assertTrue(numpy.array_equal(got_weights, weights))
        with self.assertRaisesRegex(Exception, "not this part|rows read"):
            _native.layout_sample(t.path, t.version, options, parts[0], reads[1])
        with self.assertRaises(Exception):  # a data file the part would read is gone
            _native.layout_sample(bare, t.version, options, parts[0])

    def test_killed_worker_is_retried_and_the_layout_is_still_exact(self):
        single, dist = self.make(), self.make()
        single.layout_otree(["x", "z"], cube_rows=2000)
        inject = {"step": "write", "part": 1, "kill": True, "once": self.dir.join("killed-once")}
        ld.layout_otree(dist.path, ["x", "z"], cube_rows=2000, client=client, _inject=inject)
        self.assertTrue(os.path.exists(inject["once"]))  # the worker was killed once
        self.assertEqual(lakeindex.Table.open(single.path).stats()["layout"]["revisions"],
                         lakeindex.Table.open(dist.path).stats()["layout"]["revisions"])
        self.assert_same_results(single, dist, samples=(0.1,))

    def test_killed_worker_mid_job_leaves_the_old_version(self):
        t = self.make()
        before_version, before = t.version, util.sorted_rows(t.query("x < 100"))
        jobs = {"write": lambda inject: ld.layout_otree(t.path, ["x", "y"], cube_rows=2000, client=client,
                                                       _inject=inject),
                "segment": lambda inject: ld.build_index(t.path, "id", "btree", client, _inject=inject)}
        for step, build in jobs.items():
            with self.assertRaises(distributed.KilledWorker):
                build({"step": step, "part": 0, "kill": True})  # killed on every attempt
            after = lakeindex.Table.open(t.path)
            self.assertEqual(after.version, before_version)
            self.assertEqual(util.sorted_rows(after.query("x < 100")), before)
            self.assertIsNone(after.stats()["layout"])
            self.assertEqual(after.stats()["indexes"], [])

    def test_failed_task_without_retries_commits_nothing_and_with_retries_succeeds(self):
        t = self.make()
        with self.assertRaisesRegex(RuntimeError, "injected failure at segment"):
            ld.build_index(t.path, "id", "btree", client, retries=0, _inject={"step": "segment", "part": 0})
        with self.assertRaisesRegex(RuntimeError, "injected failure at level"):
            ld.layout_otree(t.path, ["x"], cube_rows=3000, client=client, retries=0,
                            _inject={"step": "level", "part": 0})
        self.assertEqual(lakeindex.Table.open(t.path).version, t.version)
        once = {"step": "segment", "part": 0, "once": self.dir.join("failed-once")}
        ld.build_index(t.path, "id", "btree", client, retries=1, _inject=once)
        self.assertEqual(lakeindex.Table.open(t.path).version, t.version + 1)

    def test_bad_arguments_fail_before_any_task(self):
        t = self.make()
        with self.assertRaises(lakeindex.InvalidArgument):
            ld.build_index(t.path, "nope", "btree", client)
        with self.assertRaises(lakeindex.InvalidArgument):
            ld.layout_otree(t.path, ["nope"], client=client)


if __name__ == "__main__":
    unittest.main()
