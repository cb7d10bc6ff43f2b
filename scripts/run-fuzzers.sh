#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR for SECONDS each, starting from its seed corpus
# (fuzz/corpus/<target>/, made by our writers) and keeping new inputs in fuzz/corpus-new/<target>/.
#   scripts/run-fuzzers.sh [BUILD_DIR [SECONDS [TARGET...]]]   (no TARGET: every *_fuzz in BUILD_DIR)
# Prints each target's last libFuzzer line ("Done N runs in S second(s)") or its failure.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-60}
shift $(( $# > 2 ? 2 : $# ))
root="$(cd "$(dirname "$0")/.." && pwd)"
status=0
if [ $# -gt 0 ]; then
  bins=(); for t in "$@"; do bins+=("$build/$t"); done
else
  bins=("$build"/*_fuzz)
fi
for bin in "${bins[@]}"; do
  [ -x "$bin" ] || { echo "no fuzz target $bin" >&2; status=1; continue; }
  name=$(basename "$bin")
  seeds="$root/fuzz/corpus/$name"
  work="$root/fuzz/corpus-new/$name"
  mkdir -p "$work" "$seeds"
  echo "== $name: ${seconds}s" >&2
  if ! "$bin" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 "$work" "$seeds" 2>"$work.log"; then
    echo "FUZZ FAILURE in $name; see $work.log" >&2
    tail -30 "$work.log" >&2
    status=1
  else
    tail -1 "$work.log" >&2
  fi
done
exit $status
