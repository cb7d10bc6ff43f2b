// Turns the JSON lines written by bench/run.sh (results of parquet_bench, scan_bench,
// duckdb_bench.mjs, index_bench, index_peers.mjs and layout_bench.mjs, plus {"meta": ...} and {"round": n} lines)
// into bench/RESULTS.md on stdout.
//
//   node bench/report.mjs RESULTS.jsonl > bench/RESULTS.md
//
// Every time is the median over the rounds (the count of runs is printed beside it); ratios are
// ours / DuckDB of those medians, so < 1 means lakeindex is faster.

import { readFileSync } from 'node:fs';

import { layoutSection } from './report_layout.mjs';
import { lookupTables } from './report_lookups.mjs';

const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l.trim() !== '');
const meta = {};
const results = [];
let round = 0;
for (const line of lines) {
  const j = JSON.parse(line);
  if (j.meta) Object.assign(meta, j.meta);
  else if (j.round !== undefined) round = j.round;
  else results.push({ ...j, round });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// Runs of one measurement: same bench, engine, case and threads.
function group(bench, engine, kase, threads) {
  return results.filter((r) => r.bench === bench && r.engine === engine && r.case === kase &&
                               (threads === undefined || r.threads_setting === threads || r.threads === threads));
}

function stats(runs) {
  return {
    n: runs.length,
    wall: median(runs.map((r) => r.wall_s)),
    cpu: median(runs.map((r) => r.cpu_s)),
    walls: runs.map((r) => r.wall_s),
    first: runs[0],
  };
}

const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : '—');
const int = (x) => (x === undefined || x === null ? '—' : Math.round(x).toLocaleString('en-US'));
const mb = (bytes) => bytes / 1e6;
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? (a / b).toFixed(2) : '—');
const runsText = (s) => `${s.n}: ${s.walls.map(f2).join(' / ')}`;

const out = [];
const p = (s = '') => out.push(s);

p('# Benchmark results');
p();
p('Written by `bench/run.sh` (do not edit by hand; rerun it). lakeindex vs DuckDB, same files, one run.');
p();
p(`* Command: \`${meta.command}\``);
p(`* Date: ${meta.date_start} → ${meta.date_end}`);
p(`* Machine: ${meta.nproc} cores (\`nproc\`), ${meta.cpu_model}, ${meta.mem_total}`);
p(`* Load average (1/5/15 min) at start: ${meta.load_start}; at end: ${meta.load_end}`);
p(`* lakeindex: git ${meta.git}, build \`${meta.build_dir}\` (${meta.build_type}); DuckDB ${results.find((r) => r.duckdb_version)?.duckdb_version ?? '?'} via \`@duckdb/node-api\``);
p(`* Data: events data set, ${int(meta.rows)} rows, seed ${meta.seed}; ${meta.rounds} rounds, ours and DuckDB interleaved within each round`);
p();
p('Times are medians over the rounds, in seconds; "runs" lists every run\'s wall time. CPU = user + system');
p('time of the measuring process (all its threads), which is less sensitive to the machine\'s load than wall');
p('time. Ratio = ours / DuckDB (< 1: lakeindex faster). All files are in the OS page cache (just');
p('written, RAM is ample), so reads measure decoding, not the disk. Other jobs were running on the');
p('machine (see the load averages): compare ratios and CPU times rather than absolute wall times.');
p();

