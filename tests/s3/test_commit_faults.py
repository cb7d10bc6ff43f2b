"""Fault injection into lakeindex's commits on S3: the real CLI, moto, and fault_proxy.py between.

Everything runs on 127.0.0.1: moto (tests/s3/moto_server.py, a subprocess), one FaultProxy per
worker in this process, and the CLI ($LAKEINDEX_CLI, else build/lakeindex of this checkout)
pointed at a proxy with AWS_ENDPOINT_URL. Setup, copies and every check go to moto directly.

For each write kind (KIND_LIST below: create, create --iceberg, append, append on an Iceberg table,
append to an indexed table, delete, delete on an Iceberg table, index create / update --merge /
drop, layout --otree and --zorder, optimize, iceberg enable, and version expiry with
`vacuum --keep-versions 1 --older-than 0 --force`, on a table with Iceberg metadata and without) a base table is built once through a proxy
without faults. The command is then run twice on fresh copies without faults: the first run's
requests are the request list 1..N of that kind (the second run says whether the list varies).
Every case copies the base table into a bucket of its own (boto3 server-side copies), runs the
command with one fault and LAKEINDEX_S3_MAX_ATTEMPTS=3, checks the table without the proxy, and
removes the bucket.

Which request a case hits: request k of the clean run is targeted as "the j-th request with the
same method whose target contains S", S being the request's own target (bucket and prefix
substituted)
or, for a file named by a random 32-hex id the command made, the part of the key before the id
(or after it, if that part is distinctive, e.g. "/page_data.parquet"); j is k's rank among the
clean run's requests that match the same rule. So requests issued in parallel (the reads of a
layout) or files with new random names are hit as in the clean run, whatever the interleaving.

Coverage (deterministic, no randomness):
  * every PUT, POST and DELETE of the clean run, with each of the five faults (drop_request,
    lose_answer_once, lose_answer_always, http500, http503) and with the CLI killed (SIGKILL) when
    the request reaches the proxy, before it is forwarded and after the store applied it;
  * the first GET, HEAD and LIST of each group (below) with the CLI killed when it arrives;
  * GET and HEAD requests (LISTs included), grouped by (method, rule): the first request of each
    group with lose_answer_always (the read fails for good) and with one of the four transient
    faults, rotating by request index; the middle and the last request of the group with one fault
    each, rotating through all five by request index. (Every transient fault of a read is the same
    retry to the store; layouts read their input files many times over, and the other reads of a
    group differ only in the byte range they fetch.)
  About 660 cases over 15 kinds (N = 7 to 43 requests a command); about 5 minutes with 2 workers
  on 2 busy cores. The clean runs' request *order* varies for several kinds (a manifest read and a
  HEAD race, layouts read files in parallel), their number does not; the rule above hits the same
  request whatever the order, and a case whose fault never fired is counted ("fault not reached").
Set LAKEINDEX_FAULTS_FULL=1 for every request with every fault (about 1,650 cases, 2.5x as long), and
LAKEINDEX_FAULTS_KINDS=append,delete to run some kinds only; each case's copy is removed after its
checks unless LAKEINDEX_FAULTS_KEEP=1.

A case passes when the CLI's exit code and the table agree:
  * 0: exactly one new version (expiry: only its own version remains); `verify` passes; the
    row count and sum(score) from `query` equal the model's (DuckDB over the source CSVs), and so
    do DuckDB's over the Parquet files `files --format json` names, downloaded with boto3, minus
    the deleted positions it reports; kind-specific checks (the index listed / covering every
    fragment / gone, the layout, no deleted rows left, Iceberg metadata at most one version behind,
    the orphan file vacuumed).
  * 2: no new version; the table opens, verifies, and holds the old rows (expiry: every version
    of before is still listed).
  * 3 with "outcome unknown" on stderr, or killed by the test: either of the two above (a whole
    new version or none; verify passes either way).
  * Iceberg tables, whatever the exit code: no metadata/vN.metadata.json for a version lakeindex
    does not list (checked before any lakeindex command opens the table, which may repair them).
Anything else fails the case: another exit code, a crash, a timeout, a table that no longer opens
(e.g. "belongs to another fragment too"), two new versions, a failure with a new version visible
("false failure"). All failing cases are listed together in one assertion at the end.
"""
import collections
import concurrent.futures
import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fault_proxy import FaultProxy, KILLS, KINDS as FAULTS  # noqa: E402

