"""Loads and builds beside pylance and DuckDB (issue 52): the peers' workers, the checks and the report
of bench/load_bench.sh, which times each worker as its own process under /usr/bin/time (DuckDB's
sorted COPY runs there, in Node, as the other benchmarks run DuckDB).

    python bench/load_bench.py lance-write SRC DIR        lance.write_dataset of SRC read through a
                                                          pyarrow dataset scanner (streaming), defaults
    python bench/load_bench.py lance-index DIR COLUMN     create_scalar_index(COLUMN, "BTREE")
    python bench/load_bench.py check --src SRC --cli LAKEINDEX --table T --layout L --lance D --duck F
    python bench/load_bench.py report RESULTS.jsonl

Each worker prints one JSON line: `op_s`, the seconds of the call itself (imports and process start
excluded; the process's wall, CPU and peak RSS are /usr/bin/time's, taken by the shell script).
"""

import time

_T0 = time.perf_counter()

import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def lance_write(src, out):
    import lance
    import pyarrow.dataset as pads
    t0 = time.perf_counter()
    reader = pads.dataset(src, format="parquet").scanner().to_reader()
    ds = lance.write_dataset(reader, out)
    emit({"op_s": time.perf_counter() - t0, "rows": ds.count_rows(), "fragments": len(ds.get_fragments()),
          "lance_version": lance.__version__})


def lance_index(path, column):
    import lance
    ds = lance.dataset(path)
    t0 = time.perf_counter()
    ds.create_scalar_index(column, index_type="BTREE")
    emit({"op_s": time.perf_counter() - t0})


def lakeindex_files(cli, table):
    out = subprocess.run([cli, "files", table, "--format", "csv"], check=True, capture_output=True, text=True).stdout
    return [line.split(",")[0] for line in out.strip().split("\n")[1:]]


