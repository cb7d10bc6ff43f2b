// Both sides of the layout benchmark of issue 9 (driven by bench/layout_bench.sh): lakeindex
// through its command line (one process per measurement, counters from `explain --analyze
// --json`) and DuckDB inside one in-memory connection per command. Prints one JSON object per
// measurement on stdout, all with "bench": "layout" and a "part": layout | box | sample.
//
//   node bench/layout_bench.mjs boxes --src EVENTS.parquet --seed S [--positions K] > BOXES.tsv
//       The query boxes: for each column set (xy, xyz, xz) and selectivity, K boxes that are
//       squares (cubes) in probability space, at random positions (fixed seed); each bound is
//       the column's exact quantile in SRC (DuckDB quantile_cont), so a box selects about the
//       wanted fraction of rows whatever the column's distribution (z is normal).
//       Lines: name \t set \t percent \t where.
//   node bench/layout_bench.mjs layout --cli LAKEINDEX --base TABLE0 --table TABLE --layout NAME -- ARGS...
//       Copies TABLE0 to TABLE (hard links: commits only create files) and times
//       `lakeindex layout TABLE ARGS...` (process wall and CPU through /usr/bin/time, and the
//       seconds the command reports itself).
//   node bench/layout_bench.mjs copy --src EVENTS.parquet --out F.parquet --order x,y [--threads T]
//       Times DuckDB's `COPY (SELECT * FROM read_parquet(SRC) ORDER BY x, y) TO F (zstd)`.
//   node bench/layout_bench.mjs ours --cli LAKEINDEX --table TABLE --layout NAME --queries BOXES.tsv --sets xy,xz
//       `lakeindex explain TABLE --where BOX --analyze --json` per box of those sets.
//   node bench/layout_bench.mjs duck --table TABLE --layout NAME --queries BOXES.tsv --sets xy [--counters] [--threads T]
//       DuckDB over the table's current files (from its newest manifest):
//       `CREATE TEMP TABLE r AS SELECT <columns but _lakeindex_weight> FROM read_parquet([...]) WHERE BOX`;
//       --counters adds the row groups whose min/max statistics overlap the box (parquet_metadata).
//   node bench/layout_bench.mjs sample-ours --cli LAKEINDEX --table TABLE --layout NAME --fractions 0.001,0.01
//   node bench/layout_bench.mjs sample-duck --src EVENTS.parquet --fractions 0.001,0.01 [--threads T]
//       `CREATE TEMP TABLE r AS SELECT * FROM read_parquet(SRC) USING SAMPLE p% (bernoulli)`.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

import { emitLine, openDuckDB, quoteIdent, rows, runTimed, sqlString, timed } from './bench_util.mjs';

const SETS = {
  xy: { columns: ['x', 'y'], percents: [0.01, 0.1, 1, 10] },
  xyz: { columns: ['x', 'y', 'z'], percents: [0.1] },
  xz: { columns: ['x', 'z'], percents: [0.01, 0.1, 1, 10] },
};

function parseArgs(argv) {
  const args = { command: argv[0], threads: 'default', positions: 3, rest: [] };
  for (let i = 1; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--') {
      args.rest.push(...argv.slice(i + 1));
      break;
    }
    if (a === '--counters') args.counters = true;
    else if (a.startsWith('--')) args[a.slice(2)] = argv[++i];
    else args.rest.push(a);
  }
  return args;
}

// mulberry32: a small seeded generator, so the boxes depend only on the seed.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function runBoxes(args) {
  const next = rng(Number(args.seed) * 7919 + 17);
  const k = Number(args.positions);
  const boxes = [];
  const needed = { x: new Set(), y: new Set(), z: new Set() };
  for (const [set, { columns, percents }] of Object.entries(SETS)) {
    for (const pct of percents) {
      const side = Math.pow(pct / 100, 1 / columns.length);
      for (let i = 1; i <= k; ++i) {
        const ranges = columns.map((c) => {
          const lo = Number((next() * (1 - side)).toFixed(9));
          const hi = Number((lo + side).toFixed(9));
          needed[c].add(lo);
          needed[c].add(hi);
          return { c, lo, hi };
        });
        boxes.push({ name: `${set} ${pct}% #${i}`, set, pct, ranges });
      }
    }
  }
  const db = await openDuckDB('default');
  const from = `read_parquet(${sqlString(args.src)})`;
  const quantile = {};
  for (const c of Object.keys(needed)) {
    const ps = [...needed[c]];
    const r = (await rows(db.conn, `SELECT quantile_cont(${quoteIdent(c)}, [${ps.join(', ')}]) FROM ${from}`))[0][0];
    const values = r.items ?? r;
    quantile[c] = new Map(ps.map((p, i) => [p, Number(values[i])]));
  }
  for (const b of boxes) {
    const where = b.ranges.map(({ c, lo, hi }) => `${c} BETWEEN ${quantile[c].get(lo)} AND ${quantile[c].get(hi)}`).join(' AND ');
    process.stdout.write(`${b.name}\t${b.set}\t${b.pct}\t${where}\n`);
  }
  db.conn.closeSync();
  db.instance.closeSync();
}

