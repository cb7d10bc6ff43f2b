// Peers of the 2-D / 3-D box part of the "rows at the speed of the index" benchmark: the same
// box queries on the events data in DuckDB (read_parquet over copies sorted by (x, y) and by
// (x, y, z); native tables sorted the same way) and SQLite (R*Tree virtual tables over (x, y) and
// (x, y, z), joined to the rows table by rowid). bench/box_bench.sh runs it; bench/python_boxes.py
// is the lakeindex side (OTree tables) reading the same query file; bench/report_boxes.mjs turns
// the JSON lines into a table.
//
//   node bench/box_peers.mjs queries --src EVENTS.parquet --output Q.json [--seed 42] [--boxes 5]
//       Writes the boxes: on (x, y) squares covering 0.01%, 0.1%, 1% and 10% of the plane
//       [0, 1000)^2 at random positions (seeded PRNG), --boxes per selectivity; on (x, y, z)
//       cubes of 0.1% in probability space: x and y as value ranges (they are uniform), z between
//       exact quantiles (quantile_cont; z is normal). Each box is a WHERE string with its expected
//       row count (DuckDB, count(*) on read_parquet(SRC)).
//   node bench/box_peers.mjs duckdb --src EVENTS.parquet --dir CACHE_DIR --queries Q.json
//       Writes (once, cached) CACHE_DIR/events_xy.parquet and events_xyz.parquet with
//       COPY (SELECT * FROM read_parquet(SRC) ORDER BY x, y[, z]) TO ... (zstd), runs the boxes
//       on them (engine duckdb_parquet_sorted; 2-D boxes on the (x, y) file, 3-D on the (x, y, z)
//       one), then CREATE TABLE t_xy AS SELECT * FROM read_parquet(SRC) ORDER BY x, y (and t_xyz
//       ORDER BY x, y, z) and the boxes on them (duckdb_native; DuckDB prunes row groups of
//       122,880 rows by their min/max, so sorting is what makes a box cheap; no ART index).
//   node bench/box_peers.mjs sqlite --src EVENTS.parquet --db FILE --queries Q.json
//       Creates FILE (cached): table t (rowid = row number of SRC, ts as epoch microseconds),
//       R*Tree rt_xy(id, x0, x1, y0, y1) and rt_xyz(id, x0, x1, y0, y1, z0, z1) with id = rowid
//       of t. A box runs as
//         SELECT t.<cols> FROM rt_xy r CROSS JOIN t ON t.rowid = r.id
//         WHERE r.x1 >= xlo AND r.x0 <= xhi AND ... AND <the box on t>
//       (the R*Tree keeps 32-bit floats rounded outwards, so its test is a superset and the box
//       is checked again on t's exact values).
//
// Options of the measuring commands: --runs R (timed runs per box, default 5). Every box is run
// once as a warm-up (rows counted and checked against the query file), then R times. Hot: one
// connection / database for all boxes; statements prepared once per box.
//
// Output: one JSON line per selectivity and select,
//   {"bench":"boxes","engine","query","set","pct","select":"*"|"id","rows","rows_each","rows_ok",
//    "boxes","median_us","p90_us","runs","plan",...}
// (median / p90 over all runs of all boxes of the selectivity; rows = sum over its boxes), and
// one {"bench":"boxes_engine",...} line per engine with setup times and memory (rss_held_bytes =
// RSS after setup and the warm-up minus RSS before the engine was opened).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync,
         writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { dirBytes, ensureSqliteDb, gc, p90, prng, sqliteBuildFile } from './bench_util.mjs';
import { emitLine, median, openDuckDB, peakRssBytes, rssBytes, sqliteDatabaseClass,
         sqlString } from './bench_util.mjs';

const kColumns = ['id', 'x', 'y', 'z', 'score', 'category', 'name', 'ts', 'maybe'];
const SETS = {
  xy: { columns: ['x', 'y'], percents: [0.01, 0.1, 1, 10] },
  xyz: { columns: ['x', 'y', 'z'], percents: [0.1] },
};
const kPlane = 1000;  // x and y are uniform in [0, 1000)

