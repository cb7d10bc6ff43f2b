// DuckDB side of the aggregate benchmark (bench/aggregate_bench.sh): the same aggregates as
// bench/python_aggregates.py, over read_parquet of the events file and of a lakeindex table's
// data files (the same rows), timed inside one in-memory connection, hot (one warm-up run).
//
//   node bench/aggregate_peers.mjs --threads T --runs N --source NAME=GLOB [--source NAME=GLOB ...]
//
// Prints one JSON line per (source, case) with the median; and one line "stats" with the exact
// mean and standard deviation of score (for the ideal Bernoulli sample size of a ±1% interval).

import { emitLine, openDuckDB, sqlString, timed } from './bench_util.mjs';

const CASES = [
  { name: 'avg(score)', sql: (src) => `SELECT avg(score) FROM ${src}` },
  { name: 'count(*) WHERE maybe IS NULL', sql: (src) => `SELECT count(*) FROM ${src} WHERE maybe IS NULL` },
  { name: 'count(*) WHERE score BETWEEN 100000 AND 200000',
    sql: (src) => `SELECT count(*) FROM ${src} WHERE score BETWEEN 100000 AND 200000` },
  { name: 'min(score), max(score), count(maybe)', sql: (src) => `SELECT min(score), max(score), count(maybe) FROM ${src}` },
  { name: 'avg(score) GROUP BY category', sql: (src) => `SELECT category, avg(score) FROM ${src} GROUP BY category` },
  { name: 'ORDER BY score DESC LIMIT 10 (whole rows)', sql: (src) => `SELECT * FROM ${src} ORDER BY score DESC LIMIT 10` },
  { name: 'avg(score) USING SAMPLE 1%', sql: (src) => `SELECT avg(score) FROM ${src} USING SAMPLE 1%` },
  { name: 'avg(score) USING SAMPLE 1% (bernoulli)', sql: (src) => `SELECT avg(score) FROM ${src} USING SAMPLE 1% (bernoulli)` },
];

function parseArgs(argv) {
  const args = { threads: '2', runs: 5, sources: [] };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--threads') args.threads = argv[++i];
    else if (a === '--runs') args.runs = Number(argv[++i]);
    else if (a === '--source') {
      const [name, glob] = argv[++i].split(/=(.*)/s);
      args.sources.push({ name, glob });
    } else throw new Error(`unknown argument ${a}`);
  }
  if (args.sources.length === 0) throw new Error('--source NAME=GLOB is required');
  return args;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const args = parseArgs(process.argv.slice(2));
const db = await openDuckDB(args.threads);
for (const source of args.sources) {
  const src = `read_parquet(${sqlString(source.glob)})`;
  for (const c of CASES) {
    const sql = c.sql(src);
    await timed(db.conn, sql);  // warm-up: file metadata and the OS cache
    const ms = [];
    let result;
    for (let r = 0; r < args.runs; ++r) {
      const t = await timed(db.conn, sql);
      ms.push(t.wall_s * 1000);
      result = t.rows;
    }
    emitLine({ bench: 'aggregates', engine: `duckdb_${source.name}`, threads: db.threads, version: db.version,
               case: c.name, median_ms: median(ms), runs_ms: ms, rows: result.length,
               first: result[0].map((v) => (typeof v === 'bigint' ? Number(v) : typeof v === 'object' ? String(v) : v)) });
  }
}
const stats = (await timed(db.conn, `SELECT count(*), avg(score), stddev_pop(score) FROM read_parquet(${sqlString(args.sources[0].glob)})`)).rows[0];
emitLine({ bench: 'aggregates', engine: 'duckdb', case: 'stats', rows: Number(stats[0]), mean: stats[1], sd: stats[2] });
