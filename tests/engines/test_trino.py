"""Trino reads every version of lakeindex tables through their Iceberg metadata and gets exactly
lakeindex's rows: test_engines.py's check with one more engine, opt-in (`make test-trino`) since
Trino's server is ~800 MB and needs Java >= 24.

scripts/trino.sh fetches io.trino:trino-server and trino-cli 476 from Maven Central (pinned SHA-1s,
cached in .cache/trino) and names a Java >= 24. ONE server runs for the whole module, in a temporary
directory, on a free port of 127.0.0.1 only, with only the Iceberg plugin, a 2 GB heap and 1 GB of
query memory; it is stopped (its process group killed) when the module ends, whatever happened.
Its one catalog, `iceberg`, keeps tables in a file metastore (iceberg.catalog.type =
TESTING_FILE_METASTORE) and reads file:// paths through Trino's native local file system
(fs.native-local.enabled, local.location = /). Queries go to the server's HTTP API (/v1/statement,
urllib, timestamps at their full precision: PARAMETRIC_DATETIME); the trino-cli jar checks the
server once at the start (and is there to look at the server by hand).

The lakeindex command line is copied once (LAKEINDEX_CLI, default build/lakeindex) so that a
rebuild while the test runs changes nothing under it. The tables are test_engines.py's: one of every
type through create --iceberg, append, delete, index create, layout --sort / --zorder / --hilbert /
--otree, append into the OTree, delete, optimize, vacuum; one made without Iceberg and switched on
with `iceberg enable` (and a copy moved with --location); tables laid out (--otree, --hilbert)
before `iceberg enable`. After every step the table's newest vN.metadata.json is registered
(`CALL iceberg.system.register_table(...)`, a new name per version; a version seen again would be
unregistered and registered again — lakeindex never rewrites a metadata file, and `vacuum
--keep-versions` commits a version of its own — with Trino's default settings: its in-memory cache
of metadata files on) and Trino
  - reads the newest version, and every older one lakeindex lists by `FOR VERSION AS OF BIGINT 'V'`,
    compared with `lakeindex query --version V --format arrow` (test_engines.Checker: multisets of
    normalized rows, type-aware);
  - runs test_engines.py's filters on the newest version (uuid equality, x BETWEEN, dates,
    timestamps, decimals, strings, binaries; `_lakeindex_weight < 0.1` on an OTree);
  - lists the newest version's data files ($files, content = 0) as `lakeindex files` does;
  - queries the metadata tables ($snapshots, $history, $manifests, $all_manifests, $files,
    $entries, $all_entries, $partitions, $refs, $properties, $metadata_log_entries): an error is a
    failure (Trino's Java exception, message and root cause), and $snapshots / $history / $refs
    must name lakeindex's versions.
Failures are collected and reported together at the end of each test (engine "trino" for reads,
"trino $tables" for the metadata tables); when the module ends it prints which metadata tables
Trino read, the first frames of each distinct Java exception, the types Trino maps lakeindex's to,
and the time spent.

  LAKEINDEX_TRINO_LOG=FILE   copy the server's log there when the module ends
"""

import atexit
import base64
import collections
import datetime
import decimal
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.request

import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_engines as te  # noqa: E402 - its data, normalization and Checker
import util  # noqa: E402

SCHEMA = "s"
METADATA_TABLES = ("snapshots", "history", "manifests", "all_manifests", "files", "entries", "all_entries",
                   "partitions", "refs", "properties", "metadata_log_entries")
SERVER = None
WORK = None
STARTED = time.monotonic()
TIMES = collections.defaultdict(float)  # phase -> seconds
JAVA_ERRORS = {}  # the first line of a failure -> its exception chain and first stack frames
META = collections.defaultdict(lambda: {"ok": [], "failed": collections.defaultdict(list)})  # $table -> results


# ----------------------------------------------------------------------------------------------
# The server

