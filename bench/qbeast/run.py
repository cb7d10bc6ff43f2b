#!/usr/bin/env python3
"""Qbeast-spark's own writer and reader on the lakeindex events data, with the queries of
bench/engine_skipping.py (make_queries(events, 5, 7)); bench/RESULTS.md, "Qbeast's own reader".
bench/qbeast/build.sh builds the jar into QBEAST_WORK (default /tmp/qbeast-outside) first.

  .venv/bin/python bench/qbeast/run.py [--write] [--query] \
      [--events /tmp/es10r/work/events.parquet] [--table $QBEAST_WORK/tables/events_qbeast] \
      [--out $QBEAST_WORK/out/results.json] [--limit N (smoke: no count check)] [--runs 2]
"""
import argparse, glob, json, os, statistics, sys, time

HERE = os.environ.get("QBEAST_WORK", "/tmp/qbeast-outside")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import engine_skipping as es  # noqa: E402

AGG = ("count(*) AS n, sum(id), sum(x), sum(y), sum(z), sum(score), max(category), max(name), "
       "max(ts), sum(maybe)")


def session(codec, block_size=0):
    extra = {"spark.driver.memory": "6g",
             "spark.sql.extensions": "io.qbeast.sql.QbeastSparkSessionExtension",
             "spark.sql.catalog.spark_catalog": "io.qbeast.catalog.QbeastCatalog",
             "spark.sql.parquet.compression.codec": codec}
    if block_size:
        extra["spark.hadoop.parquet.block.size"] = str(block_size)
    return es.spark_session(extra, jars=sorted(glob.glob(os.path.join(HERE, "jars", "*.jar"))))


def log(s):
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {s}\n")
    sys.stderr.flush()


def table_files(path):
    out = []
    for d, _, fs in os.walk(path):
        if "_delta_log" in d:
            continue
        for f in fs:
            if f.endswith(".parquet"):
                out.append(os.path.getsize(os.path.join(d, f)))
    return sorted(out)


class Meter(es.SparkRunner):
    """engine_skipping's Spark metrics (scan node metrics, stage input bytes) over Qbeast's scans."""
    SCANS = ("FileSourceScanExec", "BatchScanExec")

    def run(self, df, label):
        self.n += 1
        group = f"q{self.n}"
        self.sc.setJobGroup(group, label, interruptOnCancel=True)
        t0 = time.perf_counter()
        row = df.collect()[0]
        wall = time.perf_counter() - t0
        qe = df._jdf.queryExecution()
        m = self.scan_metrics(qe.executedPlan())
        s = self.stage_metrics(group)
        return {"row": [str(v) for v in row], "rows": row[0], "wall_s": wall,
                "files": m.get("numFiles"), "files_bytes": m.get("filesSize"),
                "rows_read": m.get("numOutputRows"),
                "pruned_partitions": m.get("numPartitions"), "scan_metrics": {k: v for k, v in m.items()},
                "input_bytes": s["input_bytes"], "input_records": s["input_records"], "stages": s["stages"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", default="/tmp/es10r/work/events.parquet")
    ap.add_argument("--table", default=os.path.join(HERE, "tables", "events_qbeast"))
    ap.add_argument("--out", default=os.path.join(HERE, "out", "results.json"))
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--query", action="store_true")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--cube-size", type=int, default=100000)
    ap.add_argument("--codec", default="zstd")
    ap.add_argument("--block-size", type=int, default=0,
                    help="spark.hadoop.parquet.block.size for the write (0: Spark's default, 128 MiB)")
    args = ap.parse_args()
    res = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            res = json.load(f)

    def save():
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out + ".tmp", "w") as f:
            json.dump(res, f, indent=1, default=str)
        os.replace(args.out + ".tmp", args.out)

    spark = session(args.codec, args.block_size)
    res["versions"] = {"spark": spark.version, "jars": sorted(os.path.basename(j) for j in
                                                              glob.glob(os.path.join(HERE, "jars", "*.jar")))}
    if args.write:
        import shutil
        shutil.rmtree(args.table, ignore_errors=True)
        src = spark.read.parquet(args.events)
        if args.limit:
            src = src.limit(args.limit)
        log(f"writing qbeast table {args.table} (columnsToIndex x,y, cubeSize {args.cube_size}, {args.codec})")
        t0 = time.perf_counter()
        (src.write.format("qbeast").option("columnsToIndex", "x,y").option("cubeSize", str(args.cube_size))
         .save(args.table))
        wt = time.perf_counter() - t0
        sizes = table_files(args.table)
        res["write"] = {"seconds": wt, "files": len(sizes), "bytes": sum(sizes), "file_sizes": sizes,
                        "cube_size": args.cube_size, "codec": args.codec, "block_size": args.block_size, "limit": args.limit}
        try:
            from pyspark.sql import SparkSession  # noqa
            jqt = spark._jvm.io.qbeast.table.QbeastTable.forPath(spark._jsparkSession, args.table)
            res["write"]["metrics"] = str(jqt.getIndexMetrics().toString())
        except Exception as e:  # the metrics are extra
            res["write"]["metrics_error"] = str(e)[:2000]
        log(f"wrote in {wt:.1f} s: {len(sizes)} files, {sum(sizes) / 1e6:.1f} MB")
        save()
    if args.query:
        queries, n = es.make_queries(args.events, 5, 7)
        df = spark.read.format("qbeast").load(args.table)
        df.createOrReplaceTempView("t")
        meter = Meter(spark)
        sizes = table_files(args.table)
        res["table"] = {"files": len(sizes), "bytes": sum(sizes)}
        res["queries"] = []
        for qq in queries:
            runs = []
            for r in range(args.runs):
                if qq["kind"] == "sample":
                    q = spark.table("t").sample(qq["fraction"]).selectExpr(*AGG.split(", "))
                else:
                    q = spark.sql(f"SELECT {AGG} FROM t WHERE {qq['where']}")
                runs.append(meter.run(q, qq["id"]))
            last = runs[-1]
            ok = None
            if qq["kind"] != "sample" and not args.limit:
                ok = last["rows"] == qq["numpy_count"]
            rec = {"id": qq["id"], "kind": qq["kind"], "fraction": qq["fraction"], "where": qq.get("where"),
                   "numpy_count": qq.get("numpy_count"), "count_ok": ok, "runs": runs,
                   "wall_s_median": statistics.median(r["wall_s"] for r in runs)}
            if qq["kind"] == "sample":
                rec["plan"] = q._jdf.queryExecution().executedPlan().toString()[:3000]
            res["queries"].append(rec)
            log(f"{qq['id']}: rows {last['rows']} (numpy {qq.get('numpy_count')}, ok {ok}) files {last['files']} "
                f"input {last['input_bytes'] / 1e6:.2f} MB, rows read {last['rows_read']}, "
                f"{rec['wall_s_median']:.2f} s")
            save()
        bad = [q["id"] for q in res["queries"] if q["count_ok"] is False]
        if bad:
            log(f"COUNT MISMATCH: {bad}")
    spark.stop()


if __name__ == "__main__":
    main()