// ---- write ----------------------------------------------------------------------------------
p('## Parquet write, single-threaded');
p();
p('Ours: the events rows are generated in memory first (not timed); timed = `ParquetWriter` Make +');
p('Write(64Ki-row batches) + Finish (encode) + writing the bytes through the local store, which fsyncs');
p('the file (`io` column). DuckDB: the same rows loaded from our Parquet file into an in-memory table');
p('first (not timed); timed = `COPY events TO \'f.parquet\' (FORMAT parquet, COMPRESSION c)` with');
p('`threads=1`. DuckDB\'s COPY does not fsync (checked with strace) while our local store does, so');
p('`encode s` is the like-for-like part of our wall time. Layouts differ: ours writes 1Mi-row row');
p('groups with 8Ki-row pages, page statistics, page CRCs and a page index; DuckDB 122,880-row row groups.');
p();
p('| codec | engine | file MB | wall s | cpu s | encode s (ours) | io s (ours) | Mrows/s (wall) | MB/s (wall) | runs | ratio wall | ratio cpu |');
p('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const codec of ['zstd', 'snappy']) {
  const ours = stats(group('write', 'lakeindex', codec));
  const duck = stats(group('write', 'duckdb', codec));
  for (const [name, s] of [['lakeindex', ours], ['duckdb', duck]]) {
    if (s.n === 0) continue;
    const bytes = s.first.file_bytes;
    const rows = s.first.rows;
    const enc = name === 'lakeindex' ? f2(median(group('write', name, codec).map((r) => r.encode_wall_s))) : '';
    const io = name === 'lakeindex' ? f2(median(group('write', name, codec).map((r) => r.io_wall_s))) : '';
    p(`| ${codec} | ${name} | ${f2(mb(bytes))} | ${f2(s.wall)} | ${f2(s.cpu)} | ${enc} | ${io} | ${f2(rows / s.wall / 1e6)} | ${f2(mb(bytes) / s.wall)} | ${runsText(s)} | ${name === 'lakeindex' ? ratio(ours.wall, duck.wall) : ''} | ${name === 'lakeindex' ? ratio(ours.cpu, duck.cpu) : ''} |`);
  }
}
p();