function parseArgs(argv) {
  const args = { command: argv[0], seed: 42, runs: 5, boxes: 5 };
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
    else if (k === '--runs') args.runs = Number(v);
    else if (k === '--boxes') args.boxes = Number(v);
    else throw new Error(`unknown option ${k}`);
  }
  return args;
}

const log = (s) => process.stderr.write(`box_peers: ${s}\n`);




// ---- the query set ---------------------------------------------------------------------------

async function makeQueries(args) {
  const { conn, instance } = await openDuckDB('default');
  const rp = `read_parquet(${sqlString(args.src)})`;
  const one = async (sql) => (await (await conn.run(sql)).getRows())[0];
  const n = Number((await one(`SELECT count(*) FROM ${rp}`))[0]);
  const rand = prng(args.seed * 7919 + 101);
  const round6 = (v) => Number(v.toFixed(6));
  const queries = [];
  for (const [set, { columns, percents }] of Object.entries(SETS)) {
    for (const pct of percents) {
      const side = Math.pow(pct / 100, 1 / columns.length);  // fraction of each axis
      const boxes = [];
      for (let i = 0; i < args.boxes; ++i) {
        const bounds = {};
        for (const c of columns) {
          const p = rand() * (1 - side);
          if (c === 'z') {
            const q = (await one(`SELECT quantile_cont(z, [${p}, ${p + side}]) FROM ${rp}`))[0];
            const vs = q.items ?? q;
            bounds[c] = [Number(vs[0]), Number(vs[1])];
          } else {
            bounds[c] = [round6(p * kPlane), round6((p + side) * kPlane)];
          }
        }
        const where = columns.map((c) => `${c} BETWEEN ${bounds[c][0]} AND ${bounds[c][1]}`).join(' AND ');
        const rows = Number((await one(`SELECT count(*) FROM ${rp} WHERE ${where}`))[0]);
        boxes.push({ where, bounds, rows });
      }
      const name = `${set}_${pct}pct`;
      queries.push({ name, set, pct, columns, boxes, rows: boxes.reduce((a, b) => a + b.rows, 0) });
      log(`${name}: ${boxes.map((b) => b.rows).join(', ')} rows`);
    }
  }
  const out = { version: 1, src: path.resolve(args.src), rows: n, seed: args.seed, columns: kColumns,
                selects: ['*', 'id'], queries };
  writeFileSync(args.output, JSON.stringify(out, null, 1) + '\n');
  conn.closeSync();
  instance.closeSync();
}

// ---- measuring -------------------------------------------------------------------------------

const loadQueries = (file) => JSON.parse(readFileSync(file, 'utf8'));

// Runs every box of the set on one engine. `engine.prepare(q, box, select)` returns
// { run() -> row count (async or not), plan: string, close() }.
async function runQueries(engineName, qs, args, engine, extra) {
  for (const q of qs.queries) {
    for (const select of qs.selects) {
      const preps = [];
      for (const b of q.boxes) preps.push(await engine.prepare(q, b, select));
      const rowsEach = [];
      for (const p of preps) rowsEach.push(await p.run());  // warm-up
      const expected = q.boxes.map((b) => b.rows);
      const rowsOk = rowsEach.every((r, i) => r === expected[i]);
      if (!rowsOk) log(`${engineName} ${q.name} select ${select}: rows ${rowsEach} != expected ${expected}`);
      const us = [];
      for (let pass = 0; pass < args.runs; ++pass) {
        for (const p of preps) {
          const t0 = performance.now();
          await p.run();
          us.push((performance.now() - t0) * 1000);
        }
      }
      const line = { bench: 'boxes', engine: engineName, query: q.name, set: q.set, pct: q.pct, select,
                     rows: rowsEach.reduce((a, b) => a + b, 0), rows_each: rowsEach, rows_ok: rowsOk,
                     boxes: preps.length, median_us: median(us), p90_us: p90(us), runs: us.length,
                     plan: preps[0].plan, ...extra };
      emitLine(line);
      log(`${engineName} ${q.name} ${select}: ${line.rows} rows, median ${line.median_us.toFixed(0)} µs`);
      for (const p of preps) if (p.close) p.close();
    }
  }
}

