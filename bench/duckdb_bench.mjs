// DuckDB side of the end-to-end benchmarks (bench/run.sh): times SQL statements inside one
// in-memory DuckDB connection, so node and DuckDB start-up are not measured, and prints one JSON
// object per measurement on stdout (the same shape as bench/*_bench.cc print).
//
//   node bench/duckdb_bench.mjs write --threads T --src EVENTS.parquet --dir D
//       Loads SRC into an in-memory table (not timed), then times
//       COPY events TO 'D/duckdb_<codec>.parquet' (FORMAT parquet, COMPRESSION <codec>)
//       for codec zstd and snappy (snappy is DuckDB's default).
//   node bench/duckdb_bench.mjs read --threads T FILE...
//       Per file, two ways of reading every value of every column:
//         materialize: CREATE TEMP TABLE t AS SELECT * FROM read_parquet(FILE)  (like our ReadAll,
//                      which decodes every column into memory)
//         aggregate:   one min() per column, so every column is decoded but nothing is stored
//   node bench/duckdb_bench.mjs scan --threads T [--counters] [--repeat R] [--bench B] QUERIES.tsv [NAME...]
//       The queries of bench/scan_queries.tsv (see scan_bench.cc) over
//       read_parquet('<table>/data/*.parquet'): mode "rows" materializes the selected columns of
//       the matching rows into a temp table, mode "sum" returns count(*) and sum() of each
//       selected column. With --counters, also reports (outside the timed statement) the row
//       groups, and their rows, that DuckDB cannot skip by their min/max statistics
//       (parquet_metadata): DuckDB prunes Parquet by row group, not by page. (The profiler's
//       cumulative_rows_scanned is not used: in DuckDB 1.5 it counts the rows of skipped row
//       groups too, e.g. 10M for a query that reads one 1M-row row group.) --repeat R runs each
//       query R times (counters on the first run only); --bench B labels the lines (default
//       "scan"; bench/run.sh uses "zonemap" for the zone-map comparison).
//
// --threads T: a number, or "default" (DuckDB's default: one per core).
// CPU time is process.cpuUsage() (user + system of every thread of this process).

import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { emitLine, openDuckDB, quoteIdent, rows, sqlString, timed } from './bench_util.mjs';

function usage() {
  process.stderr.write('usage: node duckdb_bench.mjs write|read|scan --threads T ... (see the file comment)\n');
  process.exit(1);
}

function parseArgs(argv) {
  const args = { command: argv[0], threads: '1', repeat: 1, bench: 'scan', rest: [] };
  for (let i = 1; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--threads') args.threads = argv[++i];
    else if (a === '--src') args.src = argv[++i];
    else if (a === '--dir') args.dir = argv[++i];
    else if (a === '--counters') args.counters = true;
    else if (a === '--repeat') args.repeat = Number(argv[++i]);
    else if (a === '--bench') args.bench = argv[++i];
    else args.rest.push(a);
  }
  if (!args.command) usage();
  return args;
}

function emit(db, fields) {
  const j = { engine: 'duckdb', threads: db.threads, threads_setting: db.threadsLabel, duckdb_version: db.version,
              ...fields };
  emitLine(j);
}

async function columnsOf(conn, from) {
  return (await rows(conn, `DESCRIBE SELECT * FROM ${from}`)).map((r) => ({ name: r[0], type: r[1] }));
}

async function runWrite(db, args) {
  const { conn } = db;
  await conn.run(`CREATE TABLE events AS SELECT * FROM read_parquet(${sqlString(args.src)})`);
  const n = Number((await rows(conn, 'SELECT count(*) FROM events'))[0][0]);
  for (const codec of ['zstd', 'snappy']) {
    const file = path.join(args.dir, `duckdb_${codec}.parquet`);
    const t = await timed(conn, `COPY events TO ${sqlString(file)} (FORMAT parquet, COMPRESSION ${codec})`);
    emit(db, { bench: 'write', case: codec, rows: n, file: path.basename(file), file_bytes: statSync(file).size,
               wall_s: t.wall_s, cpu_s: t.cpu_s });
  }
}

async function runRead(db, args) {
  const { conn } = db;
  for (const file of args.rest) {
    const from = `read_parquet(${sqlString(file)})`;
    const cols = await columnsOf(conn, from);
    const m = await timed(conn, `CREATE OR REPLACE TEMP TABLE t AS SELECT * FROM ${from}`);
    const n = Number((await rows(conn, 'SELECT count(*) FROM t'))[0][0]);
    await conn.run('DROP TABLE t');
    const info = (await rows(conn, `SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${sqlString(file)})`))[0];
    const common = { bench: 'read', file: path.basename(file), rows: n, columns: cols.length,
                     row_groups: Number(info[0]), file_bytes: statSync(file).size };
    emit(db, { ...common, case: `${path.basename(file)} materialize`, wall_s: m.wall_s, cpu_s: m.cpu_s });
    const mins = cols.map((c) => `min(${quoteIdent(c.name)})`).join(', ');
    const a = await timed(conn, `SELECT ${mins} FROM ${from}`);
    emit(db, { ...common, case: `${path.basename(file)} aggregate`, wall_s: a.wall_s, cpu_s: a.cpu_s });
  }
}

