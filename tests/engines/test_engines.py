"""Real engines read every version of lakeindex tables through their Iceberg metadata, each with its
own default settings, and get exactly lakeindex's rows (issue 44).

Engines (pinned in python/requirements/main.in; the Spark jar by scripts/spark-jars.sh):
  spark      pyspark 3.5 + iceberg-spark-runtime, local mode on the loopback, no Iceberg setting
             changed: spark.read.format("iceberg").load("file:///table") (the version hint) and
             .option("snapshot-id", V) for older versions
  pyiceberg  StaticTable.from_metadata("TABLE/metadata/vN.metadata.json").scan(snapshot_id=V)
  polars     pl.scan_iceberg("TABLE/metadata/vN.metadata.json", snapshot_id=V)
  duckdb     iceberg_scan('TABLE/metadata/vN.metadata.json', snapshot_from_id => V) with the iceberg
             and avro extensions of the duckdb-ext-* wheels (duckdb_ext.init: their extension dir)

Tables of every type lakeindex can keep Iceberg metadata for (bool, int32, int64, float, double,
date before and after 1970, timestamp, timestamptz, string, binary, uuid, decimal(p,s); NULLs, NaN,
+-inf, -0.0), made and changed by the command line: create --iceberg, append, delete, index create,
layout --sort / --zorder / --hilbert / --otree, append into the OTree, delete, optimize,
vacuum --keep-versions; a second table made without Iceberg and switched on with `iceberg enable`,
and a copy of it moved with `iceberg enable --location`. timestamp_ns has no Iceberg v2 type: such a
table is refused the metadata (checked here too).

After every step each engine reads the newest version (its vN.metadata.json) and, by time travel,
every earlier version lakeindex still lists; the rows are compared with `lakeindex query --version V
--format arrow` as multisets of normalized rows (NaN = NaN, dates as days, timestamps as integer
microseconds, decimals as Decimal, uuids as UUID, binaries as bytes). Filters (uuid equality among
them: apache/iceberg#14216) are compared on the newest version of each step. Failures are collected
per (engine, table, step, version) and reported together at the end of each test; the types each
engine maps lakeindex's to are printed when the module ends.
"""

import collections
import datetime
import decimal
import json
import os
import shutil
import subprocess
import sys
import time
import unittest
import uuid
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

import util

ENGINES = ("spark", "pyiceberg", "polars", "duckdb")
SPARK = None
DUCK = None
SCRATCH = None  # Spark's warehouse dir (never written: tables are read by path)
TYPES = collections.defaultdict(lambda: collections.defaultdict(set))  # engine -> lakeindex type -> engine types
TIMES = collections.defaultdict(float)  # engine -> seconds spent reading


def run_cli(*args, check=True):
    proc = subprocess.run([util.cli(), *map(str, args)], capture_output=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"lakeindex {' '.join(map(str, args))} failed ({proc.returncode}): "
                             f"{proc.stderr.decode(errors='replace').strip()}")
    return proc


def spark_jars():
    """The Iceberg runtime jar: scripts/spark-jars.sh prints it (no network once it is cached)."""
    script = os.path.join(util.ROOT, "scripts", "spark-jars.sh")
    proc = subprocess.run([script], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"scripts/spark-jars.sh failed: {proc.stderr.strip()}")
    jars = proc.stdout.split()
    if not jars or not all(os.path.isfile(j) for j in jars):
        raise RuntimeError(f"scripts/spark-jars.sh printed no jar: {proc.stdout!r}")
    return jars


def java_found():
    home = os.environ.get("JAVA_HOME")
    return bool((home and os.access(os.path.join(home, "bin", "java"), os.X_OK)) or shutil.which("java"))


def setUpModule():
    global SPARK, DUCK, SCRATCH
    warnings.filterwarnings("ignore", message=".*polars_iceberg.*")  # Polars plans with PyIceberg
    warnings.filterwarnings("ignore", category=ResourceWarning)  # pyspark's Arrow collect leaves sockets
    if not java_found():
        raise RuntimeError("no Java: set JAVA_HOME or put java on PATH (scripts/install-deps.sh installs openjdk-17)")
    jars = spark_jars()
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # the loopback only, whatever the host name resolves to
    from pyspark.sql import SparkSession
    SCRATCH = util.Workdir()
    started = time.monotonic()
    SPARK = (SparkSession.builder.master("local[2]").appName("lakeindex-engines")
             .config("spark.jars", ",".join(jars))
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.warehouse.dir", os.path.join(SCRATCH.path, "warehouse"))
             .getOrCreate())
    SPARK.sparkContext.setLogLevel("FATAL")  # failed reads are reported by the test, not logged
    TIMES["spark (session start)"] += time.monotonic() - started
    import duckdb
    import duckdb_ext
    DUCK = duckdb_ext.init(duckdb.connect())  # extension_directory = the wheels' files, no autoinstall
    DUCK.execute("LOAD iceberg")


