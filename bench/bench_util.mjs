// Helpers shared by the Node.js sides of the benchmarks (bench/duckdb_bench.mjs,
// bench/index_peers.mjs): opening DuckDB (from tests/duckdb) and SQLite (from bench/), SQL
// quoting, timing, peak memory and the JSON result lines that bench/report.mjs reads.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const requireDuckDB = createRequire(path.join(here, '..', 'tests', 'duckdb', 'package.json'));
const requireBench = createRequire(path.join(here, 'package.json'));

export function sqlString(s) {
  return `'${s.replaceAll("'", "''")}'`;
}

export function quoteIdent(s) {
  return `"${s.replaceAll('"', '""')}"`;
}

// An in-memory DuckDB with `threads` ("default" = DuckDB's choice, one per core).
export async function openDuckDB(threads) {
  const duckdb = await import(requireDuckDB.resolve('@duckdb/node-api'));
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  if (threads !== 'default') await conn.run(`SET threads = ${Number(threads)}`);
  const version = (await (await conn.run('SELECT version()')).getRows())[0][0];
  const actual = Number((await (await conn.run("SELECT current_setting('threads')")).getRows())[0][0]);
  return { instance, conn, version, threads: actual, threadsLabel: threads };
}

// better-sqlite3's Database class (npm, installed into bench/node_modules by bench/package.json).
export function sqliteDatabaseClass() {
  return requireBench('better-sqlite3');
}

export async function rows(conn, sql) {
  return (await conn.run(sql)).getRows();
}

// Times one statement: wall and CPU seconds, plus its materialized result rows.
export async function timed(conn, sql) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await conn.run(sql);
  const out = await result.getRows();
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { wall_s: wall, cpu_s: (cpu.user + cpu.system) / 1e6, rows: out };
}

export function cpuSeconds(since) {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1e6;
}

// One JSON result line on stdout (BigInts become numbers).
export function emitLine(j) {
  process.stdout.write(JSON.stringify(j, (_, v) => (typeof v === 'bigint' ? Number(v) : v)) + '\n');
}

function procStatusBytes(key) {
  const m = readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${key}:\\s+(\\d+)`, 'm'));
  return m ? Number(m[1]) * 1024 : 0;
}

// Peak RSS (VmHWM) and current RSS of this process, in bytes; resetPeakRss() sets the peak to
// the current RSS (Linux clear_refs "5"), so that the peak afterwards belongs to what follows.
export const peakRssBytes = () => procStatusBytes('VmHWM');
export const rssBytes = () => procStatusBytes('VmRSS');
export function resetPeakRss() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// Latency statistics of per-lookup wall times (µs) and the CPU seconds of the whole loop, in
// the shape index_bench prints.
export function latencyJson(us, cpuS) {
  const s = [...us].sort((a, b) => a - b);
  const pct = (p) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0);
  return { n: us.length, median_us: median(us), p10_us: pct(0.1), p90_us: pct(0.9),
           cpu_us: us.length ? (cpuS * 1e6) / us.length : 0 };
}

// Runs the garbage collector when node was started with --expose-gc (between measurements).
export const gc = () => { if (globalThis.gc) globalThis.gc(); };

// The 90th percentile of xs.
export function p90(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(0.9 * s.length))] : NaN;
}

// Bytes of a file, or of every file under a directory (0 when missing).
export function dirBytes(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const e of readdirSync(p)) n += dirBytes(path.join(p, e));
  return n;
}

// mulberry32: a small deterministic PRNG, uniform in [0, 1).
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The build record written next to a peer's SQLite database once it is complete.
export const sqliteBuildFile = (db) => `${db}.build.json`;

// Builds args.db (with its build record) once, by running `script sqlite-load --src SRC --db DB`
// in a child process (so that the load's memory does not count against the measuring process),
// and returns the build record.
export function ensureSqliteDb(script, args, log) {
  if (!existsSync(args.db) || !existsSync(sqliteBuildFile(args.db))) {
    log(`sqlite: creating ${args.db} (once; reused afterwards)`);
    const child = spawnSync(process.execPath, [script, 'sqlite-load', '--src', args.src, '--db', args.db],
                            { stdio: ['ignore', 'inherit', 'inherit'] });
    if (child.status !== 0) throw new Error('sqlite load failed');
  }
  return JSON.parse(readFileSync(sqliteBuildFile(args.db), 'utf8'));
}

// Runs a lakeindex command (`cli` with `argv`) to its end under /usr/bin/time: its output, wall
// and CPU seconds; throws with its stderr when it fails.
export function runTimed(cli, argv) {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '@@time %U %S', cli, ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = (performance.now() - t0) / 1000;
  const m = /@@time ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  if (r.status !== 0) throw new Error(`${cli} ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr, wall_s: wall, cpu_s: m ? Number(m[1]) + Number(m[2]) : NaN };
}
