// Peers of the whole-row lookup benchmark (issue 16): the same lookups on the events data in
// Lance (@lancedb/lancedb, BTREE scalar indexes), DuckDB (an in-memory table with ART indexes, and
// read_parquet over the file with no index) and SQLite (a file database with B-tree indexes).
// bench/lookup_bench.sh runs it; bench/python_lookups.py is the lakeindex side, reading the same
// query file; bench/report_lookups.mjs turns the JSON lines into a table.
//
//   node bench/lookup_peers.mjs queries --src EVENTS.parquet --output Q.json [--seed 42] [--points 200]
//       Writes the query set with concrete literals, drawn deterministically from the file (seeded
//       PRNG over row positions), with the expected row count of every lookup (DuckDB, counted on
//       read_parquet). Shared by every engine, so that all of them run exactly the same lookups.
//   node bench/lookup_peers.mjs lance  --src EVENTS.parquet --dir LANCE_DIR --queries Q.json
//       Loads SRC into a Lance table (LANCE_DIR/events.lance; cached: reused when present; the
//       load runs in a child process, so the query process's memory is the engine's) with BTREE
//       indexes on id, score and name, then runs the queries.
//   node bench/lookup_peers.mjs duckdb --src EVENTS.parquet --queries Q.json [--scan-points 20]
//       The queries on read_parquet(SRC), no index (engine duckdb_parquet; a point query there
//       runs only its first --scan-points points, each being a scan), then CREATE TABLE t AS
//       SELECT * FROM read_parquet(SRC) + ART indexes on id, score, name (duckdb_native) and the
//       queries on t.
//   node bench/lookup_peers.mjs sqlite --src EVENTS.parquet --db FILE --queries Q.json
//       Creates FILE (cached) with indexes on id, score and name, then runs the queries; LIKE
//       'p%' runs as GLOB 'p*' (SQLite's LIKE is case-insensitive and cannot use the index).
//
// Options of the measuring commands: --runs R (timed passes of a non-point query, default 5),
// --points P (at most P points of a point query, default all). Every lookup is run once as a
// warm-up (rows counted and checked against the query file), then timed: a point query once per
// point, the others R times. Hot: one connection / opened table for all lookups.
//
// Output: one JSON line per measurement,
//   {"bench":"lookups","engine","query","select":"*"|"id","rows","rows_ok","median_us","p90_us","runs","plan",...}
// (rows = rows of one pass over the lookups; rows_each = per point of a point query), and one
// {"bench":"lookups_engine",...} line per engine with load and index build times and memory
// (rss_held_bytes = RSS after load/open and the warm-up minus RSS before the engine was opened).
//
// Statements: DuckDB and SQLite run prepared statements (a point query binds its value; the
// others are prepared once); Lance and lakeindex take the filter text per lookup (their APIs have
// no prepared statements). Results are materialized: DuckDB's in its result (not converted to JS
// values, as in index_peers.mjs), Lance's as an Arrow table in JS, SQLite's as JS arrays.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync,
         writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { dirBytes, ensureSqliteDb, gc, p90, prng, sqliteBuildFile } from './bench_util.mjs';
import { emitLine, median, openDuckDB, peakRssBytes, rssBytes, sqliteDatabaseClass,
         sqlString } from './bench_util.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const requireBench = createRequire(path.join(here, 'package.json'));
const kColumns = ['id', 'x', 'y', 'z', 'score', 'category', 'name', 'ts', 'maybe'];
const kLoadBatchRows = 1 << 20;  // rows per Lance append (one fragment each)

function parseArgs(argv) {
  const args = { command: argv[0], seed: 42, points: Infinity, runs: 5, scanPoints: 20, genPoints: 200 };
  for (let i = 1; i < argv.length; ++i) {
    const k = argv[i];
    const v = argv[++i];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--src') args.src = v;
    else if (k === '--output') args.output = v;
    else if (k === '--queries') args.queries = v;
    else if (k === '--dir') args.dir = v;
    else if (k === '--db') args.db = v;
    else if (k === '--seed') args.seed = Number(v);
    else if (k === '--points') { args.points = Number(v); args.genPoints = Number(v); }
    else if (k === '--runs') args.runs = Number(v);
    else if (k === '--scan-points') args.scanPoints = Number(v);
    else throw new Error(`unknown option ${k}`);
  }
  return args;
}