function loadBoxes(file, sets) {
  const want = sets.split(',');
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => {
    const [name, set, pct, where] = l.split('\t');
    return { name, set, pct: Number(pct), where };
  }).filter((b) => want.includes(b.set));
}

// Runs the command line under /usr/bin/time: its stdout, stderr, wall and CPU seconds.

function tableRows(table) {
  return manifestOf(table).fragments.reduce((a, f) => a + f.rows, 0);
}

function runLayout(args) {
  rmSync(args.table, { recursive: true, force: true });
  execFileSync('cp', ['-al', args.base, args.table]);
  const t = runTimed(args.cli, ['layout', args.table, ...args.rest]);
  const m = /in ([\d.]+) s: (\d+) files, (\d+) blocks(?:, (\d+) cubes, depth (\d+))?/.exec(t.stderr);
  const files = manifestOf(args.table).fragments;
  emitLine({ bench: 'layout', part: 'layout', engine: 'lakeindex', layout: args.layout, case: `layout ${args.layout}`,
             args: args.rest.join(' '), rows: tableRows(args.table), wall_s: t.wall_s, cpu_s: t.cpu_s,
             reported_s: m ? Number(m[1]) : NaN, files: m ? Number(m[2]) : files.length, blocks: m ? Number(m[3]) : NaN,
             cubes: m?.[4] ? Number(m[4]) : undefined, depth: m?.[5] ? Number(m[5]) : undefined,
             bytes: files.reduce((a, f) => a + f.file_size, 0) });
}

async function runCopy(args) {
  const db = await openDuckDB(args.threads);
  const order = args.order.split(',').map(quoteIdent).join(', ');
  rmSync(args.out, { force: true });
  const t = await timed(db.conn, `COPY (SELECT * FROM read_parquet(${sqlString(args.src)}) ORDER BY ${order}) TO ${sqlString(args.out)} (FORMAT parquet, COMPRESSION zstd)`);
  const n = Number((await rows(db.conn, `SELECT count(*) FROM read_parquet(${sqlString(args.out)})`))[0][0]);
  emitLine({ bench: 'layout', part: 'layout', engine: 'duckdb', threads: db.threads, duckdb_version: db.version,
             layout: `duckdb sort ${args.order}`, case: `COPY ORDER BY ${args.order}`, rows: n, wall_s: t.wall_s,
             cpu_s: t.cpu_s, bytes: statSync(args.out).size });
  rmSync(args.out, { force: true });
  db.conn.closeSync();
  db.instance.closeSync();
}

// The newest manifest of a table (the 20-digit version file names sort as numbers).
function manifestOf(table) {
  const dir = path.join(table, '_versions');
  const newest = readdirSync(dir).filter((f) => /^\d{20}\.manifest$/.test(f)).sort().at(-1);
  return JSON.parse(readFileSync(path.join(dir, newest), 'utf8'));
}

function explainJson(cli, argv) {
  const t = runTimed(cli, ['explain', ...argv, '--analyze', '--json']);
  return { ...JSON.parse(t.stdout), process_wall_s: t.wall_s, process_cpu_s: t.cpu_s };
}

function oursFields(j) {
  return { rows_read: j.rows_read, rows_returned: j.rows_returned, blocks_read: j.blocks_read,
           blocks_total: j.blocks_total, pages_read: j.pages_read, pages_total: j.pages_total,
           bytes_read: j.bytes_read, io_requests: j.io_requests, wall_s: j.elapsed_ms / 1000,
           process_wall_s: j.process_wall_s, process_cpu_s: j.process_cpu_s };
}

function runOurs(args) {
  const n = tableRows(args.table);
  for (const b of loadBoxes(args.queries, args.sets)) {
    const j = explainJson(args.cli, [args.table, '--where', b.where]);
    emitLine({ bench: 'layout', part: 'box', engine: 'lakeindex', layout: args.layout, set: b.set, pct: b.pct,
               case: b.name, where: b.where, rows: n, ...oursFields(j) });
  }
}

