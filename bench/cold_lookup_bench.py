"""Cold and warm whole-row lookups beside pylance, SQLite and DuckDB (issue 52): the driver and its
workers. Run it through bench/cold_lookup_bench.sh, which makes the data, the lakeindex table and
the venv (.venv-bench) first.

    python bench/cold_lookup_bench.py run --data DIR --src events.parquet --table TABLE --cli LAKEINDEX
        [--cold-keys 10] [--warm-keys 50] [--scan-keys 5] [--seed 42]
        [--engines "lakeindex_py lakeindex_cli lance sqlite duckdb"]

Queries (literal values drawn from the data, expected rows and the sum of their ids computed here
with numpy, independently of every engine, and checked for every lookup of every engine):
  score_eq  `score = k`                 (k the score of a random row)
  id_eq     `id = k`                    (k the id of a random row)
  id_in_100 `id IN (100 ids)`           (the ids of 100 random rows)
  score_range_0.01pct `score BETWEEN lo AND hi` (lo a random row's score, hi the score 0.01% of the
            rows above it in score order)
always `SELECT *` (whole rows, every column).

Engines (each on the same rows):
  lakeindex_py  the Python module: lakeindex.Table.open(TABLE).query(where) (TABLE: `lakeindex
                create --rows-per-file 1000000`, BTree on id, score, name)
  lakeindex_cli `lakeindex query TABLE --where W --format csv` (a new process is its only mode: wall
                time only); its bytes and requests come from `lakeindex explain --analyze --json`,
                run in a new process per key as well
  lance         pylance: lance.dataset(DIR).to_table(filter=W), the dataset written by
                lance.write_dataset with its defaults (1M rows per file) and a BTREE scalar index
                on id and on score (create_scalar_index)
  sqlite        the standard library's sqlite3: a table with indexes on id and score, default
                settings, `SELECT * FROM events WHERE W` fetched whole
  duckdb        DuckDB (no index): `SELECT * FROM read_parquet(TABLE's data files) WHERE W` (a full
                scan of the same Parquet files lakeindex reads), fetched as Arrow

Regimes:
  cold  a new process per query: open + query, timed inside the process from before the open to
        the rows in hand (the engine's module, and the library its rows come in -- numpy for
        lakeindex, which the module would import on its first query, pyarrow for pylance and
        DuckDB -- imported before the clock starts: the import time is reported apart, and the
        modules imported during open+query are counted), and the process's wall time measured by
        this driver, which holds everything. Every file is read
        once first, so the files are in the OS page cache; the processes' own caches are empty.
  warm  one process per engine and query, the table opened once, 3 untimed lookups first; then the *new*
        keys, each looked up once (never looked up before in the process), then the *cached* keys,
        each looked up once untimed and then timed.
Bytes: /proc/self/io `rchar` of the query (bytes the process got from read/pread syscalls, the
page cache's included; `read_bytes`, storage reads, is about 0 with the files cached and is kept in
the JSON lines only); lakeindex's own `bytes_read` / `io_requests` from `explain --analyze --json`.
Writes DIR/cold_lookups.jsonl (one line per measurement) and prints a markdown report, which
it also writes to DIR/cold_lookups.md.

    python bench/cold_lookup_bench.py one ENGINE TARGET WHERE    (a cold worker: one query, one JSON line)
    python bench/cold_lookup_bench.py warm ENGINE TARGET KEYS.json QUERY  (a warm worker)
"""

import time

_T_START = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

kKinds = ["score_eq", "id_eq", "id_in_100", "score_range_0.01pct"]
kAllEngines = ["lakeindex_py", "lakeindex_prewarm", "lakeindex_cli", "lance", "sqlite", "duckdb"]
# Engines with no cold runs: lakeindex_prewarm is the Python module with Table.prewarm() called after
# the open (the warm regime a service chooses; its open_ms includes the prewarm), given a cache of
# PREWARM_CACHE_MB (default 4096; 0: the default cache).
kWarmOnly = {"lakeindex_prewarm"}
kLanceVersionFile = "lance_version.txt"
kLanceInfo = """import sys, lance
ds = lance.dataset(sys.argv[1])
idx = [(i.get("name"), i.get("type"), i.get("fields")) for i in ds.list_indices()]
print(f"pylance {lance.__version__}, data_storage_version {getattr(ds, 'data_storage_version', '?')}, "
      f"{len(ds.get_fragments())} fragments, indexes {idx}")"""


