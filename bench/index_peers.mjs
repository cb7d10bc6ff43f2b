// Peers of the BTree benchmarks (bench/index_bench.cc, issue 4): DuckDB with ART indexes, DuckDB
// scanning the Parquet files, and SQLite, on the query set that `index_bench queries` wrote.
// Prints one JSON object per measurement (the shape index_bench prints) for bench/report.mjs.
//
//   node bench/index_peers.mjs duckdb --src EVENTS.parquet --table TABLE_DIR --queries Q.json [--repeat R]
//       Loads SRC into an in-memory table t (not timed; rowid = row number of the file). Times
//       CREATE INDEX ON t(id) R times with threads=1 and R times with DuckDB's default threads,
//       then once per other column (score, name, maybe), each with its peak RSS. Then, with
//       threads=1, every query as a prepared statement: ids = `SELECT rowid FROM t WHERE ...`,
//       whole rows = `SELECT * FROM t WHERE ...` (results materialized by DuckDB, not converted
//       to JS values), and `SELECT filename, file_row_number FROM read_parquet(TABLE/data/*)
//       WHERE ...` (no index: DuckDB's Parquet scan with its row-group statistics).
//       `--builds-only 1`: only the CREATE INDEX measurements (pairs with `index_bench build`).
//   node bench/index_peers.mjs sqlite --src EVENTS.parquet --db FILE --queries Q.json [--repeat R]
//       Creates FILE once (cached; rows copied from SRC through DuckDB, indexes on score, name
//       and maybe; not timed), then times CREATE INDEX ON t(id) R times (default pragmas: a
//       file database, 2 MB page cache, fsync at commit), then every query: ids =
//       `SELECT rowid ...`, whole rows = `SELECT * ...`, hot (one connection, warmed) and cold (a
//       new connection per lookup: empty SQLite page cache, warm OS file cache).
//
// Latencies are per lookup, in µs: median over the points of a point query, or over R runs of
// the other queries; cpu_us = process CPU of the loop / n. DuckDB is driven through its async
// Node API, which adds a few µs of promise round trip per statement; better-sqlite3 is
// synchronous.

import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

import { cpuSeconds, emitLine, latencyJson, openDuckDB, peakRssBytes, resetPeakRss, rssBytes,
         sqliteDatabaseClass, sqlString } from './bench_util.mjs';

const kHotPoints = 1000;
const kColdPoints = 200;
const kRowPoints = 200;
const kScanPoints = 5;

function parseArgs(argv) {
  const args = { command: argv[0], repeat: 5 };
  for (let i = 1; i < argv.length; ++i) {
    const k = argv[i];
    const v = argv[++i];
    if (k === '--src') args.src = v;
    else if (k === '--table') args.table = v;
    else if (k === '--db') args.db = v;
    else if (k === '--queries') args.queries = v;
    else if (k === '--repeat') args.repeat = Number(v);
    else if (k === '--builds-only') args.buildsOnly = v === '1';
    else throw new Error(`unknown option ${k}`);
  }
  return args;
}

// The lookups of one measurement: the points of a point query (up to `points`), else `repeat`
// runs of the one query (null = no parameter).
function instances(q, points, repeat) {
  return q.kind === 'eq' ? q.points.slice(0, points) : Array(repeat).fill(null);
}

function whereOf(q, engine) {
  if (q.kind === 'eq') return `${q.column} = ?`;
  return engine === 'sqlite' && q.sqlite_where ? q.sqlite_where : q.where;
}

// Times `run(instance)` (returns the result row count) over every instance after one warm-up
// pass; returns the latency fields.
async function measure(insts, run, warm = true) {
  let n = 0;
  if (warm) for (const v of insts) n = await run(v);
  const us = [];
  const cpu0 = process.cpuUsage();
  for (const v of insts) {
    const t0 = performance.now();
    n = await run(v);
    us.push((performance.now() - t0) * 1000);
  }
  return { ...latencyJson(us, cpuSeconds(cpu0)), rows_returned: n };
}

