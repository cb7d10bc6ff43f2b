# Sourced by bench/lookup_bench.sh and bench/cold_lookup_bench.sh: the lakeindex table both
# benchmarks look rows up in, made one way. Needs a `log` function.
#
#   ensure_lookup_table CLI SRC TABLE
#
# TABLE: `create --from SRC --rows-per-file 1000000`, then BTree indexes on id, score and name;
# TABLE.build.json records the load and build seconds. Made again when TABLE.build.json is
# missing or older than CLI (the file layout may have changed) or SRC.
ensure_lookup_table() {
  local cli=$1 src=$2 table=$3
  [[ ! -f $table.build.json || $table.build.json -ot $cli || $table.build.json -ot $src ]] || return 0
  now() { date +%s.%N; }
  secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
  log "creating the lakeindex table $table (1M rows per file, BTree on id, score, name)"
  rm -rf "$table"
  local t0 t1 a b c idx=()
  t0=$(now)
  "$cli" create "$table" --from "$src" --rows-per-file 1000000 >&2
  t1=$(now)
  for c in id score name; do
    a=$(now)
    "$cli" index create "$table" --column "$c" --type btree >&2
    b=$(now)
    idx+=("\"$c\": $(secs "$a" "$b")")
  done
  printf '{"load_s": %s, "index_s": {%s}}\n' "$(secs "$t0" "$t1")" "$(IFS=,; echo "${idx[*]}")" >"$table.build.json"
}