CLI = os.environ.get("LAKEINDEX_CLI") or os.path.normpath(os.path.join(HERE, "..", "..", "build", "lakeindex"))
MOTO_PYTHON = os.environ.get("LAKEINDEX_MOTO_PYTHON") or sys.executable
BUCKET = "lake-faults"  # the base tables; every case has a bucket of its own (see Fixture.new_loc)
CMD_TIMEOUT = 90       # one CLI command (the CLI gives up on a silent transfer after 10 s, 3 attempts)
CHECK_TIMEOUT = 60     # one checking command
WORKERS = 2
DELETE_FILTER = "score < 300000"
FULL = os.environ.get("LAKEINDEX_FAULTS_FULL") == "1"
ONLY = [k for k in os.environ.get("LAKEINDEX_FAULTS_KINDS", "").split(",") if k]
HEX_ID = re.compile(r"[0-9a-f]{32}")
Loc = collections.namedtuple("Loc", "bucket prefix")  # a table: s3://bucket/prefix


class Kind:
    """A write command under test. setup/command are argument lists with {T} for the table URI and
    {X}/{A} for the CSV files. before/after name model states (see Fixture.model)."""

    def __init__(self, name, setup, command, before, after, *, effect="commit", iceberg=False, check=None):
        self.name, self.setup, self.command = name, setup, command
        self.before, self.after, self.effect, self.iceberg, self.check = before, after, effect, iceberg, check


CREATE = ["create", "{T}", "--from", "{X}", "--rows-per-file", "1000"]
CREATE_ICE = CREATE + ["--iceberg"]
APPEND = ["append", "{T}", "--from", "{A}", "--rows-per-file", "250"]
DELETE = ["delete", "{T}", "--where", DELETE_FILTER]
INDEX = ["index", "create", "{T}", "--column", "score", "--type", "btree"]


def check_index(expect_present, expect_segments=None):
    def check(fx, loc):
        rc, out, err = fx.cli_direct(["index", "list", fx.uri(loc)])
        if rc != 0:
            return "index list failed: %s" % first_line(err)
        rows = [line.split() for line in out.splitlines()[2:] if line.strip()]
        found = [r for r in rows if r[0] == "score_btree"]
        if not expect_present:
            return "index score_btree still listed" if found else None
        if not found:
            return "index score_btree not listed"
        segments, uncovered = int(found[0][3]), int(found[0][5])
        if uncovered:
            return "index score_btree leaves %d fragments uncovered" % uncovered
        if expect_segments is not None and segments != expect_segments:
            return "index score_btree has %d segments, expected %d" % (segments, expect_segments)
        return None
    return check


def check_stats(pattern, what):
    def check(fx, loc):
        rc, out, err = fx.cli_direct(["stats", fx.uri(loc)])
        if rc != 0:
            return "stats failed: %s" % first_line(err)
        return None if re.search(pattern, out, re.M) else "stats does not show %s" % what
    return check


def check_orphan_gone(fx, loc):
    keys = fx.keys(loc, "/data/")
    return "vacuum left the orphan file" if any(k.endswith("data/" + ORPHAN) for k in keys) else None


ORPHAN = "0123456789abcdef0123456789abcdef.parquet"