const log = (s) => process.stderr.write(`lookup_peers: ${s}\n`);



// ---- the query set ---------------------------------------------------------------------------


async function makeQueries(args) {
  const { conn, instance } = await openDuckDB('default');
  const rp = `read_parquet(${sqlString(args.src)})`;
  const one = async (sql) => (await (await conn.run(sql)).getRows())[0];
  const [n, idMin, idMax, idDistinct, scoreMin, scoreMax] = (await one(
    `SELECT count(*), min(id), max(id), count(DISTINCT id), min(score), max(score) FROM ${rp}`)).map(Number);
  log(`${n} rows; id ${idMin}..${idMax} (${idDistinct} distinct), score ${scoreMin}..${scoreMax}`);
  const rand = prng(args.seed);
  const randRow = () => Math.floor(rand() * n);
  // Random row positions, then the id and score found there (so that every value exists).
  const pool = Array.from({ length: 2 * args.genPoints + 400 + 60 }, randRow);
  const found = new Map();
  for (let i = 0; i < pool.length; i += 500) {
    const list = pool.slice(i, i + 500).join(',');
    const got = await (await conn.run(
      `SELECT file_row_number, id, score FROM read_parquet(${sqlString(args.src)}, file_row_number = true)
       WHERE file_row_number IN (${list})`)).getRows();
    for (const [r, id, score] of got) found.set(Number(r), { id: Number(id), score: Number(score) });
  }
  let next = 0;
  const take = () => found.get(pool[next++]);
  const countMap = async (column, values) => {
    const m = new Map();
    for (const [v, c] of await (await conn.run(
      `SELECT ${column}, count(*) FROM ${rp} WHERE ${column} IN (${[...new Set(values)].join(',')}) GROUP BY 1`)).getRows()) {
      m.set(Number(v), Number(c));
    }
    return values.map((v) => m.get(v) ?? 0);
  };
  const count = async (where) => Number((await one(`SELECT count(*) FROM ${rp} WHERE ${where}`))[0]);

  const queries = [];
  const points = (name, column, values, rowsEach, note) => queries.push({
    name, kind: 'points', note, param: { column, values }, wheres: values.map((v) => `${column} = ${v}`),
    rows_each: rowsEach, rows: rowsEach.reduce((a, b) => a + b, 0) });
  const single = async (name, where, note, sqliteWhere) => {
    const q = { name, kind: 'single', note, wheres: [where], rows: await count(where) };
    if (sqliteWhere) q.sqlite_wheres = [sqliteWhere];
    q.rows_each = [q.rows];
    queries.push(q);
  };

  const idPoints = Array.from({ length: args.genPoints }, () => take().id);
  points('id_eq', 'id', idPoints, await countMap('id', idPoints), 'id = v, random existing ids');
  const scorePoints = Array.from({ length: args.genPoints }, () => take().score);
  points('score_eq', 'score', scorePoints, await countMap('score', scorePoints), 'score = v, v drawn from existing scores');
  // Ranges: lo = the score of a random row, hi = the score `target` rows above it in score
  // order, so that the range holds about fraction * n rows whatever the distribution.
  for (const [label, frac] of [['0.01pct', 1e-4], ['0.1pct', 1e-3], ['1pct', 1e-2]]) {
    const target = Math.max(1, Math.round(frac * n));
    let bounds = null;
    for (let attempt = 0; attempt < 20 && !bounds; ++attempt) {
      const lo = take().score;
      const hi = await one(`SELECT score FROM ${rp} WHERE score >= ${lo} ORDER BY score LIMIT 1 OFFSET ${target - 1}`);
      if (hi) bounds = [lo, Number(hi[0])];
    }
    if (!bounds) throw new Error(`no range of ${target} rows found`);
    await single(`score_between_${label}`, `score BETWEEN ${bounds[0]} AND ${bounds[1]}`,
                 `score range holding ${label.replace('pct', '%')} of the rows`);
  }
  const distinct = (k, pick) => {
    const s = new Set();
    for (let guard = 0; s.size < k && guard < 100 * k; ++guard) s.add(pick());
    return [...s];
  };
  const scoreIn = distinct(100, () => take().score);
  await single('score_in_100', `score IN (${scoreIn.join(', ')})`, '100 existing scores');
  const idIn = distinct(100, () => take().id);
  await single('id_in_100', `id IN (${idIn.join(', ')})`, '100 existing ids');
  await single('name_prefix_3', "name LIKE 'abc%'", '3-letter prefix', "name GLOB 'abc*'");
  await single('name_prefix_2', "name LIKE 'xx%'", '2-letter prefix', "name GLOB 'xx*'");

  const out = { version: 1, src: path.resolve(args.src), rows: n, seed: args.seed, columns: kColumns,
                selects: ['*', 'id'], queries };
  writeFileSync(args.output, JSON.stringify(out, null, 1) + '\n');
  for (const q of queries) log(`${q.name}: ${q.wheres.length} lookups, ${q.rows} rows`);
  conn.closeSync();
  instance.closeSync();
}

