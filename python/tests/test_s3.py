"""The Python module and the Dask functions on s3:// (moto, started here with the interpreter
that has it, $LAKEINDEX_MOTO_PYTHON): the same answers as on a local directory."""

import json
import os
import subprocess
import unittest

import lakeindex
import lakeindex.dask as ld
import util

BUCKET = "lakeindex-py"
FILTERS = ["id = 1234", "id BETWEEN 100 AND 2500", "x < 40 AND y > 900", "score < 10000 OR category = 'cat_001'"]
moto = cluster = client = None


def setUpModule():
    global moto, cluster, client
    python = os.environ.get("LAKEINDEX_MOTO_PYTHON")
    if not python:
        raise RuntimeError("LAKEINDEX_MOTO_PYTHON is not set: no python3 with moto and boto3 was found "
                           "when the build was configured (scripts/install-deps.sh warns about it)")
    moto = subprocess.Popen([python, os.path.join(util.ROOT, "tests", "s3", "moto_server.py"), "--bucket", BUCKET],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    info = json.loads(moto.stdout.readline())
    os.environ.update({"AWS_ENDPOINT_URL": info["endpoint"], "AWS_ACCESS_KEY_ID": info["access_key"],
                       "AWS_SECRET_ACCESS_KEY": info["secret_key"], "AWS_REGION": "us-east-1"})
    # Workers start after the AWS_* variables are set, so they reach the same server.
    cluster, client = util.start_cluster()


def tearDownModule():
    client.close()
    cluster.close()
    moto.stdin.close()
    moto.wait(timeout=30)


class S3Test(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = util.Workdir()
        cls.csv = util.gen_events(cls.dir.join("events.csv"), 20000)

    @classmethod
    def tearDownClass(cls):
        cls.dir.close()

    def pair(self, name):
        local = lakeindex.Table.create(self.dir.join(name), self.csv, rows_per_file=4000)
        remote = lakeindex.Table.create(f"s3://{BUCKET}/{name}", self.csv, rows_per_file=4000)
        self.assertEqual(remote.path, f"s3://{BUCKET}/{name}")
        return local, remote

    def assert_same(self, a, b, samples=()):
        a, b = lakeindex.Table.open(a.path), lakeindex.Table.open(b.path)
        self.assertEqual(a.version, b.version)
        for where in FILTERS:
            self.assertEqual(util.sorted_rows(a.query(where)), util.sorted_rows(b.query(where)), where)
        for f in samples:
            self.assertEqual(util.sorted_rows(a.query(sample=f, select=["id"])),
                             util.sorted_rows(b.query(sample=f, select=["id"])), f"sample {f}")

    def test_table_operations_match_a_local_table(self):
        local, remote = self.pair("ops")
        for t in (local, remote):
            t.delete("x > 990")
            t.create_index("id", kind="btree")
            t.create_index("score", kind="zonemap")
            t.append(self.csv, rows_per_file=8000)
            t.layout_otree(["x", "y"], cube_rows=2000)
        self.assert_same(local, remote, samples=(0.05,))
        self.assertEqual(lakeindex.Table.open(remote.path, version=2).query("id < 10")["id"].tolist(),
                         lakeindex.Table.open(local.path, version=2).query("id < 10")["id"].tolist())

    def test_dask_builds_on_s3_match_single_process(self):
        local, remote = self.pair("dask")
        local.create_index("id", kind="btree")
        ld.build_index(remote.path, "id", "btree", client, groups=3)
        self.assert_same(local, remote)
        want = local.layout_otree(["x", "y"], cube_rows=1000)
        got = ld.layout_otree(remote.path, ["x", "y"], cube_rows=1000, client=client, parts=3)
        self.assertEqual((got["rows"], got["cubes"]), (want["rows"], want["cubes"]))
        self.assert_same(local, remote, samples=(0.01, 0.3))

    def test_errors_name_the_location(self):
        with self.assertRaisesRegex(Exception, f"no lakeindex table at 's3://{BUCKET}/absent'"):
            lakeindex.Table.open(f"s3://{BUCKET}/absent")
        with self.assertRaisesRegex(Exception, "unsupported scheme 'gs://'"):
            lakeindex.Table.open("gs://bucket/t")


if __name__ == "__main__":
    unittest.main()
