"""What Trino reads of the engine-skipping tables: bench/engine_skipping.py's queries through
Trino 476's Iceberg connector with its default settings (Trino skips files by the manifests and row
groups by their footers; the query's physical input bytes are what it read).

    .venv/bin/python bench/trino_skipping.py --workdir /tmp/es10r/work [--also otree-slices=/tmp/es10m/work/tables/otree]

WORKDIR: an engine_skipping.py work directory (its events.parquet and tables/{plain,sort,zorder,hilbert,
otree}); `--also NAME=TABLE` adds tables (e.g. the OTree laid out by slice). The server is
tests/engines/test_trino.py's (scripts/trino.sh fetches it; loopback only), started and stopped here.
Prints one JSON line per (table, query) and a summary: per selectivity the median MB, and per box the
OTree's bytes over the best of sort / Z-order / Hilbert.
"""
import argparse
import json
import os
import statistics
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "build", "python"), os.path.join(ROOT, "python"),
                os.path.join(ROOT, "python", "tests"), os.path.join(ROOT, "tests", "engines"),
                os.path.dirname(os.path.abspath(__file__))]

import engine_skipping as es  # noqa: E402
import test_trino as tt  # noqa: E402

CURVES = ("sort", "zorder", "hilbert")
COLUMNS = "count(*), sum(id), sum(x), sum(y), sum(z), sum(score), max(category), max(name), max(ts), sum(maybe)"


def run(server, sql, timeout=600):
    """The statement's rows and its final statistics (physicalInputBytes, processedRows, ...); a
    query sent before the node has announced its catalogs (NO_NODES_AVAILABLE) is sent again."""
    for attempt in range(60):
        try:
            return run_once(server, sql, timeout)
        except tt.TrinoError as e:
            if "NO_NODES_AVAILABLE" not in str(e) or attempt == 59:
                raise
            time.sleep(1)


def run_once(server, sql, timeout):
    headers = {"X-Trino-User": "lakeindex", "X-Trino-Source": "lakeindex-bench", "X-Trino-Catalog": "iceberg",
               "X-Trino-Schema": tt.SCHEMA}
    deadline = time.monotonic() + timeout
    result = server._call(urllib.request.Request(server.url + "/v1/statement", data=sql.encode(), headers=headers,
                                                 method="POST"), 60)
    rows = []
    while True:
        rows += result.get("data") or []
        if result.get("error"):
            raise tt.TrinoError(sql, result["error"])
        if not result.get("nextUri"):
            return rows, result.get("stats", {})
        if time.monotonic() > deadline:
            raise TimeoutError(sql)
        result = server._call(urllib.request.Request(result["nextUri"], headers=headers), 60)


def trino_where(q):
    """The query's filter with DOUBLE literals: Trino reads 12.5 as a DECIMAL, and a double column
    compared with a decimal bound can differ from the double bound in the last place."""
    if q["kind"] == "sample":
        return q["where"]
    return " AND ".join(f"{c} BETWEEN DOUBLE '{lo!r}' AND DOUBLE '{hi!r}'" for c, (lo, hi, _) in q["bounds"].items())


def newest_version(table):
    with open(os.path.join(table, "_versions", "_latest")) as f:
        return int(f.readline().strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--also", action="append", default=[], help="NAME=TABLE, another table to read")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--boxes", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    tables = {n: os.path.join(args.workdir, "tables", n) for n in ("plain",) + CURVES + ("otree",)}
    for a in args.also:
        name, path = a.split("=", 1)
        tables[name] = path
    queries, n = es.make_queries(os.path.join(args.workdir, "events.parquet"), args.boxes, args.seed)
    started = time.monotonic()
    work = tt.util.Workdir()
    server = tt.Trino(work.join("trino"), tt.trino_paths())
    out = {}
    try:
        server.wait_ready()
        for attempt in range(120):  # the node registers itself a little after the server answers
            try:
                server.query("SELECT count(*) FROM system.runtime.nodes")
                break
            except tt.TrinoError:
                if attempt == 119:
                    raise
                time.sleep(1)
        server.query(f"CREATE SCHEMA iceberg.{tt.SCHEMA}")
        for name, path in tables.items():
            meta = f"v{newest_version(path)}.metadata.json"
            ident = name.replace("-", "_")
            server.query(f"CALL iceberg.system.register_table(schema_name => '{tt.SCHEMA}', table_name => '{ident}', "
                         f"table_location => 'file://{os.path.abspath(path)}', metadata_file_name => '{meta}')")
            for q in queries:
                if q["kind"] == "sample" and not name.startswith("otree"):
                    continue
                got = []
                for _ in range(args.rounds):
                    a = time.perf_counter()
                    rows, stats = run(server, f"SELECT {COLUMNS} FROM {ident} WHERE {trino_where(q)}")
                    got.append((time.perf_counter() - a, rows[0][0], stats))
                count = got[0][1]
                if any(g[1] != count for g in got) or (q.get("numpy_count") is not None and count != q["numpy_count"]):
                    print(f"MISMATCH {name} {q['id']}: {[g[1] for g in got]} vs numpy {q.get('numpy_count')}",
                          file=sys.stderr)
                stats = got[-1][2]
                line = {"table": name, "query": q["id"], "kind": q["kind"], "fraction": q["fraction"], "rows": count,
                        "physical_input_bytes": stats.get("physicalInputBytes"), "processed_rows": stats.get("processedRows"),
                        "ms": round(statistics.median(g[0] for g in got) * 1e3, 1)}
                out[(name, q["id"])] = line
                print(json.dumps(line), flush=True)
    finally:
        server.close()
        work.close()
    # Summary.
    groups = {}
    for q in queries:
        groups.setdefault((q["kind"], q["fraction"]), []).append(q["id"])
    names = list(tables)
    print("\nTrino physical input MB, median over the boxes (%d rows; %.1f min)" % (n, (time.monotonic() - started) / 60),
          file=sys.stderr)
    print("| table | " + " | ".join(f"{k} {f * 100:g}%" for k, f in groups) + " |", file=sys.stderr)
    for name in names:
        cells = []
        for ids in groups.values():
            b = [out[(name, i)]["physical_input_bytes"] for i in ids if (name, i) in out]
            cells.append(f"{statistics.median(b) / 1e6:.2f}" if b else "–")
        print(f"| {name} | " + " | ".join(cells) + " |", file=sys.stderr)
    for otree in [x for x in names if x.startswith("otree")]:
        for (kind, frac), ids in groups.items():
            if kind == "sample":
                continue
            ratios = []
            for i in ids:
                best = min(out[(c, i)]["physical_input_bytes"] for c in CURVES)
                ratios.append(out[(otree, i)]["physical_input_bytes"] / best)
            print(f"{otree} ÷ best curve, {kind} {frac * 100:g}%: " + ", ".join(f"{r:.2f}" for r in ratios), file=sys.stderr)


if __name__ == "__main__":
    main()