KIND_LIST = [
    Kind("create", [], CREATE, "empty", "X", effect="create"),
    Kind("create_iceberg", [], CREATE_ICE, "empty", "X", effect="create", iceberg=True),
    Kind("append", [CREATE], APPEND, "X", "X+A"),
    Kind("append_iceberg", [CREATE_ICE], APPEND, "X", "X+A", iceberg=True),
    Kind("append_indexed", [CREATE, INDEX], APPEND, "X", "X+A", check=check_index(True)),
    Kind("delete", [CREATE], DELETE, "X", "X-d"),
    Kind("delete_iceberg", [CREATE_ICE], DELETE, "X", "X-d", iceberg=True),
    Kind("index_create", [CREATE], INDEX, "X", "X", check=check_index(True)),
    Kind("index_update", [CREATE, INDEX, APPEND], ["index", "update", "{T}", "--merge"], "X+A", "X+A",
         check=check_index(True, 1)),
    Kind("index_drop", [CREATE, INDEX], ["index", "drop", "{T}", "--name", "score_btree"], "X", "X",
         check=check_index(False)),
    Kind("layout_otree", [CREATE], ["layout", "{T}", "--otree", "x,y", "--cube-rows", "1000"], "X", "X",
         check=check_stats(r"^layout: otree", "an otree layout")),
    Kind("layout_zorder", [CREATE], ["layout", "{T}", "--zorder", "x,y"], "X", "X",
         check=check_stats(r"^layout: zorder", "a zorder layout")),
    Kind("optimize", [CREATE, DELETE], ["optimize", "{T}", "--rows-per-file", "5000"], "X-d", "X-d",
         check=check_stats(r"^rows: \d+ \(0 deleted\)", "0 deleted rows")),
    Kind("iceberg_enable", [CREATE], ["iceberg", "enable", "{T}"], "X", "X", iceberg=True),
    Kind("expire", [CREATE, APPEND, DELETE, APPEND, "ORPHAN"],
         ["vacuum", "{T}", "--keep-versions", "1", "--older-than", "0", "--force"], "(X+A)-d+A", "(X+A)-d+A",
         effect="expire", check=check_orphan_gone),
    Kind("expire_iceberg", [CREATE_ICE, APPEND, DELETE, APPEND, "ORPHAN"],
         ["vacuum", "{T}", "--keep-versions", "1", "--older-than", "0", "--force"], "(X+A)-d+A", "(X+A)-d+A",
         effect="expire", check=check_orphan_gone, iceberg=True),
]


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:240]
    return ""


def parse_versions(out):
    versions = []
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0].isdigit():
            versions.append(int(parts[0]))
    return versions