def trino_paths():
    """scripts/trino.sh's TRINO_SERVER, TRINO_CLI and TRINO_JAVA_HOME (no network once cached)."""
    script = os.path.join(util.ROOT, "scripts", "trino.sh")
    proc = subprocess.run([script], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"scripts/trino.sh failed: {proc.stderr.strip()}")
    paths = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    for key in ("TRINO_SERVER", "TRINO_CLI", "TRINO_JAVA_HOME"):
        if not paths.get(key) or not os.path.exists(paths[key]):
            raise RuntimeError(f"scripts/trino.sh printed no {key}: {proc.stdout!r}")
    return paths


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_cli(dest, wait=600):
    """A private copy of the lakeindex binary, taken while it is not being rebuilt: the file is
    the same before and after the copy, and the copy runs."""
    src = util.cli()
    deadline = time.monotonic() + wait
    while True:
        try:
            before = os.stat(src)
            shutil.copyfile(src, dest)
            after = os.stat(src)
            if (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns):
                raise OSError(f"{src} changed while it was copied")
            os.chmod(dest, os.stat(dest).st_mode | stat.S_IXUSR)
            subprocess.run([dest, "--version"], check=True, capture_output=True, timeout=60)
            return dest
        except (OSError, subprocess.SubprocessError) as e:
            if time.monotonic() > deadline:
                raise RuntimeError(f"cannot take a working copy of {src} in {wait} s: {e}") from e
            time.sleep(5)


class TrinoError(Exception):
    """A query Trino failed: its error name, the Java exception chain and the first frames."""

    def __init__(self, sql, error):
        self.error = error
        info = error.get("failureInfo") or {}
        chain = []
        while info:
            chain.append(info)
            info = info.get("cause")
        top = f"{chain[0]['type']}: {chain[0].get('message')}" if chain else error.get("message", "?")
        text = f"{error.get('errorName', '?')}: {top}"
        if len(chain) > 1:
            root = chain[-1]
            text += f" | root cause {root['type']}: {root.get('message')}"
        self.text = " ".join(text.split())[:600]
        super().__init__(self.text)
        if self.text not in JAVA_ERRORS:
            lines = [f"query: {' '.join(sql.split())[:300]}"]
            for k, link in enumerate(chain):
                lines.append(("" if k == 0 else "Caused by: ") + f"{link['type']}: {link.get('message')}")
                lines += [f"    at {frame}" for frame in (link.get("stack") or [])[:8]]
            JAVA_ERRORS[self.text] = lines


