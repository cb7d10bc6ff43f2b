"""Table.verify(repair=True) and the layouts' growth warning: the Python side of
`lakeindex verify --repair` and of `lakeindex layout`'s note (issue 51, items 9 and 11)."""

import glob
import os
import tempfile
import unittest
import warnings

import numpy as np

import lakeindex


class VerifyRepairTest(unittest.TestCase):
    def test_a_lost_manifest_list_is_named_then_written_again_and_pyiceberg_reads_the_snapshot(self):
        from pyiceberg.table import StaticTable
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t")
            t = lakeindex.Table.create(path, {"id": np.arange(1000), "v": np.arange(1000) * 0.5}, iceberg=True)
            lost = glob.glob(os.path.join(path, "metadata", "snap-1-*.avro"))
            self.assertEqual(len(lost), 1)
            with open(lost[0], "rb") as f:
                original = f.read()
            os.remove(lost[0])
            name = "metadata/" + os.path.basename(lost[0])
            with self.assertRaises(lakeindex.Corruption) as caught:
                t.verify()
            self.assertIn(name + " is missing", str(caught.exception))
            lines = t.verify(repair=True)
            self.assertEqual(lines[0], "repair: wrote " + name + " (manifest list of snapshot 1) again")
            with open(lost[0], "rb") as f:
                self.assertEqual(f.read(), original)
            rows = StaticTable.from_metadata(os.path.join(path, "metadata", "v1.metadata.json")).scan().to_arrow()
            self.assertEqual(sorted(rows["id"].to_pylist()), list(range(1000)))
            self.assertEqual(t.verify(repair=True)[0], t.verify()[0])  # nothing left to write
            with self.assertRaises(TypeError):
                t.verify(repair="yes")


class LayoutGrowthTest(unittest.TestCase):
    def test_a_layout_that_grows_the_files_warns_and_reports_the_bytes(self):
        n = 30000
        rng = np.random.default_rng(3)
        data = {"id": np.arange(n), "at": np.datetime64("2013-01-01", "us") + np.arange(n) * np.timedelta64(60, "s"),
                "v": rng.random(n), "w": rng.random(n)}
        with tempfile.TemporaryDirectory() as d:
            t = lakeindex.Table.create(os.path.join(d, "t"), data)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                report = t.layout_otree(["v", "w"], cube_rows=3000)
            self.assertGreaterEqual(report["bytes_after"], 1.25 * report["bytes_before"])
            grew = [w for w in caught if "the data files grew from" in str(w.message)]
            self.assertEqual(len(grew), 1, [str(w.message) for w in caught])
            self.assertIs(grew[0].category, UserWarning)
            self.assertIn("compress worse", str(grew[0].message))
            self.assertEqual(grew[0].filename, __file__)  # pointed at the caller's line
            with warnings.catch_warnings(record=True) as again:
                warnings.simplefilter("always")
                t.layout_otree(["v", "w"], cube_rows=3000)
            self.assertEqual([str(w.message) for w in again if "grew" in str(w.message)], [])


if __name__ == "__main__":
    unittest.main()