def tearDownModule():
    if SPARK is not None:
        SPARK.stop()
    if SCRATCH is not None:
        SCRATCH.close()
    lines = ["", "How each engine maps lakeindex's types (from the Iceberg metadata):"]
    for engine in ENGINES:
        for ltype, got in sorted(TYPES[engine].items()):
            lines.append(f"  {engine:9} {ltype:22} -> {', '.join(sorted(got))}")
    lines.append("Seconds spent reading: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(TIMES.items())))
    sys.stderr.write("\n".join(lines) + "\n")


# ----------------------------------------------------------------------------------------------
# Data

EPOCH = datetime.date(1970, 1, 1)


def make_rows(n, seed, start_id=0, with_ns=False):
    """An Arrow table of every type, `id` unique; NULLs in every column but id, x and y."""
    rng = np.random.default_rng(seed)

    def nulls(p=0.1):
        return rng.random(n) < p

    def specials(values, kinds):
        pick = rng.integers(0, 20, n)
        for k, v in enumerate(kinds):
            values[pick == k] = v
        return values

    ids = np.arange(start_id, start_id + n, dtype=np.int64)
    rng.shuffle(ids)
    i32 = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    i32[:2] = [-2**31, 2**31 - 1]
    i64 = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    i64[:2] = [-2**63, 2**63 - 1]
    f32 = specials((rng.standard_normal(n) * 1e3).astype(np.float32), [np.nan, np.inf, -np.inf, -0.0])
    dbl = specials(rng.standard_normal(n) * 1e6, [np.nan, np.inf, -np.inf, -0.0])
    days = rng.integers(-3 * 25567, 2 * 25567, n)  # about 1760 to 2110
    for j, day in enumerate([datetime.date(1, 1, 1), datetime.date(1582, 10, 4), datetime.date(1582, 10, 15),
                             datetime.date(1969, 12, 31), EPOCH, datetime.date(9999, 12, 31)]):
        days[2 + j] = (day - EPOCH).days
    ts = rng.integers(-2_208_988_800_000_000, 4_102_444_800_000_000, n)  # 1900 to 2100, in µs
    ts[2:5] = [-1, -1_000_001, 0]
    tz = rng.integers(-2_208_988_800_000_000, 4_102_444_800_000_000, n)
    tz[5] = -1
    words = ["", "a", "Zürich", "日本語", "cat_001", "x" * 300, "naïve café", "emoji 😀", "tab\tquote\"comma,"]
    cols = {
        "id": pa.array(ids, pa.int64()),
        "flag": pa.array(rng.random(n) < 0.5, pa.bool_(), mask=nulls()),
        "i32": pa.array(i32, pa.int32(), mask=nulls()),
        "i64": pa.array(i64, pa.int64(), mask=nulls()),
        "f32": pa.array(f32, pa.float32(), mask=nulls()),
        "x": pa.array(rng.random(n) * 1000, pa.float64()),
        "y": pa.array(rng.random(n) * 1000, pa.float64()),
        "dbl": pa.array(dbl, pa.float64(), mask=nulls()),
        "d": pa.array(days.astype(np.int32), pa.date32(), mask=nulls()),
        "ts": pa.array(ts, pa.timestamp("us"), mask=nulls()),
        "tz": pa.array(tz, pa.timestamp("us", tz="UTC"), mask=nulls()),
    }
    if with_ns:
        cols["ns"] = pa.array(rng.integers(-10**18, 10**18, n), pa.timestamp("ns"), mask=nulls())
    cols["s"] = pa.array([None if rng.random() < 0.1 else words[int(rng.integers(0, len(words)))] + str(int(rng.integers(0, 50)))
                          for _ in range(n)], pa.string())
    cols["b"] = pa.array([None if rng.random() < 0.1 else bytes(rng.integers(0, 256, int(rng.integers(0, 12)), dtype=np.uint8))
                          for _ in range(n)], pa.binary())
    cols["u"] = pa.ExtensionArray.from_storage(pa.uuid(), pa.array(
        [None if rng.random() < 0.1 else bytes(rng.integers(0, 256, 16, dtype=np.uint8)) for _ in range(n)], pa.binary(16)))
    cols["amt"] = pa.array([None if rng.random() < 0.1 else decimal.Decimal(int(rng.integers(-10**9, 10**9))).scaleb(-2)
                            for _ in range(n)], pa.decimal128(10, 2))
    cols["big"] = pa.array([None if rng.random() < 0.1 else decimal.Decimal(int(rng.integers(-10**17, 10**17))).scaleb(-6)
                            for _ in range(n)], pa.decimal128(18, 6))
    return pa.table(cols)


def write_arrow(table, path):
    with ipc.new_file(path, table.schema) as writer:
        writer.write_table(table)
    return path


# ----------------------------------------------------------------------------------------------
# Normalized rows

def kind_of(arrow_type):
    if isinstance(arrow_type, pa.BaseExtensionType) and arrow_type.extension_name == "arrow.uuid":
        return "uuid"
    for test, kind in ((pa.types.is_floating, "float"), (pa.types.is_timestamp, "timestamp"),
                       (pa.types.is_date, "date"), (pa.types.is_decimal, "decimal")):
        if test(arrow_type):
            return kind
    return "plain"


def norm_column(col, kind):
    """A column of any engine's Arrow output as comparable Python values."""
    t = col.type
    if pa.types.is_dictionary(t):
        col, t = col.cast(t.value_type), t.value_type
    if isinstance(t, pa.BaseExtensionType):
        col = pa.chunked_array([c.storage for c in col.chunks], t.storage_type)
        t = t.storage_type
    if pa.types.is_timestamp(t):
        per_us = {"s": None, "ms": None, "us": 1, "ns": 1000}[t.unit]
        out = []
        for v in col.cast(pa.int64()).to_pylist():
            if v is None:
                out.append(None)
            elif t.unit == "s":
                out.append(v * 1_000_000)
            elif t.unit == "ms":
                out.append(v * 1000)
            else:
                out.append(v // per_us if v % per_us == 0 else ("ns", v))
        return out
    if pa.types.is_date32(t):
        return col.cast(pa.int32()).to_pylist()
    if pa.types.is_date64(t):
        return [None if v is None else v // 86_400_000 for v in col.cast(pa.int64()).to_pylist()]
    values = col.to_pylist()
    if kind == "uuid":
        out = []
        for v in values:
            if v is None or isinstance(v, uuid.UUID):
                out.append(v)
            elif isinstance(v, (bytes, bytearray)) and len(v) == 16:
                out.append(uuid.UUID(bytes=bytes(v)))
            elif isinstance(v, str):
                out.append(uuid.UUID(v))
            else:
                out.append(("not a uuid", v))
        return out
    if pa.types.is_floating(t):
        return ["NaN" if v is not None and v != v else v for v in values]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t) or \
            str(t) == "binary_view":
        return [None if v is None else bytes(v) for v in values]
    return values


def norm_rows(table, names, kinds):
    """Rows of `table` as tuples in the order of `names` (a column it lacks is all '<missing>')."""
    cols = []
    for name in names:
        if name in table.column_names:
            cols.append(norm_column(table.column(name), kinds[name]))
        else:
            cols.append(["<missing>"] * table.num_rows)
    return list(zip(*cols)) if cols else []


def describe_diff(expected, got, names):
    """None when the multisets are equal, else what differs, matched by id."""
    if collections.Counter(expected) == collections.Counter(got):
        return None
    parts = [f"lakeindex {len(expected)} rows, engine {len(got)}"]
    if "id" not in names:
        return "; ".join(parts + ["rows differ"])
    k = names.index("id")
    want = {r[k]: r for r in expected}
    have = collections.defaultdict(list)
    for r in got:
        have[r[k]].append(r)
    missing = sorted(i for i in want if i not in have)
    extra = sorted((i for i in have if i not in want), key=repr)
    dups = sorted(i for i, rows in have.items() if len(rows) > 1 and i in want)
    if missing:
        parts.append(f"{len(missing)} rows missing (ids {missing[:5]})")
    if extra:
        parts.append(f"{len(extra)} rows not in lakeindex (ids {extra[:5]})")
    if dups:
        parts.append(f"{len(dups)} ids twice or more (ids {dups[:5]})")
    common = [i for i in want if i in have]
    for c, name in enumerate(names):
        bad = [(i, want[i][c], have[i][0][c]) for i in common if want[i][c] != have[i][0][c]]
        if bad:
            i, a, b = bad[0]
            parts.append(f"column {name}: {len(bad)} of {len(common)} values differ, e.g. id={i}: lakeindex {a!r}, engine {b!r}")
    return "; ".join(parts)


def describe_error(e):
    """Exception class and first line; for a Java exception also its root cause."""
    first = (str(e).strip().splitlines() or [""])[0][:300]
    text = f"{type(e).__name__}: {first}"
    java = getattr(e, "java_exception", None)
    if java is not None:
        try:
            root = java
            while root.getCause() is not None and root.getCause() != root:
                root = root.getCause()
            text = f"{type(e).__name__}: {(str(java.toString()).splitlines() or [''])[0][:300]}"
            if not root.equals(java):
                text += f" | root cause {(str(root.toString()).splitlines() or [''])[0][:300]}"
        except Exception:  # noqa: BLE001 - the Py4J side may be gone
            pass
    return text


# ----------------------------------------------------------------------------------------------
# Engines: each returns (arrow table, {column: engine type name})

def read_spark(table, version, newest, where=None):
    reader = SPARK.read.format("iceberg")
    if version != newest:
        reader = reader.option("snapshot-id", version)
    df = reader.load("file://" + os.path.abspath(table))
    if where is not None:
        df = df.where(where)
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    batches = df._collect_as_arrow()
    if batches:
        result = pa.Table.from_batches(batches)
    else:
        result = pa.table({name: pa.array([], pa.null()) for name in df.columns})
    return result, types


def read_pyiceberg(table, version, newest, where=None):
    from pyiceberg.table import StaticTable
    static = StaticTable.from_metadata(metadata_file(table, newest))
    kwargs = {} if version == newest else {"snapshot_id": version}
    if where is not None:
        kwargs["row_filter"] = where
    result = static.scan(**kwargs).to_arrow()
    return result, {f.name: str(f.type) for f in result.schema}


def read_polars(table, version, newest, where=None):
    import polars as pl
    frame = pl.scan_iceberg(metadata_file(table, newest), snapshot_id=None if version == newest else version)
    if where is not None:
        frame = frame.filter(where)
    df = frame.collect()
    return df.to_arrow(), {name: str(t) for name, t in df.schema.items()}


def read_duckdb(table, version, newest, where=None):
    path = metadata_file(table, newest).replace("'", "''")
    travel = "" if version == newest else f", snapshot_from_id => {int(version)}"
    rel = DUCK.sql(f"SELECT * FROM iceberg_scan('{path}'{travel})" + (f" WHERE {where}" if where else ""))
    types = {name: str(t) for name, t in zip(rel.columns, rel.types)}
    return rel.fetch_arrow_table(), types


READERS = {"spark": read_spark, "pyiceberg": read_pyiceberg, "polars": read_polars, "duckdb": read_duckdb}


# The live data files of the newest version, from each engine's own listing of the metadata (Polars
# has none): (file path, record count) pairs.

def files_spark(table):
    df = SPARK.read.format("iceberg").load("file://" + os.path.abspath(table) + "#files")
    return [(r["file_path"], r["record_count"]) for r in df.where("content = 0").select("file_path", "record_count").collect()]


def files_pyiceberg(table):
    from pyiceberg.table import StaticTable
    newest = max(int(n.split(".")[0]) for n in os.listdir(os.path.join(table, "_versions")) if n.endswith(".manifest"))
    static = StaticTable.from_metadata(metadata_file(table, newest))
    try:
        entries = static.inspect.entries().to_pylist()
    except Exception as e:  # noqa: BLE001
        # PyIceberg 0.12's metadata tables fail on every table with a uuid column, whoever wrote
        # it: pyarrow cannot build its readable_metrics' uuid extension type from Python lists.
        # The scan's plan lists the same live data files.
        import pyarrow as pa
        if not (isinstance(e, pa.ArrowNotImplementedError) and str(e) == "extension"
                and any(str(f.field_type) == "uuid" for f in static.schema().fields)):
            raise
        return [(task.file.file_path, task.file.record_count) for task in static.scan().plan_files()]
    return [(e["data_file"]["file_path"], e["data_file"]["record_count"]) for e in entries
            if e["status"] != 2 and e["data_file"]["content"] == 0]


def files_duckdb(table):
    newest = max(int(n.split(".")[0]) for n in os.listdir(os.path.join(table, "_versions")) if n.endswith(".manifest"))
    path = metadata_file(table, newest).replace("'", "''")
    return DUCK.sql(f"SELECT file_path, record_count FROM iceberg_metadata('{path}') "
                    "WHERE manifest_content = 'DATA' AND status <> 'DELETED'").fetchall()


FILE_LISTINGS = {"spark": files_spark, "pyiceberg": files_pyiceberg, "duckdb": files_duckdb}


def metadata_file(table, version):
    return os.path.join(os.path.abspath(table), "metadata", f"v{version}.metadata.json")


# ----------------------------------------------------------------------------------------------
# The filters: lakeindex's, then each engine's own way to say the same (Trino's for test_trino.py)

def make_filters(base):
    from pyiceberg import expressions as ie
    import polars as pl
    rows = base.filter(pc.and_(pc.greater_equal(base["i32"], 0), pc.greater_equal(base["x"], 100))).to_pylist()
    high = next(r["u"] for r in rows if r["u"] is not None and r["u"].bytes[0] >= 0x80)  # negative as a signed long
    low = next(r["u"] for r in rows if r["u"] is not None and r["u"].bytes[0] < 0x80)
    blob = next(r["b"] for r in rows if r["b"] is not None and len(r["b"]) >= 3)
    word = collections.Counter(v for v in base["s"].to_pylist() if v).most_common(1)[0][0]
    filters = []
    for name, u in (("uuid >= 8000...", high), ("uuid < 8000...", low)):
        filters.append(dict(name=f"u = {name}", lakeindex=f"u = '{u}'", spark=f"u = '{u}'",
                            duckdb=f"u = '{u}'::UUID", pyiceberg=ie.EqualTo("u", u),
                            polars=pl.col("u") == pl.lit(u.bytes), trino=f"u = UUID '{u}'"))
    filters += [
        dict(name="x BETWEEN 100 AND 200", lakeindex="x BETWEEN 100 AND 200", spark="x BETWEEN 100 AND 200",
             duckdb="x BETWEEN 100 AND 200",
             pyiceberg=ie.And(ie.GreaterThanOrEqual("x", 100.0), ie.LessThanOrEqual("x", 200.0)),
             polars=pl.col("x").is_between(100.0, 200.0), trino="x BETWEEN 100 AND 200"),
        dict(name="d < 1970-01-01", lakeindex="d < DATE '1970-01-01'", spark="d < DATE '1970-01-01'",
             duckdb="d < DATE '1970-01-01'", pyiceberg=ie.LessThan("d", "1970-01-01"),
             polars=pl.col("d") < datetime.date(1970, 1, 1), trino="d < DATE '1970-01-01'"),
        dict(name="ts < 1950-01-01", lakeindex="ts < TIMESTAMP '1950-01-01 00:00:00'",
             spark="ts < TIMESTAMP_NTZ '1950-01-01 00:00:00'", duckdb="ts < TIMESTAMP '1950-01-01 00:00:00'",
             pyiceberg=ie.LessThan("ts", "1950-01-01T00:00:00"),
             polars=pl.col("ts") < datetime.datetime(1950, 1, 1), trino="ts < TIMESTAMP '1950-01-01 00:00:00'"),
        dict(name="tz >= 2050-01-01+00", lakeindex="tz >= TIMESTAMPTZ '2050-01-01 00:00:00+00:00'",
             spark="tz >= TIMESTAMP '2050-01-01 00:00:00+00:00'", duckdb="tz >= TIMESTAMPTZ '2050-01-01 00:00:00+00'",
             pyiceberg=ie.GreaterThanOrEqual("tz", "2050-01-01T00:00:00+00:00"),
             polars=pl.col("tz") >= datetime.datetime(2050, 1, 1, tzinfo=datetime.timezone.utc),
             trino="tz >= TIMESTAMP '2050-01-01 00:00:00 UTC'"),
        dict(name="amt > 1000000.00", lakeindex="amt > 1000000.00", spark="amt > 1000000.00",
             duckdb="amt > 1000000.00", pyiceberg=ie.GreaterThan("amt", decimal.Decimal("1000000.00")),
             polars=pl.col("amt") > pl.lit(decimal.Decimal("1000000.00")), trino="amt > 1000000.00"),
        dict(name="s = most common", lakeindex="s = '" + word.replace("'", "''") + "'",
             spark="s = '" + word.replace("\\", "\\\\").replace("'", "\\'") + "'",
             duckdb="s = '" + word.replace("'", "''") + "'", pyiceberg=ie.EqualTo("s", word),
             polars=pl.col("s") == word, trino="s = '" + word.replace("'", "''") + "'"),
        dict(name="b = a blob", lakeindex="b = BLOB '" + "".join(f"\\x{c:02x}" for c in blob) + "'",
             spark=f"b = X'{blob.hex()}'", duckdb=f"b = from_hex('{blob.hex()}')",
             pyiceberg=ie.EqualTo("b", blob), polars=pl.col("b") == pl.lit(blob), trino=f"b = X'{blob.hex()}'"),
    ]
    weight = dict(name="_lakeindex_weight < 0.1", lakeindex="_lakeindex_weight < 0.1",
                  spark="_lakeindex_weight < 0.1", duckdb="_lakeindex_weight < 0.1",
                  pyiceberg=ie.LessThan("_lakeindex_weight", 0.1), polars=pl.col("_lakeindex_weight") < 0.1,
                  trino="_lakeindex_weight < 0.1")
    return filters, weight


# ----------------------------------------------------------------------------------------------

class Checker:
    """Reads versions with every engine and collects what differs."""

    def __init__(self, test):
        self.test = test
        self.failures = collections.defaultdict(list)  # (engine, table, step, version) -> messages
        self.expected = {}

    def fail(self, engine, table, step, version, message):
        self.failures[(engine, os.path.basename(table), step, version)].append(message)

    def manifest(self, table, version):
        with open(os.path.join(table, "_versions", f"{version:020d}.manifest")) as f:
            return json.load(f)

    def versions(self, table):
        return sorted(int(name.split(".")[0]) for name in os.listdir(os.path.join(table, "_versions"))
                      if name.endswith(".manifest"))

    def iceberg_versions(self, table):
        """The versions Iceberg readers see: those since the table started keeping Iceberg metadata
        at its present location (`iceberg enable`, or a move with --location: the history starts
        there; docs/user-guide.md)."""
        listed = self.versions(table)
        location = (self.manifest(table, listed[-1]).get("iceberg") or {}).get("location")
        out = []
        for v in reversed(listed):
            state = self.manifest(table, v).get("iceberg") or {}
            if state.get("location") != location:
                break
            out.append(v)
            if "snapshot" in state and "parent-snapshot-id" not in state["snapshot"]:
                break  # the first snapshot of this history
        return sorted(out)

    def lakeindex_rows(self, table, version, where=None):
        """lakeindex's rows of a version (the hidden weight too on an OTree), names and kinds."""
        key = (os.path.abspath(table), version, where)
        if key not in self.expected:
            manifest = self.manifest(table, version)
            names = [c["name"] for c in manifest["schema"]]  # an OTree's _lakeindex_weight too
            args = ["query", table, "--version", version, "--format", "arrow", "--select", ",".join(names)]
            if where is not None:
                args += ["--where", where]
            rows = ipc.open_stream(run_cli(*args).stdout).read_all()
            kinds = {f.name: kind_of(f.type) for f in rows.schema}
            ltypes = {c["name"]: c["type"] for c in manifest["schema"]}
            ltypes["_lakeindex_weight"] = "double (_lakeindex_weight)"
            self.expected[key] = (names, kinds, norm_rows(rows, names, kinds), ltypes)
        return self.expected[key]

    def check_metadata(self, table, step):
        """The Iceberg files name lakeindex's newest version, and every version it lists."""
        newest = self.versions(table)[-1]
        path = metadata_file(table, newest)
        if not os.path.exists(path):
            self.fail("metadata", table, step, newest, f"no {os.path.relpath(path, table)}")
            return
        with open(path) as f:
            meta = json.load(f)
        with open(os.path.join(table, "metadata", "version-hint.text")) as f:
            hint = f.read().strip()
        if hint != str(newest):
            self.fail("metadata", table, step, newest, f"version-hint.text says {hint!r}")
        if meta.get("current-snapshot-id") != newest:
            self.fail("metadata", table, step, newest, f"current-snapshot-id {meta.get('current-snapshot-id')}")
        snapshots = sorted(s["snapshot-id"] for s in meta.get("snapshots", []))
        listed = self.iceberg_versions(table)
        if snapshots != listed:
            self.fail("metadata", table, step, newest,
                      f"snapshots {snapshots} but lakeindex lists versions {listed} since Iceberg metadata began")
        location = meta.get("location", "")
        if location != "file://" + os.path.abspath(table):
            self.fail("metadata", table, step, newest, f"location {location} (the table is at {os.path.abspath(table)})")

    def read(self, engine, table, step, version, newest, where_key=None, where=None):
        names, kinds, want, ltypes = self.lakeindex_rows(table, version, where_key)
        started = time.monotonic()
        try:
            result, types = READERS[engine](table, version, newest, where)
        except Exception as e:  # noqa: BLE001 - every engine's failure is collected
            self.fail(engine, table, step, version, describe_error(e))
            return
        finally:
            TIMES[engine] += time.monotonic() - started
        for name in names:
            if name in types:
                TYPES[engine][ltypes.get(name, "?")].add(types[name])
        if list(result.column_names) != names:
            self.fail(engine, table, step, version, f"columns {result.column_names}, lakeindex {names}")
        try:
            diff = describe_diff(want, norm_rows(result, names, kinds), names)
        except Exception as e:  # noqa: BLE001 - a value no normalization knows
            diff = "values not comparable: " + describe_error(e)
        if diff:
            self.fail(engine, table, step, version, diff)

    def spark_columns(self, table, step, newest):
        """After Spark failed to read a version whole: which columns it cannot read alone."""
        bad = []
        for name in self.lakeindex_rows(table, newest)[0]:
            try:
                SPARK.read.format("iceberg").load("file://" + os.path.abspath(table)).select(name)._collect_as_arrow()
            except Exception as e:  # noqa: BLE001
                text = describe_error(e)
                encoding = text.split("with encoding ")[-1].split(".")[0] if "with encoding " in text else text
                bad.append(f"{name} ({encoding})")
        if bad:
            self.fail("spark", table, f"{step} [each column alone]", newest, "cannot read columns: " + ", ".join(bad))

    def spark_metadata(self, table, step):
        """Every Spark metadata table of the newest version reads, and says what we write: the
        manifest list's partition summaries an empty list (unpartitioned), data files in sort
        order 0, position delete files with bounds on pos (what Trino's metadata tables need)."""
        newest = self.versions(table)[-1]
        base = "file://" + os.path.abspath(table)
        names = ["snapshots", "history", "manifests", "all_manifests", "files", "data_files", "delete_files",
                 "entries", "all_entries", "all_data_files", "all_delete_files", "all_files", "partitions", "refs",
                 "metadata_log_entries", "position_deletes"]
        rows = {}
        for name in names:
            started = time.monotonic()
            try:
                rows[name] = SPARK.read.format("iceberg").load(f"{base}#{name}").collect()
            except Exception as e:  # noqa: BLE001
                self.fail("spark", table, f"{step} [#{name}]", newest, describe_error(e))
            finally:
                TIMES["spark"] += time.monotonic() - started
        for m in rows.get("manifests", []):
            if m["partition_summaries"] != []:
                self.fail("spark", table, f"{step} [#manifests]", newest, f"partition_summaries {m['partition_summaries']!r}")
        for f in rows.get("files", []):
            if f["content"] == 0 and f["sort_order_id"] != 0:
                self.fail("spark", table, f"{step} [#files]", newest, f"data file sort_order_id {f['sort_order_id']!r}")
            if f["content"] == 0:
                sizes = dict(f["column_sizes"] or {})
                if not sizes or not all(v > 0 for v in sizes.values()) or sum(sizes.values()) >= f["file_size_in_bytes"]:
                    self.fail("spark", table, f"{step} [#files]", newest,
                              f"column_sizes {sizes!r} of a {f['file_size_in_bytes']}-byte file")
            if f["content"] == 1:
                lower, upper = dict(f["lower_bounds"] or {}), dict(f["upper_bounds"] or {})
                pos = 2147483545
                if pos not in lower or pos not in upper or int.from_bytes(lower[pos], "little") > int.from_bytes(upper[pos], "little"):
                    self.fail("spark", table, f"{step} [#files]", newest, f"position delete file without pos bounds: {lower!r}")

    def check_files(self, engine, table, step, newest):
        """The engine's listing of the newest version's data files is lakeindex's."""
        root = "file://" + os.path.abspath(table) + "/"
        want = sorted((root + f["file"], f["rows"]) for f in json.loads(
            run_cli("files", table, "--version", newest, "--format", "json").stdout))
        started = time.monotonic()
        try:
            got = sorted(FILE_LISTINGS[engine](table))
        except Exception as e:  # noqa: BLE001
            self.fail(engine, table, f"{step} [data files listed]", newest, describe_error(e))
            return
        finally:
            TIMES[engine] += time.monotonic() - started
        if got != want:
            self.fail(engine, table, f"{step} [data files listed]", newest,
                      f"lists {len(got)} data files, lakeindex {len(want)}: "
                      f"not in lakeindex {sorted(set(got) - set(want))[:2]}, missing {sorted(set(want) - set(got))[:2]}")

    def step(self, table, step, filters=(), weight_filter=None):
        """Every engine reads the newest version (and the filters on it) and every older one listed."""
        self.check_metadata(table, step)
        listed = self.iceberg_versions(table)
        newest = listed[-1]
        for engine in ENGINES:
            failed_before = len(self.failures.get((engine, os.path.basename(table), step, newest), []))
            self.read(engine, table, step, newest, newest)
            failed = self.failures.get((engine, os.path.basename(table), step, newest), [])[failed_before:]
            if engine == "spark" and any("vectorized" in m for m in failed):
                self.spark_columns(table, step, newest)
            if engine in FILE_LISTINGS:
                self.check_files(engine, table, step, newest)
            todo = list(filters)
            if weight_filter is not None and (self.manifest(table, newest).get("layout") or {}).get("kind") == "otree":
                todo.append(weight_filter)
            for f in todo:
                self.read(engine, table, f"{step} [where {f['name']}]", newest, newest, f["lakeindex"], f[engine])
            for version in listed[:-1]:
                self.read(engine, table, step, version, newest)

    def report(self):
        if not self.failures:
            return None
        lines = [f"{len(self.failures)} (engine, table, step, version) reads differ from lakeindex:"]
        order = ("metadata",) + ENGINES
        order += tuple(sorted({k[0] for k in self.failures} - set(order)))  # test_trino.py's engines
        for engine in order:
            keys = [k for k in self.failures if k[0] == engine]
            if not keys:
                continue
            lines.append(f"== {engine}: {len(keys)}")
            grouped = collections.defaultdict(list)
            for k in keys:
                for message in self.failures[k]:
                    grouped[message].append(f"{k[1]}/{k[2]}@v{k[3]}")
            for message, where in grouped.items():
                lines.append(f"  {message}")
                lines.append(f"      in {len(where)} reads: {', '.join(where)}")
        return "\n".join(lines)

    def finish(self):
        text = self.report()
        if text:
            self.test.fail(text)


class Scenarios:
    """The tables an engine test takes through lakeindex's operations, each step read by the
    engines a Checker subclass knows (this file's, or test_trino.py's). Mixed into a TestCase."""

    checker = Checker

    @classmethod
    def setUpClass(cls):
        cls.dir = util.Workdir()
        cls.addClassCleanup(cls.dir.close)
        cls.base = make_rows(3000, 1)
        cls.base_file = write_arrow(cls.base, cls.dir.join("base.arrow"))
        cls.more_file = write_arrow(make_rows(800, 2, start_id=3000), cls.dir.join("more.arrow"))
        cls.into_tree_file = write_arrow(make_rows(700, 3, start_id=5000), cls.dir.join("into_tree.arrow"))
        cls.filters, cls.weight_filter = make_filters(cls.base)

    def metadata_tables(self, check, table, step):
        """After the steps that leave deletes and expired snapshots: the engine's metadata tables."""

    def test_a_table_through_every_step(self):
        check = self.checker(self)
        t = self.dir.join("typed")
        steps = [
            ("create --iceberg", ["create", t, "--from", self.base_file, "--rows-per-file", 1000, "--iceberg"]),
            ("append", ["append", t, "--from", self.more_file, "--rows-per-file", 1000]),
            ("delete", ["delete", t, "--where", "i32 < 0 AND flag"]),
            ("index create btree", ["index", "create", t, "--column", "u", "--type", "btree"]),
            ("index create zonemap", ["index", "create", t, "--column", "ts", "--type", "zonemap", "--zone-rows", 500]),
            ("layout --sort", ["layout", t, "--sort", "x,y", "--cube-rows", 500, "--rows-per-file", 1000]),
            ("layout --zorder", ["layout", t, "--zorder", "x,y", "--cube-rows", 500, "--rows-per-file", 1000]),
            ("layout --hilbert", ["layout", t, "--hilbert", "x,y", "--cube-rows", 500, "--rows-per-file", 1000]),
            ("layout --otree", ["layout", t, "--otree", "x,y", "--cube-rows", 400, "--rows-per-file", 1000]),
            ("append into the OTree", ["append", t, "--from", self.into_tree_file]),
            ("delete in the OTree", ["delete", t, "--where", "x < 100"]),
            ("optimize", ["optimize", t, "--rows-per-file", 2000]),
            ("vacuum --keep-versions 3", ["vacuum", t, "--keep-versions", 3, "--older-than", 0, "--force"]),
        ]
        for name, args in steps:
            run_cli(*args)
            check.step(t, name, self.filters, self.weight_filter)
            if name in ("delete in the OTree", "vacuum --keep-versions 3"):
                self.metadata_tables(check, t, name)
        self.assertEqual(check.versions(t), [11, 12, 13])  # the expiry is version 13
        check.finish()

    def test_iceberg_enable_and_a_moved_copy(self):
        check = self.checker(self)
        t = self.dir.join("enabled")
        run_cli("create", t, "--from", self.base_file, "--rows-per-file", 1000)
        run_cli("append", t, "--from", self.more_file, "--rows-per-file", 1000)
        run_cli("delete", t, "--where", "i32 < 0 AND flag")
        run_cli("iceberg", "enable", t)
        check.step(t, "iceberg enable", self.filters)
        run_cli("delete", t, "--where", "x >= 900")
        check.step(t, "delete after enable", self.filters)
        self.metadata_tables(check, t, "delete after enable")

        # A copy somewhere else, told its new place; the original then goes away.
        moved = self.dir.join("moved")
        shutil.copytree(t, moved)
        run_cli("iceberg", "enable", moved, "--location", "file://" + os.path.abspath(moved))
        check.step(moved, "copy + iceberg enable --location", self.filters)
        run_cli("append", moved, "--from", self.into_tree_file, "--rows-per-file", 1000)
        gone = t + ".gone"
        os.rename(t, gone)
        try:
            check.step(moved, "append on the copy, original gone", self.filters)
        finally:
            os.rename(gone, t)
        check.finish()

    def test_iceberg_enable_on_laid_out_tables(self):
        """Files written without Iceberg metadata (an OTree's and a curve's encodings, uuid bounds)
        are rewritten by `iceberg enable`, so that every engine reads them with its defaults."""
        check = self.checker(self)
        # The last: an OTree whose row groups go by region (the root cut in four, the weights with
        # page bounds).
        for kind, rows, extra in (("--otree", 400, []), ("--hilbert", 500, []),
                                  ("--otree", 1100, ["--row-groups", "regions"])):
            t = self.dir.join("laid" + kind.replace("-", "_") + "_".join(extra).replace("-", "_"))
            run_cli("create", t, "--from", self.base_file, "--rows-per-file", 1000)
            run_cli("index", "create", t, "--column", "u", "--type", "btree")
            run_cli("layout", t, kind, "x,y", "--cube-rows", rows, "--rows-per-file", 1000, *extra)
            run_cli("delete", t, "--where", "x < 100")
            run_cli("iceberg", "enable", t)
            check.step(t, f"layout {kind} + delete, then iceberg enable", self.filters, self.weight_filter)
            run_cli("append", t, "--from", self.more_file)
            check.step(t, f"layout {kind}, iceberg enable, append", self.filters, self.weight_filter)
        check.finish()

    def test_format_3_deletion_vectors(self):
        """Iceberg v3 (`--iceberg-format 3`): deletes as Puffin deletion vectors, row lineage."""
        check = self.checker(self)
        t = self.dir.join("v3")
        steps = [
            ("create --iceberg --iceberg-format 3",
             ["create", t, "--from", self.base_file, "--rows-per-file", 1000, "--iceberg", "--iceberg-format", 3]),
            ("delete", ["delete", t, "--where", "i32 < 0 AND flag"]),
            ("append", ["append", t, "--from", self.more_file, "--rows-per-file", 1000]),
            ("delete again", ["delete", t, "--where", "x >= 900"]),
            ("layout --otree", ["layout", t, "--otree", "x,y", "--cube-rows", 400, "--rows-per-file", 1000]),
            ("delete in the OTree", ["delete", t, "--where", "x < 100"]),
        ]
        for name, args in steps:
            run_cli(*args)
            check.step(t, name, self.filters, self.weight_filter)
        check.finish()


class EnginesTest(Scenarios, unittest.TestCase):
    def metadata_tables(self, check, table, step):
        check.spark_metadata(table, step)

    def test_the_engine_guide_runs_as_written(self):
        """docs/engines.md's examples (DuckDB, PyIceberg, Polars, Spark), as one program."""
        import test_docs
        util.ensure_path()
        test_docs.run_blocks(self, os.path.join("docs", "engines.md"),
                             env={"ICEBERG_SPARK_JAR": ",".join(spark_jars()), "SPARK_LOCAL_IP": "127.0.0.1"})

    def test_timestamp_ns_is_refused_iceberg_metadata(self):
        withns = write_arrow(make_rows(200, 4, with_ns=True), self.dir.join("withns.arrow"))
        t = self.dir.join("ns_iceberg")
        proc = run_cli("create", t, "--from", withns, "--iceberg", check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("'ns' is a timestamp_ns", proc.stderr.decode())
        self.assertFalse(os.path.exists(os.path.join(t, "_versions")) and os.listdir(os.path.join(t, "_versions")))
        t = self.dir.join("ns_enable")
        run_cli("create", t, "--from", withns)
        proc = run_cli("iceberg", "enable", t, check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("'ns' is a timestamp_ns", proc.stderr.decode())
        self.assertFalse(os.path.exists(os.path.join(t, "metadata", "v1.metadata.json")))
        self.assertEqual(len([n for n in os.listdir(os.path.join(t, "_versions")) if n.endswith(".manifest")]), 1)


if __name__ == "__main__":
    unittest.main()