// ---- DuckDB ----------------------------------------------------------------------------------

const orderOf = (set) => SETS[set].columns.join(', ');

async function sortedCopies(args) {
  const buildFile = path.join(args.dir, 'duckdb_sorted.build.json');
  if (existsSync(buildFile)) return JSON.parse(readFileSync(buildFile, 'utf8'));
  mkdirSync(args.dir, { recursive: true });
  const { conn, instance } = await openDuckDB('default');
  const build = { copy_s: {} };
  for (const set of Object.keys(SETS)) {
    const out = path.join(args.dir, `events_${set}.parquet`);
    const tmp = `${out}.tmp.parquet`;
    log(`duckdb: COPY ... ORDER BY ${orderOf(set)} to ${out} (once; reused afterwards)`);
    const t0 = performance.now();
    await conn.run(`COPY (SELECT * FROM read_parquet(${sqlString(args.src)}) ORDER BY ${orderOf(set)})
                    TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd)`);
    build.copy_s[set] = (performance.now() - t0) / 1000;
    renameSync(tmp, out);
    build[`bytes_${set}`] = statSync(out).size;
  }
  conn.closeSync();
  instance.closeSync();
  writeFileSync(buildFile, JSON.stringify(build) + '\n');
  return build;
}

async function runDuckDB(args) {
  const qs = loadQueries(args.queries);
  const sorted = await sortedCopies(args);
  gc();
  const rss0 = rssBytes();
  const db = await openDuckDB('default');
  const { conn } = db;
  const extra = { duckdb_version: db.version, threads: db.threads };

  const makeEngine = (fromOf) => ({
    async prepare(q, box, select) {
      const sql = `SELECT ${select === '*' ? '*' : select} FROM ${fromOf(q.set)} WHERE ${box.where}`;
      const stmt = await conn.prepare(sql);
      const text = (await (await conn.run(`EXPLAIN ANALYZE ${sql}`)).getRows()).map((r) => r.join(' ')).join('\n');
      const scanned = /Scanning Files:\s*\d+\/\d+|Row Groups?:?\s*[\d/]+/i.exec(text);
      const plan = (/READ_PARQUET|PARQUET_SCAN/i.test(text) ? 'parquet scan' : 'table scan') + (scanned ? ` (${scanned[0]})` : '');
      return { plan, run: async () => (await stmt.run()).rowCount, close: () => stmt.destroySync() };
    },
  });
  try {
    const file = (set) => path.join(args.dir, `events_${set}.parquet`);
    await runQueries('duckdb_parquet_sorted', qs, args, makeEngine((set) => `read_parquet(${sqlString(file(set))})`), extra);
    gc();
    emitLine({ bench: 'boxes_engine', engine: 'duckdb_parquet_sorted', ...extra, rows: qs.rows,
               setup: Object.fromEntries(Object.entries(sorted.copy_s).map(([s, v]) => [`COPY ORDER BY ${orderOf(s)}`, v])),
               rss_before_bytes: rss0, rss_held_bytes: rssBytes() - rss0, peak_rss_bytes: peakRssBytes(),
               disk_bytes: Object.keys(SETS).reduce((a, s) => a + dirBytes(file(s)), 0) });

    const setup = {};
    for (const set of Object.keys(SETS)) {
      const l0 = performance.now();
      await conn.run(`CREATE TABLE t_${set} AS SELECT * FROM read_parquet(${sqlString(args.src)}) ORDER BY ${orderOf(set)}`);
      setup[`CREATE TABLE ORDER BY ${orderOf(set)}`] = (performance.now() - l0) / 1000;
      log(`duckdb: t_${set} in ${setup[`CREATE TABLE ORDER BY ${orderOf(set)}`].toFixed(1)} s`);
    }
    gc();
    const rssLoaded = rssBytes();
    const memRows = await (await conn.run(
      'SELECT tag, memory_usage_bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0')).getRows();
    const duckMemory = Object.fromEntries(memRows.map(([t, b]) => [t, Number(b)]));
    await runQueries('duckdb_native', qs, args, makeEngine((set) => `t_${set}`), extra);
    gc();
    emitLine({ bench: 'boxes_engine', engine: 'duckdb_native', ...extra, rows: qs.rows, setup,
               rss_before_bytes: rss0, rss_after_load_bytes: rssLoaded, rss_held_bytes: rssLoaded - rss0,
               rss_after_queries_bytes: rssBytes(), duckdb_memory: duckMemory, peak_rss_bytes: peakRssBytes(),
               note: 'both tables t_xy and t_xyz held; memory includes what read_parquet left behind' });
  } finally {
    conn.closeSync();
    db.instance.closeSync();
  }
}

