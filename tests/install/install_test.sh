#!/usr/bin/env bash
# `make install` and `pip install` as users run them, checked by using what they installed:
#   1. make install PREFIX=/opt/lakeindex DESTDIR=<tmp> puts the CLI, liblakeindex.so, the headers,
#      the CMake package and lakeindex.pc under <tmp>/opt/lakeindex (and nothing outside <tmp>);
#   2. a C++ program (consumer/) built against it with find_package(lakeindex), and again with
#      pkg-config, creates a table from a CSV file, indexes it and queries it: the rows and sum it
#      prints must be those awk computes from the same file;
#   3. `pip wheel` builds the Python package in pip's build isolation (scikit-build-core, pybind11
#      from PyPI) and the wheel installs, binaries only, into a fresh venv with numpy 1.26;
#      `pip install <checkout>` installs it into a fresh venv with numpy 2; in each, from elsewhere,
#      every type's round trip (python/tests/test_roundtrip.py) passes against the installed
#      module, and in the numpy 2 one (which has Dask) the README's Python example runs.
# Usage: install_test.sh SOURCE_DIR BUILD_DIR PYTHON
set -euo pipefail
readonly src="$1" build="$2" python="$3"
readonly work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() { echo "install_test: FAILED: $*" >&2; exit 1; }
step() { echo "install_test: $*" >&2; }

step "make install PREFIX=/opt/lakeindex DESTDIR=${work}/dest"
make -s -C "${src}" install BUILD="${build}" PREFIX=/opt/lakeindex DESTDIR="${work}/dest" >"${work}/install.log" 2>&1 ||
  { tail -20 "${work}/install.log" >&2; fail "make install"; }
readonly prefix="${work}/dest/opt/lakeindex"
[[ -z "$(find "${work}/dest" -mindepth 1 -maxdepth 1 ! -name opt)" ]] || fail "make install wrote outside DESTDIR/PREFIX"
for f in bin/lakeindex include/lakeindex/status.h include/lakeindex/ops/operations.h include/lakeindex/table/table.h; do
  [[ -e "${prefix}/${f}" ]] || fail "make install did not install ${f}"
done
libdir="$(dirname "$(find "${prefix}" -name 'liblakeindex.so' | head -1)")"
[[ -n "${libdir}" && -e "${libdir}/cmake/lakeindex/lakeindexConfig.cmake" && -e "${libdir}/pkgconfig/lakeindex.pc" ]] ||
  fail "no liblakeindex.so beside cmake/lakeindex/ and pkgconfig/lakeindex.pc"
if find "${prefix}/include" -name '*_test*' | grep -q .; then fail "test headers installed"; fi
"${prefix}/bin/lakeindex" --help >/dev/null || fail "the installed CLI does not run"

# Data: ids 0..4999, value = (id * 7919) % 1009 - 500, in a shuffled order.
csv="${work}/rows.csv"
{ echo "id,value,name"; for ((i = 0; i < 5000; i++)); do echo "$(((i * 2654435761) % 5000)),$((((i * 2654435761) % 5000 * 7919) % 1009 - 500)),n$i"; done; } >"${csv}"
where="id >= 1234 AND id < 1290"
expected="$(awk -F, 'NR > 1 && $1 >= 1234 && $1 < 1290 { n++; s += $2 } END { printf "rows %d sum %d\n", n, s }' "${csv}")"
[[ "${expected}" == "rows 56 sum "* ]] || fail "the data set is not what the test means (${expected})"

step "a program built with find_package(lakeindex)"
cmake -S "${src}/tests/install/consumer" -B "${work}/c-cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="${prefix}" >"${work}/c-cmake.log" 2>&1 || { cat "${work}/c-cmake.log" >&2; fail "configure"; }
cmake --build "${work}/c-cmake" >>"${work}/c-cmake.log" 2>&1 || { tail -40 "${work}/c-cmake.log" >&2; fail "build"; }
got="$("${work}/c-cmake/consumer" "${work}/t1" "${csv}" "${where}")"
[[ "${got}" == "${expected}" ]] || fail "find_package consumer printed '${got}', expected '${expected}'"

step "a program built with pkg-config"
export PKG_CONFIG_PATH="${libdir}/pkgconfig"
# shellcheck disable=SC2046
g++ -O1 -o "${work}/c-pkg" "${src}/tests/install/consumer/main.cc" $(pkg-config --cflags --libs lakeindex) \
  -Wl,-rpath,"${libdir}" || fail "g++ with pkg-config --cflags --libs lakeindex"
got="$("${work}/c-pkg" "${work}/t2" "${csv}" "${where}")"
[[ "${got}" == "${expected}" ]] || fail "pkg-config consumer printed '${got}', expected '${expected}'"

