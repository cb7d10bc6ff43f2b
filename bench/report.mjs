// Turns the JSON lines written by bench/run.sh (results of parquet_bench, scan_bench and
// duckdb_bench.mjs, plus {"meta": ...} and {"round": n} lines) into bench/RESULTS.md on stdout.
//
//   node bench/report.mjs RESULTS.jsonl > bench/RESULTS.md
//
// Every time is the median over the rounds (the count of runs is printed beside it); ratios are
// ours / DuckDB of those medians, so < 1 means lakeindex is faster.

import { readFileSync } from 'node:fs';

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
p('Profiles of our side: `bench/profile.sh BUILD_DIR write|read|project|filter` (perf, cpu-clock).');
p();
process.stdout.write(out.join('\n'));