// ---- measuring -------------------------------------------------------------------------------

function loadQueries(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

// Runs every query of the set on one engine. `engine.prepare(q, select, points)` returns
// { run(i) -> row count (async or not), plan: string, close() }.
async function runQueries(engineName, qs, args, engine, extra, pointCap = args.points) {
  for (const q of qs.queries) {
    for (const select of qs.selects) {
      const k = q.kind === 'points' ? Math.min(q.wheres.length, pointCap) : 1;
      const p = await engine.prepare(q, select, k);
      // Warm-up: every lookup once, rows counted.
      const rowsEach = [];
      for (let i = 0; i < k; ++i) rowsEach.push(await p.run(i));
      const expected = q.rows_each.slice(0, k);
      const rowsOk = rowsEach.every((r, i) => r === expected[i]);
      if (!rowsOk) log(`${engineName} ${q.name} select ${select}: rows ${rowsEach.slice(0, 5)}... != expected ${expected.slice(0, 5)}...`);
      const passes = q.kind === 'points' ? 1 : args.runs;
      const us = [];
      for (let pass = 0; pass < passes; ++pass) {
        for (let i = 0; i < k; ++i) {
          const t0 = performance.now();
          await p.run(i);
          us.push((performance.now() - t0) * 1000);
        }
      }
      const line = { bench: 'lookups', engine: engineName, query: q.name, select, rows: rowsEach.reduce((a, b) => a + b, 0),
                     rows_ok: rowsOk, lookups: k, median_us: median(us), p90_us: p90(us), runs: us.length, plan: p.plan,
                     ...extra };
      if (q.kind === 'points') line.rows_each = rowsEach;
      emitLine(line);
      log(`${engineName} ${q.name} ${select}: ${line.rows} rows, median ${line.median_us.toFixed(0)} µs`);
      if (p.close) p.close();
    }
  }
}

// ---- Lance -----------------------------------------------------------------------------------

async function lancedbModule() {
  return import(requireBench.resolve('@lancedb/lancedb'));
}

// Streams SRC through DuckDB into Arrow record batches of kLoadBatchRows rows.
async function* arrowBatches(src, arrow, schema) {
  const { conn, instance } = await openDuckDB('default');
  const result = await conn.stream(
    `SELECT id, x, y, z, score, category, name, epoch_us(ts) AS ts, maybe FROM read_parquet(${sqlString(src)})`);
  const fresh = () => ({ n: 0, id: new BigInt64Array(kLoadBatchRows), x: new Float64Array(kLoadBatchRows),
                         y: new Float64Array(kLoadBatchRows), z: new Float64Array(kLoadBatchRows),
                         score: new BigInt64Array(kLoadBatchRows), category: [], name: [],
                         ts: new BigInt64Array(kLoadBatchRows), maybe: [] });
  const toBatch = (b) => {
    const n = b.n;
    const num = (type, arr) => arrow.makeData({ type, length: n, data: arr.subarray(0, n) });
    const children = [
      num(new arrow.Int64(), b.id), num(new arrow.Float64(), b.x), num(new arrow.Float64(), b.y),
      num(new arrow.Float64(), b.z), num(new arrow.Int64(), b.score),
      arrow.vectorFromArray(b.category, new arrow.Utf8()).data[0],
      arrow.vectorFromArray(b.name, new arrow.Utf8()).data[0],
      num(new arrow.TimestampMicrosecond(), b.ts),
      arrow.vectorFromArray(b.maybe, new arrow.Int64()).data[0],
    ];
    const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, children });
    return new arrow.RecordBatch(schema, data);
  };
  let b = fresh();
  const copyNum = (vec, dst, off, count) => {
    if (vec.items && vec.items.length === count) dst.set(vec.items, off);
    else for (let i = 0; i < count; ++i) dst[off + i] = vec.getItem(i);
  };
  try {
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      let start = 0;
      const total = chunk.rowCount;
      const cols = kColumns.map((_, c) => chunk.getColumnVector(c));
      while (start < total) {
        const count = Math.min(total - start, kLoadBatchRows - b.n);
        const sl = start === 0 && count === total ? cols : cols.map((v) => v.slice(start, count));
        copyNum(sl[0], b.id, b.n, count);
        copyNum(sl[1], b.x, b.n, count);
        copyNum(sl[2], b.y, b.n, count);
        copyNum(sl[3], b.z, b.n, count);
        copyNum(sl[4], b.score, b.n, count);
        for (let i = 0; i < count; ++i) b.category.push(sl[5].getItem(i));
        for (let i = 0; i < count; ++i) b.name.push(sl[6].getItem(i));
        copyNum(sl[7], b.ts, b.n, count);
        for (let i = 0; i < count; ++i) b.maybe.push(sl[8].getItem(i));
        b.n += count;
        start += count;
        if (b.n === kLoadBatchRows) {
          yield toBatch(b);
          b = fresh();
        }
      }
    }
    if (b.n > 0) yield toBatch(b);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

