"""Builds the native module `_lakeindex` with the project's CMake build for `pip install`.

The module is the CMake target `lakeindex_python` (src/python). Its build tree is
$LAKEINDEX_BUILD_DIR, else `build/` of this checkout, the one `make build` uses: a checkout that
was built only links, a fresh one is configured (Release, no tests) and built. setuptools' own
scratch files go under that build tree too, so the source tree stays clean.
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.abspath(os.environ.get("LAKEINDEX_BUILD_DIR", os.path.join(ROOT, "build")))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", ROOT, "-B", BUILD, *generator, "-DCMAKE_BUILD_TYPE=Release",
                            "-DLAKEINDEX_TESTS=OFF", "-DLAKEINDEX_BENCH=OFF", f"-DPython_EXECUTABLE={sys.executable}"],
                           check=True)
        subprocess.run(["cmake", "--build", BUILD, "--target", "lakeindex_python", "-j", str(os.cpu_count() or 1)],
                       check=True)
        built = glob.glob(os.path.join(BUILD, "python", "_lakeindex*.so"))
        if len(built) != 1:
            sys.exit(f"setup.py: expected one _lakeindex*.so in {BUILD}/python, found {built or 'none'} "
                     "(is pybind11-dev installed? scripts/install-deps.sh installs it)")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


scratch = os.path.join(BUILD, "setuptools")
os.makedirs(scratch, exist_ok=True)
setup(ext_modules=[Extension("_lakeindex", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": scratch}, "egg_info": {"egg_base": scratch}})
