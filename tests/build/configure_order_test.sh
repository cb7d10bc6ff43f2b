#!/usr/bin/env bash
# The README's two commands in their order on a fresh machine: `make demo` configures the build
# before the venv exists, then `make test` makes the venv and configures again. The second
# configure must find pybind11 in the venv and build the Python module (and so register its
# suites), whatever the first one cached. Two configures of a scratch build (no compile): the
# first with LAKEINDEX_VENV naming a venv that does not exist, the second with the real one.
# Usage: configure_order_test.sh SOURCE_DIR VENV
set -euo pipefail
readonly src="$1" venv="$2"
readonly work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() { echo "configure_order_test: FAILED: $*" >&2; exit 1; }
readonly flags=(-S "${src}" -B "${work}/build" -G Ninja -DCMAKE_BUILD_TYPE=Release
                -DLAKEINDEX_TESTS=ON -DLAKEINDEX_BENCH=OFF)

cmake "${flags[@]}" -DLAKEINDEX_VENV="${work}/no-venv" >"${work}/first.log" 2>&1 ||
  { tail -20 "${work}/first.log" >&2; fail "the first configure (no venv)"; }
if grep -q 'python\.test_' "${work}/build/CTestTestfile.cmake"; then
  fail "the first configure had no venv, yet registered the Python suites"
fi
cmake "${flags[@]}" -DLAKEINDEX_VENV="${venv}" >"${work}/second.log" 2>&1 ||
  { tail -20 "${work}/second.log" >&2; fail "the second configure (with ${venv})"; }
grep -q 'python/_lakeindex' "${work}/build/build.ninja" ||
  fail "configured again with ${venv}, the Python module is still left out (pybind11_DIR: $(grep '^pybind11_DIR' "${work}/build/CMakeCache.txt"))"
for t in python.test_roundtrip python_numpy1.test_roundtrip s3.commit_faults engines.iceberg; do
  grep -qF "[${t}]" "${work}/build/CTestTestfile.cmake" || fail "configured again with ${venv}, ${t} is not registered"
done
echo "configure_order_test: the second configure builds the module and registers its suites"