class Fixture:
    """moto, the proxies, a boto3 client, the CSV files and the model."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.moto = None
        self.proxies = []
        self.free_proxies = None
        self.prefix_seq = 0
        self.lock = threading.Lock()
        self.endpoint = None
        self.keys_pair = ("testing", "testing")

    # -- processes ------------------------------------------------------------------------------
    def start(self):
        if not os.path.exists(CLI):
            raise unittest.SkipTest("no lakeindex CLI at %s (set LAKEINDEX_CLI)" % CLI)
        self.moto = subprocess.Popen([MOTO_PYTHON, os.path.join(HERE, "moto_server.py"), "--bucket", BUCKET],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        line = _readline_with_timeout(self.moto.stdout, 90)
        if not line:
            self.moto.kill()
            raise RuntimeError("moto_server.py did not start within 90 s (%s)" % MOTO_PYTHON)
        info = json.loads(line)
        self.endpoint = info["endpoint"]
        self.keys_pair = (info["access_key"], info["secret_key"])
        import boto3
        import botocore.config
        self.s3 = boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                               aws_access_key_id=self.keys_pair[0], aws_secret_access_key=self.keys_pair[1],
                               config=botocore.config.Config(max_pool_connections=32, connect_timeout=10,
                                                             read_timeout=60, retries={"max_attempts": 3}))
        import queue
        self.free_proxies = queue.Queue()
        for _ in range(WORKERS):
            p = FaultProxy(self.endpoint).start()
            self.proxies.append(p)
            self.free_proxies.put(p)
        self.x_csv = os.path.join(self.tmp, "x.csv")
        self.a_csv = os.path.join(self.tmp, "a.csv")
        for path, rows, seed in ((self.x_csv, 3000, 42), (self.a_csv, 500, 7)):
            r = run_cli(["gen", "--rows", str(rows), "--seed", str(seed), "--output", path], CHECK_TIMEOUT,
                        self.env(None))
            if r.returncode != 0:
                raise RuntimeError("lakeindex gen failed: %s" % r.stderr)

    def stop(self):
        for p in self.proxies:
            p.stop()
        if self.moto is not None:
            try:
                self.moto.stdin.close()
                self.moto.wait(timeout=15)
            except (OSError, subprocess.TimeoutExpired):
                self.moto.kill()
                self.moto.wait(timeout=15)

    def env(self, endpoint):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LAKEINDEX_S3_"))}
        env.update(AWS_ACCESS_KEY_ID=self.keys_pair[0], AWS_SECRET_ACCESS_KEY=self.keys_pair[1],
                   AWS_REGION="us-east-1", AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull,
                   LAKEINDEX_S3_ADDRESSING="path", LAKEINDEX_NO_REEXEC="1",
                   LAKEINDEX_S3_MAX_ATTEMPTS="3", LAKEINDEX_S3_TIMEOUT_MS="10000",
                   LAKEINDEX_S3_CONNECT_TIMEOUT_MS="5000")
        if endpoint:
            env["AWS_ENDPOINT_URL"] = endpoint
        return env

    def cli_direct(self, args):
        try:
            r = run_cli(args, CHECK_TIMEOUT, self.env(self.endpoint))
            return r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired:
            return -999, "", "timed out after %d s: %s" % (CHECK_TIMEOUT, " ".join(args))

    def cli_proxied(self, proxy, args, rule):
        proxy.set_rule(rule)
        p = start_cli(args, self.env(proxy.endpoint))
        proxy.on_kill = lambda: p.send_signal(signal.SIGKILL)  # kill -9, as a crash would
        try:
            out, err = p.communicate(timeout=CMD_TIMEOUT)
            return p.returncode, out, err, proxy.entries()
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return -999, "", "timed out after %d s" % CMD_TIMEOUT, proxy.entries()
        finally:
            proxy.on_kill = None
            proxy.set_rule(None)

    # -- store ----------------------------------------------------------------------------------
    def new_loc(self, name, own_bucket):
        """A new table location: in BUCKET (base tables) or alone in a new bucket (cases). moto lists
        a bucket by scanning all its keys and fails a listing (500) that races a delete in the same
        bucket; a bucket per case keeps cases apart."""
        with self.lock:
            self.prefix_seq += 1
            n = self.prefix_seq
        if not own_bucket:
            return Loc(BUCKET, "%s-%05d" % (name.replace("_", "-"), n))
        loc = Loc("lf-%05d" % n, "t%05d" % n)
        self.s3.create_bucket(Bucket=loc.bucket)
        return loc

    def keys(self, loc, under="/"):
        """The keys under s3://bucket/prefix + under."""
        out, token = [], None
        for _ in range(1000):
            kw = dict(Bucket=loc.bucket, Prefix=loc.prefix + under)
            if token:
                kw["ContinuationToken"] = token
            resp = self.s3.list_objects_v2(**kw)
            out += [o["Key"] for o in resp.get("Contents", [])]
            if not resp.get("IsTruncated"):
                break
            token = resp["NextContinuationToken"]
        return out

    def copy_table(self, src, dst):
        for key in self.keys(src):
            self.s3.copy_object(Bucket=dst.bucket, Key=dst.prefix + key[len(src.prefix):],
                                CopySource={"Bucket": src.bucket, "Key": key})

    def remove_table(self, loc):
        """Deletes a case's objects, unfinished uploads and bucket."""
        keys = self.keys(loc, "")
        for i in range(0, len(keys), 1000):
            self.s3.delete_objects(Bucket=loc.bucket, Delete={"Objects": [{"Key": k} for k in keys[i:i + 1000]],
                                                              "Quiet": True})
        for u in self.s3.list_multipart_uploads(Bucket=loc.bucket).get("Uploads", []):
            self.s3.abort_multipart_upload(Bucket=loc.bucket, Key=u["Key"], UploadId=u["UploadId"])
        if loc.bucket != BUCKET:
            self.s3.delete_bucket(Bucket=loc.bucket)

    def uri(self, loc):
        return "s3://%s/%s" % loc

    def expand(self, args, loc):
        m = {"{T}": self.uri(loc), "{X}": self.x_csv, "{A}": self.a_csv}
        return [m.get(a, a) for a in args]

    # -- model ----------------------------------------------------------------------------------
    def model(self, state):
        """(rows, sum(score)) of a model state, by DuckDB over the CSV files."""
        import duckdb
        x = "SELECT score FROM read_csv('%s')" % self.x_csv
        a = "SELECT score FROM read_csv('%s')" % self.a_csv
        keep = "WHERE NOT coalesce(%s, false)" % DELETE_FILTER
        sql = {
            "empty": "SELECT 0 AS score WHERE false",
            "X": x,
            "X+A": "%s UNION ALL %s" % (x, a),
            "X-d": "SELECT score FROM (%s) %s" % (x, keep),
            "(X+A)-d+A": "SELECT score FROM (%s UNION ALL %s) %s UNION ALL %s" % (x, a, keep, a),
        }[state]
        con = duckdb.connect()
        try:
            n, s = con.execute("SELECT count(*), coalesce(sum(score), 0) FROM (%s)" % sql).fetchone()
        finally:
            con.close()
        return int(n), int(s)

    def independent_rows(self, loc, workdir):
        """(rows, sum(score)) of the newest version read by DuckDB from the files lakeindex names."""
        import duckdb
        rc, out, err = self.cli_direct(["files", self.uri(loc), "--format", "json"])
        if rc != 0:
            return None, "files failed: %s" % first_line(err)
        files = json.loads(out)
        os.makedirs(workdir, exist_ok=True)
        rows = []
        root = "s3://%s/" % loc.bucket
        for i, f in enumerate(files):
            if not f["path"].startswith(root):
                return None, "files names %s outside the bucket" % f["path"]
            local = os.path.join(workdir, "%d.parquet" % i)
            with open(local, "wb") as out_file:
                out_file.write(self.s3.get_object(Bucket=loc.bucket, Key=f["path"][len(root):])["Body"].read())
            rows.append((local, [int(d) for d in f["deleted"]]))
        if not rows:
            return (0, 0), None
        con = duckdb.connect()
        try:
            con.execute("CREATE TABLE f(local VARCHAR, deleted BIGINT[])")
            con.executemany("INSERT INTO f VALUES (?, ?)", rows)
            n, s = con.execute(
                "SELECT count(*), coalesce(sum(r.score), 0) FROM read_parquet(?, filename = true, "
                "file_row_number = true) r JOIN f ON r.filename = f.local "
                "WHERE NOT list_contains(f.deleted, r.file_row_number)", [[l for l, _ in rows]]).fetchone()
        finally:
            con.close()
        return (int(n), int(s)), None