function lanceSchema(arrow) {
  const f = (name, type, nullable = false) => new arrow.Field(name, type, nullable);
  return new arrow.Schema([
    f('id', new arrow.Int64()), f('x', new arrow.Float64()), f('y', new arrow.Float64()), f('z', new arrow.Float64()),
    f('score', new arrow.Int64()), f('category', new arrow.Utf8()), f('name', new arrow.Utf8()),
    f('ts', new arrow.TimestampMicrosecond()), f('maybe', new arrow.Int64(), true)]);
}

const lanceBuildFile = (dir) => path.join(dir, 'lookups-build.json');

// The child process of `lance`: writes the Lance table and its indexes into DIR.tmp, then renames.
async function lanceLoad(args) {
  const lancedb = await lancedbModule();
  const arrow = await import(requireBench.resolve('apache-arrow'));
  const tmp = `${args.dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const db = await lancedb.connect(tmp);
  const schema = lanceSchema(arrow);
  const t0 = performance.now();
  let writeS = 0;
  let rows = 0;
  const tbl = await db.createEmptyTable('events', schema);
  for await (const batch of arrowBatches(args.src, arrow, schema)) {
    const w0 = performance.now();
    await tbl.add(new arrow.Table(schema, [batch]));
    writeS += (performance.now() - w0) / 1000;
    rows += batch.numRows;
    log(`lance: ${rows} rows written`);
  }
  const loadS = (performance.now() - t0) / 1000;
  const indexS = {};
  for (const column of ['id', 'score', 'name']) {
    const i0 = performance.now();
    await tbl.createIndex(column, { config: lancedb.Index.btree() });
    indexS[column] = (performance.now() - i0) / 1000;
    log(`lance: btree on ${column} in ${indexS[column].toFixed(1)} s`);
  }
  const indices = await tbl.listIndices();
  const build = { rows, load_s: loadS, lance_write_s: writeS, index_s: indexS, table_version: await tbl.version(),
                  indices: indices.map((i) => ({ name: i.name, type: i.indexType, columns: i.columns })),
                  load_peak_rss_bytes: peakRssBytes() };
  tbl.close();
  db.close();
  writeFileSync(lanceBuildFile(tmp), JSON.stringify(build) + '\n');
  rmSync(args.dir, { recursive: true, force: true });
  renameSync(tmp, args.dir);
}

async function runLance(args) {
  if (!existsSync(lanceBuildFile(args.dir))) {
    log(`lance: creating ${args.dir} (once; reused afterwards)`);
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'lance-load', '--src', args.src,
                                               '--dir', args.dir], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (child.status !== 0) throw new Error('lance load failed');
  }
  const build = JSON.parse(readFileSync(lanceBuildFile(args.dir), 'utf8'));
  const qs = loadQueries(args.queries);
  const lancedb = await lancedbModule();
  const version = JSON.parse(readFileSync(path.join(here, 'node_modules', '@lancedb', 'lancedb', 'package.json'), 'utf8')).version;
  gc();
  const rss0 = rssBytes();
  const o0 = performance.now();
  const db = await lancedb.connect(args.dir);
  const tbl = await db.openTable('events');
  const openS = (performance.now() - o0) / 1000;
  const nrows = await tbl.countRows();
  if (nrows !== qs.rows) throw new Error(`lance table has ${nrows} rows, the queries ${qs.rows}`);
  const plans = {};
  const engine = {
    async prepare(q, select) {
      const cols = select === '*' ? null : [select];
      const make = (i) => {
        let query = tbl.query().where(q.wheres[i]);
        if (cols) query = query.select(cols);
        return query;
      };
      const plan = await make(0).explainPlan(true);
      plans[`${q.name} ${select}`] = plan;
      return { plan, run: async (i) => (await make(i).toArrow()).numRows };
    },
  };
  await runQueries('lance', qs, args, engine, { lancedb_version: version });
  gc();
  emitLine({ bench: 'lookups_engine', engine: 'lance', lancedb_version: version, ...build, open_s: openS,
             rss_before_bytes: rss0, rss_after_bytes: rssBytes(), rss_held_bytes: rssBytes() - rss0,
             peak_rss_bytes: peakRssBytes(), disk_bytes: dirBytes(args.dir) });
  tbl.close();
  db.close();
}

// ---- DuckDB ----------------------------------------------------------------------------------

async function runDuckDB(args) {
  const qs = loadQueries(args.queries);
  gc();
  const rss0 = rssBytes();
  const db = await openDuckDB('default');
  const { conn } = db;
  const extra = { duckdb_version: db.version, threads: db.threads };

  const makeEngine = (from) => ({
    async prepare(q, select) {
      const cols = select === '*' ? '*' : select;
      const where = q.kind === 'points' ? `${q.param.column} = $1` : q.wheres[0];
      const sql = `SELECT ${cols} FROM ${from} WHERE ${where}`;
      const stmt = await conn.prepare(sql);
      // The plan: DuckDB decides on an index scan when the scan starts, so only EXPLAIN
      // ANALYZE shows it ("Index Scan" vs "Sequential Scan"/"Table Scan"). A point query
      // explains its prepared form, with the first value bound.
      const explain = await conn.prepare(`EXPLAIN ANALYZE ${sql}`);
      if (q.kind === 'points') explain.bindBigInt(1, BigInt(q.param.values[0]));
      const text = (await (await explain.run()).getRows()).map((r) => r.join(' ')).join('\n');
      explain.destroySync();
      const plan = /Index Scan/i.test(text) ? 'index scan' : (/READ_PARQUET|PARQUET_SCAN/i.test(text) ? 'parquet scan' : 'sequential scan');
      return {
        plan,
        run: async (i) => {
          if (q.kind === 'points') stmt.bindBigInt(1, BigInt(q.param.values[i]));
          return (await stmt.run()).rowCount;
        },
        close: () => stmt.destroySync(),
      };
    },
  });
  try {
    // read_parquet first (no load, no index), so that its memory is not the native table's.
    await runQueries('duckdb_parquet', qs, args, makeEngine(`read_parquet(${sqlString(args.src)})`), extra,
                     Math.min(args.points, args.scanPoints));
    gc();
    const rssParquet = rssBytes();
    emitLine({ bench: 'lookups_engine', engine: 'duckdb_parquet', ...extra, rows: qs.rows, load_s: 0, index_s: {},
               rss_before_bytes: rss0, rss_held_bytes: rssParquet - rss0, peak_rss_bytes: peakRssBytes(),
               disk_bytes: dirBytes(args.src) });

    const l0 = performance.now();
    await conn.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${sqlString(args.src)})`);
    const loadS = (performance.now() - l0) / 1000;
    const indexS = {};
    for (const column of ['id', 'score', 'name']) {
      const i0 = performance.now();
      await conn.run(`CREATE INDEX idx_${column} ON t(${column})`);
      indexS[column] = (performance.now() - i0) / 1000;
      log(`duckdb: ART on ${column} in ${indexS[column].toFixed(1)} s`);
    }
    gc();
    const rssLoaded = rssBytes();
    const memRows = await (await conn.run(
      'SELECT tag, memory_usage_bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0')).getRows();
    const duckMemory = Object.fromEntries(memRows.map(([t, b]) => [t, Number(b)]));
    await runQueries('duckdb_native', qs, args, makeEngine('t'), extra);
    gc();
    // Memory held: RSS after the load and index builds minus RSS before DuckDB was opened
    // (what read_parquet left behind is included; duckdb_memory has DuckDB's own accounting).
    emitLine({ bench: 'lookups_engine', engine: 'duckdb_native', ...extra, rows: qs.rows, load_s: loadS, index_s: indexS,
               rss_before_bytes: rss0, rss_after_load_bytes: rssLoaded, rss_held_bytes: rssLoaded - rss0,
               rss_after_queries_bytes: rssBytes(), duckdb_memory: duckMemory, peak_rss_bytes: peakRssBytes() });
  } finally {
    conn.closeSync();
    db.instance.closeSync();
  }
}