// ---- read -----------------------------------------------------------------------------------
p('## Parquet full read, single-threaded');
p();
p('Every column of every row, from local files. Ours: `ParquetReader::Open` + `ReadAll()` (decodes');
p('every column chunk into one in-memory `Batch`), counted through an `InstrumentedStore`. DuckDB with');
p('`threads=1`, two ways: *materialize* = `CREATE TEMP TABLE t AS SELECT * FROM read_parquet(f)`');
p('(decodes and stores every value, the closest to ReadAll; it also pays for appending to its table)');
p('and *aggregate* = one `min()` per column (decodes every column, stores nothing; a lower bound on');
p('DuckDB\'s read cost). Ratios are against both.');
p();
p('| file | engine / way | rows | row groups | file MB | bytes read | requests | wall s | cpu s | Mrows/s | MB/s | runs | ratio vs materialize (wall / cpu) | ratio vs aggregate (wall / cpu) |');
p('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
const readFiles = [...new Set(results.filter((r) => r.bench === 'read').map((r) => r.file ?? r.case))];
for (const file of readFiles) {
  const ours = stats(group('read', 'lakeindex', file));
  const mat = stats(group('read', 'duckdb', `${file} materialize`));
  const agg = stats(group('read', 'duckdb', `${file} aggregate`));
  const rowsFor = (s) => s.first?.rows;
  if (ours.n) {
    const r = ours.first;
    p(`| ${file} | lakeindex ReadAll | ${int(r.rows)} | ${r.row_groups} | ${f2(mb(r.file_bytes))} | ${int(r.bytes_read)} | ${r.io_requests} | ${f2(ours.wall)} | ${f2(ours.cpu)} | ${f2(r.rows / ours.wall / 1e6)} | ${f2(mb(r.file_bytes) / ours.wall)} | ${runsText(ours)} | ${ratio(ours.wall, mat.wall)} / ${ratio(ours.cpu, mat.cpu)} | ${ratio(ours.wall, agg.wall)} / ${ratio(ours.cpu, agg.cpu)} |`);
  }
  for (const [way, s] of [['materialize', mat], ['aggregate', agg]]) {
    if (!s.n) continue;
    const r = s.first;
    p(`| ${file} | duckdb ${way} | ${int(rowsFor(s))} | ${r.row_groups} | ${f2(mb(r.file_bytes))} | | | ${f2(s.wall)} | ${f2(s.cpu)} | ${f2(r.rows / s.wall / 1e6)} | ${f2(mb(r.file_bytes) / s.wall)} | ${runsText(s)} | | |`);
  }
}
p();

// ---- scans ----------------------------------------------------------------------------------
p('## Scan queries');
p();
p('Tables made with `lakeindex create TABLE --from events.parquet --rows-per-file 1000000` (10 files of');
p('1M rows for 10M rows); `events_by_ts` holds the same rows sorted by `ts` (generated, sorted in memory,');
p('written, then created the same way). Ours: `Table::Open` + `Scanner` (`ScanRequest{where, select}`)');
p('until the last batch, single-threaded, counting rows (mode *rows*: all selected columns of the');
p('matching rows are materialized in batches) or summing the selected columns (mode *sum*). DuckDB on');
p('`read_parquet(\'TABLE/data/*.parquet\')`: mode *rows* = `CREATE TEMP TABLE r AS SELECT cols ... WHERE`');
p('(materializes the same columns and rows), mode *sum* = `SELECT count(*), sum(x), sum(y) ...`;');
p('with `threads=1` and with its default (one thread per core).');
p();
const queries = [...new Set(results.filter((r) => r.bench === 'scan').map((r) => r.case))];
p('| query | rows returned | ours wall s | ours cpu s | DuckDB 1 thr wall s | DuckDB 1 thr cpu s | DuckDB default wall s | DuckDB default cpu s | ours/DuckDB-1 wall (cpu) | ours/DuckDB-default wall (cpu) | runs (ours / d1 / dN) | same result |');
p('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const q of queries) {
  const ours = stats(group('scan', 'lakeindex', q));
  const d1 = stats(group('scan', 'duckdb', q, '1'));
  const dn = stats(group('scan', 'duckdb', q, 'default'));
  const counts = [ours, d1, dn].filter((s) => s.n).map((s) => s.first.rows_returned);
  let same = counts.every((c) => c === counts[0]);
  const sumsOf = (s) => s.first?.sums;
  if (same && sumsOf(ours) && sumsOf(d1)) {
    same = sumsOf(ours).every((v, i) => Math.abs(v - sumsOf(d1)[i]) <= 1e-9 * Math.max(1, Math.abs(v)));
  }
  p(`| ${q} | ${int(ours.first?.rows_returned)} | ${f3(ours.wall)} | ${f3(ours.cpu)} | ${f3(d1.wall)} | ${f3(d1.cpu)} | ${f3(dn.wall)} | ${f3(dn.cpu)} | ${ratio(ours.wall, d1.wall)} (${ratio(ours.cpu, d1.cpu)}) | ${ratio(ours.wall, dn.wall)} (${ratio(ours.cpu, dn.cpu)}) | ${ours.n} / ${d1.n} / ${dn.n} | ${same ? 'yes' : '**NO**'} |`);
}
p();
p('### What each scan read (independent of machine load)');
p();
p('Ours: from the Scanner counters and the `InstrumentedStore` under the table (bytes and requests');
p('include the manifest and Parquet footers; pages are counted only in row groups where the page');
p('index was used, "—" = whole row groups read). DuckDB: the row groups whose min/max statistics for');
p('the filter column overlap the filter, and their rows, from `parquet_metadata()` of the same files;');
p('DuckDB skips the other row groups (it does not use the Parquet page index), so these are the rows');
p('it decodes at least for the filter column.');
p();
p('| query | ours fragments scanned | ours row groups read | ours pages read / total | ours rows decoded | ours bytes read | ours requests | DuckDB row groups read / total | DuckDB rows in them |');
p('|---|---|---|---|---|---|---|---|---|');
for (const q of queries) {
  const o = group('scan', 'lakeindex', q)[0];
  const d = group('scan', 'duckdb', q, '1').find((r) => r.row_groups_total !== undefined);
  if (!o) continue;
  const drg = d ? `${int(d.row_groups_read)} / ${int(d.row_groups_total)}` : 'all (no filter)';
  const drows = d ? int(d.rows_read) : 'all';
  const pages = o.pages_total ? `${int(o.pages_read)} / ${int(o.pages_total)}` : '—';
  p(`| ${q} | ${o.fragments_scanned} / ${o.fragments_total} | ${o.blocks_read} / ${o.blocks_total} | ${pages} | ${int(o.rows_read)} | ${int(o.bytes_read)} | ${int(o.io_requests)} | ${drg} | ${drows} |`);
}
p();
// ---- BTree index (issue 4) ----------------------------------------------------------------------
const us = (x) => {
  if (!Number.isFinite(x)) return '—';
  if (x < 10) return x.toFixed(2);
  if (x < 1000) return x.toFixed(1);
  return Math.round(x).toLocaleString('en-US');
};
const idxBuilds = results.filter((r) => r.bench === 'index_build');
const idxQueries = results.filter((r) => r.bench === 'index_query');
const indexRows = meta.index_rows ?? meta.rows;
// One lookup measurement: engine, way (ids|rows), cache; several lines (e.g. one per process)
// are combined by the median of their medians.
function lookup(engine, kase, way, cache) {
  const runs = idxQueries.filter((r) => r.engine === engine && r.case === kase && r.way === way && r.cache === cache);
  if (!runs.length) return null;
  const first = runs[0];
  return { ...first, runs: runs.length, n: runs.reduce((a, r) => a + r.n, 0), median_us: median(runs.map((r) => r.median_us)),
           cpu_us: median(runs.map((r) => r.cpu_us)) };
}
const cell = (m) => (m ? `${us(m.median_us)} (${us(m.cpu_us)})` : '—');

if (idxBuilds.length || idxQueries.length) {
  p(`## BTree index (issue 4), ${int(indexRows)} rows`);
  p();
  p(`Run by \`bench/run.sh\` after the rounds above (\`BENCH_INDEX=1\`, the default): \`bench/index_bench\` (ours and`);
  p('the in-memory limit) and `bench/index_peers.mjs` (DuckDB, SQLite) on the same events data, one engine after');
  p('the other. Ours: a copy of the `events` table (files of 1M rows) gets btree indexes on `id`, `score`, `name`');
  p('and `maybe` (`CreateIndex`, default 4096-row leaf pages). DuckDB: `CREATE TABLE t AS SELECT * FROM');
  p('read_parquet(events.parquet)` in memory, then `CREATE INDEX ... ON t(col)` (ART). SQLite (better-sqlite3):');
  p('a file database with the same rows (rowid = row number), `CREATE INDEX ... ON t(col)`, default pragmas.');
  p('In-memory limit: `std::sort` / `std::equal_range` over a `std::vector` of (value, row address).');
  if (meta.index_date_start) {
    p(`These index benchmarks ran separately (\`BENCH_ROUNDS=0\`), ${meta.index_date_start} → ${meta.index_date_end}, git ${meta.index_git},`);
    p(`load average at start ${meta.index_load_start}, at end ${meta.index_load_end}.`);
  }
  p();
  p('### Build');
  p();
  p('Median wall and CPU seconds over the runs. Peak RSS = the process\'s VmHWM, reset (`/proc/self/clear_refs`)');
  p('just before the build; "growth" = peak − RSS before the build, the memory the build itself needed (the');
  p('engines hold the data already: our id column, DuckDB\'s and SQLite\'s tables). Ours writes and fsyncs the');
  p('segment files; DuckDB\'s ART stays in memory; SQLite writes the index into its file.');
  p();
  p('| engine | what is timed | threads | runs | wall s | cpu s | peak RSS MB | growth MB | index MB |');
  p('|---|---|---|---|---|---|---|---|---|');
  const buildCases = [...new Set(idxBuilds.map((r) => `${r.engine}\u0000${r.case}\u0000${r.threads ?? 1}`))];
  const buildWhat = {
    'BTreeBuilder id': 'BTreeBuilder Add + Finish over the id column already in memory (sort, cut pages, write page_data + page_lookup)',
    'std::sort id': 'copy (value, address) pairs + std::sort',
    'CreateIndex id': 'CreateIndex: read the column from the table\'s Parquet files, build, commit',
    'CreateIndex ts zonemap': 'CreateIndex --type zonemap on ts of the ts-sorted table (issue 5)',
  };
  const builds = {};
  for (const key of buildCases) {
    const [engine, kase, threads] = key.split('\u0000');
    const runs = idxBuilds.filter((r) => r.engine === engine && r.case === kase && String(r.threads ?? 1) === threads);
    const s = stats(runs);
    builds[key] = s;
    const peak = median(runs.map((r) => r.peak_rss_bytes));
    const growth = median(runs.map((r) => r.peak_rss_bytes - r.rss_before_bytes));
    const what = buildWhat[kase] ?? (kase.startsWith('CreateIndex') ? 'CreateIndex (as above)' : kase.startsWith('ART') ? 'CREATE INDEX (ART), table in memory' : 'CREATE INDEX, table in the file');
    p(`| ${engine} | ${kase}: ${what} | ${threads} | ${s.n} | ${f2(s.wall)} | ${f2(s.cpu)} | ${f2(mb(peak))} | ${f2(mb(growth))} | ${s.first.index_bytes ? f2(mb(s.first.index_bytes)) : ''} |`);
  }
  p();

  const cases = [...new Set(idxQueries.map((r) => r.case))];
  p('### Lookups, row ids only');
  p();
  p('Median latency per lookup in µs (in parentheses: CPU µs per lookup, process CPU of the loop / lookups).');
  p('Point: 1,000 different random ids hot (after one warm-up pass over the same ids), 200 cold; other queries:');
  p(`${meta.index_repeat ?? 5} runs hot (after a warm-up run), ${meta.index_repeat ?? 5} cold. Ours = \`BTreeSegment::Search\` → exact row set`);
  p('(roaring bitmap); *cold page* = a fresh `PageCache` per lookup, segment directory in memory; *cold open* = also');
  p('`BTreeSegment::Open` (reads page_lookup) per lookup. DuckDB ART = prepared `SELECT rowid FROM t WHERE ...`');
  p('(threads=1, result materialized in DuckDB, not converted to JS; each call also pays the async Node API round');
  p('trip, roughly 0.3 ms here, so DuckDB\'s own lookup is much faster than the cell says); DuckDB Parquet = `SELECT');
  p('filename, file_row_number FROM read_parquet(events/data/*.parquet) WHERE ...` (no index, its row-group');
  p('statistics). SQLite = prepared `SELECT rowid FROM t WHERE ...` through better-sqlite3 (synchronous, about 1 µs');
  p('of binding overhead, rows converted to JS); *cold* = a new connection per lookup (open + prepare + run).');
  p('Files are in the OS page cache in every case.');
  p();
  p('| query | rows | ours hot | ours cold page | ours cold open | in-memory limit | DuckDB ART | DuckDB Parquet | SQLite hot | SQLite cold | same rows |');
  p('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cases) {
    const ms = [lookup('lakeindex', c, 'ids', 'hot'), lookup('lakeindex', c, 'ids', 'cold page'),
                lookup('lakeindex', c, 'ids', 'cold open'), lookup('in-memory', c, 'ids', 'hot'),
                lookup('duckdb ART', c, 'ids', 'hot'), lookup('duckdb Parquet', c, 'ids', 'OS cache'),
                lookup('sqlite', c, 'ids', 'hot'), lookup('sqlite', c, 'ids', 'cold connection')];
    const counts = ms.filter(Boolean).map((m) => m.rows_returned);
    const same = counts.every((n) => n === counts[0]);
    p(`| ${c} | ${int(counts[0])} | ${ms.map(cell).join(' | ')} | ${same ? 'yes' : '**NO** ' + counts.join('/')} |`);
  }
  p();
  p('### Lookups, whole rows');
  p();
  p('`SELECT *` of the matching rows, median µs per lookup (CPU µs). Ours hot = `Scanner` with the column\'s index');
  p('(`ScanRequest.indexes` from `OpenIndexes`), table and index opened once, 200 point lookups after a warm-up');
  p('pass; *cold process* = a new `index_bench rows-once` process per lookup (Table::Open + OpenIndexes + Scanner,');
  p('11 processes, timed inside the process). DuckDB / SQLite: prepared `SELECT * FROM t WHERE ...` (DuckDB\'s');
  p('result stays in DuckDB; SQLite\'s rows become JS arrays).');
  p();
  p('| query | rows | ours hot | ours cold process | DuckDB ART | SQLite hot |');
  p('|---|---|---|---|---|---|');
  for (const c of cases) {
    const ms = [lookup('lakeindex', c, 'rows', 'hot'), lookup('lakeindex', c, 'rows', 'cold process'),
                lookup('duckdb ART', c, 'rows', 'hot'), lookup('sqlite', c, 'rows', 'hot')];
    if (!ms.some(Boolean)) continue;
    p(`| ${c} | ${int(ms.find(Boolean).rows_returned)} | ${ms.map(cell).join(' | ')} |`);
  }
  p();
  p('### What our lookups read (per lookup; independent of machine load)');
  p();
  p('Index: leaf pages of the segment, candidates after the in-memory directory, candidates taken whole ("all",');
  p('no comparisons), pages and bytes loaded when cold. Whole rows (hot): fragments scanned, row groups and data');
  p('pages (all columns) read, rows decoded, bytes and requests through the `InstrumentedStore` (page_data of the');
  p('index is cached, the Parquet data files are not).');
  p();
  p('| query | index pages | selected | all | cold: pages read | cold: bytes read | rows: fragments | rows: row groups | rows: data pages | rows: decoded | rows: bytes read | rows: requests |');
  p('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cases) {
    const cold = lookup('lakeindex', c, 'ids', 'cold page');
    const hot = lookup('lakeindex', c, 'ids', 'hot');
    const rowsHot = lookup('lakeindex', c, 'rows', 'hot');
    if (!hot) continue;
    const r = rowsHot;
    p(`| ${c} | ${int(hot.pages_total)} | ${f2(hot.pages_selected)} | ${f2(hot.pages_all_match)} | ${cold ? f2(cold.pages_read) : '—'} | ${cold ? int(cold.bytes_read) : '—'} | ${r ? `${f2(r.fragments_scanned)} / ${r.fragments_total}` : '—'} | ${r ? f2(r.blocks_read) : '—'} | ${r ? `${f2(r.pages_read)} / ${f2(r.pages_total)}` : '—'} | ${r ? int(r.rows_read) : '—'} | ${r ? int(r.bytes_read) : '—'} | ${r ? f2(r.io_requests) : '—'} |`);
  }
  p();
  p('Plans of the peers (DuckDB decides on its index when the scan starts: from `EXPLAIN ANALYZE`; SQLite: `EXPLAIN');
  p('QUERY PLAN`):');
  p();
  p('| query | DuckDB (ids) | SQLite (ids) |');
  p('|---|---|---|');
  for (const c of cases) {
    const d = lookup('duckdb ART', c, 'ids', 'hot');
    const s = lookup('sqlite', c, 'ids', 'hot');
    p(`| ${c} | ${d?.plan ?? '—'} | ${s?.plan ? '`' + s.plan + '`' : '—'} |`);
  }
  p();

  // Goals of issue 4.
  const ourBuild = builds['lakeindex\u0000BTreeBuilder id\u00001'];
  const ourCreate = builds['lakeindex\u0000CreateIndex id\u00001'];
  const artBuilds = Object.entries(builds).filter(([k]) => k.startsWith('duckdb\u0000ART id\u0000'));
  const art1 = artBuilds.find(([k]) => k.endsWith('\u00001'))?.[1];
  const artN = artBuilds.find(([k]) => !k.endsWith('\u00001'))?.[1];
  const artNThreads = artBuilds.find(([k]) => !k.endsWith('\u00001'))?.[0].split('\u0000')[2];
  const sqliteBuild = builds['sqlite\u0000CREATE INDEX id\u00001'];
  const hotPoint = lookup('lakeindex', 'point id', 'ids', 'hot');
  const sqlitePoint = lookup('sqlite', 'point id', 'ids', 'hot');
  const in10k = lookup('lakeindex', 'IN 10000 ids', 'ids', 'hot');
  const in10kCold = lookup('lakeindex', 'IN 10000 ids', 'ids', 'cold page');
  const met = (ok) => (ok === undefined ? '—' : ok ? '**met**' : '**not met**');
  p('### Goals of issue 4');
  p();
  p('| goal | measured | verdict |');
  p('|---|---|---|');
  if (ourBuild && art1) {
    p(`| build no slower than DuckDB's ART build | BTreeBuilder ${f2(ourBuild.wall)} s wall / ${f2(ourBuild.cpu)} s CPU (CreateIndex from Parquet: ${f2(ourCreate?.wall)} s); DuckDB ART ${f2(art1.wall)} s / ${f2(art1.cpu)} s CPU with 1 thread, ${f2(artN?.wall)} s / ${f2(artN?.cpu)} s CPU with ${artNThreads}; SQLite ${f2(sqliteBuild?.wall)} s | ${met(ourBuild.wall <= art1.wall)} vs 1 thread, ${met(artN ? ourBuild.wall <= artN.wall : undefined)} vs ${artNThreads} threads |`);
  }
  if (hotPoint) {
    p(`| hot point lookup of ids ≤ 5 µs median | ${us(hotPoint.median_us)} µs | ${met(hotPoint.median_us <= 5)} |`);
    p(`| ... and faster than SQLite's | SQLite ${us(sqlitePoint?.median_us)} µs (including better-sqlite3's binding) | ${met(sqlitePoint ? hotPoint.median_us < sqlitePoint.median_us : undefined)} |`);
  }
  if (in10k) {
    p(`| IN of 10,000 values on ${int(indexRows)} rows ≤ 50 ms | ${us(in10k.median_us / 1000)} ms hot, ${us(in10kCold?.median_us / 1000)} ms cold page | ${met(in10k.median_us <= 50000)} hot, ${met(in10kCold ? in10kCold.median_us <= 50000 : undefined)} cold |`);
  }
  p(`| build under the memory budget (512 MiB) at 100M rows | not run here (${int(indexRows)} rows); growth during the build above | — |`);
  p();
}

// ---- zone map (issue 5) -------------------------------------------------------------------------
const zm = results.filter((r) => r.bench === 'zonemap');
if (zm.length) {
  p(`## Zone map index (issue 5), ${int(indexRows)} rows sorted by ts`);
  p();
  p('A copy of the `events_by_ts` table (the events rows sorted by `ts`, files of 1M rows, 8Ki-row pages) gets');
  p('`CreateIndex --type zonemap` on `ts` (8192-row zones). Ranges on `ts` of 0.1% and 1% (see');
  p('`bench/scan_queries.tsv`), `SELECT *` of the matching rows, each timed from `Table::Open` to the last batch, single');
  p(`thread, ${meta.index_repeat ?? 5} runs each: ours with the zone map (its \`AtMost\` zones → row ranges, rechecked), ours without`);
  p('indexes (the Scanner still prunes with manifest, row-group and page-index statistics), DuckDB on the same');
  p('Parquet files (`CREATE TEMP TABLE r AS SELECT * FROM read_parquet(...) WHERE ...`; it prunes by row group).');
  p('Counters: ours from `Scanner::counters()` and the `InstrumentedStore`; DuckDB: the row groups whose');
  p('statistics overlap the range and their rows (from `parquet_metadata`). "zones selected / total" add up the');
  p('searches the planner made: builds before commit 2b7bb2b (range conjuncts on one column merged) search');
  p('`ts >= a` and `ts < b` separately, and each bound alone selects about half of the zones.');
  p();
  const zb = idxBuilds.find((r) => r.case === 'CreateIndex ts zonemap');
  if (zb) p(`Zone map build: ${f2(zb.wall_s)} s wall, ${f2(zb.cpu_s)} s CPU (one run).`);
  p();
  p('| query | rows returned | engine / way | runs | wall s | cpu s | zones selected / total | fragments scanned | row groups read | pages read / total | rows decoded | bytes read | requests |');
  p('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of [...new Set(zm.map((r) => r.case))]) {
    const ways = [['lakeindex', 'zonemap index'], ['lakeindex', 'no index'], ['duckdb', '1'], ['duckdb', 'default']];
    for (const [engine, way] of ways) {
      const runs = zm.filter((r) => r.case === c && r.engine === engine &&
                                    (engine === 'lakeindex' ? r.way === way : r.threads_setting === way));
      if (!runs.length) continue;
      const s = stats(runs);
      const o = runs[0];
      if (engine === 'lakeindex') {
        const zones = way === 'zonemap index' ? `${int(o.index_pages_selected)} / ${int(o.index_pages_total)}` : '—';
        p(`| ${c} | ${int(o.rows_returned)} | ours, ${way} | ${s.n} | ${f3(s.wall)} | ${f3(s.cpu)} | ${zones} | ${o.fragments_scanned} / ${o.fragments_total} | ${int(o.blocks_read)} | ${int(o.pages_read)} / ${int(o.pages_total)} | ${int(o.rows_read)} | ${int(o.bytes_read)} | ${int(o.io_requests)} |`);
      } else {
        const d = runs.find((r) => r.row_groups_total !== undefined);
        p(`| ${c} | ${int(o.rows_returned)} | DuckDB, ${o.threads} thread${o.threads > 1 ? 's' : ''} | ${s.n} | ${f3(s.wall)} | ${f3(s.cpu)} | — | — | ${d ? `${int(d.row_groups_read)} / ${int(d.row_groups_total)}` : '—'} | — | ${d ? `≥ ${int(d.rows_read)}` : '—'} | — | — |`);
      }
    }
  }
  p();
}

// ---- whole-row lookups beside Lance (issue 16): bench/lookup_bench.sh, bench/report_lookups.mjs ----
const lookupLines = results.filter((r) => r.bench === 'lookups' || r.bench === 'lookups_engine');
if (lookupLines.length) {
  p('## Lookups beside Lance, DuckDB and SQLite (issue 16)');
  p();
  p('Run by `bench/run.sh` after the index benchmarks (`BENCH_LOOKUPS=1`, the default), or alone:');
  p('`bench/lookup_bench.sh BUILD_DIR` (docs/lookup-bench.md). One query set for every engine');
  p('(`bench/lookup_peers.mjs queries`, literal values drawn from the data, expected row counts from');
  p('DuckDB), 10M events rows, hot: each engine opens its table once and runs every lookup once before');
  p('timing it. *lakeindex* = the library (`index_bench lookups`: Table::Open + OpenIndexes once, a');
  p('Scanner per lookup), *lakeindex_python* = `Table.query(where=..., select=...)` of the Python');
  p('module (numpy arrays out); the table has 1M-row files with 1024-row pages and BTrees on id, score');
  p('and name. Lance = LanceDB\'s Node SDK 0.31.0 with BTREE scalar indexes (its plans show');
  p('`ScalarIndexQuery` for every query); DuckDB native = an in-memory table with ART indexes (they');
  p('serve `=` and `IN`; ranges and prefixes are scans), DuckDB Parquet = `read_parquet` of the file');
  p('(no index); SQLite = a file database with B-tree indexes (prefixes as `GLOB`). Cells: median per');
  p('lookup (p90).');
  p();
  for (const line of lookupTables(lookupLines)) p(line);
  p();
}

// ---- layouts (issue 9): bench/report_layout.mjs --------------------------------------------------
for (const line of layoutSection(results, meta)) p(line);

p('Profiles of our side: `bench/profile.sh BUILD_DIR write|read|project|filter` (perf, cpu-clock).');
p();
process.stdout.write(out.join('\n'));
