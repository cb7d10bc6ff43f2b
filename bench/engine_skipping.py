#!/usr/bin/env python3
"""What an unmodified engine skips on our layouts: Spark (and DuckDB, Polars) reading lakeindex
tables through their Iceberg metadata, with their default settings, beside Iceberg's own z-order.

    .venv/bin/python bench/engine_skipping.py --rows 10000000 --workdir /tmp/engine-skipping \
        --out /tmp/engine-skipping-out            (smoke: --rows 200000)

Data: `lakeindex gen --rows N --seed 42` (the events data: x, y uniform in [0, 1000), z normal,
clipped). Tables, every one `lakeindex create --iceberg --rows-per-file R` of that file (R =
N / 10, 1,000,000 at 10M), then laid out with the same `--rows-per-file R` and `--cube-rows C`
(C = N / 100: the OTree's cube rows, the comparison layouts' rows per row group):
  plain     as created (no layout)
  sort      layout --sort x,y          zorder   layout --zorder x,y
  hilbert   layout --hilbert x,y       otree    layout --otree x,y
  iceberg-zorder   the plain rows loaded by Spark into an Iceberg table (Hadoop catalog in
            WORKDIR/iceberg), then CALL cat.system.rewrite_data_files(strategy => 'sort',
            sort_order => 'zorder(x,y)', options => target-file-size-bytes = its size / 10 and
            max-file-size-bytes = 3x that, so that no file is cut into a file and a small tail):
            Iceberg's defaults otherwise (zstd, 128 MB row groups: a file is one row group)
  iceberg-zorder-rg the same with write.parquet.row-group-size-bytes set so that a row group holds
            about C rows, as ours do (for information: Iceberg's curve without its row-group size)
Tables are cached in --workdir and rebuilt when the lakeindex binary (--cli, copied to a temporary
path at start and used from there) is newer than them or the parameters changed.

Queries (the same for every table; a fixed seed): per selectivity 0.01%, 0.1%, 1%, 10%, --boxes
squares on (x, y) in probability space (bounds at the data's exact quantiles, random positions),
--boxes cubes on (x, y, z) at 0.1%, and a 1% sample: `_lakeindex_weight < 0.01` on the OTree,
`rand(42) < 0.01` elsewhere (no sample exists there: the engine reads everything). Each query
returns count(*) and a sum of hash() of all 9 columns, so every column of the matching rows is
read; the counts are checked against numpy on the generated file, `lakeindex query PLAIN --agg
"count(*)"` and `lakeindex explain TABLE --analyze` on each of our tables, and the hash sums across
the tables (any difference is printed as MISMATCH and the script exits 1).

Spark 3.5 + Iceberg 1.10 runtime (scripts/spark-jars.sh), local[2] on the loopback, settings of
tests/engines/test_engines.py (nothing of Iceberg's changed), each table loaded by path
(spark.read.format("iceberg").load("file:///...")). Per query: files = the Iceberg scan's
resultDataFiles (skippedDataFiles beside), planned bytes = its totalDataFileSize, bytes read =
the input bytes of the query's stages (Spark's status store: Hadoop FileSystem bytes read), rows
read = the scan's output rows (the rows of the row groups it did not skip; Iceberg's reader does not
use the page index), wall time. --runs rounds over all queries of a table (the first query of the
first round is cold). Row groups read are not reported by Spark: they are computed from the Parquet
footers (a row group whose min/max meet the filter, in a file whose bounds meet it) and checked
against Spark's rows read. DuckDB (iceberg_scan, extension from the duckdb-ext wheels): files =
"Total Files Read" of its profile, bytes = its total_bytes_read and the process's rchar. Polars
(scan_iceberg): rows and time only.

Writes OUT/results.json (every measurement) and OUT/report.md (the tables of bench/RESULTS.md);
`--report OUT/results.json` prints the report again; `--engines spark,duckdb,polars` picks the engines.
Not part of `make test`.
"""

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import dir_bytes  # noqa: E402

OURS = ("plain", "sort", "zorder", "hilbert", "otree")
ICEBERG = ("iceberg-zorder", "iceberg-zorder-rg")
CURVES = ("sort", "zorder", "hilbert")
USER_COLUMNS = ("id", "x", "y", "z", "score", "category", "name", "ts", "maybe")
FRACTIONS = (0.0001, 0.001, 0.01, 0.1)
SAMPLE = 0.01
QUERY_TIMEOUT_S = 900
MISMATCHES = []


def log(s):
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] engine_skipping: {s}\n")
    sys.stderr.flush()


def mismatch(s):
    MISMATCHES.append(s)
    log("MISMATCH " + "!" * 20 + " " + s)


def rchar():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    return 0


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


class Cli:
    """The lakeindex binary, copied to a temporary path (the build may be replaced under us)."""

    def __init__(self, path, tmp):
        self.source = os.path.abspath(path)
        self.path = os.path.join(tmp, "lakeindex")
        shutil.copy2(self.source, self.path)
        self.mtime = os.path.getmtime(self.source)

    def run(self, *args, timeout=3600, stderr=False):
        proc = subprocess.run([self.path, *map(str, args)], capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"lakeindex {' '.join(map(str, args))}: exit {proc.returncode}: {proc.stderr.strip()}")
        return proc.stdout + (proc.stderr if stderr else "")

    def describe(self):
        with open(self.path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:12]
        built = datetime.datetime.fromtimestamp(self.mtime, datetime.timezone.utc).isoformat(timespec="seconds")
        return f"{self.run('--version').strip()}, {self.source} built {built}, sha256 {digest}"


# ----------------------------------------------------------------------------------------------
# Tables

def fresh(stamp, params, newer_than):
    if not os.path.exists(stamp) or os.path.getmtime(stamp) < newer_than:
        return None
    with open(stamp) as f:
        got = json.load(f)
    return got if got.get("params") == params else None