def log(s):
    sys.stderr.write(f"[cold_lookups {time.strftime('%H:%M:%S')}] {s}\n")
    sys.stderr.flush()


def _read_proc_io():
    out = {}
    with open("/proc/self/io") as f:
        for line in f:
            k, v = line.split(":")
            out[k] = int(v)
    return out


_IO_SELF = None


def proc_io():
    """/proc/self/io as a dict (rchar, read_bytes, syscr, ...), less what reading it costs (its
    own read of about 110 bytes in 2 syscalls), so that a delta of two calls is the code's between."""
    global _IO_SELF
    if _IO_SELF is None:
        a = _read_proc_io()
        b = _read_proc_io()
        _IO_SELF = {k: b[k] - a[k] for k in ("rchar", "syscr")}
        _IO_SELF["n"] = 2
    out = _read_proc_io()
    _IO_SELF["n"] += 1
    for k in ("rchar", "syscr"):
        out[k] -= _IO_SELF[k] * _IO_SELF["n"]
    return out


def p90(xs):
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.9 * len(s)))] if s else float("nan")


# ---- the engines, as the workers use them -------------------------------------------------------

def import_engine(engine):
    if engine in ("lakeindex_py", "lakeindex_prewarm"):
        import lakeindex
        import numpy  # noqa: F401  (the rows come as numpy arrays, which the module imports on its first query)
        import numpy.ma  # noqa: F401  (and a nullable column as a masked array)
        return lakeindex
    if engine == "lance":
        import lance
        import pyarrow.compute  # noqa: F401  (the result's id sum)
        return lance
    if engine == "sqlite":
        import sqlite3
        return sqlite3
    if engine == "duckdb":
        import duckdb
        import pyarrow  # noqa: F401  (fetch_arrow_table)
        return duckdb
    raise SystemExit(f"unknown engine {engine}")


def open_engine(engine, mod, target):
    if engine in ("lakeindex_py", "lakeindex_prewarm"):
        opener = getattr(mod, "open", None) or mod.Table.open
        table = opener(target)
        if engine == "lakeindex_prewarm":
            # The room to hold the table (its decoded pages pass the default 1 GiB cache at 10M rows).
            mb = int(os.environ.get("PREWARM_CACHE_MB", "4096"))
            report = table.prewarm(cache_capacity=mb << 20) if mb else table.prewarm()
            if not report["complete"]:
                log(f"prewarm stopped early (PREWARM_CACHE_MB={mb}): {report}")
        return table
    if engine == "lance":
        return mod.dataset(target)
    if engine == "sqlite":
        return mod.connect(f"file:{target}?mode=ro", uri=True)
    if engine == "duckdb":
        con = mod.connect()
        with open(target) as f:  # the list of Parquet files
            files = json.load(f)
        return (con, "read_parquet([" + ", ".join("'" + p.replace("'", "''") + "'" for p in files) + "])")
    raise SystemExit(f"unknown engine {engine}")


def run_query(engine, handle, where):
    """Whole rows in hand; returns (rows, sum of their ids)."""
    if engine in ("lakeindex_py", "lakeindex_prewarm"):
        out = handle.query(where=where)
        ids = out["id"]
        return len(ids), int(ids.sum())
    if engine == "lance":
        import pyarrow.compute as pc
        t = handle.to_table(filter=where)
        s = pc.sum(t["id"]).as_py()
        return t.num_rows, int(s or 0)
    if engine == "sqlite":
        rows = handle.execute(f"SELECT * FROM events WHERE {where}").fetchall()
        return len(rows), sum(r[0] for r in rows)
    if engine == "duckdb":
        import pyarrow.compute as pc
        con, src = handle
        t = con.execute(f"SELECT * FROM {src} WHERE {where}").fetch_arrow_table()
        s = pc.sum(t["id"]).as_py()
        return t.num_rows, int(s or 0)
    raise SystemExit(f"unknown engine {engine}")


