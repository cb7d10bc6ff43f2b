#!/usr/bin/env bash
# Fetches the jars Spark needs to read lakeindex tables as Iceberg tables (python/tests/test_engines.py),
# pinned, from Maven Central, into .cache/jars/ (gitignored), and prints each jar's path, one a line.
#   org.apache.iceberg:iceberg-spark-runtime-3.5_2.12  for pyspark 3.5 (python/requirements/main.in):
#   a shaded jar that holds everything else Iceberg needs to read file:// tables by path.
#
# Each jar is checked against the SHA-1 pinned here (the one Maven Central published for it).
# Idempotent: a jar already there whose SHA-1 matches is left alone, so a second run makes no
# network calls; a damaged or partial one is fetched again. A download goes to a temporary name
# and is renamed into place only once it checks out.
#
#   scripts/spark-jars.sh        fetch what is missing, print the paths
#   LAKEINDEX_JAR_CACHE=DIR      cache elsewhere (default .cache/jars in the repository)
set -euo pipefail

readonly kRoot="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly kCache="${LAKEINDEX_JAR_CACHE:-${kRoot}/.cache/jars}"
readonly kMaven="https://repo1.maven.org/maven2"
# group:artifact:version:sha1
readonly kJars=(
  "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2:65f3964fe59e1168efad89e39dc9f9be2ce581b7"
)

log() { echo "spark-jars: $*" >&2; }
die() { echo "spark-jars: ERROR: $*" >&2; exit 1; }

command -v sha1sum >/dev/null 2>&1 || die "sha1sum not found (coreutils)"

valid() {  # JAR SHA1
  [[ -f "$1" ]] && [[ "$(sha1sum "$1" | cut -d' ' -f1)" == "$2" ]]
}

mkdir -p "${kCache}" || die "cannot make ${kCache}"
for coord in "${kJars[@]}"; do
  IFS=: read -r group artifact version pinned <<<"${coord}"
  name="${artifact}-${version}.jar"
  jar="${kCache}/${name}"
  if ! valid "${jar}" "${pinned}"; then
    command -v curl >/dev/null 2>&1 || die "curl not found (apt-get install curl)"
    url="${kMaven}/${group//.//}/${artifact}/${version}/${name}"
    tmp="$(mktemp -d "${kCache}/.tmp-XXXXXX")"
    trap 'rm -rf "${tmp}"' EXIT
    log "fetching ${coord%:*}"
    curl -fsSL --retry 3 --connect-timeout 20 --max-time 600 -o "${tmp}/${name}" "${url}" ||
      die "cannot fetch ${url}"
    valid "${tmp}/${name}" "${pinned}" ||
      die "${url}: SHA-1 $(sha1sum "${tmp}/${name}" | cut -d' ' -f1), not the pinned ${pinned}"
    mv -f "${tmp}/${name}" "${jar}"
    rm -rf "${tmp}"
    trap - EXIT
  fi
  echo "${jar}"
done