def write_stamp(stamp, obj):
    with open(stamp + ".tmp", "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(stamp + ".tmp", stamp)


def metadata_json(table):
    """The newest vN.metadata.json of an Iceberg table (ours or the Hadoop catalog's)."""
    with open(os.path.join(table, "metadata", "version-hint.text")) as f:
        n = int(f.read().strip())
    return os.path.join(table, "metadata", f"v{n}.metadata.json")


def build_ours(cli, args, work):
    events = os.path.join(work, "events.parquet")
    stamps = os.path.join(work, "stamps")
    os.makedirs(stamps, exist_ok=True)
    gen_params = {"rows": args.rows, "seed": 42}
    if not fresh(os.path.join(stamps, "events.json"), gen_params, cli.mtime):
        log(f"lakeindex gen --rows {args.rows}")
        cli.run("gen", "--rows", args.rows, "--seed", 42, "--output", events)
        write_stamp(os.path.join(stamps, "events.json"), {"params": gen_params})
    built = {}
    for name in OURS:
        path = os.path.join(work, "tables", name)
        stamp = os.path.join(stamps, name + ".json")
        params = {"rows": args.rows, "rows_per_file": args.rows_per_file, "cube_rows": args.cube_rows,
                  "layout": name}
        extra = []
        if name == "otree":
            params["row_groups"] = args.otree_row_groups
            extra = ["--row-groups", args.otree_row_groups]
        got = fresh(stamp, params, max(cli.mtime, os.path.getmtime(os.path.join(stamps, "events.json"))))
        if got:
            built[name] = got
            continue
        log(f"building {name} ({args.rows:,} rows)")
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        t0 = time.perf_counter()
        cli.run("create", path, "--from", events, "--rows-per-file", args.rows_per_file, "--iceberg")
        t1 = time.perf_counter()
        out = ""
        if name != "plain":
            out = cli.run("layout", path, f"--{name}", "x,y", "--cube-rows", args.cube_rows,
                          "--rows-per-file", args.rows_per_file, *extra, stderr=True).strip()
        t2 = time.perf_counter()
        got = {"params": params, "create_s": t1 - t0, "layout_s": t2 - t1, "layout_out": out,
               "built_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
        write_stamp(stamp, got)
        built[name] = got
        log(f"{name}: create {t1 - t0:.1f} s, layout {t2 - t1:.1f} s {out}")
    return events, built


def build_iceberg(args, work, plain_stamp_mtime):
    """Iceberg's own z-order, made by Spark in a process of its own (its session has the Iceberg
    SQL extensions and a catalog, which the reading session does not)."""
    built = {}
    for name in ICEBERG:
        stamp = os.path.join(work, "stamps", name + ".json")
        params = {"rows": args.rows, "target_files": args.iceberg_files,
                  "row_group_rows": args.cube_rows if name.endswith("-rg") else None}
        got = fresh(stamp, params, plain_stamp_mtime)
        if got:
            built[name] = got
            continue
        log(f"building {name} with Spark (rewrite_data_files zorder(x,y))")
        cmd = [sys.executable, os.path.abspath(__file__), "--build-iceberg", name, "--rows", str(args.rows),
               "--workdir", work, "--iceberg-files", str(args.iceberg_files), "--cube-rows", str(args.cube_rows)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3 * 3600)
        if proc.returncode != 0:
            raise RuntimeError(f"building {name} failed:\n{proc.stderr[-5000:]}")
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        got["params"] = params
        write_stamp(stamp, got)
        built[name] = got
        log(f"{name}: {got}")
    return built


def spark_jars():
    proc = subprocess.run([os.path.join(ROOT, "scripts", "spark-jars.sh")], capture_output=True, text=True,
                          timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"scripts/spark-jars.sh failed: {proc.stderr.strip()}")
    return proc.stdout.split()


def spark_session(extra=None, jars=None):
    """A local[2] session on the loopback with `extra` settings; `jars` default to Iceberg's
    runtime (bench/qbeast/run.py gives Qbeast's and Delta's)."""
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession
    b = (SparkSession.builder.master("local[2]").appName("lakeindex-engine-skipping")
         .config("spark.jars", ",".join(spark_jars() if jars is None else jars))
         .config("spark.driver.host", "127.0.0.1")
         .config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false"))
    for k, v in (extra or {}).items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def iceberg_build_main(args):
    """--build-iceberg NAME: load the plain table's rows into an Iceberg table and z-order it."""
    work = args.workdir
    warehouse = os.path.join(work, "iceberg")
    table_dir = os.path.join(warehouse, "bench", args.build_iceberg.replace("-", "_"))
    shutil.rmtree(table_dir, ignore_errors=True)
    spark = spark_session({
        "spark.driver.memory": "6g",
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.cat": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.cat.type": "hadoop",
        "spark.sql.catalog.cat.warehouse": "file://" + warehouse,
        "spark.sql.warehouse.dir": os.path.join(work, "spark-warehouse"),
    })
    ident = "cat.bench." + args.build_iceberg.replace("-", "_")
    small_rg = args.build_iceberg.endswith("-rg")
    try:
        t0 = time.perf_counter()
        plain = spark.read.format("iceberg").load("file://" + os.path.join(work, "tables", "plain"))
        plain_rows = plain.count()
        writer = plain.writeTo(ident).using("iceberg")
        rg_bytes = None
        if small_rg:
            # Iceberg checks the open row group's (estimated) size every 100..10,000 rows; a first guess
            # from the plain files' bytes per row, then corrected by the rows per row group it made.
            plain_bytes = dir_bytes(os.path.join(work, "tables", "plain", "data"))
            rg_bytes = max(1 << 16, int(plain_bytes / plain_rows * args.cube_rows))
            writer = writer.tableProperty("write.parquet.row-group-size-bytes", str(rg_bytes))
        writer.create()
        t1 = time.perf_counter()
        attempts = []
        factor = 1.0
        for attempt in range(3):  # bounded: adjust until the file count (and row group size) is near ours
            size = spark.sql(f"SELECT sum(file_size_in_bytes) FROM {ident}.files").collect()[0][0]
            # target = size / files (the rewrite then makes `files` shuffle partitions), and a max file
            # size of 3x the target so that its writer (rolling at target + (max - target) / 2 by an
            # estimate of the open file's size) does not cut a partition into a file and a small tail.
            target = max(1, int(size // args.iceberg_files * factor))
            r = spark.sql(f"CALL cat.system.rewrite_data_files(table => '{ident[4:]}', strategy => 'sort', "
                          f"sort_order => 'zorder(x,y)', options => map('target-file-size-bytes', '{target}', "
                          f"'max-file-size-bytes', '{3 * target}', 'rewrite-all', 'true'))").collect()
            files = spark.sql(f"SELECT file_path, file_size_in_bytes FROM {ident}.files").collect()
            n = len(files)
            rg_rows = [pq.read_metadata(f[0].replace("file:", "", 1)).row_group(i).num_rows
                       for f in files for i in range(pq.read_metadata(f[0].replace("file:", "", 1)).num_row_groups)]
            med_rg = statistics.median(rg_rows)
            attempts.append({"target_file_size_bytes": target, "files": n, "row_group_bytes_property": rg_bytes,
                             "median_rows_per_row_group": med_rg, "file_sizes": sorted(f[1] for f in files),
                             "result": [str(x) for x in r]})
            ok_files = abs(n - args.iceberg_files) <= max(1, args.iceberg_files // 5)
            ok_rg = not small_rg or 0.75 <= med_rg / args.cube_rows <= 1.33
            if ok_files and ok_rg:
                break
            if not ok_files:
                factor *= n / args.iceberg_files
            if not ok_rg:
                rg_bytes = max(1 << 16, int(rg_bytes * args.cube_rows / med_rg))
                spark.sql(f"ALTER TABLE {ident} SET TBLPROPERTIES ('write.parquet.row-group-size-bytes' = '{rg_bytes}')")
        t2 = time.perf_counter()
        stats = spark.sql(f"SELECT count(*), sum(file_size_in_bytes), sum(record_count) FROM {ident}.files").collect()[0]
        out = {"path": table_dir, "load_s": t1 - t0, "rewrite_s": t2 - t1, "attempts": attempts,
               "files": stats[0], "bytes": stats[1], "rows": stats[2], "row_group_bytes_property": rg_bytes}
        print(json.dumps(out))
    finally:
        spark.stop()


def table_files(table_dir):
    """The current data files of an Iceberg table, from its metadata (PyIceberg's planner)."""
    from pyiceberg.table import StaticTable
    t = StaticTable.from_metadata(metadata_json(table_dir))
    out = []
    for task in t.scan().plan_files():
        p = task.file.file_path
        for scheme in ("file://", "file:"):  # ours write file:///..., Spark's Hadoop catalog file:/...
            if p.startswith(scheme):
                p = p[len(scheme):]
                break
        out.append(p)
    return sorted(out)


def footers(table_dir, is_otree):
    """Per data file: its row groups' rows, compressed bytes (user columns; the weight's apart) and
    min/max of the columns the queries filter, and for the OTree the cube of each row group."""
    cubes = {}
    if is_otree:
        with open(os.path.join(table_dir, "_versions", "_latest")) as f:
            v = int(f.readline().strip())  # the version, then a copy of its manifest
        with open(os.path.join(table_dir, "_versions", f"{v:020d}.manifest")) as f:
            m = json.load(f)
        frag_file = {fr["id"]: os.path.basename(fr["file"]) for fr in m["fragments"]}
        for b in m["layout"]["blocks"]:
            cubes[(frag_file[b["fragment"]], b["row_group"])] = b["cube"]
    files = []
    for path in table_files(table_dir):
        md = pq.read_metadata(path)
        names = [md.schema.column(i).name for i in range(md.num_columns)]
        rgs = []
        for i in range(md.num_row_groups):
            rg = md.row_group(i)
            rec = {"rows": rg.num_rows, "bytes": 0, "weight_bytes": 0, "min": {}, "max": {},
                   "cube": cubes.get((os.path.basename(path), i))}
            for j, name in enumerate(names):
                c = rg.column(j)
                if name == "_lakeindex_weight":
                    rec["weight_bytes"] += c.total_compressed_size
                else:
                    rec["bytes"] += c.total_compressed_size
                if name in ("x", "y", "z", "_lakeindex_weight") and c.statistics is not None and c.statistics.has_min_max:
                    rec["min"][name] = float(c.statistics.min)
                    rec["max"][name] = float(c.statistics.max)
            rgs.append(rec)
        files.append({"path": path, "size": os.path.getsize(path), "rows": md.num_rows, "row_groups": rgs})
    return files


def meets(rec, bounds):
    for col, (lo, hi, strict) in bounds.items():
        if col not in rec["min"]:
            continue  # no statistics: cannot skip
        if rec["min"][col] > hi or (strict and rec["min"][col] >= hi) or rec["max"][col] < lo:
            return False
    return True


def emulate(files, query):
    """Files and row groups an Iceberg reader keeps by min/max (files by their bounds: the union of
    their row groups', what our manifests and Iceberg's writer record), the rows and column-chunk
    bytes in them, and for the OTree the rows per cube depth."""
    bounds = query["bounds"]
    out = {"files": 0, "row_groups": 0, "rows": 0, "bytes": 0, "by_depth": {}}
    for f in files:
        rgs = f["row_groups"]
        fb = {"min": {}, "max": {}}
        for col in ("x", "y", "z", "_lakeindex_weight"):
            if all(col in r["min"] for r in rgs) and rgs:
                fb["min"][col] = min(r["min"][col] for r in rgs)
                fb["max"][col] = max(r["max"][col] for r in rgs)
        if not meets(fb, bounds):
            continue
        out["files"] += 1
        for r in rgs:
            if meets(r, bounds):
                out["row_groups"] += 1
                out["rows"] += r["rows"]
                out["bytes"] += r["bytes"] + (r["weight_bytes"] if query["kind"] == "sample" else 0)
                if r["cube"] is not None:
                    d = str(len(r["cube"]))
                    out["by_depth"][d] = out["by_depth"].get(d, 0) + r["rows"]
    return out


# ----------------------------------------------------------------------------------------------
# Queries

def make_queries(events, n_boxes, seed):
    t = pq.read_table(events, columns=["x", "y", "z"])
    cols = {c: t.column(c).to_numpy() for c in ("x", "y", "z")}
    srt = {c: np.sort(v) for c, v in cols.items()}
    n = len(cols["x"])

    def q(c, u):
        return float(srt[c][min(n - 1, max(0, int(u * n)))])

    rng = random.Random(seed)
    queries = []
    for kind, dims, fracs in (("2d", ("x", "y"), FRACTIONS), ("3d", ("x", "y", "z"), (0.001,))):
        for frac in fracs:
            side = frac ** (1 / len(dims))
            for i in range(n_boxes):
                bounds = {}
                for c in dims:
                    u0 = rng.uniform(0, 1 - side)
                    bounds[c] = (q(c, u0), q(c, u0 + side), False)
                queries.append({"id": f"{kind} {frac * 100:g}% #{i + 1}", "kind": kind, "fraction": frac,
                                "bounds": bounds})
    queries.append({"id": "sample 1%", "kind": "sample", "fraction": SAMPLE,
                    "bounds": {"_lakeindex_weight": (-math.inf, SAMPLE, True)}})
    for qq in queries:
        if qq["kind"] != "sample":
            mask = np.ones(n, dtype=bool)
            for c, (lo, hi, _) in qq["bounds"].items():
                mask &= (cols[c] >= lo) & (cols[c] <= hi)
            qq["numpy_count"] = int(mask.sum())
            qq["where"] = " AND ".join(f"{c} BETWEEN {lo!r} AND {hi!r}" for c, (lo, hi, _) in qq["bounds"].items())
        else:
            qq["where"] = f"_lakeindex_weight < {SAMPLE!r}"
    return queries, n


def lakeindex_counts(cli, tables, queries):
    """Counts from lakeindex itself: query --agg count(*) on plain, explain --analyze on every table."""
    for qq in queries:
        qq["lakeindex"] = {}
        if qq["kind"] == "sample":
            out = cli.run("query", tables["otree"], "--where", qq["where"], "--agg", "count(*)", "--format", "csv")
            qq["lakeindex_count"] = int(out.split()[1])
            sample_rows = cli.run("query", tables["otree"], "--sample", SAMPLE, "--select", "id", "--format", "csv")
            if len(sample_rows.split()) - 1 != qq["lakeindex_count"]:
                mismatch(f"{qq['id']}: query --sample {SAMPLE} returned {len(sample_rows.split()) - 1} rows, "
                         f"--where {qq['where']} {qq['lakeindex_count']}")
            names = ["otree"]
        else:
            out = cli.run("query", tables["plain"], "--where", qq["where"], "--agg", "count(*)", "--format", "csv")
            qq["lakeindex_count"] = int(out.split()[1])
            if qq["lakeindex_count"] != qq["numpy_count"]:
                mismatch(f"{qq['id']}: lakeindex on plain counts {qq['lakeindex_count']}, numpy {qq['numpy_count']} "
                         f"({qq['where']})")
            names = OURS
        for name in names:
            d = json.loads(cli.run("explain", tables[name], "--where", qq["where"], "--analyze", "--json"))
            qq["lakeindex"][name] = {k: d.get(k) for k in ("rows_returned", "rows_read", "bytes_read", "fragments_scanned",
                                                           "fragments_total", "blocks_read", "blocks_total")}
            if d.get("rows_returned") != qq["lakeindex_count"]:
                mismatch(f"{qq['id']}: lakeindex explain on {name} returns {d.get('rows_returned')}, "
                         f"query on plain {qq['lakeindex_count']}")


# ----------------------------------------------------------------------------------------------
# Spark

class SparkRunner:
    # The scan nodes whose metrics scan_metrics reads (Iceberg's; bench/qbeast/run.py reads Delta's).
    SCANS = ("BatchScanExec",)

    def __init__(self, spark=None):
        self.spark = spark or spark_session()
        self.sc = self.spark.sparkContext
        self.jsc = self.sc._jsc.sc()
        self.n = 0

    def stop(self):
        self.spark.stop()

    def scan_metrics(self, plan):
        """The metrics of the (one) scan of SCANS in an executed plan, AQE stages included."""
        found = []

        def walk(p):
            name = p.getClass().getSimpleName()
            if name == "AdaptiveSparkPlanExec":
                return walk(p.executedPlan())
            if name.endswith("QueryStageExec"):
                return walk(p.plan())
            if name in self.SCANS:
                m, it = {}, p.metrics().iterator()
                while it.hasNext():
                    kv = it.next()
                    m[kv._1()] = kv._2().value()
                found.append(m)
            ch = p.children()
            for i in range(ch.size()):
                walk(ch.apply(i))

        walk(plan)
        if len(found) != 1:
            raise RuntimeError(f"expected one {' or '.join(self.SCANS)}, found {len(found)}")
        return found[0]

    def stage_metrics(self, group):
        self.jsc.listenerBus().waitUntilEmpty(120_000)
        st = self.sc.statusTracker()
        store = self.jsc.statusStore()
        total = {"input_bytes": 0, "input_records": 0, "stages": 0}
        for job in st.getJobIdsForGroup(group):
            info = st.getJobInfo(job)
            for sid in info.stageIds:
                sd = store.lastStageAttempt(sid)
                if str(sd.status()) == "SKIPPED":
                    continue
                total["input_bytes"] += sd.inputBytes()
                total["input_records"] += sd.inputRecords()
                total["stages"] += 1
        return total

    def run(self, uri, query):
        from pyspark.sql import functions as F
        df = self.spark.read.format("iceberg").load(uri)
        if query["kind"] == "sample":
            cond = (F.col("_lakeindex_weight") < SAMPLE) if "_lakeindex_weight" in df.columns else (F.rand(42) < SAMPLE)
        else:
            cond = None
            for c, (lo, hi, _) in query["bounds"].items():
                term = F.col(c).between(lo, hi)
                cond = term if cond is None else cond & term
        q = df.filter(cond).agg(F.count(F.lit(1)).alias("n"), F.sum(F.hash(*USER_COLUMNS)).alias("h"))
        self.n += 1
        group = f"q{self.n}"
        self.sc.setJobGroup(group, query["id"], interruptOnCancel=True)
        timer = threading.Timer(QUERY_TIMEOUT_S, self.sc.cancelJobGroup, [group])
        timer.start()
        try:
            t0 = time.perf_counter()
            row = q.collect()[0]
            wall = time.perf_counter() - t0
        finally:
            timer.cancel()
        m = self.scan_metrics(q._jdf.queryExecution().executedPlan())
        s = self.stage_metrics(group)
        return {"rows": row["n"], "hash": row["h"], "wall_s": wall,
                "files": m.get("resultDataFiles"), "skipped_files": m.get("skippedDataFiles"),
                "planned_bytes": m.get("totalDataFileSize"), "rows_read": m.get("numOutputRows"),
                "splits": m.get("numSplits"), "planning_ms": m.get("totalPlanningDuration"),
                "input_bytes": s["input_bytes"], "input_records": s["input_records"], "stages": s["stages"]}


# ----------------------------------------------------------------------------------------------
# DuckDB and Polars

class DuckRunner:
    def __init__(self, tmp):
        import duckdb
        import duckdb_ext
        self.con = duckdb_ext.init(duckdb.connect())
        self.con.execute("LOAD iceberg")
        # Its cache of file contents (on by default) would make every run after the first read nothing.
        self.con.execute("SET enable_external_file_cache = false")
        self.profile = os.path.join(tmp, "duckdb-profile.json")
        self.con.execute("PRAGMA enable_profiling='json'")
        self.con.execute(f"PRAGMA profiling_output='{self.profile}'")
        self.con.execute("SET custom_profiling_settings='" + json.dumps(
            {"EXTRA_INFO": "true", "TOTAL_BYTES_READ": "true", "OPERATOR_CARDINALITY": "true",
             "OPERATOR_TIMING": "true"}) + "'")

    def run(self, meta, query, has_weight):
        if query["kind"] == "sample":
            where = query["where"] if has_weight else f"random() < {SAMPLE}"
        else:
            where = query["where"]
        sql = (f"SELECT count(*), sum(hash({', '.join(USER_COLUMNS)})) FROM iceberg_scan('{meta}') WHERE {where}")
        r0 = rchar()
        t0 = time.perf_counter()
        row = self.con.execute(sql).fetchall()[0]  # DuckDB writes the profile once the result is all read
        wall = time.perf_counter() - t0
        read = rchar() - r0
        with open(self.profile) as f:
            prof = json.load(f)
        files = []

        def walk(node):
            info = node.get("extra_info") or {}
            if "Total Files Read" in info:
                files.append(int(info["Total Files Read"]))
            for ch in node.get("children", []):
                walk(ch)

        walk(prof)
        return {"rows": row[0], "hash": str(row[1]), "wall_s": wall, "files": sum(files) if files else None,
                "bytes": prof.get("total_bytes_read"), "rchar": read}


def polars_run(meta, query, has_weight):
    os.environ.setdefault("POLARS_ICEBERG_PLANNER", "pyiceberg")  # the polars_iceberg planner is not installed
    import polars as pl
    lf = pl.scan_iceberg(meta)
    if query["kind"] == "sample":
        if not has_weight:
            return None
        cond = pl.col("_lakeindex_weight") < SAMPLE
    else:
        cond = None
        for c, (lo, hi, _) in query["bounds"].items():
            term = pl.col(c).is_between(lo, hi, closed="both")
            cond = term if cond is None else cond & term
    t0 = time.perf_counter()
    df = lf.filter(cond).select(list(USER_COLUMNS)).collect()
    return {"rows": df.height, "wall_s": time.perf_counter() - t0}


# ----------------------------------------------------------------------------------------------
# Report

def fmt_int(x):
    return "–" if x is None else f"{int(round(x)):,}"


def fmt_mb(b, digits=1):
    return "–" if b is None else f"{b / 1e6:,.{digits}f}"


def group_of(q):
    if q["kind"] == "2d":
        return f"2-D {q['fraction'] * 100:g}%"
    if q["kind"] == "3d":
        return f"3-D {q['fraction'] * 100:g}%"
    return "1% sample"


def report(res):
    lines = []
    w = lines.append
    meta = res["meta"]
    m = meta
    w(f"Command: `{m['command']}`; {m['start']} → {m['end']} ({m['total_s'] / 60:.0f} min in all, the "
      f"tables' builds included when not cached); lakeindex {m.get('lakeindex', '?')}; git {m['git']}; "
      f"machine: {m['machine']}; load average at start {' '.join(f'{x:.2f}' for x in m['load_start'])}, at end "
      f"{' '.join(f'{x:.2f}' for x in m['load_end'])}.")
    w("")
    if res.get("mismatches"):
        w("**MISMATCHES:**")
        w("")
        for s in res["mismatches"]:
            w(f"* {s}")
        w("")
    names = [n for n in OURS + ICEBERG if n in res["tables"]]
    groups = []
    for q in res["queries"]:
        if group_of(q) not in groups:
            groups.append(group_of(q))
    rows = meta["rows"]

    def spark_of(name, q):
        return res["spark"].get(name, {}).get(q["id"])

    def med(name, g, key, src="spark"):
        vals = []
        for q in res["queries"]:
            if group_of(q) == g:
                r = res[src].get(name, {}).get(q["id"])
                if r is not None and r.get(key) is not None:
                    vals.append(r[key])
        return median(vals)

    def group_table(cell, tables=None):
        """A table of one row per table, one cell per query group."""
        w("| table | " + " | ".join(groups) + " |")
        w("|---|" + "---|" * len(groups))
        for name in tables or names:
            w(f"| {name} | " + " | ".join(cell(name, g) for g in groups) + " |")
        w("")

    w(f"Data: events, {rows:,} rows (seed 42); {meta['boxes']} boxes per selectivity (seed {meta['seed']}); "
      f"{meta['runs']} runs per query (rounds over a table's queries).")
    w("")
    w(f"### The tables ({rows:,} rows each)")
    w("")
    w("| table | made by | files | row groups | rows per row group (median) | MB (data files) | "
      "MB per file (min–max) | build s (create + layout; Spark: load + rewrite) |")
    w("|---|---|---|---|---|---|---|---|")
    for name in names:
        t = res["tables"][name]
        rgs = [r["rows"] for f in t["footers"] for r in f["row_groups"]]
        sizes = [f["size"] for f in t["footers"]]
        b = t.get("build", {})
        build_s = b.get("create_s", 0) + b.get("layout_s", 0) + b.get("load_s", 0) + b.get("rewrite_s", 0)
        how = t.get("how", "")
        w(f"| {name} | {how} | {len(t['footers'])} | {len(rgs):,} | {fmt_int(median(rgs))} | "
          f"{fmt_mb(sum(sizes))} | {fmt_mb(min(sizes))}–{fmt_mb(max(sizes))} | {build_s:.1f} |")
    w("")
    for name in names:
        out = res["tables"][name].get("build", {}).get("layout_out", "")
        if out:
            w(f"{name}: `{out.splitlines()[-1]}`")
            w("")
    w(f"### Spark: files · MB read per query ({rows:,} rows; median over the {meta['boxes']} boxes of each kind)")
    w("")
    w("MB = Spark's input bytes of the query's stages (Hadoop FileSystem bytes read: the footers and the "
      "column chunks of every row group not skipped). Files = the Iceberg scan's resultDataFiles.")
    w("")
    def files_and_mb(name, g):
        f, b = med(name, g, "files"), med(name, g, "input_bytes")
        return "–" if f is None else f"{f:g} · {fmt_mb(b, 2)}"
    group_table(files_and_mb)
    w(f"### Spark: MB in the files kept ({rows:,} rows; the scan's totalDataFileSize: file pruning alone, "
      "medians over the boxes)")
    w("")
    group_table(lambda name, g: fmt_mb(med(name, g, "planned_bytes"), 2))
    w(f"### Spark: rows read ÷ rows returned, row groups read ({rows:,} rows; medians over the boxes)")
    w("")
    w("Rows read = the Iceberg scan's output rows (every row of the row groups read). Row groups read = from the "
      "Parquet footers (min/max meeting the box, in files whose bounds meet it); the rows of those row groups "
      "equal Spark's rows read on every query (checked).")
    w("")
    def amplification(name, g):
        amp, rgs = [], []
        for q in res["queries"]:
            r = spark_of(name, q) if group_of(q) == g else None
            if r is not None:
                amp.append(r["rows_read"] / max(1, r["rows"]))
                rgs.append(res["emulated"][name][q["id"]]["row_groups"])
        return "–" if not amp else f"{median(amp):,.1f}× · {median(rgs):g} rg"
    group_table(amplification)
    rows_ret = {g: median([q["lakeindex_count"] for q in res["queries"] if group_of(q) == g]) for g in groups}
    w("Rows returned (median): " + ", ".join(f"{g} {fmt_int(rows_ret[g])}" for g in groups) + ".")
    w("")

    # Ratios per box
    w(f"### OTree ÷ best of sort, Z-order, Hilbert; OTree ÷ Iceberg's z-order (Spark bytes read, {rows:,} rows)")
    w("")
    w("| query | rows returned | OTree MB | best curve (MB) | OTree ÷ best | Iceberg z-order MB | OTree ÷ Iceberg z | "
      "Iceberg z, small row groups MB | OTree ÷ it |")
    w("|---|---|---|---|---|---|---|---|---|")
    for q in res["queries"]:
        if q["kind"] == "sample":
            continue
        o = spark_of("otree", q)
        if o is None:
            continue
        best = min(((spark_of(n, q)["input_bytes"], n) for n in CURVES if spark_of(n, q)), default=(None, None))
        ice = spark_of("iceberg-zorder", q)
        ice2 = spark_of("iceberg-zorder-rg", q)
        w(f"| {q['id']} | {o['rows']:,} | {fmt_mb(o['input_bytes'], 2)} | {best[1]} ({fmt_mb(best[0], 2)}) | "
          f"{o['input_bytes'] / best[0]:.2f} | {fmt_mb(ice and ice['input_bytes'], 2)} | "
          f"{(o['input_bytes'] / ice['input_bytes']) if ice else float('nan'):.2f} | "
          f"{fmt_mb(ice2 and ice2['input_bytes'], 2)} | "
          f"{(o['input_bytes'] / ice2['input_bytes']) if ice2 else float('nan'):.2f} |")
    w("")

    # Goals
    w("### Goals")
    w("")
    w("| goal | measured | verdict |")
    w("|---|---|---|")
    for frac, limit in ((0.0001, 2), (0.001, 2), (0.01, 2), (0.1, 1.2)):
        ratios = []
        for q in res["queries"]:
            if q["kind"] == "2d" and q["fraction"] == frac and spark_of("otree", q):
                best = min(spark_of(n, q)["input_bytes"] for n in CURVES)
                ratios.append(spark_of("otree", q)["input_bytes"] / best)
        if ratios:
            ok = all(r <= limit for r in ratios)
            w(f"| 2-D {frac * 100:g}%: OTree bytes ≤ {limit}× best of sort/Z/Hilbert, every box | "
              f"{', '.join(f'{r:.2f}' for r in ratios)} | **{'met' if ok else 'not met'}** |")
    for ice_name in ICEBERG:
        ratios = []
        for q in res["queries"]:
            if q["kind"] != "sample" and spark_of("otree", q) and spark_of(ice_name, q):
                ratios.append(spark_of("otree", q)["input_bytes"] / spark_of(ice_name, q)["input_bytes"])
        if ratios:
            ok = all(r < 1 for r in ratios)
            label = "Iceberg's z-order" if ice_name == "iceberg-zorder" else "(for information) Iceberg's z-order with our row-group size"
            w(f"| OTree fewer bytes than {label}, every box | OTree ÷ it: {min(ratios):.2f}–{max(ratios):.2f} "
              f"({sum(r < 1 for r in ratios)} of {len(ratios)} below 1) | **{'met' if ok else 'not met'}** |")
    sq = [q for q in res["queries"] if q["kind"] == "sample"]
    if sq and spark_of("otree", sq[0]):
        o = spark_of("otree", sq[0])
        total = sum(f["size"] for f in res["tables"]["otree"]["footers"])
        share = o["input_bytes"] / total
        w(f"| OTree 1% weight sample ≤ 3% of the table's bytes | {fmt_mb(o['input_bytes'], 2)} MB of "
          f"{fmt_mb(total)} MB = {share * 100:.2f}% | **{'met' if share <= 0.03 else 'not met'}** |")
    w("")

    # OTree reads by depth
    if "otree" in res["emulated"]:
        w(f"### What the OTree boxes read in Spark, by cube depth ({rows:,} rows; rows of the row groups read, "
          "median over the boxes)")
        w("")
        depths = sorted({d for q in res["queries"] for d in res["emulated"]["otree"][q["id"]]["by_depth"]}, key=int)
        w("| query | files | row groups | " + " | ".join(f"depth {d}" for d in depths) + " | rows read | rows returned |")
        w("|---|---|---|" + "---|" * len(depths) + "---|---|")
        for g in groups:
            qs = [q for q in res["queries"] if group_of(q) == g]
            em = [res["emulated"]["otree"][q["id"]] for q in qs]
            cells = [fmt_int(median([e["by_depth"].get(d, 0) for e in em])) for d in depths]
            w(f"| {g} | {median([e['files'] for e in em]):g} | {median([e['row_groups'] for e in em]):g} | "
              + " | ".join(cells) + f" | {fmt_int(median([e['rows'] for e in em]))} | "
              f"{fmt_int(median([q['lakeindex_count'] for q in qs]))} |")
        w("")
        if "otree_files" in res:
            w("OTree files (head cube = the shallowest cube of the file; bounds = share of the (x, y) plane its "
              "bounding box covers):")
            w("")
            w("| file | head cube (depth) | cubes | rows | row groups | MB | bounds: share of the plane |")
            w("|---|---|---|---|---|---|---|")
            for i, f in enumerate(res["otree_files"]):
                w(f"| {i + 1} | '{f['head']}' ({len(f['head'])}) | {f['cubes']} | {f['rows']:,} | {f['row_groups']} | "
                  f"{fmt_mb(f['size'])} | {f['area'] * 100:.1f}% |")
            w("")

    # lakeindex itself, for reference
    w(f"### For reference: lakeindex itself on the same boxes (MB read, `explain --analyze`; {rows:,} rows; "
      "medians over the boxes)")
    w("")
    def ours(name, g):
        vals = [q["lakeindex"][name]["bytes_read"] for q in res["queries"] if group_of(q) == g and name in q["lakeindex"]]
        return fmt_mb(median(vals), 2) if vals else "–"
    group_table(ours, OURS)

    if res.get("duckdb"):
        w(f"### DuckDB iceberg_scan: files · MB read ({rows:,} rows; medians over the boxes)")
        w("")
        w("Files = \"Total Files Read\" of its profile; MB = bytes the process read (/proc/self/io rchar) less "
          "those of a query no file meets on the same table (the Iceberg metadata and manifests, "
          + ", ".join(f"{name} {fmt_mb(res['duckdb'][name]['_baseline_rchar'], 2)}" for name in names
                      if name in res["duckdb"]) + " MB). Its external file cache is off (every run reads).")
        w("")
        def duck(name, g):
            f, b = med(name, g, "files", "duckdb"), med(name, g, "data_bytes", "duckdb")
            return "–" if f is None else f"{f:g} · {fmt_mb(b, 2)}"
        group_table(duck)

    # Wall times
    w(f"### Wall times, ms ({rows:,} rows; per query the median of its runs, then the median over the boxes; "
      "noisy: other jobs ran on the machine)")
    w("")
    engines = [("spark", "Spark")] + ([("duckdb", "DuckDB")] if res.get("duckdb") else []) + \
        ([("polars", "Polars")] if res.get("polars") else [])
    if res.get("spark"):
        w(f"Spark, seconds per round over a table's {len(res['queries'])} queries (round 1 first: the session's "
          "very first queries were plain's, cold):")
        w("")
        w("| table | " + " | ".join(f"round {i + 1}" for i in range(meta["runs"])) + " |")
        w("|---|" + "---|" * meta["runs"])
        for name in names:
            if name in res["spark"]:
                sums = [sum(r["walls"][i] for r in res["spark"][name].values()) for i in range(meta["runs"])]
                w(f"| {name} | " + " | ".join(f"{x:.1f}" for x in sums) + " |")
        w("")
    w("| engine | table | " + " | ".join(groups) + " |")
    w("|---|---|" + "---|" * len(groups))
    for src, label in engines:
        for name in names:
            cells = [("–" if med(name, g, "wall_s", src) is None else f"{med(name, g, 'wall_s', src) * 1000:,.0f}")
                     for g in groups]
            w(f"| {label} | {name} | " + " | ".join(cells) + " |")
    w("")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------

def otree_files(files):
    """Per OTree data file: its head cube (the shallowest), cubes, rows, row groups, bytes, and the
    share of the (x, y) plane its bounding box covers."""
    lo = {c: min(r["min"][c] for f in files for r in f["row_groups"]) for c in ("x", "y")}
    hi = {c: max(r["max"][c] for f in files for r in f["row_groups"]) for c in ("x", "y")}
    out = []
    for f in files:
        cubes = {r["cube"] for r in f["row_groups"] if r["cube"] is not None}
        head = min(cubes, key=len) if cubes else "?"
        area = 1.0
        for c in ("x", "y"):
            fl = min(r["min"][c] for r in f["row_groups"])
            fh = max(r["max"][c] for r in f["row_groups"])
            area *= (fh - fl) / (hi[c] - lo[c])
        out.append({"head": head, "cubes": len(cubes), "rows": f["rows"], "row_groups": len(f["row_groups"]),
                    "size": f["size"], "area": area})
    out.sort(key=lambda f: (len(f["head"]), f["head"]))
    return out


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / 1024 / 1024
    except OSError:
        mem = 0
    return f"{os.cpu_count()} cores, {model}, {mem:.1f} GiB RAM, {platform.system()} {platform.release()}"


def git_rev():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src", "include", "CMakeLists.txt"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
        return rev + (" (the working tree had uncommitted changes under src/ or include/)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--workdir", default=None, help="cache of the data and tables (default /tmp/engine-skipping-ROWS)")
    ap.add_argument("--out", default=None, help="directory for results.json and report.md")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "lakeindex"))
    ap.add_argument("--rows-per-file", type=int, default=None, help="default rows / 10")
    ap.add_argument("--cube-rows", type=int, default=None, help="default rows / 100")
    ap.add_argument("--iceberg-files", type=int, default=10, help="file count Iceberg's z-order aims at")
    ap.add_argument("--otree-row-groups", default="regions", choices=("slices", "regions"),
                    help="the OTree's layout --row-groups (regions: the default of a table with Iceberg metadata)")
    ap.add_argument("--boxes", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tables", default=",".join(OURS + ICEBERG))
    ap.add_argument("--engines", default="spark,duckdb,polars")
    ap.add_argument("--report", default=None, metavar="RESULTS_JSON", help="only write the report of a results.json")
    ap.add_argument("--build-iceberg", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.report:
        with open(args.report) as f:
            sys.stdout.write(report(json.load(f)))
        return 0
    args.rows_per_file = args.rows_per_file or max(1, args.rows // 10)
    args.cube_rows = args.cube_rows or max(100, args.rows // 100)
    args.workdir = os.path.abspath(args.workdir or f"/tmp/engine-skipping-{args.rows}")
    if args.build_iceberg:
        return iceberg_build_main(args)
    args.out = os.path.abspath(args.out or os.path.join(args.workdir, "out"))
    os.makedirs(args.workdir, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    wanted = args.tables.split(",")
    started = time.time()
    start_iso = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    load_start = os.getloadavg()
    tmp = tempfile.mkdtemp(prefix="engine-skipping-")
    try:
        cli = Cli(args.cli, tmp)
        log(f"lakeindex {cli.run('--version').strip()} (copied from {cli.source}); workdir {args.workdir}")
        events, built = build_ours(cli, args, args.workdir)
        tables = {n: os.path.join(args.workdir, "tables", n) for n in OURS}
        plain_stamp = os.path.getmtime(os.path.join(args.workdir, "stamps", "plain.json"))
        ice = build_iceberg(args, args.workdir, plain_stamp) if any(n in wanted for n in ICEBERG) else {}
        for n in ice:
            tables[n] = ice[n]["path"]
        res = {"meta": {"rows": args.rows, "rows_per_file": args.rows_per_file, "cube_rows": args.cube_rows,
                        "boxes": args.boxes, "runs": args.runs, "seed": args.seed, "machine": machine(),
                        "git": git_rev(), "cli": cli.source, "command": " ".join([".venv/bin/python"] + sys.argv),
                        "start": start_iso, "lakeindex": cli.describe(),
                        "load_start": load_start},
               "tables": {}, "spark": {}, "duckdb": {}, "polars": {}, "emulated": {}}
        hows = {"plain": f"create --iceberg --rows-per-file {args.rows_per_file:,}"}
        for n in ("sort", "zorder", "hilbert", "otree"):
            hows[n] = f"+ layout --{n} x,y --cube-rows {args.cube_rows:,} --rows-per-file {args.rows_per_file:,}"
        hows["iceberg-zorder"] = "Spark: rewrite_data_files zorder(x,y), Iceberg defaults"
        hows["iceberg-zorder-rg"] = "the same, row groups of ~C rows"
        for n in [n for n in OURS + ICEBERG if n in tables and n in wanted]:
            info = built.get(n) or ice.get(n) or {}
            build_s = info.get("layout_s", 0) or info.get("rewrite_s", 0)
            res["tables"][n] = {"path": tables[n], "how": hows[n], "build_s": build_s, "build": info,
                                "footers": footers(tables[n], n == "otree")}
        if "otree" in res["tables"]:
            res["otree_files"] = otree_files(res["tables"]["otree"]["footers"])

        queries, n = make_queries(events, args.boxes, args.seed)
        assert n == args.rows
        res["queries"] = queries
        log(f"{len(queries)} queries; lakeindex counts")
        lakeindex_counts(cli, tables, queries)
        for name in res["tables"]:
            res["emulated"][name] = {q["id"]: emulate(res["tables"][name]["footers"], q) if
                                     (q["kind"] != "sample" or name == "otree") else
                                     emulate(res["tables"][name]["footers"], dict(q, bounds={}))
                                     for q in queries}

        # Spark
        engines = args.engines.split(",")
        sp = SparkRunner() if "spark" in engines else None
        try:
            for name in (res["tables"] if sp else []):
                uri = "file://" + tables[name]
                runs = {q["id"]: [] for q in queries}
                for rnd in range(args.runs):
                    t0 = time.perf_counter()
                    for q in queries:
                        runs[q["id"]].append(sp.run(uri, q))
                    log(f"spark {name} round {rnd + 1}: {time.perf_counter() - t0:.1f} s")
                out = {}
                for q in queries:
                    rs = runs[q["id"]]
                    r = dict(rs[-1])
                    r["wall_s"] = median([x["wall_s"] for x in rs])
                    r["walls"] = [x["wall_s"] for x in rs]
                    for key in ("files", "input_bytes", "rows_read"):
                        vals = {x[key] for x in rs}
                        if len(vals) > 1:
                            log(f"note: {name} {q['id']}: {key} differs between runs: {sorted(vals)}")
                        r[key + "_runs"] = [x[key] for x in rs]
                    r["input_bytes"] = median([x["input_bytes"] for x in rs])
                    out[q["id"]] = r
                    em = res["emulated"][name][q["id"]]
                    if q["kind"] != "sample" or name == "otree":
                        if r["rows"] != q["lakeindex_count"]:
                            mismatch(f"Spark on {name}, {q['id']}: {r['rows']} rows, lakeindex {q['lakeindex_count']}")
                    if r["rows_read"] != em["rows"]:
                        log(f"note: {name} {q['id']}: Spark read {r['rows_read']} rows, the footers say "
                            f"{em['rows']} (row groups {em['row_groups']})")
                    if r["files"] != em["files"]:
                        log(f"note: {name} {q['id']}: Spark kept {r['files']} files, the footers' bounds {em['files']}")
                res["spark"][name] = out
                with open(os.path.join(args.out, "results.json"), "w") as f:
                    json.dump(res, f, indent=1, default=str)
        finally:
            if sp:
                sp.stop()
        for q in (queries if sp else []):
            if q["kind"] == "sample":
                continue
            hashes = {name: res["spark"][name][q["id"]]["hash"] for name in res["spark"]}
            if len(set(hashes.values())) > 1:
                mismatch(f"Spark hash sums differ on {q['id']}: {hashes}")

        # DuckDB
        if "duckdb" in engines:
            log("DuckDB")
            dk = DuckRunner(tmp)
            for name in res["tables"]:
                meta = metadata_json(tables[name])
                has_w = name == "otree"
                out = {}
                runs = {q["id"]: [] for q in queries}
                # A box no file meets: what the process reads besides data files (metadata, manifests).
                empty = {"id": "empty", "kind": "2d", "where": "x < -1e300"}
                base = []
                for rnd in range(args.runs):
                    base.append(dk.run(meta, empty, has_w))
                    if base[-1]["files"] not in (0, None) or base[-1]["rows"] != 0:
                        log(f"note: duckdb {name}: the empty query read {base[-1]['files']} files")
                    for q in queries:
                        runs[q["id"]].append(dk.run(meta, q, has_w))
                baseline = median([x["rchar"] for x in base])
                out["_baseline_rchar"] = baseline
                for q in queries:
                    rs = runs[q["id"]]
                    r = dict(rs[-1])
                    r["wall_s"] = median([x["wall_s"] for x in rs])
                    r["profile_bytes"] = median([x["bytes"] for x in rs if x["bytes"] is not None])
                    r["rchar"] = median([x["rchar"] for x in rs])
                    r["data_bytes"] = r["rchar"] - baseline
                    out[q["id"]] = r
                    if (q["kind"] != "sample" or has_w) and r["rows"] != q["lakeindex_count"]:
                        mismatch(f"DuckDB on {name}, {q['id']}: {r['rows']} rows, lakeindex {q['lakeindex_count']}")
                res["duckdb"][name] = out
                log(f"duckdb {name} done")
            for q in queries:
                if q["kind"] != "sample":
                    hashes = {name: res["duckdb"][name][q["id"]]["hash"] for name in res["duckdb"]}
                    if len(set(hashes.values())) > 1:
                        mismatch(f"DuckDB hash sums differ on {q['id']}: {hashes}")

        # Polars
        if "polars" in engines:
            log("Polars")
            for name in res["tables"]:
                meta = metadata_json(tables[name])
                has_w = name == "otree"
                runs = {q["id"]: [] for q in queries}
                for rnd in range(args.runs):
                    for q in queries:
                        r = polars_run(meta, q, has_w)
                        if r is not None:
                            runs[q["id"]].append(r)
                out = {}
                for q in queries:
                    rs = runs[q["id"]]
                    if not rs:
                        continue
                    out[q["id"]] = {"rows": rs[-1]["rows"], "wall_s": median([x["wall_s"] for x in rs]),
                                    "walls": [x["wall_s"] for x in rs]}
                    if out[q["id"]]["rows"] != q["lakeindex_count"]:
                        mismatch(f"Polars on {name}, {q['id']}: {out[q['id']]['rows']} rows, "
                                 f"lakeindex {q['lakeindex_count']}")
                res["polars"][name] = out
                log(f"polars {name} done")

        res["meta"]["end"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        res["meta"]["load_end"] = os.getloadavg()
        res["meta"]["total_s"] = time.time() - started
        res["mismatches"] = MISMATCHES
        for t in res["tables"].values():
            t["bytes_on_disk"] = dir_bytes(t["path"])
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump(res, f, indent=1, default=str)
        text = report(res)
        with open(os.path.join(args.out, "report.md"), "w") as f:
            f.write(text)
        sys.stdout.write(text)
        log(f"done in {(time.time() - started) / 60:.1f} min; {args.out}/report.md, results.json")
        if MISMATCHES:
            log(f"{len(MISMATCHES)} MISMATCHES (see above)")
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