def worker_one(engine, target, where):
    mod = import_engine(engine)
    t_imported = time.perf_counter()
    mods0 = len(sys.modules)
    io0 = proc_io()
    t0 = time.perf_counter()
    handle = open_engine(engine, mod, target)
    t1 = time.perf_counter()
    rows, id_sum = run_query(engine, handle, where)
    t2 = time.perf_counter()
    io1 = proc_io()
    lazy = len(sys.modules) - mods0
    print(json.dumps({"start_to_import_ms": (t_imported - _T_START) * 1e3, "open_ms": (t1 - t0) * 1e3,
                      "open_query_ms": (t2 - t0) * 1e3, "rows": rows, "id_sum": id_sum,
                      "rchar": io1["rchar"] - io0["rchar"], "read_bytes": io1["read_bytes"] - io0["read_bytes"],
                      "syscr": io1["syscr"] - io0["syscr"], "lazy_modules": lazy}))


def worker_warm(engine, target, keys_path, kind):
    """One process for one engine and one query: the new keys first (so that no timed lookup of
    them found its keys' pages put there by the cached set's), then the cached keys."""
    with open(keys_path) as f:
        keys = json.load(f)
    mod = import_engine(engine)
    t0 = time.perf_counter()
    handle = open_engine(engine, mod, target)
    open_ms = (time.perf_counter() - t0) * 1e3
    k = keys["kinds"][kind]
    first_ms = None
    for q in k["warmup"]:
        t = time.perf_counter()
        run_query(engine, handle, q["where"])
        if first_ms is None:
            first_ms = (time.perf_counter() - t) * 1e3
    limit = keys["scan_keys"] if engine == "duckdb" else None

    def timed(label, qs):
        for q in qs:
            io0 = proc_io()
            t = time.perf_counter()
            rows, id_sum = run_query(engine, handle, q["where"])
            us = (time.perf_counter() - t) * 1e6
            io1 = proc_io()
            print(json.dumps({"kind": kind, "set": label, "us": us, "rows": rows, "id_sum": id_sum,
                              "ok": rows == q["rows"] and id_sum == q["id_sum"],
                              "rchar": io1["rchar"] - io0["rchar"], "syscr": io1["syscr"] - io0["syscr"]}))

    timed("new", k["warm_new"][:limit])
    cached = k["warm_cached"][:limit]
    for q in cached:
        run_query(engine, handle, q["where"])
    timed("cached", cached)
    print(json.dumps({"kind": kind, "open_ms": open_ms, "first_query_ms": first_ms}))


# ---- the driver ---------------------------------------------------------------------------------