def check(args):
    """The outputs hold the source's rows, and one key of each indexed column, looked up through each
    engine's index, returns the rows a brute-force filter of the source returns. Exits 1 on a mismatch."""
    import argparse
    import duckdb
    import lance
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    p = argparse.ArgumentParser()
    for a in ["--src", "--cli", "--table", "--layout", "--lance", "--duck"]:
        p.add_argument(a, required=True)
    a = p.parse_args(args)
    con = duckdb.connect()
    src = pq.read_table(a.src, columns=["id", "name", "x", "y"])
    n = src.num_rows
    failures = []

    def same(what, got, want):
        ok = got == want
        emit({"check": what, "got": got, "want": want, "ok": ok})
        if not ok:
            failures.append(what)

    def duck_agg(files, sql_from=None):
        lst = ", ".join(f"'{f}'" for f in files)
        return tuple(int(v) for v in con.execute(f"SELECT count(*), sum(id), sum(hash(name)) % 1000000007 "
                                                 f"FROM read_parquet([{lst}])").fetchone())
    want = duck_agg([a.src])
    same("lakeindex create: count, sum(id), sum(hash(name))", duck_agg(lakeindex_files(a.cli, a.table)), want)
    same("lakeindex layout otree: count, sum(id), sum(hash(name))", duck_agg(lakeindex_files(a.cli, a.layout)), want)
    same("duckdb COPY: count, sum(id), sum(hash(name))", duck_agg([a.duck]), want)
    ds = lance.dataset(a.lance)
    lt = ds.to_table(columns=["id", "name"])
    same("pylance write: count, sum(id)", (lt.num_rows, pc.sum(lt["id"]).as_py()), (want[0], want[1]))
    sorted_ok = con.execute(f"SELECT count(*) FROM (SELECT x, y, lag(x) OVER w AS px, lag(y) OVER w AS py "
                            f"FROM read_parquet('{a.duck}', file_row_number = true) WINDOW w AS (ORDER BY file_row_number)) WHERE px > x OR (px = x AND py > y)").fetchone()[0]
    same("duckdb COPY: rows out of (x, y) order", int(sorted_ok), 0)

    for column, i in [("id", n // 3), ("name", (2 * n) // 3)]:
        key = src[column][i].as_py()
        lit = f"'{key}'" if isinstance(key, str) else str(key)
        where = f"{column} = {lit}"
        hit = src.filter(pc.equal(src[column], key))
        want_rows = sorted(zip(hit["id"].to_pylist(), hit["name"].to_pylist()))
        plan = json.loads(subprocess.run([a.cli, "explain", a.table, "--where", where, "--json"], check=True,
                                         capture_output=True, text=True).stdout)["plan"]
        same(f"lakeindex plan of {where} uses the btree", any(f"index {column}_btree" in line for line in plan), True)
        out = subprocess.run([a.cli, "query", a.table, "--where", where, "--select", "id,name", "--format", "json"],
                             check=True, capture_output=True, text=True).stdout
        got = sorted((r["id"], r["name"]) for r in map(json.loads, out.strip().split("\n")))
        same(f"lakeindex {where}: (id, name) rows", got, want_rows)
        lplan = ds.scanner(filter=where, columns=["id", "name"]).explain_plan()
        same(f"pylance plan of {where} uses the scalar index", "ScalarIndexQuery" in lplan, True)
        lhit = ds.to_table(filter=where, columns=["id", "name"])
        same(f"pylance {where}: (id, name) rows", sorted(zip(lhit["id"].to_pylist(), lhit["name"].to_pylist())),
             want_rows)
    sys.exit(1 if failures else 0)


def report(path):
    """A markdown table of the medians: one row per step pair, lakeindex beside its peer."""
    steps = {}
    meta = {}
    checks = []
    for line in open(path):
        j = json.loads(line)
        if "step" in j:
            steps.setdefault(j["step"], []).append(j)
        elif "meta" in j:
            meta = j["meta"]
        elif "check" in j:
            checks.append(j)

    def med(name, key):
        xs = [s[key] for s in steps.get(name, []) if s.get(key) is not None]
        return statistics.median(xs) if xs else float("nan")

    pairs = [("create --from Parquet", "lakeindex create", "pylance write_dataset"),
             ("btree on id", "lakeindex btree id", "pylance btree id"),
             ("btree on name", "lakeindex btree name", "pylance btree name"),
             ("OTree layout x,y", "lakeindex layout otree x,y", "duckdb COPY ORDER BY x, y")]
    print(f"{meta.get('rows', '?'):,} events rows, {meta.get('rounds', '?')} rounds (medians), "
          f"{meta.get('nproc', '?')} cores, git {meta.get('git', '?')}; peers: {meta.get('peers', '?')}\n")
    print("| step | lakeindex wall s | peer wall s | wall ratio | lakeindex CPU s | peer CPU s | CPU ratio "
          "| lakeindex op s | peer op s | lakeindex peak RSS MB | peer peak RSS MB | lakeindex bytes | peer bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, ours, peer in pairs:
        if ours not in steps:
            continue
        row = [label]
        for key in ["wall_s", "cpu_s"]:
            o, p = med(ours, key), med(peer, key)
            row += [f"{o:.2f}", f"{p:.2f}", f"{o / p:.2f}×"]
        row += [f"{v:.2f}" if v == v else "–" for v in (med(ours, "op_s"), med(peer, "op_s"))]
        row += [f"{med(ours, 'peak_rss_mb'):.0f}", f"{med(peer, 'peak_rss_mb'):.0f}"]
        row += [f"{int(med(ours, 'bytes')):,}", f"{int(med(peer, 'bytes')):,}"]
        print("| " + " | ".join(row) + " |")
    print(f"\nRatios: lakeindex ÷ peer (≤ 1 meets the goal). Checks: {sum(c['ok'] for c in checks)} of "
          f"{len(checks)} passed.")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "lance-write":
        lance_write(sys.argv[2], sys.argv[3])
    elif cmd == "lance-index":
        lance_index(sys.argv[2], sys.argv[3])
    elif cmd == "check":
        check(sys.argv[2:])
    elif cmd == "report":
        report(sys.argv[2])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