# The Python package as a user gets it: pip's normal build isolation (scikit-build-core and
# pybind11 from PyPI, pinned in pyproject.toml) builds the module; the build tree is kept under
# BUILD_DIR so that a second run compiles only what changed.
readonly wheel_build="${build}/pip-build"
pip_quiet() { PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"; }
fresh_venv() {  # DIR
  "${python}" -m venv "$1" || fail "python3 -m venv $1 (python3-venv)"
  pip_quiet "$1/bin/pip" install -q "pip==26.3" || fail "pip into $1"
}
step "pip wheel (build isolation), then the wheel in a fresh numpy 1.26 venv with no compiler"
fresh_venv "${work}/builder"
pip_quiet "${work}/builder/bin/pip" wheel -q --no-deps -w "${work}/wheels" -C build-dir="${wheel_build}" "${src}" \
  >"${work}/wheel.log" 2>&1 || { tail -40 "${work}/wheel.log" >&2; fail "pip wheel"; }
wheel="$(ls "${work}/wheels"/lakeindex-*.whl)"
"${python}" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "${wheel}" >"${work}/wheel.names"
for f in lakeindex/__init__.py lakeindex/py.typed _lakeindex.pyi; do
  grep -qx "${f}" "${work}/wheel.names" || fail "the wheel has no ${f}"
done
grep -q "^_lakeindex\.cpython-.*\.so$" "${work}/wheel.names" || fail "the wheel has no native module"
fresh_venv "${work}/np1"
# --only-binary: nothing is compiled (and CC / CXX would fail if anything tried).
PATH="${work}/np1/bin:/usr/bin:/bin" CC=false CXX=false pip_quiet "${work}/np1/bin/pip" install -q --only-binary=:all: \
  "${wheel}" -r "${src}/python/requirements/numpy1.txt" >"${work}/np1.log" 2>&1 ||
  { tail -30 "${work}/np1.log" >&2; fail "installing the wheel with numpy 1.26"; }

step "pip install <checkout> (build isolation) into a fresh numpy 2 venv"
fresh_venv "${work}/np2"
# The project's pins, but the engines and test tools this test does not use (Spark is 300 MB).
grep -vE '^(pyspark|py4j|pyiceberg|moto|cfn-lint|mypy|duckdb-ext|duckdb-ext-iceberg|duckdb-ext-avro)==' \
  "${src}/python/requirements/main.txt" >"${work}/np2-requirements.txt"
pip_quiet "${work}/np2/bin/pip" install -q -C build-dir="${wheel_build}" "${src}" -r "${work}/np2-requirements.txt" \
  >"${work}/np2.log" 2>&1 || { tail -40 "${work}/np2.log" >&2; fail "pip install ${src}"; }

mkdir "${work}/elsewhere"
cd "${work}/elsewhere"
"${python}" - "${src}/README.md" >example.py <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
print("\n".join(m.group(1) for m in re.finditer(r"^```python\n(.*?)^```", text, re.M | re.S)))
PY
[[ -s example.py ]] || fail "no python example in README.md"
for venv in np2 np1; do
  major=2; [[ "${venv}" == np1 ]] && major=1
  v="${work}/${venv}"
  where_from="$(PYTHONPATH= "${v}/bin/python" -c 'import lakeindex, _lakeindex; print(lakeindex.__file__, _lakeindex.__file__)')"
  [[ "${where_from}" == "${v}/"*" ${v}/"* ]] || fail "lakeindex imported from outside the venv: ${where_from}"
  if [[ "${venv}" == np2 ]]; then  # the example uses Dask, which the numpy 1.26 venv has not
    step "${venv}: the README's Python example"
    PYTHONPATH= LAKEINDEX_CLI="${prefix}/bin/lakeindex" timeout 300 "${v}/bin/python" example.py >"example-${venv}.out" 2>&1 ||
      { tail -30 "example-${venv}.out" >&2; fail "the README's example with the installed module (${venv})"; }
    grep -q "count(\*) ±" "example-${venv}.out" || { cat "example-${venv}.out" >&2; fail "the README's example printed no estimate"; }
  fi
  step "${venv}: every type's round trip (python/tests/test_roundtrip.py) with the installed module"
  (cd "${src}/python/tests" && PYTHONPATH= LAKEINDEX_EXPECT_NUMPY_MAJOR="${major}" LAKEINDEX_CLI="${prefix}/bin/lakeindex" \
     timeout 300 "${v}/bin/python" -c '
import sys, unittest, lakeindex
assert lakeindex.__file__.startswith(sys.argv[1]), lakeindex.__file__
sys.argv[1:] = []
unittest.main(module="test_roundtrip", verbosity=1)' "${v}/") >"roundtrip-${venv}.out" 2>&1 ||
    { tail -40 "roundtrip-${venv}.out" >&2; fail "the round trip with the installed module (${venv})"; }
done
step "ok"