def make_keys(src, seed, cold, warm, scan):
    """Every query of every set, from distinct random rows; expected rows and id sums by numpy."""
    import numpy as np
    import pyarrow.parquet as pq
    t = pq.read_table(src, columns=["id", "score"])
    ids = t["id"].to_numpy()
    scores = t["score"].to_numpy()
    n = len(ids)
    rng = np.random.default_rng(seed)
    by_score = np.argsort(scores, kind="stable")
    sorted_scores = scores[by_score]
    by_id = np.argsort(ids, kind="stable")
    sorted_ids = ids[by_id]

    def id_rows(v):
        lo, hi = np.searchsorted(sorted_ids, v, "left"), np.searchsorted(sorted_ids, v, "right")
        return by_id[lo:hi]

    def score_rows(lo_v, hi_v):
        lo, hi = np.searchsorted(sorted_scores, lo_v, "left"), np.searchsorted(sorted_scores, hi_v, "right")
        return by_score[lo:hi]

    def entry(where, rows):
        return {"where": where, "rows": int(len(rows)), "id_sum": int(ids[rows].sum())}

    sizes = {"warmup": 3, "cold": cold, "warm_new": warm, "warm_cached": warm}
    per_kind = sum(sizes.values())
    # one pool of distinct rows; id_in_100 takes 100 rows a query
    pool = rng.choice(n, size=min(n, per_kind * 103), replace=False)
    at = 0

    def take(k):
        nonlocal at
        if at + k > len(pool):
            raise SystemExit(f"{n} rows are too few for {per_kind} queries of each kind")
        out = pool[at:at + k]
        at += k
        return out

    target = max(1, round(1e-4 * n))
    kinds = {}
    for kind in kKinds:
        sets = {}
        for name, size in sizes.items():
            qs = []
            for _ in range(size):
                if kind == "score_eq":
                    v = int(scores[take(1)[0]])
                    qs.append(entry(f"score = {v}", score_rows(v, v)))
                elif kind == "id_eq":
                    v = int(ids[take(1)[0]])
                    qs.append(entry(f"id = {v}", id_rows(v)))
                elif kind == "id_in_100":
                    vs = sorted({int(ids[r]) for r in take(100)})
                    rows = np.concatenate([id_rows(v) for v in vs])
                    qs.append(entry(f"id IN ({', '.join(map(str, vs))})", rows))
                else:
                    lo_v = int(scores[take(1)[0]])
                    i = int(np.searchsorted(sorted_scores, lo_v, "left"))
                    hi_v = int(sorted_scores[min(n - 1, i + target - 1)])
                    qs.append(entry(f"score BETWEEN {lo_v} AND {hi_v}", score_rows(lo_v, hi_v)))
            sets[name] = qs
        kinds[kind] = sets
    return {"version": 1, "src": os.path.abspath(src), "rows": int(n), "seed": seed, "cold": cold, "warm": warm,
            "scan_keys": scan, "kinds": kinds}


def prepare_lance(src, out_dir):
    import lance
    import pyarrow.parquet as pq
    stamp = os.path.join(out_dir, kLanceVersionFile)
    if os.path.exists(stamp) and open(stamp).read().strip() == lance.__version__ \
            and os.path.getmtime(stamp) >= os.path.getmtime(src):
        return
    import shutil
    shutil.rmtree(out_dir, ignore_errors=True)
    log(f"writing the Lance dataset {out_dir} (pylance {lance.__version__}, its defaults)")
    pf = pq.ParquetFile(src)
    t0 = time.perf_counter()
    ds = lance.write_dataset(pf.iter_batches(batch_size=65536), out_dir, schema=pf.schema_arrow)
    t1 = time.perf_counter()
    build = {"load_s": t1 - t0, "index_s": {}}
    for c in ["id", "score"]:
        a = time.perf_counter()
        ds.create_scalar_index(c, index_type="BTREE")
        build["index_s"][c] = time.perf_counter() - a
    with open(os.path.join(out_dir, "build.json"), "w") as f:
        json.dump(build, f)
    with open(stamp, "w") as f:
        f.write(lance.__version__ + "\n")


def prepare_sqlite(src, db):
    import sqlite3
    import pyarrow as pa
    import pyarrow.parquet as pq
    if os.path.exists(db) and os.path.getmtime(db) >= os.path.getmtime(src):
        return
    log(f"writing the SQLite database {db} (indexes on id and score)")
    tmp = db + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    pf = pq.ParquetFile(src)
    names = pf.schema_arrow.names
    con = sqlite3.connect(tmp)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    types = {"id": "INTEGER", "score": "INTEGER", "maybe": "INTEGER", "ts": "INTEGER",
             "x": "REAL", "y": "REAL", "z": "REAL", "category": "TEXT", "name": "TEXT"}
    cols_sql = ", ".join((c + " " + types.get(c, "")).strip() for c in names)
    con.execute(f"CREATE TABLE events ({cols_sql})")
    ins = f"INSERT INTO events VALUES ({', '.join('?' * len(names))})"
    for batch in pf.iter_batches(batch_size=65536):
        cols = []
        for c in names:
            a = batch.column(c)
            if pa.types.is_timestamp(a.type):
                a = a.cast(pa.int64())
            cols.append(a.to_pylist())
        con.executemany(ins, zip(*cols))
    con.execute("CREATE INDEX events_id ON events(id)")
    con.execute("CREATE INDEX events_score ON events(score)")
    con.commit()
    con.close()
    os.replace(tmp, db)