// ---- SQLite ----------------------------------------------------------------------------------


// The child process of `sqlite`: copies SRC into DB (rowid = row number of the file, ts as epoch
// microseconds) and builds the indexes; records the times next to it.
async function sqliteLoad(args) {
  const Database = sqliteDatabaseClass();
  const tmp = `${args.db}.tmp`;
  rmSync(tmp, { force: true });
  const s = new Database(tmp);
  s.pragma('journal_mode = OFF');
  s.pragma('synchronous = OFF');
  s.exec(`CREATE TABLE t (id INTEGER, x REAL, y REAL, z REAL, score INTEGER, category TEXT, name TEXT,
                          ts INTEGER, maybe INTEGER)`);
  const insert = s.prepare('INSERT INTO t (rowid, id, x, y, z, score, category, name, ts, maybe) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const t0 = performance.now();
  const duck = await openDuckDB('default');
  const result = await duck.conn.stream(
    `SELECT id, x, y, z, score, category, name, epoch_us(ts), maybe FROM read_parquet(${sqlString(args.src)})`);
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
  const loadS = (performance.now() - t0) / 1000;
  const indexS = {};
  for (const column of ['id', 'score', 'name']) {
    const i0 = performance.now();
    s.exec(`CREATE INDEX idx_${column} ON t(${column})`);
    indexS[column] = (performance.now() - i0) / 1000;
    log(`sqlite: index on ${column} in ${indexS[column].toFixed(1)} s`);
  }
  s.close();
  renameSync(tmp, args.db);
  writeFileSync(sqliteBuildFile(args.db), JSON.stringify({ rows: rowid, load_s: loadS, index_s: indexS,
                                                           load_peak_rss_bytes: peakRssBytes() }) + '\n');
}

async function runSqlite(args) {
  const build = ensureSqliteDb(fileURLToPath(import.meta.url), args, log);
  const qs = loadQueries(args.queries);
  const Database = sqliteDatabaseClass();
  gc();
  const rss0 = rssBytes();
  const s = new Database(args.db, { readonly: true });
  const extra = { sqlite_version: s.prepare('SELECT sqlite_version()').pluck().get() };
  const engine = {
    prepare(q, select) {
      const cols = select === '*' ? kColumns.join(', ') : select;
      const where = q.kind === 'points' ? `${q.param.column} = ?` : (q.sqlite_wheres ?? q.wheres)[0];
      const sql = `SELECT ${cols} FROM t WHERE ${where}`;
      const plan = s.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(q.kind === 'points' ? [0] : []))
        .map((r) => r.detail).join('; ');
      const stmt = s.prepare(sql).raw();
      return { plan, run: (i) => (q.kind === 'points' ? stmt.all(q.param.values[i]) : stmt.all()).length };
    },
  };
  await runQueries('sqlite', qs, args, engine, extra);
  gc();
  emitLine({ bench: 'lookups_engine', engine: 'sqlite', ...extra, ...build, rss_before_bytes: rss0,
             rss_held_bytes: rssBytes() - rss0, peak_rss_bytes: peakRssBytes(), disk_bytes: dirBytes(args.db) });
  s.close();
}

const args = parseArgs(process.argv.slice(2));
if (args.command === 'queries') await makeQueries(args);
else if (args.command === 'lance') await runLance(args);
else if (args.command === 'lance-load') await lanceLoad(args);
else if (args.command === 'duckdb') await runDuckDB(args);
else if (args.command === 'sqlite') await runSqlite(args);
else if (args.command === 'sqlite-load') await sqliteLoad(args);
else throw new Error('usage: node bench/lookup_peers.mjs queries|lance|duckdb|sqlite ... (see the file comment)');