// ---- SQLite ----------------------------------------------------------------------------------


// The child process of `sqlite`: copies SRC into DB and builds the R*Trees; records the times.
async function sqliteLoad(args) {
  const Database = sqliteDatabaseClass();
  const tmp = `${args.db}.tmp`;
  rmSync(tmp, { force: true });
  mkdirSync(path.dirname(tmp), { recursive: true });
  const s = new Database(tmp);
  s.pragma('journal_mode = OFF');
  s.pragma('synchronous = OFF');
  s.pragma('cache_size = -1000000');  // 1 GB page cache while building
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
  log(`sqlite: ${rowid} rows loaded in ${loadS.toFixed(1)} s`);
  const indexS = {};
  const build = (name, sql) => {
    const i0 = performance.now();
    s.exec(sql);
    indexS[name] = (performance.now() - i0) / 1000;
    log(`sqlite: ${name} in ${indexS[name].toFixed(1)} s`);
  };
  build('rtree_xy', `CREATE VIRTUAL TABLE rt_xy USING rtree(id, x0, x1, y0, y1);
                     INSERT INTO rt_xy SELECT rowid, x, x, y, y FROM t;`);
  build('rtree_xyz', `CREATE VIRTUAL TABLE rt_xyz USING rtree(id, x0, x1, y0, y1, z0, z1);
                      INSERT INTO rt_xyz SELECT rowid, x, x, y, y, z, z FROM t;`);
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
    prepare(q, box, select) {
      const cols = select === '*' ? kColumns.map((c) => `t.${c}`).join(', ') : `t.${select}`;
      const rt = `rt_${q.set}`;
      const rtWhere = q.columns.map((c) => `r.${c}1 >= ${box.bounds[c][0]} AND r.${c}0 <= ${box.bounds[c][1]}`).join(' AND ');
      const tWhere = q.columns.map((c) => `t.${c} BETWEEN ${box.bounds[c][0]} AND ${box.bounds[c][1]}`).join(' AND ');
      const sql = `SELECT ${cols} FROM ${rt} r CROSS JOIN t ON t.rowid = r.id WHERE ${rtWhere} AND ${tWhere}`;
      const plan = s.prepare(`EXPLAIN QUERY PLAN ${sql}`).all().map((r) => r.detail).join('; ');
      const stmt = s.prepare(sql).raw();
      return { plan, run: () => stmt.all().length };
    },
  };
  await runQueries('sqlite_rtree', qs, args, engine, extra);
  gc();
  emitLine({ bench: 'boxes_engine', engine: 'sqlite_rtree', ...extra, rows: build.rows,
             setup: { 'load t': build.load_s, 'R*Tree (x, y)': build.index_s.rtree_xy, 'R*Tree (x, y, z)': build.index_s.rtree_xyz },
             load_peak_rss_bytes: build.load_peak_rss_bytes, rss_before_bytes: rss0,
             rss_held_bytes: rssBytes() - rss0, peak_rss_bytes: peakRssBytes(), disk_bytes: dirBytes(args.db) });
  s.close();
}

const args = parseArgs(process.argv.slice(2));
if (args.command === 'queries') await makeQueries(args);
else if (args.command === 'duckdb') await runDuckDB(args);
else if (args.command === 'sqlite') await runSqlite(args);
else if (args.command === 'sqlite-load') await sqliteLoad(args);
else throw new Error('usage: node bench/box_peers.mjs queries|duckdb|sqlite ... (see the file comment)');
