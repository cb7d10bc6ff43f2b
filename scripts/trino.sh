#!/usr/bin/env bash
# Fetches Trino, pinned, from Maven Central into .cache/trino/ (gitignored) for the opt-in Trino
# engine test (tests/engines/test_trino.py, `make test-trino`), finds a Java able to run it, and
# prints what the test needs, one KEY=VALUE a line:
#   TRINO_SERVER=DIR     the unpacked io.trino:trino-server (lib/, plugin/, ...)
#   TRINO_CLI=JAR        io.trino:trino-cli's executable jar
#   TRINO_JAVA_HOME=DIR  a JDK >= 24 (Trino 476 refuses older ones)
#
# Each download is checked against the SHA-1 pinned here (the one Maven Central published for it).
# Idempotent: once the server is unpacked (its stamp names the pinned SHA-1) and the jar's SHA-1
# matches, nothing is fetched, so a second run makes no network calls. A download goes to a
# temporary name and is moved into place only once it checks out; the server's tarball (~820 MB)
# is unpacked into a temporary directory, renamed into place, and then deleted.
#
# Java: $JAVA_HOME if it is >= 24, else /usr/lib/jvm/temurin-25-jdk-amd64, else any
# /usr/lib/jvm/* or the java on PATH that is >= 24; none is an error saying what is needed.
#
#   scripts/trino.sh               fetch what is missing, print the paths
#   LAKEINDEX_TRINO_CACHE=DIR      cache elsewhere (default .cache/trino in the repository)
set -euo pipefail

readonly kRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly kCache="${LAKEINDEX_TRINO_CACHE:-${kRoot}/.cache/trino}"
readonly kMaven="https://repo1.maven.org/maven2/io/trino"
readonly kVersion="476"
readonly kServerSha1="c9b38be4017ebd2f7095455aaac772fb40247ebe"  # trino-server-476.tar.gz
readonly kCliSha1="c835824e01842036d4e0c071b5e2b7e1d28ba299"     # trino-cli-476-executable.jar
readonly kMinJava=24

log() { echo "trino: $*" >&2; }
die() { echo "trino: ERROR: $*" >&2; exit 1; }

command -v sha1sum >/dev/null 2>&1 || die "sha1sum not found (coreutils)"

sha1() { sha1sum "$1" | cut -d' ' -f1; }

tmp=""
cleanup() { [[ -z "${tmp}" ]] || rm -rf "${tmp}"; }
trap cleanup EXIT

fetch() {  # URL DEST SHA1: download URL to DEST (in ${tmp}) and check it
  command -v curl >/dev/null 2>&1 || die "curl not found (apt-get install curl)"
  log "fetching $1"
  curl -fsSL --retry 3 --connect-timeout 20 --max-time 1800 -o "$2" "$1" ||
    die "cannot fetch $1"
  local got
  got="$(sha1 "$2")"
  [[ "${got}" == "$3" ]] || die "$1: SHA-1 ${got}, not the pinned $3"
}

mkdir -p "${kCache}" || die "cannot make ${kCache}"

# The server: unpacked once; the stamp (written last) names the tarball's SHA-1.
server="${kCache}/trino-server-${kVersion}"
stamp="${server}/.lakeindex-sha1"
if [[ ! -f "${stamp}" || "$(cat "${stamp}")" != "${kServerSha1}" || ! -d "${server}/lib" ]]; then
  command -v tar >/dev/null 2>&1 || die "tar not found"
  tmp="$(mktemp -d "${kCache}/.tmp-XXXXXX")"
  name="trino-server-${kVersion}.tar.gz"
  fetch "${kMaven}/trino-server/${kVersion}/${name}" "${tmp}/${name}" "${kServerSha1}"
  log "unpacking ${name}"
  mkdir "${tmp}/unpacked"
  tar -xzf "${tmp}/${name}" -C "${tmp}/unpacked" || die "cannot unpack ${name}"
  rm -f "${tmp}/${name}"
  [[ -d "${tmp}/unpacked/trino-server-${kVersion}/lib" ]] ||
    die "${name} holds no trino-server-${kVersion}/lib"
  echo "${kServerSha1}" >"${tmp}/unpacked/trino-server-${kVersion}/.lakeindex-sha1"
  rm -rf "${server}"
  mv "${tmp}/unpacked/trino-server-${kVersion}" "${server}"
  rm -rf "${tmp}"
  tmp=""
fi

# The command line client: an executable jar, checked on every run (18 MB).
cli="${kCache}/trino-cli-${kVersion}-executable.jar"
if [[ ! -f "${cli}" || "$(sha1 "${cli}")" != "${kCliSha1}" ]]; then
  tmp="$(mktemp -d "${kCache}/.tmp-XXXXXX")"
  name="trino-cli-${kVersion}-executable.jar"
  fetch "${kMaven}/trino-cli/${kVersion}/${name}" "${tmp}/${name}" "${kCliSha1}"
  mv -f "${tmp}/${name}" "${cli}"
  rm -rf "${tmp}"
  tmp=""
fi

# Java >= 24.
java_major() {  # JAVA_BINARY -> its feature version, or nothing
  "$1" -version 2>&1 | sed -n 's/^[^"]*version "\([0-9][0-9]*\).*/\1/p' | head -1
}
java_home=""
candidates=()
if [[ -n "${JAVA_HOME:-}" ]]; then
  major="$([[ -x "${JAVA_HOME}/bin/java" ]] && java_major "${JAVA_HOME}/bin/java" || true)"
  if [[ -n "${major}" && "${major}" -ge "${kMinJava}" ]]; then
    candidates+=("${JAVA_HOME}")
  else
    log "JAVA_HOME=${JAVA_HOME} is Java ${major:-?}; Trino ${kVersion} needs >= ${kMinJava}, looking further"
  fi
fi
candidates+=("/usr/lib/jvm/temurin-25-jdk-amd64")
for dir in /usr/lib/jvm/*/; do candidates+=("${dir%/}"); done
if command -v java >/dev/null 2>&1; then
  candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
fi
for home in "${candidates[@]}"; do
  [[ -x "${home}/bin/java" ]] || continue
  major="$(java_major "${home}/bin/java")"
  if [[ -n "${major}" && "${major}" -ge "${kMinJava}" ]]; then
    java_home="${home}"
    break
  fi
done
[[ -n "${java_home}" ]] ||
  die "no Java >= ${kMinJava} found (Trino ${kVersion} needs one): set JAVA_HOME to a JDK ${kMinJava}+" \
    "(e.g. Temurin 25, /usr/lib/jvm/temurin-25-jdk-amd64)"

echo "TRINO_SERVER=${server}"
echo "TRINO_CLI=${cli}"
echo "TRINO_JAVA_HOME=${java_home}"
