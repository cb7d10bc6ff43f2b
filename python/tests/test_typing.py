"""mypy over the package (strict) and over a user's script of the public API (typing_check.py),
as pyproject.toml's [tool.mypy] says; and the package ships its type information."""

import os
import subprocess
import sys
import unittest

import lakeindex
import util


class TypingTest(unittest.TestCase):
    def test_mypy_passes(self):
        got = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--config-file",
                              os.path.join(util.ROOT, "pyproject.toml")],
                             cwd=util.ROOT, capture_output=True, text=True, timeout=240)
        self.assertEqual(got.returncode, 0, got.stdout + got.stderr)
        self.assertIn("Success: no issues found", got.stdout)

    def test_mypy_finds_a_wrong_use(self):
        """The check can fail: a script that misuses the API is refused, naming the line."""
        script = "import lakeindex\nn: str = lakeindex.Table.open('x').count()\n"
        work = util.Workdir()
        self.addCleanup(work.close)
        got = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--strict", "-c", script],
                             cwd=work.path, capture_output=True, text=True, timeout=240,
                             env=dict(os.environ, MYPYPATH=os.path.join(util.ROOT, "python")))
        self.assertNotEqual(got.returncode, 0, got.stdout)
        self.assertIn('Incompatible types in assignment (expression has type "int", variable has type "str")',
                      got.stdout)

    def test_the_package_says_it_is_typed_and_has_a_version(self):
        package = os.path.dirname(lakeindex.__file__)
        self.assertTrue(os.path.exists(os.path.join(package, "py.typed")))
        self.assertRegex(lakeindex.__version__, r"^\d+\.\d+\.\d+$")


if __name__ == "__main__":
    unittest.main()