function runSampleOurs(args) {
  const n = tableRows(args.table);
  for (const f of args.fractions.split(',').map(Number)) {
    const j = explainJson(args.cli, [args.table, '--sample', String(f)]);
    emitLine({ bench: 'layout', part: 'sample', engine: 'lakeindex', layout: args.layout, fraction: f,
               case: `sample ${f * 100}%`, rows: n, ...oursFields(j) });
  }
}

// Row groups whose min/max statistics of every box column overlap the box (DuckDB reads those).
async function candidateRowGroups(conn, files, where) {
  const ranges = [...where.matchAll(/(\w+) BETWEEN (\S+) AND (\S+)/g)].map((m) => ({ c: m[1], lo: m[2], hi: m[3] }));
  const list = `[${files.map(sqlString).join(', ')}]`;
  const overlap = ranges.map(({ c, lo, hi }) =>
    `bool_or(path_in_schema = ${sqlString(c)} AND NOT (TRY_CAST(stats_max AS DOUBLE) < ${lo} OR TRY_CAST(stats_min AS DOUBLE) > ${hi}))`).join(' AND ');
  const sql = `
    WITH rg AS (
      SELECT file_name, row_group_id, any_value(row_group_num_rows) AS n, ${overlap} AS hit
      FROM parquet_metadata(${list}) GROUP BY file_name, row_group_id)
    SELECT count(*), sum(n), count(*) FILTER (WHERE hit), sum(n) FILTER (WHERE hit) FROM rg`;
  const r = (await rows(conn, sql))[0];
  return { duck_row_groups_total: Number(r[0]), duck_rows_total: Number(r[1]), duck_row_groups_read: Number(r[2] ?? 0),
           duck_rows_read: Number(r[3] ?? 0) };
}

async function runDuck(args) {
  const files = manifestOf(args.table).fragments.map((f) => path.join(args.table, f.file));
  const from = `read_parquet([${files.map(sqlString).join(', ')}])`;
  const db = await openDuckDB(args.threads);
  const cols = (await rows(db.conn, `DESCRIBE SELECT * FROM ${from}`)).map((r) => r[0]).filter((c) => !c.startsWith('_'));
  const select = cols.map(quoteIdent).join(', ');
  for (const b of loadBoxes(args.queries, args.sets)) {
    const t = await timed(db.conn, `CREATE OR REPLACE TEMP TABLE r AS SELECT ${select} FROM ${from} WHERE ${b.where}`);
    const n = Number((await rows(db.conn, 'SELECT count(*) FROM r'))[0][0]);
    await db.conn.run('DROP TABLE r');
    const fields = { bench: 'layout', part: 'box', engine: 'duckdb', threads: db.threads, duckdb_version: db.version,
                     layout: args.layout, set: b.set, pct: b.pct, case: b.name, rows_returned: n, wall_s: t.wall_s,
                     cpu_s: t.cpu_s };
    if (args.counters) Object.assign(fields, await candidateRowGroups(db.conn, files, b.where));
    emitLine(fields);
  }
  db.conn.closeSync();
  db.instance.closeSync();
}

async function runSampleDuck(args) {
  const db = await openDuckDB(args.threads);
  const from = `read_parquet(${sqlString(args.src)})`;
  const n = Number((await rows(db.conn, `SELECT count(*) FROM ${from}`))[0][0]);
  for (const f of args.fractions.split(',').map(Number)) {
    const t = await timed(db.conn, `CREATE OR REPLACE TEMP TABLE r AS SELECT * FROM ${from} USING SAMPLE ${f * 100}% (bernoulli)`);
    const got = Number((await rows(db.conn, 'SELECT count(*) FROM r'))[0][0]);
    await db.conn.run('DROP TABLE r');
    emitLine({ bench: 'layout', part: 'sample', engine: 'duckdb', threads: db.threads, duckdb_version: db.version,
               layout: 'plain', fraction: f, case: `sample ${f * 100}%`, rows: n, rows_returned: got, wall_s: t.wall_s,
               cpu_s: t.cpu_s });
  }
  db.conn.closeSync();
  db.instance.closeSync();
}

const args = parseArgs(process.argv.slice(2));
const commands = { boxes: runBoxes, layout: runLayout, copy: runCopy, ours: runOurs, duck: runDuck,
                   'sample-ours': runSampleOurs, 'sample-duck': runSampleDuck };
if (!commands[args.command]) {
  process.stderr.write('usage: node layout_bench.mjs boxes|layout|copy|ours|duck|sample-ours|sample-duck ... (see the file comment)\n');
  process.exit(1);
}
await commands[args.command](args);
