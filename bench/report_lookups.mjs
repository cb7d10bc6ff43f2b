// Markdown tables of the whole-row lookup benchmark (issue 16) from the JSON lines of
// bench/lookup_bench.sh (lookup_peers.mjs and python_lookups.py):
//
//   node bench/report_lookups.mjs LOOKUPS.jsonl
//
// lookupTables(lines) returns the same tables as markdown lines (bench/report.mjs puts them in
// bench/RESULTS.md when bench/run.sh ran the lookups).
//
// Table 1: a row per query and select, a column per engine, cells = median µs per lookup (p90);
// "rows" = rows of one pass over the lookups, "!" marks an engine whose row counts differ from
// the query file's (DuckDB on read_parquet) and "n/k" an engine that ran only n of the k points.
// Table 2: per engine, load and index build times, memory held and on-disk size.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function lookupTables(lines) {
  const order = ['lakeindex', 'lakeindex_python', 'lance', 'duckdb_native', 'duckdb_parquet', 'sqlite'];
  const seen = [...new Set(lines.map((l) => l.engine))];
  const engines = [...order.filter((e) => seen.includes(e)), ...seen.filter((e) => !order.includes(e))];

  const fmt = (us) => (us >= 100000 ? `${(us / 1000).toFixed(0)} ms` : us >= 10000 ? `${(us / 1000).toFixed(1)} ms`
                                                                      : `${Math.round(us).toLocaleString('en-US')} µs`);
  const mib = (b) => (b === undefined ? '' : `${(b / 2 ** 20).toFixed(0)} MiB`);
  const sec = (s) => (s === undefined ? '' : `${s.toFixed(1)} s`);

  const measures = lines.filter((l) => l.bench === 'lookups');
  const keys = [];
  for (const m of measures) {
    const k = `${m.query}|${m.select}`;
    if (!keys.includes(k)) keys.push(k);
  }
  const out = [];
  out.push(`| query | select | rows | ${engines.join(' | ')} |`);
  out.push(`|---|---|--:|${engines.map(() => '--:').join('|')}|`);
  let mismatches = 0;
  for (const k of keys) {
    const [query, select] = k.split('|');
    const ms = measures.filter((m) => m.query === query && m.select === select);
    const maxLookups = Math.max(...ms.map((m) => m.lookups));
    const full = ms.find((m) => m.lookups === maxLookups && m.rows_ok) ?? ms[0];
    const rows = maxLookups > 1 ? `${full.rows} (${maxLookups} lookups)` : `${full.rows}`;
    const cells = engines.map((e) => {
      const m = ms.find((x) => x.engine === e);
      if (!m) return '';
      let c = `${fmt(m.median_us)} (${fmt(m.p90_us)})`;
      if (m.lookups < maxLookups) c += ` ${m.lookups}/${maxLookups}`;
      if (!m.rows_ok) { c += ` ! ${m.rows} rows`; ++mismatches; }
      return c;
    });
    out.push(`| ${query} | ${select === '*' ? 'all 9' : select} | ${rows} | ${cells.join(' | ')} |`);
  }
  out.push('');
  out.push(mismatches ? `**${mismatches} measurements with row counts that differ from the expected ones (marked !).**`
                      : 'Row counts: every engine returned the expected rows for every lookup.');
  out.push('');

  const eng = lines.filter((l) => l.bench === 'lookups_engine');
  out.push('| engine | version | load | index id / score / name | memory held | peak RSS | on disk |');
  out.push('|---|---|--:|--:|--:|--:|--:|');
  for (const e of engines) {
    const l = eng.find((x) => x.engine === e);
    if (!l) continue;
    const version = l.lancedb_version ?? l.duckdb_version ?? l.sqlite_version ?? l.lakeindex_version ?? '';
    const idx = l.index_s && Object.keys(l.index_s).length
      ? ['id', 'score', 'name'].map((c) => sec(l.index_s[c])).join(' / ') : '—';
    out.push(`| ${e} | ${version} | ${l.load_s ? sec(l.load_s) : '—'} | ${idx} | ${mib(l.rss_held_bytes)} | ${mib(l.peak_rss_bytes)} | ${l.disk_bytes ? mib(l.disk_bytes) : '—'} |`);
  }
  return out;
}

// Run as a script: print the tables of the file given.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node bench/report_lookups.mjs LOOKUPS.jsonl');
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  process.stdout.write(lookupTables(lines).join('\n') + '\n');
}
