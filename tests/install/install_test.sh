#!/usr/bin/env bash
# `make install` and `pip install` as users run them, checked by using what they installed:
#   1. make install PREFIX=/opt/lakeindex DESTDIR=<tmp> puts the CLI, liblakeindex.so, the headers,
#      the CMake package and lakeindex.pc under <tmp>/opt/lakeindex (and nothing outside <tmp>);
#   2. a C++ program (consumer/) built against it with find_package(lakeindex), and again with
#      pkg-config, creates a table from a CSV file, indexes it and queries it: the rows and sum it
#      prints must be those awk computes from the same file;
#   3. a venv of Debian's python3 with the system's packages `pip install --no-build-isolation`s
#      the checkout and runs the README's Python example from elsewhere, with the installed CLI.
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

step "pip install --no-build-isolation into a venv, then the README's example"
"${python}" -m venv --system-site-packages "${work}/venv" || fail "python3 -m venv (python3-venv)"
LAKEINDEX_BUILD_DIR="${build}" "${work}/venv/bin/pip" install --no-build-isolation --no-index --no-deps -q "${src}" \
  >"${work}/pip.log" 2>&1 || { tail -30 "${work}/pip.log" >&2; fail "pip install"; }
mkdir "${work}/elsewhere"
cd "${work}/elsewhere"
where_from="$(PYTHONPATH= "${work}/venv/bin/python" -c 'import lakeindex, _lakeindex; print(lakeindex.__file__, _lakeindex.__file__)')"
[[ "${where_from}" == "${work}/venv/"*" ${work}/venv/"* ]] || fail "lakeindex imported from outside the venv: ${where_from}"
"${python}" - "${src}/README.md" >example.py <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
print("\n".join(m.group(1) for m in re.finditer(r"^```python\n(.*?)^```", text, re.M | re.S)))
PY
[[ -s example.py ]] || fail "no python example in README.md"
PYTHONPATH= LAKEINDEX_CLI="${prefix}/bin/lakeindex" timeout 300 "${work}/venv/bin/python" example.py >example.out 2>&1 ||
  { tail -30 example.out >&2; fail "the README's example with the installed module"; }
grep -q "count(\*) ±" example.out || { cat example.out >&2; fail "the README's example printed no estimate"; }
step "ok"
