// Markdown tables of the box benchmark (2-D / 3-D boxes, "rows at the speed of the index") from
// the JSON lines of bench/box_bench.sh (box_peers.mjs and python_boxes.py):
//
//   node bench/report_boxes.mjs BOXES.jsonl
//
// Table 1: a row per selectivity and select, a column per engine, cells = median per box (p90)
// over all timed runs of the selectivity's boxes; "rows" = mean rows per box; "read/ret" =
// lakeindex's rows read over rows returned (Table.explain(analyze=True)); "!" marks an engine
// whose row counts differ from the query file's (DuckDB count(*) on read_parquet).
// Table 2: per engine, setup steps and times, memory held, peak RSS and on-disk size (lakeindex:
// the current version's data files, then the table directories with the pre-layout files).

import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) throw new Error('usage: node bench/report_boxes.mjs BOXES.jsonl');
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const order = ['lakeindex_python', 'duckdb_native', 'duckdb_parquet_sorted', 'sqlite_rtree'];
const seen = [...new Set(lines.filter((l) => l.engine).map((l) => l.engine))];
const engines = [...order.filter((e) => seen.includes(e)), ...seen.filter((e) => !order.includes(e))];

const fmt = (us) => (us >= 100000 ? `${(us / 1000).toFixed(0)} ms` : us >= 10000 ? `${(us / 1000).toFixed(1)} ms`
                                                                    : `${Math.round(us).toLocaleString('en-US')} µs`);
const mib = (b) => (b === undefined ? '' : `${(b / 2 ** 20).toFixed(0)} MiB`);
const sec = (s) => (s === undefined ? '' : `${s.toFixed(1)} s`);

const measures = lines.filter((l) => l.bench === 'boxes');
const keys = [];
for (const m of measures) {
  const k = `${m.query}|${m.select}`;
  if (!keys.includes(k)) keys.push(k);
}
const out = [];
out.push(`| box | select | rows / box | ${engines.join(' | ')} | lakeindex read/ret |`);
out.push(`|---|---|--:|${engines.map(() => '--:').join('|')}|--:|`);
let mismatches = 0;
for (const k of keys) {
  const [query, select] = k.split('|');
  const ms = measures.filter((m) => m.query === query && m.select === select);
  const ref = ms.find((m) => m.rows_ok) ?? ms[0];
  const cells = engines.map((e) => {
    const m = ms.find((x) => x.engine === e);
    if (!m) return '';
    let c = `${fmt(m.median_us)} (${fmt(m.p90_us)})`;
    if (!m.rows_ok) { c += ` ! ${m.rows} rows`; ++mismatches; }
    return c;
  });
  const li = ms.find((m) => m.engine === 'lakeindex_python');
  const ratio = li && li.rows_returned ? `${(li.rows_read / li.rows_returned).toFixed(2)}` : '';
  const label = `${ref.set === 'xy' ? '(x, y)' : '(x, y, z)'} ${ref.pct}%`;
  out.push(`| ${label} | ${select === '*' ? 'all 9' : select} | ${Math.round(ref.rows / ref.boxes).toLocaleString('en-US')} | ${cells.join(' | ')} | ${ratio} |`);
}
out.push('');
out.push(mismatches ? `**${mismatches} measurements with row counts that differ from the expected ones (marked !).**`
                    : 'Row counts: every engine returned the expected rows for every box.');
out.push('');

const eng = lines.filter((l) => l.bench === 'boxes_engine');
out.push('| engine | version | setup | open | memory held | peak RSS | on disk |');
out.push('|---|---|---|--:|--:|--:|--:|');
for (const e of engines) {
  const l = eng.find((x) => x.engine === e);
  if (!l) continue;
  const version = l.duckdb_version ?? l.sqlite_version ?? l.lakeindex_version ?? '';
  const setup = Object.entries(l.setup ?? {}).map(([k, v]) => `${k} ${sec(v)}`).join('; ');
  out.push(`| ${e} | ${version} | ${setup} | ${l.open_s !== undefined ? `${(l.open_s * 1000).toFixed(0)} ms` : '—'} | ${mib(l.rss_held_bytes)} | ${mib(l.peak_rss_bytes)} | ${l.data_bytes ? `${mib(l.data_bytes)} (dir ${mib(l.disk_bytes)})` : l.disk_bytes ? mib(l.disk_bytes) : '—'} |`);
}
process.stdout.write(out.join('\n') + '\n');