function loadQueries(file, only) {
  const out = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [name, table, where, select, mode] = line.split('\t');
    if (only.length === 0 || only.includes(name)) out.push({ name, table, where, select, mode });
  }
  return out;
}

// Rows in the row groups whose min/max statistics of some filter column cannot rule the
// filter out, found by asking DuckDB itself: the same filter over one row per row group whose
// columns are [min, max] intervals is not expressible in SQL in general, so this evaluates the
// specific shapes the benchmark uses: `col BETWEEN a AND b` and `col >= a AND col < b`.
async function rowsInCandidateRowGroups(conn, q) {
  const m = /^\s*(\w+)\s+(?:BETWEEN\s+(.+?)\s+AND\s+(.+?)|>=\s*(.+?)\s+AND\s+\w+\s*<\s*(.+?))\s*$/i.exec(q.where);
  if (!m) return null;
  const col = m[1];
  const lo = m[2] ?? m[4];
  const hi = m[3] ?? m[5];
  const glob = sqlString(path.join(q.table, 'data', '*.parquet'));
  // stats_min/stats_max are VARCHAR; cast them to the column's type through the literal's type.
  const sql = `
    WITH rg AS (
      SELECT file_name, row_group_id, any_value(row_group_num_rows) AS n,
             any_value(stats_min) AS mn, any_value(stats_max) AS mx
      FROM parquet_metadata(${glob}) WHERE path_in_schema = ${sqlString(col)}
      GROUP BY file_name, row_group_id)
    SELECT count(*), sum(n),
           count(*) FILTER (WHERE NOT (mx::${typeOfLiteral(lo)} < ${lo} OR mn::${typeOfLiteral(lo)} > ${hi})),
           sum(n) FILTER (WHERE NOT (mx::${typeOfLiteral(lo)} < ${lo} OR mn::${typeOfLiteral(lo)} > ${hi}))
    FROM rg`;
  const r = (await rows(conn, sql))[0];
  return { row_groups_total: Number(r[0]), rows_total: Number(r[1]), row_groups_read: Number(r[2] ?? 0),
           rows_read: Number(r[3] ?? 0) };
}

function typeOfLiteral(lit) {
  return /^TIMESTAMP\s/i.test(lit) ? 'TIMESTAMP' : 'DOUBLE';
}

async function runScan(db, args) {
  const [file, ...only] = args.rest;
  for (const q of loadQueries(file, only)) {
    for (let r = 0; r < args.repeat; ++r) await runScanQuery(db, args, q, r === 0);
  }
}

async function runScanQuery(db, args, q, first) {
  const { conn } = db;
  const from = `read_parquet(${sqlString(path.join(q.table, 'data', '*.parquet'))})`;
  const where = q.where ? ` WHERE ${q.where}` : '';
  const select = q.select ? q.select.split(',').map(quoteIdent) : ['*'];
  let t;
  let n;
  let sums;
  if (q.mode === 'sum') {
    t = await timed(conn, `SELECT count(*), ${select.map((c) => `sum(${c})`).join(', ')} FROM ${from}${where}`);
    n = Number(t.rows[0][0]);
    sums = t.rows[0].slice(1).map(Number);
  } else {
    t = await timed(conn, `CREATE OR REPLACE TEMP TABLE r AS SELECT ${select.join(', ')} FROM ${from}${where}`);
    n = Number((await rows(conn, 'SELECT count(*) FROM r'))[0][0]);
    await conn.run('DROP TABLE r');
  }
  const fields = { bench: args.bench, case: q.name, rows_returned: n, wall_s: t.wall_s, cpu_s: t.cpu_s };
  if (sums) fields.sums = sums;
  if (args.counters && first) {
    const pruning = q.where ? await rowsInCandidateRowGroups(conn, q) : null;
    if (pruning) Object.assign(fields, pruning);
  }
  emit(db, fields);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const db = await openDuckDB(args.threads);
  try {
    if (args.command === 'write') await runWrite(db, args);
    else if (args.command === 'read') await runRead(db, args);
    else if (args.command === 'scan') await runScan(db, args);
    else usage();
  } finally {
    db.conn.closeSync();
    db.instance.closeSync();
  }
}

await main();