def read_all(paths):
    """Reads every file once, so that the cold runs find them in the OS page cache."""
    n = 0
    for p in paths:
        for root, _, files in os.walk(p) if os.path.isdir(p) else [(os.path.dirname(p), None, [os.path.basename(p)])]:
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    while True:
                        b = fh.read(1 << 20)
                        if not b:
                            break
                        n += len(b)
    return n


def dir_bytes(p):
    if os.path.isfile(p):
        return os.path.getsize(p)
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(p) for f in fs)


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def driver(args):
    engines = args.engines.split()
    for e in engines:
        if e not in kAllEngines:
            raise SystemExit(f"unknown engine {e} (of {' '.join(kAllEngines)})")
    data = args.data
    keys_path = os.path.join(data, "cold_keys.json")
    want = {"src": os.path.abspath(args.src), "seed": args.seed, "cold": args.cold_keys, "warm": args.warm_keys,
            "scan_keys": args.scan_keys}
    keys = None
    if os.path.exists(keys_path) and os.path.getmtime(keys_path) >= os.path.getmtime(args.src):
        with open(keys_path) as f:
            keys = json.load(f)
        if any(keys.get(k) != v for k, v in want.items()):
            keys = None
    if keys is None:
        log(f"drawing the keys into {keys_path}")
        keys = make_keys(args.src, args.seed, args.cold_keys, args.warm_keys, args.scan_keys)
        with open(keys_path + ".tmp", "w") as f:
            json.dump(keys, f)
        os.replace(keys_path + ".tmp", keys_path)
    nrows = keys["rows"]

    lance_dir = os.path.join(data, "lance_py")
    sqlite_db = os.path.join(data, "cold_lookups.sqlite")
    files_json = os.path.join(data, "cold_parquet_files.json")
    lance_info = None
    if "lance" in engines:
        prepare_lance(args.src, lance_dir)
        lance_info = subprocess.run([sys.executable, "-c", kLanceInfo, lance_dir], capture_output=True,
                                    text=True).stdout.strip()
    if "sqlite" in engines:
        prepare_sqlite(args.src, sqlite_db)
    table_files = sorted(os.path.join(args.table, "data", f) for f in os.listdir(os.path.join(args.table, "data"))
                         if f.endswith(".parquet"))
    with open(files_json, "w") as f:
        json.dump(table_files, f)
    targets = {"lakeindex_py": args.table, "lakeindex_prewarm": args.table, "lakeindex_cli": args.table, "lance": lance_dir, "sqlite": sqlite_db,
               "duckdb": files_json}
    sizes = {"lakeindex": dir_bytes(args.table), "lance": dir_bytes(lance_dir) if "lance" in engines else None,
             "sqlite": dir_bytes(sqlite_db) if "sqlite" in engines else None,
             "parquet (lakeindex's data files)": sum(os.path.getsize(p) for p in table_files)}
    log(f"reading every file once into the OS page cache ({read_all([targets[e] for e in engines] + table_files) / 1e6:.0f} MB)")

    me = os.path.abspath(__file__)
    py = sys.executable
    out_path = os.path.join(data, "cold_lookups.jsonl")
    out = open(out_path, "w")

    def emit(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    env = dict(os.environ)
    version = subprocess.run([args.cli, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    version = version[0] if version else "?"
    here = os.path.dirname(me)
    head = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    emit({"bench": "cold_lookups_setup", "rows": nrows, "lakeindex_version": version, "sizes": sizes,
          "cli": os.path.abspath(args.cli), "checkout": head + (" (+ uncommitted changes)" if dirty else ""),
          "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load_start": os.getloadavg(),
          "lance": lance_info, "python": sys.version.split()[0],
          "engines": engines, "cold_keys": args.cold_keys, "warm_keys": args.warm_keys, "scan_keys": args.scan_keys})

    def cold_one(engine, q):
        t = time.perf_counter()
        if engine == "lakeindex_cli":
            r = subprocess.run([args.cli, "query", args.table, "--where", q["where"], "--format", "csv"],
                               capture_output=True, text=True, env=env)
            wall = (time.perf_counter() - t) * 1e3
            if r.returncode != 0:
                raise SystemExit(f"lakeindex query --where {q['where']}: {r.stderr.strip()}")
            lines = r.stdout.splitlines()
            header = lines[0].split(",") if lines else []
            idx = header.index("id") if "id" in header else 0
            body = lines[1:]
            res = {"rows": len(body), "id_sum": sum(int(l.split(",")[idx]) for l in body), "wall_ms": wall}
            ex = subprocess.run([args.cli, "explain", args.table, "--where", q["where"], "--analyze", "--json"],
                                capture_output=True, text=True, env=env)
            if ex.returncode == 0:
                j = json.loads(ex.stdout)
                res.update({"li_bytes_read": j.get("bytes_read"), "li_io_requests": j.get("io_requests"),
                            "li_pages_read": j.get("pages_read"), "li_explain_ms": j.get("elapsed_ms")})
            return res
        r = subprocess.run([py, me, "one", engine, targets[engine], q["where"]], capture_output=True, text=True,
                           env=env)
        wall = (time.perf_counter() - t) * 1e3
        if r.returncode != 0:
            raise SystemExit(f"{engine} cold worker, {q['where'][:80]}: {r.stderr.strip()[-2000:]}")
        res = json.loads(r.stdout.strip().splitlines()[-1])
        res["wall_ms"] = wall
        return res

    # cold: one untimed query per engine first (the binaries and libraries paged in), then key by
    # key every engine in turn, so that the box's load falls on all of them alike
    cold_engines = [e for e in engines if e not in kWarmOnly]
    for e in cold_engines:
        cold_one(e, keys["kinds"]["score_eq"]["warmup"][0])
    bad = 0
    for kind in kKinds:
        qs = keys["kinds"][kind]["cold"]
        log(f"cold {kind}: {len(qs)} keys x {len(cold_engines)} engines")
        for i, q in enumerate(qs):
            for e in cold_engines:
                if e == "duckdb" and i >= args.scan_keys:
                    continue
                res = cold_one(e, q)
                ok = res["rows"] == q["rows"] and res["id_sum"] == q["id_sum"]
                if not ok:
                    bad += 1
                    log(f"  {e} {kind} {q['where'][:60]}: rows {res['rows']} (id sum {res['id_sum']}), "
                        f"expected {q['rows']} ({q['id_sum']})")
                emit({"bench": "cold_lookups", "regime": "cold", "engine": e, "kind": kind, "rows_table": nrows,
                      "key": i, "expected_rows": q["rows"], "ok": ok, **res})

    # warm: one process per engine
    warm_engines = [e for e in engines if e != "lakeindex_cli"]
    for kind in kKinds:
        log(f"warm {kind}: {' '.join(warm_engines)}")
        for e in warm_engines:
            r = subprocess.run([py, me, "warm", e, targets[e], keys_path, kind], capture_output=True, text=True,
                               env=env)
            if r.returncode != 0:
                raise SystemExit(f"{e} warm worker, {kind}: {r.stderr.strip()[-2000:]}")
            lines = [json.loads(l) for l in r.stdout.strip().splitlines()]
            for l in lines[:-1]:
                if not l["ok"]:
                    bad += 1
                    log(f"  {e} warm {l['kind']} {l['set']}: rows {l['rows']} not as expected")
                emit({"bench": "cold_lookups", "regime": "warm", "engine": e, "rows_table": nrows, **l})
            emit({"bench": "cold_lookups_warm_engine", "engine": e, "rows_table": nrows, **lines[-1]})
    emit({"bench": "cold_lookups_end", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
          "load_end": os.getloadavg()})
    out.close()
    report = render(out_path)
    with open(os.path.join(data, "cold_lookups.md"), "w") as f:
        f.write(report)
    sys.stdout.write(report)
    log(f"results: {out_path}, {os.path.join(data, 'cold_lookups.md')}")
    if bad:
        raise SystemExit(f"{bad} lookups returned other rows than expected (see above)")


def fmt_ms(x):
    return "—" if x is None or x != x else (f"{x:,.1f}" if x < 100 else f"{x:,.0f}")


def fmt_us(x):
    return "—" if x is None or x != x else f"{x:,.0f}"


def fmt_bytes(x):
    if x is None or x != x:
        return "—"
    if x >= 1e6:
        return f"{x / 1e6:,.1f} MB"
    if x >= 1e3:
        return f"{x / 1e3:,.0f} KB"
    return f"{x:.0f} B"


def ratio(a, b):
    if not a or not b or a != a or b != b:
        return "—"
    r = a / b
    return f"{r:,.0f}×" if r >= 100 else f"{r:.1f}×" if r >= 1 else f"{r:.2f}×"


def render(jsonl):
    lines = [json.loads(l) for l in open(jsonl)]
    setup = next(l for l in lines if l["bench"] == "cold_lookups_setup")
    n = setup["rows"]
    size = f"{n / 1e6:g}M rows" if n >= 1e6 else f"{n:,} rows"
    cold = [l for l in lines if l.get("regime") == "cold"]
    warm = [l for l in lines if l.get("regime") == "warm"]
    engines = setup["engines"]
    end = next((l for l in lines if l["bench"] == "cold_lookups_end"), {})
    load = f"load average (1/5/15 min) {' '.join(f'{x:.1f}' for x in setup.get('load_start', []))} at the start"
    if end:
        load += f", {' '.join(f'{x:.1f}' for x in end['load_end'])} at the end"
    o = [f"Run {setup.get('date', '?')} → {end.get('date', '?')}, {load}; `{setup.get('cli', '?')}` "
         f"(checkout {setup.get('checkout', '?')}), Python {setup.get('python', '?')}.", "",
         f"Data: events, {size} ({setup['lakeindex_version']}); on-disk bytes: "
         + ", ".join(f"{k} {fmt_bytes(v)}" for k, v in setup["sizes"].items() if v) + "."
         + (f" Lance: {setup['lance']}." if setup.get("lance") else ""), ""]
    o.append(f"**Cold** ({size}; a new process per query; median (p90) over {setup['cold_keys']} keys, DuckDB "
             f"{min(setup['scan_keys'], setup['cold_keys'])}). *open+query*: in the process, from before the open "
             "to the rows in hand; *wall*: the whole process (interpreter start, imports); *read*: /proc/self/io "
             "rchar of open+query (lakeindex_cli: `explain --analyze --json` bytes_read / io_requests, "
             "in a new process too); *lazy*: modules the engine imported during open+query (their imports are in "
             "open+query's time and read); ratios of the open+query medians (CLI: of wall).")
    o.append("")
    o.append("| data | query | engine | rows | open+query ms | wall ms | import ms | read | lazy | ÷ SQLite | ÷ pylance |")
    o.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in kKinds:
        med = {}
        for e in engines:
            xs = [l for l in cold if l["engine"] == e and l["kind"] == kind]
            if xs:
                med[e] = median([l.get("open_query_ms", l["wall_ms"]) for l in xs])
        for e in engines:
            xs = [l for l in cold if l["engine"] == e and l["kind"] == kind]
            if not xs:
                continue
            rows = median([l["rows"] for l in xs])
            if e == "lakeindex_cli":
                oq = "—"
                b = [l.get("li_bytes_read") for l in xs if l.get("li_bytes_read") is not None]
                rq = [l.get("li_io_requests") for l in xs if l.get("li_io_requests") is not None]
                read = f"{fmt_bytes(median(b))}, {median(rq):.0f} req" if b else "—"
                imp = lazy = "—"
                walls = [l["wall_ms"] for l in xs]
                m = median(walls)
                rs, rl = ratio(m, med.get("sqlite")), ratio(m, med.get("lance"))
            else:
                oqs = [l["open_query_ms"] for l in xs]
                oq = f"{fmt_ms(median(oqs))} ({fmt_ms(p90(oqs))})"
                read = f"{fmt_bytes(median([l['rchar'] for l in xs]))} ({fmt_bytes(p90([l['rchar'] for l in xs]))})"
                imp = fmt_ms(median([l["start_to_import_ms"] for l in xs]))
                lazy = f"{median([l.get('lazy_modules', 0) for l in xs]):g}"
                walls = [l["wall_ms"] for l in xs]
                rs, rl = ratio(med[e], med.get("sqlite")), ratio(med[e], med.get("lance"))
            o.append(f"| {size} | {kind} | {e} | {rows:g} | {oq} | {fmt_ms(median(walls))} ({fmt_ms(p90(walls))}) | {imp} | "
                     f"{read} | {lazy} | {rs} | {rl} |")
    o.append("")
    o.append(f"**Warm** ({size}; one process per engine and query, the table opened once, 3 untimed lookups "
             f"first). *new*: {setup['warm_keys']} keys (DuckDB {min(setup['scan_keys'], setup['warm_keys'])}) never "
             "looked up before in the process, each once, timed first; *cached*: as many other keys, each looked up "
             "once untimed, then timed. Median (p90) µs a lookup; *read*: median /proc/self/io rchar a lookup (0 "
             "when a lookup found all it needed in the process's own cache); ratios of the medians.")
    o.append("")
    o.append("| data | query | engine | rows | new µs | new read | cached µs | cached read | new ÷ SQLite | "
             "new ÷ pylance | cached ÷ SQLite | cached ÷ pylance |")
    o.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in kKinds:
        med = {}
        for e in engines:
            for s in ["new", "cached"]:
                xs = [l["us"] for l in warm if l["engine"] == e and l["kind"] == kind and l["set"] == s]
                if xs:
                    med[(e, s)] = median(xs)
        for e in engines:
            xs = {s: [l for l in warm if l["engine"] == e and l["kind"] == kind and l["set"] == s]
                  for s in ["new", "cached"]}
            if not xs["new"]:
                continue
            cells = []
            for s in ["new", "cached"]:
                us = [l["us"] for l in xs[s]]
                cells.append(f"{fmt_us(median(us))} ({fmt_us(p90(us))})")
                cells.append(fmt_bytes(median([l["rchar"] for l in xs[s]])))
            rows = median([l["rows"] for l in xs["new"]])
            rat = [ratio(med.get((e, s)), med.get((peer, s))) for s in ["new", "cached"] for peer in ["sqlite", "lance"]]
            o.append(f"| {size} | {kind} | {e} | {rows:g} | {' | '.join(cells)} | {' | '.join(rat)} |")
    we = [l for l in lines if l["bench"] == "cold_lookups_warm_engine" and l.get("kind", "score_eq") == "score_eq"]
    if we:
        o.append("")
        o.append(f"Warm processes' open and first lookup (score_eq, {size}, ms): " + "; ".join(
            f"{l['engine']} open {fmt_ms(l['open_ms'])}, first {fmt_ms(l['first_query_ms'])}" for l in we) + ".")
    ok = all(l.get("ok", True) for l in cold + warm)
    o.append("")
    o.append("Every lookup of every engine returned the expected rows (count and sum of ids, computed with numpy)."
             if ok else "**Some lookups returned other rows than expected: see the JSON lines (ok: false).**")
    return "\n".join(o) + "\n"


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "one":
        worker_one(*sys.argv[2:5])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "warm":
        worker_warm(*sys.argv[2:6])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "report":
        sys.stdout.write(render(sys.argv[2]))
        return
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["run"])
    ap.add_argument("--data", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--cold-keys", type=int, default=10)
    ap.add_argument("--warm-keys", type=int, default=50)
    ap.add_argument("--scan-keys", type=int, default=5)
    ap.add_argument("--engines", default=" ".join(kAllEngines))
    driver(ap.parse_args())


if __name__ == "__main__":
    main()
