"""The Python examples of README.md and docs/python.md run as written (the docs cannot drift).

Every ```python block of a file runs, in order, as one program in a scratch directory holding
`events.parquet` (20,000 events rows from `lakeindex gen`); a block whose info string has the
word `norun` is skipped, as in the shell docs test (src/cli/cli_docs_test.cc). The README's
example is saved as a script and run as one (it guards its work with `__main__`, as Dask needs);
docs/python.md's blocks run with `python3 -c`.
"""

import os
import re
import subprocess
import sys
import unittest

from util import ROOT, Workdir, cli, ensure_path

FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.M | re.S)


def python_blocks(path):
    """The runnable ```python blocks of a Markdown file, with the line each starts on."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = []
    for m in FENCE.finditer(text):
        words = m.group(1).split()
        if words and words[0] == "python" and "norun" not in words:
            out.append((text.count("\n", 0, m.start()) + 2, m.group(2)))
    return out


def run_blocks(test, name, as_script=False, env=None):
    """Runs the python blocks of `name` (a path under the checkout) as one program in a scratch
    directory holding events.parquet; `test` fails naming the blocks when it does not exit 0.
    `env`: variables added to the program's environment."""
    blocks = python_blocks(os.path.join(ROOT, name))
    test.assertTrue(blocks, f"{name} has no python block")
    work = Workdir()
    try:
        subprocess.run([cli(), "gen", "--rows", "20000", "--output", work.join("events.parquet")],
                       check=True, capture_output=True)
        program = "\n".join(code for _, code in blocks)
        if as_script:  # saved as a file and run, as a user who copies it does
            with open(work.join("example.py"), "w", encoding="utf-8") as f:
                f.write(program)
            command = [sys.executable, "example.py"]
        else:
            command = [sys.executable, "-c", program]
        got = subprocess.run(command, cwd=work.path, capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, **(env or {})))
        starts = ", ".join(f"{name}:{line}" for line, _ in blocks)
        test.assertEqual(got.returncode, 0,
                         f"the python blocks at {starts} failed:\n{got.stdout[-2000:]}\n{got.stderr[-4000:]}")
    finally:
        work.close()


class DocsPythonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ensure_path()

    def run_file(self, name, as_script=False):
        run_blocks(self, name, as_script)

    def test_readme(self):
        # The README's example makes its own data and runs as a script (Dask's workers import it).
        self.run_file("README.md", as_script=True)

    def test_python_guide(self):
        self.run_file(os.path.join("docs", "python.md"))


if __name__ == "__main__":
    unittest.main()
