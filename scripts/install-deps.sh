#!/usr/bin/env bash
# Installs what lakeindex needs to build and test on Debian bookworm, and nothing that is there.
#   scripts/install-deps.sh          everything `make test` needs: Debian packages, the npm
#                                    readers, the Python venvs (scripts/python-env.sh), the
#                                    Iceberg runtime jar for Spark (scripts/spark-jars.sh)
#   scripts/install-deps.sh --cli    only the Debian packages that build the CLI (`make demo`)
#
# Idempotent: a package is installed only when dpkg says it is missing, `apt-get update` runs only
# when something is missing, and `npm ci` runs only when the pinned @duckdb/node-api is not
# already in tests/duckdb/node_modules (nor icebird, apache-arrow in tests/iceberg, tests/arrow). A second run
# therefore makes no network calls.
# Runs as root, or as a user with sudo. Progress goes to stderr; any failure exits non-zero
# with a message that says what could not be installed.
set -euo pipefail

readonly kRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly kDuckDir="${kRoot}/tests/duckdb"

readonly kPackages=(
  build-essential cmake ninja-build pkg-config git ccache
  libgtest-dev libgmock-dev libbenchmark-dev
  libzstd-dev libsnappy-dev libroaring-dev nlohmann-json3-dev libcli11-dev libxxhash-dev
  zlib1g-dev liblz4-dev libbrotli-dev
  clang libclang-rt-14-dev
  python3-dev python3-venv
  libcurl4-openssl-dev libssl-dev
  libavro-dev
  curl openjdk-17-jre-headless  # scripts/spark-jars.sh; Java for Spark (python/tests/test_engines.py)
)

cli_only=0
[[ "${1:-}" == "--cli" ]] && cli_only=1

log() { echo "install-deps: $*" >&2; }
die() { echo "install-deps: ERROR: $*" >&2; exit 1; }

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  fi
fi

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]
}

missing=()
for pkg in "${kPackages[@]}"; do
  is_installed "${pkg}" || missing+=("${pkg}")
done
# Node.js may come from another source than Debian (e.g. a nodejs build that bundles npm and
# conflicts with Debian's npm package): any working `node`/`npm` on PATH is accepted.
if ! command -v node >/dev/null 2>&1 && ! is_installed nodejs; then missing+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1 && ! is_installed npm; then missing+=(npm); fi

if ((${#missing[@]} > 0)); then
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install these by hand: ${missing[*]}"
  if [[ "$(id -u)" -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
    die "not root and no sudo; as root run: apt-get install ${missing[*]}"
  fi
  installed_something=1
  log "installing apt packages: ${missing[*]}"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 ||
    die "apt-get update failed"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
    die "apt-get install failed for: ${missing[*]}"
  for pkg in "${missing[@]}"; do
    case "${pkg}" in
      nodejs) command -v node >/dev/null 2>&1 || die "nodejs installed but 'node' is not on PATH" ;;
      npm) command -v npm >/dev/null 2>&1 || die "npm installed but 'npm' is not on PATH" ;;
      *) is_installed "${pkg}" || die "package ${pkg} is still not installed" ;;
    esac
  done
fi

if ((cli_only)); then exit 0; fi

# The independent readers of the tests, each pinned in its package.json and installed exactly as
# locked in its package-lock.json: DuckDB (tests/duckdb: @duckdb/node-api), icebird, an
# Iceberg reader (tests/iceberg), and apache-arrow, an Arrow IPC reader (tests/arrow).
npm_pinned_ok() {  # DIR PACKAGE
  (cd "$1" && node -e '
    const name = process.argv[1];
    const want = require("./package.json").dependencies[name];
    const have = require("./node_modules/" + name + "/package.json").version;
    process.exit(want === have ? 0 : 1);' "$2" 2>/dev/null)
}
install_pinned() {  # DIR PACKAGE
  local dir="$1" pkg="$2"
  if [[ -f "${dir}/node_modules/${pkg}/package.json" ]] && npm_pinned_ok "${dir}" "${pkg}"; then return; fi
  installed_something=1
  log "installing ${pkg} into ${dir}/node_modules"
  if [[ -f "${dir}/package-lock.json" ]]; then
    (cd "${dir}" && npm ci --no-audit --no-fund >&2) || die "npm ci failed in ${dir}"
  else
    (cd "${dir}" && npm install --no-audit --no-fund >&2) || die "npm install failed in ${dir}"
  fi
  npm_pinned_ok "${dir}" "${pkg}" || die "${pkg} in ${dir}/node_modules does not match package.json"
}
install_pinned "${kDuckDir}" "@duckdb/node-api"
install_pinned "${kRoot}/tests/iceberg" "icebird"
install_pinned "${kRoot}/tests/arrow" "apache-arrow"

# One real query proves that the native library loads on this machine.
echo "SELECT 42 AS answer" | node "${kDuckDir}/run.mjs" >/dev/null ||
  die "DuckDB does not run: 'node tests/duckdb/run.mjs' failed (see above)"
# The Python venvs from PyPI, pinned (numpy 2 and the engines; numpy 1.26 for the value tests;
# moto and boto3 for the S3 tests).
"${kRoot}/scripts/python-env.sh" || die "scripts/python-env.sh failed"
# The Iceberg runtime jar Spark (pyspark, in .venv) reads the tables with, pinned, SHA-1 checked.
"${kRoot}/scripts/spark-jars.sh" >/dev/null || die "scripts/spark-jars.sh failed"
if [[ "${installed_something:-0}" == 1 ]]; then log "all dependencies present"; fi