class Trino:
    """One Trino server on the loopback, its catalog `iceberg` over a file metastore."""

    def __init__(self, root, paths):
        self.root = root
        self.paths = paths
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy to the loopback
        etc = os.path.join(root, "etc")
        data = os.path.join(root, "data")
        plugins = os.path.join(root, "plugin")
        for d in (os.path.join(etc, "catalog"), data, plugins, os.path.join(root, "metastore"),
                  os.path.join(root, "java-tmp")):
            os.makedirs(d, exist_ok=True)
        # Only the Iceberg plugin: the server starts faster and smaller.
        os.symlink(os.path.join(paths["TRINO_SERVER"], "plugin", "iceberg"), os.path.join(plugins, "iceberg"))
        files = {
            "node.properties": ["node.environment=lakeindex_test", "node.id=lakeindex-trino-test",
                                f"node.data-dir={data}", "node.bind-ip=127.0.0.1", "node.internal-address=127.0.0.1"],
            "config.properties": [
                "coordinator=true", "node-scheduler.include-coordinator=true",
                f"http-server.http.port={self.port}", f"discovery.uri={self.url}",
                "query.max-memory=1GB", "query.max-memory-per-node=1GB", "memory.heap-headroom-per-node=512MB",
                "query.max-run-time=10m", "task.concurrency=2", "task.max-worker-threads=4",
                f"catalog.config-dir={os.path.join(etc, 'catalog')}", f"plugin.dir={plugins}",
                "web-ui.enabled=false", "http-server.log.enabled=false"],
            "jvm.config": ["-server", "-Xmx2G", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError",
                           "-XX:-OmitStackTraceInFastThrow", "-XX:ReservedCodeCacheSize=256M",
                           "-XX:TieredStopAtLevel=1",  # short queries on small tables: C1 is enough
                           "-XX:+EnableDynamicAgentLoading", "-Djdk.attach.allowAttachSelf=true",
                           "--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8",
                           f"-Djava.io.tmpdir={os.path.join(root, 'java-tmp')}"],
            "log.properties": ["io.trino=INFO"],
            os.path.join("catalog", "iceberg.properties"): [
                "connector.name=iceberg", "iceberg.catalog.type=TESTING_FILE_METASTORE",
                f"hive.metastore.catalog.dir=file://{os.path.join(root, 'metastore')}",
                "fs.native-local.enabled=true", "local.location=/",  # file:///a/b is /a/b
                "iceberg.register-table-procedure.enabled=true"],
        }
        for name, lines in files.items():
            with open(os.path.join(etc, name), "w") as f:
                f.write("\n".join(lines) + "\n")
        self.log_path = os.path.join(root, "server.log")
        launcher = os.path.join(paths["TRINO_SERVER"], "bin", "launcher")
        env = dict(os.environ, JAVA_HOME=paths["TRINO_JAVA_HOME"])
        with open(self.log_path, "wb") as log:
            # `run`: in the foreground (the launcher execs java), its own process group.
            self.proc = subprocess.Popen(
                [launcher, "--etc-dir", etc, "--data-dir", data, "--jvm-dir", paths["TRINO_JAVA_HOME"], "run"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=root, env=env,
                start_new_session=True)

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def wait_ready(self, timeout=180):
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Trino exited ({self.proc.returncode}) while starting; its log ends:\n"
                                   + self.log_tail())
            try:
                with self.opener.open(self.url + "/v1/info", timeout=5) as r:
                    if not json.load(r).get("starting", True):
                        return
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"Trino not ready after {timeout} s; its log ends:\n" + self.log_tail())
            time.sleep(1)

    def cli(self, sql):
        """One statement through the trino-cli jar, CSV out."""
        java = os.path.join(self.paths["TRINO_JAVA_HOME"], "bin", "java")
        proc = subprocess.run([java, "-jar", self.paths["TRINO_CLI"], "--server", self.url, "--user", "lakeindex",
                               "--output-format", "CSV_UNQUOTED", "--execute", sql],
                              capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"trino-cli failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc.stdout

    def _call(self, request, timeout):
        for attempt in range(5):
            try:
                with self.opener.open(request, timeout=timeout) as r:
                    return json.load(r)
            except urllib.error.HTTPError as e:
                if e.code not in (502, 503, 504) or attempt == 4:
                    raise
            time.sleep(0.5 * (attempt + 1))

    def query(self, sql, timeout=600):
        """(columns [(name, type)], rows) of a statement; TrinoError when it fails."""
        headers = {"X-Trino-User": "lakeindex", "X-Trino-Source": "lakeindex-test", "X-Trino-Catalog": "iceberg",
                   "X-Trino-Schema": SCHEMA, "X-Trino-Time-Zone": "UTC",
                   "X-Trino-Client-Capabilities": "PARAMETRIC_DATETIME"}  # timestamp(6), not rounded to ms
        deadline = time.monotonic() + timeout
        result = self._call(urllib.request.Request(self.url + "/v1/statement", data=sql.encode(), headers=headers,
                                                   method="POST"), 60)
        columns, rows = None, []
        while True:
            if result.get("columns") is not None:
                columns = [(c["name"], c["type"]) for c in result["columns"]]
            rows += result.get("data") or []
            if result.get("error"):
                raise TrinoError(sql, result["error"])
            next_uri = result.get("nextUri")
            if not next_uri:
                return columns or [], rows
            if time.monotonic() > deadline:
                try:
                    self._call(urllib.request.Request(next_uri, headers=headers, method="DELETE"), 10)
                except (OSError, ValueError):
                    pass
                raise TimeoutError(f"Trino query over {timeout} s: {sql[:200]}")
            result = self._call(urllib.request.Request(next_uri, headers=headers), 60)

    def close(self):
        """Stops the server's process group: TERM, then KILL after 30 s."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(30)
            except ProcessLookupError:
                pass


def shutdown():
    """Stops the server and removes its directory: at the module's end, or at the interpreter's exit
    when the module did not end (an interrupt, SIGTERM)."""
    global SERVER, WORK
    if SERVER is not None:
        SERVER.close()
        keep = os.environ.get("LAKEINDEX_TRINO_LOG")
        if keep:
            shutil.copyfile(SERVER.log_path, keep)
        SERVER = None
    if WORK is not None:
        WORK.close()
        WORK = None


def interrupted(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")  # unittest lets it through; atexit stops the server


def setUpModule():
    global SERVER, WORK
    if SERVER is not None:
        return
    atexit.register(shutdown)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, interrupted)
    WORK = util.Workdir()
    try:
        os.environ["LAKEINDEX_CLI"] = copy_cli(WORK.join("lakeindex"))  # util.cli(): test_engines.run_cli's
        started = time.monotonic()
        paths = trino_paths()
        TIMES["scripts/trino.sh"] += time.monotonic() - started
        started = time.monotonic()
        SERVER = Trino(WORK.join("trino"), paths)
        SERVER.wait_ready()
        TIMES["server start"] += time.monotonic() - started
        version = SERVER.cli("SELECT node_version FROM system.runtime.nodes").split()
        if version != ["476"]:
            raise RuntimeError(f"trino-cli: the server says version {version}")
        SERVER.query(f"CREATE SCHEMA iceberg.{SCHEMA}")
    except BaseException:
        shutdown()
        raise


def tearDownModule():
    shutdown()
    lines = ["", "Trino's metadata tables (after each step, on the newest version):"]
    for name in METADATA_TABLES:
        result = META[f"${name}"]
        line = f"  ${name:22} read in {len(result['ok'])} steps"
        if result["failed"]:
            line += f", FAILED in {sum(len(v) for v in result['failed'].values())}:"
        lines.append(line)
        for message, where in result["failed"].items():
            lines.append(f"      {message}")
            lines.append(f"        in {', '.join(where)}")
    if JAVA_ERRORS:
        lines.append("Trino's exceptions (first frames):")
        for text, frames in JAVA_ERRORS.items():
            lines.append(f"  -- {text[:200]}")
            lines += [f"     {frame}" for frame in frames]
    lines.append("How Trino maps lakeindex's types (from the Iceberg metadata):")
    for ltype, got in sorted(te.TYPES["trino"].items()):
        lines.append(f"  {ltype:26} -> {', '.join(sorted(got))}")
    TIMES["reading (trino)"] = te.TIMES["trino"]
    lines.append("Seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(TIMES.items()))
                 + f", whole module {time.monotonic() - STARTED:.1f}")
    sys.stderr.write("\n".join(lines) + "\n")


# ----------------------------------------------------------------------------------------------
# Trino's rows as Arrow (its JSON values by their Trino type), for test_engines' normalization

EPOCH = datetime.datetime(1970, 1, 1)
EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
MICRO = datetime.timedelta(microseconds=1)


def float_value(v):
    return None if v is None else float(v)  # "NaN", "Infinity", "-Infinity" too


def timestamp_value(v):
    return None if v is None else (datetime.datetime.fromisoformat(v) - EPOCH) // MICRO


def timestamptz_value(v):
    if v is None:
        return None
    local, _, zone = v.rpartition(" ")
    if zone != "UTC":
        raise ValueError(f"timestamp with time zone {v!r} not in UTC")
    return (datetime.datetime.fromisoformat(local).replace(tzinfo=datetime.timezone.utc) - EPOCH_UTC) // MICRO


def to_arrow_column(values, trino_type):
    t = trino_type
    if t == "boolean":
        return pa.array(values, pa.bool_())
    if t in ("tinyint", "smallint", "integer"):
        return pa.array(values, pa.int32())
    if t == "bigint":
        return pa.array(values, pa.int64())
    if t == "real":
        return pa.array([float_value(v) for v in values], pa.float32())
    if t == "double":
        return pa.array([float_value(v) for v in values], pa.float64())
    if t == "date":
        return pa.array([None if v is None else (datetime.date.fromisoformat(v) - EPOCH.date()).days
                         for v in values], pa.int32()).cast(pa.date32())
    if t.startswith("timestamp(") and t.endswith("with time zone"):
        return pa.array([timestamptz_value(v) for v in values], pa.int64()).cast(pa.timestamp("us", tz="UTC"))
    if t.startswith("timestamp("):
        return pa.array([timestamp_value(v) for v in values], pa.int64()).cast(pa.timestamp("us"))
    if t.startswith("varchar") or t.startswith("char") or t == "uuid":  # a uuid as text: kind "uuid" parses it
        return pa.array(values, pa.string())
    if t == "varbinary":
        return pa.array([None if v is None else base64.b64decode(v) for v in values], pa.binary())
    if t.startswith("decimal("):
        p, s = (int(n) for n in t[len("decimal("):-1].split(","))
        return pa.array([None if v is None else decimal.Decimal(v) for v in values], pa.decimal128(p, s))
    raise ValueError(f"no conversion for Trino type {t}")


def to_arrow(columns, rows):
    arrays = [to_arrow_column([r[k] for r in rows], t) for k, (_, t) in enumerate(columns)]
    return pa.Table.from_arrays(arrays, names=[n for n, _ in columns])


# ----------------------------------------------------------------------------------------------
# Tables in Trino: a name per (table, newest version)

REGISTERED = {}  # absolute table path -> its name in Trino now
NAMES = {}  # name -> (size, mtime) of the metadata file when it was first registered
REWRITTEN = set()  # names whose metadata file changed on disk after Trino had read it


def trino_name(table, version):
    return f"{os.path.basename(table)}_v{version}".lower()


def register(table, newest):
    name = trino_name(table, newest)
    st = os.stat(te.metadata_file(table, newest))
    seen = NAMES.pop(name, None)
    if seen is not None:  # the same version again (vacuum makes none): registered anew
        SERVER.query(f"CALL iceberg.system.unregister_table(schema_name => '{SCHEMA}', table_name => '{name}')")
        if seen != (st.st_size, st.st_mtime_ns):
            REWRITTEN.add(name)
    location = "file://" + os.path.abspath(table)
    SERVER.query(f"CALL iceberg.system.register_table(schema_name => '{SCHEMA}', table_name => '{name}', "
                 f"table_location => '{location}', metadata_file_name => 'v{newest}.metadata.json')")
    NAMES[name] = seen or (st.st_size, st.st_mtime_ns)
    REGISTERED[os.path.abspath(table)] = name
    return name


def read_trino(table, version, newest, where=None):
    sql = f'SELECT * FROM iceberg.{SCHEMA}."{trino_name(table, newest)}"'
    if version != newest:
        sql += f" FOR VERSION AS OF BIGINT '{int(version)}'"  # an integer literal is refused
    if where is not None:
        sql += f" WHERE {where}"
    columns, rows = SERVER.query(sql)
    return to_arrow(columns, rows), dict(columns)


def files_trino(table):
    name = REGISTERED[os.path.abspath(table)]
    return [tuple(r) for r in SERVER.query(
        f'SELECT file_path, record_count FROM iceberg.{SCHEMA}."{name}$files" WHERE content = 0')[1]]


te.READERS["trino"] = read_trino
te.FILE_LISTINGS["trino"] = files_trino


class TrinoChecker(te.Checker):
    """test_engines.Checker's comparisons, Trino the one engine, its metadata tables queried too."""

    def step(self, table, step, filters=(), weight_filter=None):
        self.check_metadata(table, step)
        listed = self.iceberg_versions(table)
        newest = listed[-1]
        try:
            register(table, newest)
        except (TrinoError, OSError) as e:
            self.fail("trino", table, f"{step} [register_table]", newest, te.describe_error(e))
            return
        self.read("trino", table, step, newest, newest)
        self.check_files("trino", table, step, newest)
        todo = list(filters)
        if weight_filter is not None and (self.manifest(table, newest).get("layout") or {}).get("kind") == "otree":
            todo.append(weight_filter)
        for f in todo:
            self.read("trino", table, f"{step} [where {f['name']}]", newest, newest, f["lakeindex"], f["trino"])
        for version in listed[:-1]:
            self.read("trino", table, step, version, newest)
        self.metadata_tables(table, step, newest, listed)

    def metadata_tables(self, table, step, newest, listed):
        name = trino_name(table, newest)
        where = f"{os.path.basename(table)}/{step}@v{newest}"
        for meta in METADATA_TABLES:
            started = time.monotonic()
            try:
                columns, rows = SERVER.query(f'SELECT * FROM iceberg.{SCHEMA}."{name}${meta}"')
            except (TrinoError, OSError) as e:
                text = te.describe_error(e)
                self.fail("trino $tables", table, f"{step} [${meta}]", newest, text)
                META[f"${meta}"]["failed"][text].append(where)
                continue
            finally:
                TIMES["metadata tables (trino)"] += time.monotonic() - started
            META[f"${meta}"]["ok"].append(where)
            names = [n for n, _ in columns]
            problem = None
            if meta in ("snapshots", "history"):
                got = sorted(r[names.index("snapshot_id")] for r in rows)
                if got != listed:
                    problem = f"snapshot ids {got}, lakeindex's versions {listed}"
                    if name in REWRITTEN:
                        problem += (f" (v{newest}.metadata.json, which lists {listed}, was rewritten in place "
                                    "after Trino had read it; Trino keeps metadata files in memory by path: "
                                    "iceberg.metadata-cache.enabled, true by default)")
            elif meta == "refs":
                got = [(r[names.index("name")], r[names.index("type")], r[names.index("snapshot_id")]) for r in rows]
                if got != [("main", "BRANCH", newest)]:
                    problem = f"refs {got}, not main -> {newest}"
            elif not rows and meta not in ("properties",):
                problem = "no rows"
            if problem:
                self.fail("trino $tables", table, f"{step} [${meta}]", newest, problem)


class TrinoTest(te.Scenarios, unittest.TestCase):
    """test_engines.py's tables and steps, every version read by Trino (its metadata tables with
    every step: TrinoChecker)."""

    checker = TrinoChecker

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        atexit.register(cls.dir.close)  # an interrupt skips class cleanups

    def test_format_3_deletion_vectors(self):
        """Trino 476 does not read Iceberg v3 deletion vectors (Puffin files; docs/engines.md): a
        version with deletes is refused with its error, never read without them; a version before
        any delete reads right."""
        t = self.dir.join("v3_trino")
        te.run_cli("create", t, "--from", self.base_file, "--rows-per-file", 1000, "--iceberg", "--iceberg-format", 3)
        check = self.checker(self)
        check.step(t, "create --iceberg --iceberg-format 3")
        check.finish()
        te.run_cli("delete", t, "--where", "i32 < 0 AND flag")
        name = register(t, 2)
        with self.assertRaises(TrinoError) as refused:
            SERVER.query(f'SELECT count(*) FROM iceberg.{SCHEMA}."{name}"')
        self.assertIn("PUFFIN", str(refused.exception))


if __name__ == "__main__":
    unittest.main()