def run_cli(args, timeout, env):
    """subprocess.run of the CLI; while the binary cannot be executed (being relinked by a build:
    EACCES, ETXTBSY, ENOENT) it is tried again for up to a minute -- no request was made then."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return subprocess.run([CLI] + args, capture_output=True, text=True, timeout=timeout, env=env)
        except OSError as e:
            if e.errno not in (errno.EACCES, errno.ETXTBSY, errno.ENOENT) or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def start_cli(args, env):
    """subprocess.Popen of the CLI (as run_cli, but the test may kill it meanwhile)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return subprocess.Popen([CLI] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        except OSError as e:
            if e.errno not in (errno.EACCES, errno.ETXTBSY, errno.ENOENT) or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _readline_with_timeout(stream, seconds):
    box = []
    t = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
    t.start()
    t.join(seconds)
    return box[0] if box else None


# -- request rules ------------------------------------------------------------------------------
def request_rule(entry, loc, base_keys):
    """(method, substring) identifying a clean-run request across copies (see the docstring); the
    case's bucket and prefix are {B} and {P} in it."""
    target = entry.target.replace(loc.bucket, "{B}").replace(loc.prefix, "{P}")
    m = HEX_ID.search(target)
    if m:
        key_like = target.split("?")[0]
        is_base_file = any(key_like.endswith(k) for k in base_keys)
        if not is_base_file:
            ids = list(HEX_ID.finditer(target))
            before, after = target[:ids[0].start()], target[ids[-1].end():]
            after_core = after.split("?")[0]
            target = after if len(after_core) > len(".parquet") + 2 else before
    return entry.method, target


def describe(rule):
    method, target = rule
    short = re.sub(r"^/\{B\}(/\{P\}/?)?", "", target)
    short = re.sub(r"0{10,}(\d+)", r"…\1", short)
    return "%s %s" % (method, short or "/")


def substitute(template, loc):
    return template.replace("{B}", loc.bucket).replace("{P}", loc.prefix)


def matches(rule, entry, loc):
    method, target = rule
    return entry.method == method and substitute(target, loc) in entry.target


class CaseResult:
    def __init__(self, kind, k, request, fault, rc, stderr, problems, applied, seconds):
        self.kind, self.k, self.request, self.fault = kind, k, request, fault
        self.rc, self.stderr, self.problems, self.applied, self.seconds = rc, stderr, problems, applied, seconds


class CommitFaultTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="lakeindex-faults-")
        cls.fx = Fixture(cls.tmp)
        try:
            cls.fx.start()
        except BaseException:
            cls.fx.stop()
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.fx.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # -- building -------------------------------------------------------------------------------
    def build_base(self, kind):
        fx = self.fx
        loc = fx.new_loc("base-" + kind.name, own_bucket=False)
        proxy = fx.free_proxies.get()
        try:
            for step in kind.setup:
                if step == "ORPHAN":
                    fx.s3.put_object(Bucket=loc.bucket, Key="%s/data/%s" % (loc.prefix, ORPHAN), Body=b"unreferenced")
                    continue
                rc, _, err, _ = fx.cli_proxied(proxy, fx.expand(step, loc), None)
                self.assertEqual(rc, 0, "building %s: %s failed: %s" % (kind.name, step, err))
        finally:
            fx.free_proxies.put(proxy)
        return loc

    def table_state(self, loc):
        """The versions lakeindex lists, or (None, message) when the table does not open."""
        rc, out, err = self.fx.cli_direct(["versions", self.fx.uri(loc)])
        if rc != 0:
            return None, err
        return parse_versions(out), None

    # -- one case ---------------------------------------------------------------------------------
    def run_case(self, kind, base, base_versions, k, rule, nth, fault):
        fx = self.fx
        start = time.monotonic()
        loc = fx.new_loc(kind.name, own_bucket=True)
        if base is not None:
            fx.copy_table(base, loc)
        proxy = fx.free_proxies.get()
        try:
            proxy_rule = None
            if fault is not None:
                proxy_rule = {"nth": nth, "kind": fault,
                              "match": {"method": rule[0], "path_contains": substitute(rule[1], loc)}}
            rc, out, err, log = fx.cli_proxied(proxy, fx.expand(kind.command, loc), proxy_rule)
        finally:
            fx.free_proxies.put(proxy)
        applied = fault is None or any(e.fault for e in log)
        problems = self.check_outcome(kind, loc, base_versions, rc, err, killed=fault in KILLS and applied)
        if not os.environ.get("LAKEINDEX_FAULTS_KEEP"):
            fx.remove_table(loc)
        return CaseResult(kind.name, k, describe(rule) if rule else "-", fault, rc, err, problems, applied,
                          time.monotonic() - start), log, loc

    def check_outcome(self, kind, loc, before, rc, err, killed=False):
        fx = self.fx
        table = fx.uri(loc)
        problems = []
        crash = re.search(r"terminate called|Assertion|Segmentation|AddressSanitizer|Traceback|core dumped", err)
        if rc == -999:
            return ["timeout: " + first_line(err)]
        if killed and rc != -signal.SIGKILL:
            problems.append("the kill did not take (exit %d)" % rc)
        elif (rc < 0 and not killed) or crash:
            problems.append("crash (exit %d): %s" % (rc, crash.group(0) if crash else "signal %d" % -rc))
        # Killed, like an unknown outcome, may leave the old version or one whole new one.
        unknown = (rc == 3 and "outcome unknown" in err) or killed
        if rc not in (0, 2) and not unknown:
            problems.append("unexpected exit code %d%s" % (rc, " (3 without 'outcome unknown')" if rc == 3 else ""))
        if "belongs to another fragment too" in err:
            problems.append("duplicate fragments reported by the command itself")

        # Iceberg metadata first: opening a table with lakeindex may write the missing ones.
        meta_versions = set()
        if kind.iceberg:
            for key in fx.keys(loc, "/metadata/"):
                m = re.search(r"/metadata/v(\d+)\.metadata\.json$", key)
                if m:
                    meta_versions.add(int(m.group(1)))
        manifests = [k for k in fx.keys(loc, "/_versions/") if k.endswith(".manifest")]

        versions, open_err = self.table_state(loc)
        if versions is None:
            if kind.effect == "create" and rc != 0 and not manifests and "no lakeindex table" in open_err:
                return problems  # a failed create left no table: right
            problems.append("table does not open: %s" % first_line(open_err))
            return problems

        old = set(before)
        new = sorted(set(versions) - old)
        gone = sorted(old - set(versions))
        expect_state = kind.before
        if kind.effect == "expire":
            # One commit: the expiry's own version, the only one left (--keep-versions 1), or none
            # and every version of before.
            newest = max(before)
            committed = versions == [newest + 1]
            if not committed and versions != before:
                problems.append("versions %s after an expiry of %s: neither all of them nor only %d"
                                % (versions, before, newest + 1))
            if rc == 0 and not committed:
                problems.append("exit 0 but versions %s remain (expected only %d)" % (versions, newest + 1))
            elif rc not in (0, 3) and not killed and committed:
                problems.append("false failure: exit %d but the expiry (version %d) is visible" % (rc, newest + 1))
            # After its commit, what fails (deleting the expired manifests, removing files) is a
            # warning: the orphan may then stay for the next vacuum.
            if rc == 0 and kind.check and "vacuum: warning:" not in err:
                p = kind.check(fx, loc)
                if p:
                    problems.append(p)
        else:
            if gone:
                problems.append("versions %s disappeared" % gone)
            if len(new) > 1:
                problems.append("%d new versions %s for one command" % (len(new), new))
            elif rc == 0 and not new:
                problems.append("exit 0 but no new version")
            elif rc not in (0, 3) and not killed and new:
                problems.append("false failure: exit %d but version %d is visible" % (rc, new[0]))
            if len(new) == 1:
                expect_state = kind.after
                if new[0] != (max(before) if before else 0) + 1:
                    problems.append("new version %d does not follow %s" % (new[0], max(before) if before else 0))
                if kind.check:
                    p = kind.check(fx, loc)
                    if p:
                        problems.append(p)
        if kind.iceberg:
            extra = sorted(meta_versions - set(versions))
            if kind.effect == "expire" and (rc != 0 or killed or "vacuum: warning:" in err):
                # Expired versions' metadata files go with the rest of the garbage, after the
                # commit: a vacuum that stopped may leave them (no hint reaches them).
                extra = [v for v in extra if not versions or v >= min(versions)]
            if extra:
                problems.append("Iceberg metadata for versions lakeindex lacks: %s" % extra)
            if rc == 0 and versions and max(versions) - 1 > max(meta_versions, default=0):
                problems.append("Iceberg metadata more than one version behind after exit 0 (has %s)"
                                % sorted(meta_versions))
        if not versions:
            return problems

        vrc, _, verr = fx.cli_direct(["verify", table])
        if vrc != 0:
            problems.append("verify failed: %s" % first_line(verr))
        want = self.models[expect_state]
        qrc, qout, qerr = fx.cli_direct(["query", table, "--agg", "count(*), sum(score)", "--format", "json"])
        if qrc != 0:
            problems.append("query failed: %s" % first_line(qerr))
        else:
            row = json.loads(qout.splitlines()[0])
            got = (int(row["count(*)"]), int(row["sum(score)"] or 0))
            if got != want:
                problems.append("query gives %s rows/sum, model %s (%s)" % (got, want, expect_state))
        workdir = os.path.join(self.tmp, "dl-" + loc.bucket)
        indep, ierr = fx.independent_rows(loc, workdir)
        shutil.rmtree(workdir, ignore_errors=True)
        if ierr:
            problems.append(ierr)
        elif indep != want:
            problems.append("DuckDB over the listed files gives %s rows/sum, model %s (%s)" % (indep, want, expect_state))
        return problems

    # -- the matrix ------------------------------------------------------------------------------
    def plan(self, kind, clean_log, loc, base_keys):
        rules = [request_rule(e, loc, base_keys) for e in clean_log]
        cases = []
        groups = collections.defaultdict(list)
        for k, (entry, rule) in enumerate(zip(clean_log, rules), 1):
            nth = sum(1 for e in clean_log[:k] if matches(rule, e, loc))
            if FULL or entry.method in ("PUT", "POST", "DELETE"):
                cases += [(k, rule, nth, f) for f in FAULTS + KILLS]
            else:
                groups[rule].append((k, nth))
        transient = [f for f in FAULTS if f != "lose_answer_always"]
        for rule, members in groups.items():
            first = members[0]
            cases.append((first[0], rule, first[1], "kill_before"))  # killed as the command reads
            cases.append((first[0], rule, first[1], "lose_answer_always"))
            cases.append((first[0], rule, first[1], transient[first[0] % len(transient)]))
            others = {members[len(members) // 2], members[-1]} - {first}
            for k, nth in sorted(others):
                cases.append((k, rule, nth, FAULTS[k % len(FAULTS)]))
        return sorted(cases, key=lambda c: (c[0], (FAULTS + KILLS).index(c[3])))

    def test_commit_faults(self):
        fx = self.fx
        self.models = {s: fx.model(s) for s in ("empty", "X", "X+A", "X-d", "(X+A)-d+A")}
        kinds = [k for k in KIND_LIST if not ONLY or k.name in ONLY]
        failures, summary, notes = [], [], []
        t0 = time.monotonic()
        for kind in kinds:
            tk = time.monotonic()
            base = self.build_base(kind) if kind.setup else None
            base_keys = [key[len(base.prefix):] for key in fx.keys(base)] if base else []
            base_versions = []
            if base:
                base_versions, err = self.table_state(base)
                self.assertIsNotNone(base_versions, "base of %s does not open: %s" % (kind.name, err))
            # Two clean runs: the request list, and whether it varies.
            clean = []
            for _ in range(2):
                res, log, loc = self.run_case(kind, base, base_versions, 0, None, 0, None)
                if res.rc != 0 or res.problems:
                    res.problems.insert(0, "the command fails without faults")
                    failures.append(res)
                    break
                clean.append((log, loc))
            if len(clean) < 2:
                summary.append("%-15s clean run failed: cases    0" % kind.name)
                continue
            (log1, p1), (log2, p2) = clean
            seq1 = [describe(request_rule(e, p1, base_keys)) for e in log1]
            seq2 = [describe(request_rule(e, p2, base_keys)) for e in log2]
            if seq1 != seq2:
                diff = next((i for i, (a, b) in enumerate(zip(seq1, seq2)) if a != b), min(len(seq1), len(seq2)))
                notes.append("%s: request order varies between clean runs (%d vs %d requests, first "
                             "difference at %d); cases target requests by (method, key, rank)" %
                             (kind.name, len(seq1), len(seq2), diff + 1))
            cases = self.plan(kind, log1, p1, base_keys)
            results = []
            with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
                futs = [pool.submit(self.run_case, kind, base, base_versions, k, rule, nth, fault)
                        for k, rule, nth, fault in cases]
                for f, (k, rule, nth, fault) in zip(futs, cases):
                    try:
                        results.append(f.result()[0])
                    except Exception as e:  # a harness failure is reported with the others
                        results.append(CaseResult(kind.name, k, describe(rule), fault, -1, "",
                                                  ["harness error: %s: %s" % (type(e).__name__, e)], True, 0))
            not_applied = [r for r in results if not r.applied]
            bad = [r for r in results if r.problems]
            failures += bad
            writes = sum(1 for e in log1 if e.method in ("PUT", "POST", "DELETE"))
            codes = collections.Counter(r.rc for r in results)
            summary.append("%-15s N=%3d (writes %2d) cases %4d  failing %4d  fault not reached %3d  %5.1f s  exits %s" % (
                kind.name, len(log1), writes, len(results), len(bad), len(not_applied), time.monotonic() - tk,
                " ".join("%d:%d" % (c, n) for c, n in sorted(codes.items()))))
            print("\n" + summary[-1], file=sys.stderr, flush=True)
        total = sum(int(re.search(r"cases\s+(\d+)", s).group(1)) for s in summary)
        report = ["%d cases in %.0f s:" % (total, time.monotonic() - t0)] + summary + notes
        print("\n".join(report), file=sys.stderr, flush=True)
        if failures:
            lines = ["%d of %d cases failed (k: the request's index in the clean run):" % (len(failures), total)]
            for r in failures:
                lines.append("  %s k=%d [%s] %s: exit %d, %s | %s" % (
                    r.kind, r.k, r.request, r.fault, r.rc, "; ".join(r.problems), first_line(r.stderr)))
            self.fail("\n".join(lines))


if __name__ == "__main__":
    unittest.main()