function buildLine(engine, kase, threads, wall, cpu, rss) {
  return { bench: 'index_build', engine, case: kase, threads, wall_s: wall, cpu_s: cpu, peak_rss_bytes: peakRssBytes(),
           rss_before_bytes: rss };
}

// ---- DuckDB ----------------------------------------------------------------------------------

async function runDuckDB(args) {
  const db = await openDuckDB('1');
  const { conn } = db;
  const extra = { duckdb_version: db.version };
  try {
    await conn.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${sqlString(args.src)})`);
    for (const threads of ['1', 'default']) {
      await conn.run(threads === 'default' ? 'RESET threads' : `SET threads = ${threads}`);
      const actual = Number((await (await conn.run("SELECT current_setting('threads')")).getRows())[0][0]);
      for (let r = 0; r < args.repeat; ++r) {
        await conn.run('DROP INDEX IF EXISTS idx_id');
        resetPeakRss();
        const rss = rssBytes();
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        await conn.run('CREATE INDEX idx_id ON t(id)');
        const wall = (performance.now() - t0) / 1000;
        emitLine({ ...buildLine('duckdb', 'ART id', actual, wall, cpuSeconds(cpu0), rss), ...extra });
      }
    }
    await conn.run('SET threads = 1');
    for (const column of ['score', 'name', 'maybe']) {
      resetPeakRss();
      const rss = rssBytes();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await conn.run(`CREATE INDEX idx_${column} ON t(${column})`);
      const wall = (performance.now() - t0) / 1000;
      emitLine({ ...buildLine('duckdb', `ART ${column}`, 1, wall, cpuSeconds(cpu0), rss), ...extra });
    }

    if (args.buildsOnly) return;
    const queries = JSON.parse(readFileSync(args.queries, 'utf8'));
    const glob = sqlString(path.join(args.table, 'data', '*.parquet'));
    for (const q of queries) {
      process.stderr.write(`index_peers duckdb: ${q.name}\n`);
      const where = whereOf(q, 'duckdb');
      const ways = [['ids', 'duckdb ART', `SELECT rowid FROM t WHERE ${where}`, kHotPoints]];
      if (q.rows) ways.push(['rows', 'duckdb ART', `SELECT * FROM t WHERE ${where}`, kRowPoints]);
      ways.push(['ids', 'duckdb Parquet',
                 `SELECT filename, file_row_number FROM read_parquet(${glob}, filename = true, file_row_number = true) WHERE ${where}`,
                 kScanPoints]);
      for (const [way, engine, sql, points] of ways) {
        const stmt = await conn.prepare(sql);
        const run = async (v) => {
          if (v !== null) stmt.bindBigInt(1, BigInt(v));
          return (await stmt.run()).rowCount;
        };
        const insts = instances(q, points, args.repeat);
        // The plan: whether DuckDB answers with its index (decided when the scan starts, so
        // only EXPLAIN ANALYZE shows it: "Type: Index Scan" vs "Sequential Scan").
        const explainSql = `EXPLAIN ANALYZE ${sql.replace('?', String(insts[0] ?? 0))}`;
        const planText = (await (await conn.run(explainSql)).getRows()).map((r) => r.join(' ')).join('\n');
        const plan = /Index Scan/i.test(planText) ? 'index scan' : 'sequential scan';
        const lat = await measure(insts, run, engine !== 'duckdb Parquet');
        emitLine({ bench: 'index_query', engine, case: q.name, way, cache: engine === 'duckdb Parquet' ? 'OS cache' : 'hot',
                   threads: 1, plan, ...lat, ...extra });
        stmt.destroySync();
      }
    }
  } finally {
    conn.closeSync();
    db.instance.closeSync();
  }
}

// ---- SQLite ----------------------------------------------------------------------------------

// Copies SRC into a new SQLite file (rowid = row number of the file, ts as epoch microseconds).
async function createSqlite(Database, src, file) {
  const tmp = `${file}.tmp`;
  rmSync(tmp, { force: true });
  const s = new Database(tmp);
  s.pragma('journal_mode = OFF');
  s.pragma('synchronous = OFF');
  s.exec(`CREATE TABLE t (id INTEGER, x REAL, y REAL, z REAL, score INTEGER, category TEXT, name TEXT,
                          ts INTEGER, maybe INTEGER)`);
  const insert = s.prepare('INSERT INTO t (rowid, id, x, y, z, score, category, name, ts, maybe) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const duck = await openDuckDB('default');
  const result = await duck.conn.stream(
    `SELECT id, x, y, z, score, category, name, epoch_us(ts), maybe FROM read_parquet(${sqlString(src)})`);
  let rowid = 0;
  const insertChunk = s.transaction((chunkRows) => {
    for (const r of chunkRows) insert.run(rowid++, ...r);
  });
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    insertChunk(chunk.getRows());
  }
  duck.conn.closeSync();
  duck.instance.closeSync();
  for (const column of ['score', 'name', 'maybe']) s.exec(`CREATE INDEX idx_${column} ON t(${column})`);
  s.close();
  renameSync(tmp, file);
}

async function runSqlite(args) {
  const Database = sqliteDatabaseClass();
  if (!existsSync(args.db)) {
    process.stderr.write(`index_peers sqlite: creating ${args.db} (once, not timed)\n`);
    await createSqlite(Database, args.src, args.db);
  }
  const s = new Database(args.db);
  const extra = { sqlite_version: s.prepare('SELECT sqlite_version()').pluck().get() };
  for (let r = 0; r < args.repeat; ++r) {
    s.exec('DROP INDEX IF EXISTS idx_id');
    resetPeakRss();
    const rss = rssBytes();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    s.exec('CREATE INDEX idx_id ON t(id)');
    const wall = (performance.now() - t0) / 1000;
    emitLine({ ...buildLine('sqlite', 'CREATE INDEX id', 1, wall, cpuSeconds(cpu0), rss), ...extra });
  }

  const queries = JSON.parse(readFileSync(args.queries, 'utf8'));
  for (const q of queries) {
    process.stderr.write(`index_peers sqlite: ${q.name}\n`);
    const where = whereOf(q, 'sqlite');
    const ways = [['ids', `SELECT rowid FROM t WHERE ${where}`, kHotPoints]];
    if (q.rows) ways.push(['rows', `SELECT * FROM t WHERE ${where}`, kRowPoints]);
    for (const [way, sql, points] of ways) {
      const plan = s.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(q.kind === 'eq' ? [0] : []))
        .map((r) => r.detail).join('; ');
      const stmt = s.prepare(sql).raw();
      const args1 = (v) => (v === null ? [] : [v]);
      const hot = await measure(instances(q, points, args.repeat), (v) => stmt.all(...args1(v)).length);
      emitLine({ bench: 'index_query', engine: 'sqlite', case: q.name, way, cache: 'hot', threads: 1, plan, ...hot,
                 ...extra });
      if (way !== 'ids') continue;
      // Cold: a new connection per lookup (open + prepare + run + close are timed).
      const cold = await measure(instances(q, kColdPoints, args.repeat), (v) => {
        const c = new Database(args.db, { readonly: true });
        const n = c.prepare(sql).raw().all(...args1(v)).length;
        c.close();
        return n;
      }, false);
      emitLine({ bench: 'index_query', engine: 'sqlite', case: q.name, way, cache: 'cold connection', threads: 1, plan,
                 ...cold, ...extra });
    }
  }
  s.close();
}

const args = parseArgs(process.argv.slice(2));
if (args.command === 'duckdb') await runDuckDB(args);
else if (args.command === 'sqlite') await runSqlite(args);
else throw new Error('usage: node bench/index_peers.mjs duckdb|sqlite ... (see the file comment)');
