// The "Layouts (issue 9)" section of bench/RESULTS.md, from the {"bench": "layout"} lines that
// bench/layout_bench.sh writes (through bench/layout_bench.mjs). bench/report.mjs includes it;
// run alone it renders a results file of the layout benchmark by itself:
//
//   node bench/report_layout.mjs LAYOUT_RESULTS.jsonl > layout_report.md

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { median } from './bench_util.mjs';

const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '—');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');
const int = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
const ms = (s) => (Number.isFinite(s) ? (s * 1000 < 10 ? (s * 1000).toFixed(1) : Math.round(s * 1000).toLocaleString('en-US')) : '—');
const verdict = (ok) => (ok === undefined || ok === null || Number.isNaN(ok) ? '—' : ok ? '**met**' : '**not met**');
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

const KINDS = ['otree', 'hilbert', 'zorder', 'sort'];
const KIND_NAMES = { otree: 'OTree', hilbert: 'Hilbert', zorder: 'Z-order', sort: 'sort', plain: 'unsorted (plain)' };
const SET_COLUMNS = { xy: '(x, y)', xyz: '(x, y, z)', xz: '(x, z)' };

// A box set's measurements on one layout: per box the median time over rounds, counters of the
// first round; amplification = Σ rows read ÷ Σ rows returned over the boxes of one selectivity.
function boxSummary(lines, engine, layout, set, pct) {
  const runs = lines.filter((r) => r.part === 'box' && r.engine === engine && r.layout === layout && r.set === set &&
                                   r.pct === pct);
  if (!runs.length) return null;
  const cases = [...new Set(runs.map((r) => r.case))];
  const first = cases.map((c) => runs.find((r) => r.case === c));
  const times = cases.map((c) => median(runs.filter((r) => r.case === c).map((r) => r.wall_s)));
  const returned = sum(first.map((r) => r.rows_returned));
  const out = { boxes: cases.length, rounds: runs.length / cases.length, returned_mean: returned / cases.length,
                time_mean: sum(times) / times.length };
  if (engine === 'lakeindex') {
    out.amp = sum(first.map((r) => r.rows_read)) / returned;
    out.bytes_mean = sum(first.map((r) => r.bytes_read)) / cases.length;
    out.blocks = `${f1(sum(first.map((r) => r.blocks_read)) / cases.length)} / ${int(first[0].blocks_total)}`;
  } else if (first.every((r) => r.duck_rows_read !== undefined)) {
    out.amp = sum(first.map((r) => r.duck_rows_read)) / returned;
    out.row_groups = `${f1(sum(first.map((r) => r.duck_row_groups_read)) / cases.length)} / ${int(first[0].duck_row_groups_total)}`;
  }
  return out;
}

export function layoutSection(results, meta) {
  const lines = results.filter((r) => r.bench === 'layout');
  const out = [];
  if (!lines.length) return out;
  const p = (s = '') => out.push(s);
  const rows = meta.layout_rows ?? lines.find((r) => r.rows)?.rows;
  const cubeRows = meta.layout_cube_rows ?? 100000;
  p(`## Layouts (issue 9), ${int(rows)} rows`);
  p();
  p(`Run by \`bench/layout_bench.sh\` (\`BENCH_LAYOUT=1\` in \`bench/run.sh\`, or alone: \`${meta.layout_command ?? 'bench/layout_bench.sh BUILD_DIR'}\`),`);
  if (meta.layout_date_start) {
    p(`${meta.layout_date_start} → ${meta.layout_date_end}, git ${meta.layout_git}, build \`${meta.layout_build}\`, load average at start`);
    p(`${meta.layout_load_start}, at end ${meta.layout_load_end}${meta.layout_args ? `; extra layout options \`${meta.layout_args}\`` : ''}.`);
  }
  p(`The events data (x, y uniform in [0, 1000), z normal(500, 150)); the *plain* table = the generated rows in files of`);
  p('1M rows (1M-row row groups, 8Ki-row pages). Every other layout is `lakeindex layout` of a copy of it, files of 1M');
  p(`rows: the OTree with \`--cube-rows ${int(cubeRows)}\` (default 8 weight slices, 64-row pages, default transformation:`);
  p(`linear for x, y, quantile for the normal z), and the comparison layouts with the **same row-group size**:`);
  p(`\`--sort\` / \`--zorder\` / \`--hilbert\` with \`--cube-rows ${int(cubeRows)}\` = rows per row group (also 128-row pages).`);
  p('Query boxes are squares (cubes) in probability space at random positions (fixed seed), bounds at the exact');
  p('quantiles of the data, so each selects about the given fraction; skewed = boxes on (x, z), z normal.');
  p('Ours: `lakeindex explain TABLE --where BOX --analyze --json` (a new process per query; time = its `elapsed_ms`:');
  p('plan + scan of all columns of the matching rows, the table already open; rows read = rows decoded after block,');
  p('row-group and page pruning). DuckDB (default threads, like ours): `CREATE TEMP TABLE r AS SELECT <all user');
  p('columns> FROM read_parquet([the table\'s current files]) WHERE BOX`; its "rows read" = rows of the row groups whose');
  p('min/max statistics overlap the box (`parquet_metadata`; DuckDB prunes by row group, not by page).');
  p('"read ÷ ret." = Σ rows read ÷ Σ rows returned over the boxes of a selectivity (the read amplification); times');
  p('= mean over the boxes of each box\'s median over the rounds, in ms; bytes = mean bytes read per box (ours, through');
  p('the counting store: footers and pages).');
  p();

  // ---- layout time ----
  const layoutRuns = lines.filter((r) => r.part === 'layout');
  const layoutNames = [...new Set(layoutRuns.map((r) => r.layout))];
  p('### Layout time');
  p();
  p('Ours: `lakeindex layout` as a process (wall and CPU from `/usr/bin/time`; "own s" = the time the command reports,');
  p('without start-up and opening the table). DuckDB: `COPY (SELECT * FROM read_parquet(events.parquet) ORDER BY x, y)');
  p('TO \'f.parquet\' (FORMAT parquet, COMPRESSION zstd)`, default threads. (x, y) layouts every round, the others once.');
  p();
  p('| layout | engine | rows | runs | wall s | CPU s | own s | Mrows/s (wall) | files | OTree blocks | cubes / depth | MB |');
  p('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const layoutStats = {};
  for (const name of layoutNames) {
    const runs = layoutRuns.filter((r) => r.layout === name);
    const r = runs[0];
    const s = { wall: median(runs.map((x) => x.wall_s)), cpu: median(runs.map((x) => x.cpu_s)),
                own: median(runs.map((x) => x.reported_s)), rows: r.rows, n: runs.length };
    layoutStats[name] = s;
    p(`| ${name} | ${r.engine} | ${int(r.rows)} | ${s.n} | ${f2(s.wall)} | ${f2(s.cpu)} | ${r.engine === 'lakeindex' ? f2(s.own) : ''} | ${f2(s.rows / s.wall / 1e6)} | ${r.files ?? 1} | ${r.blocks || ''} | ${r.cubes ? `${r.cubes} / ${r.depth}` : ''} | ${f1(r.bytes / 1e6)} |`);
  }
  p();

  // ---- boxes ----
  const summaries = {};
  for (const set of ['xy', 'xyz', 'xz']) {
    const pcts = [...new Set(lines.filter((r) => r.part === 'box' && r.set === set).map((r) => r.pct))].sort((a, b) => a - b);
    if (!pcts.length) continue;
    p(`### Boxes on ${SET_COLUMNS[set]}${set === 'xz' ? ' (skewed: z is normal)' : ''}`);
    p();
    p('| box | layout | rows returned / box | ours read ÷ ret. | ours row groups read / in scanned files | ours MB read / box | ours ms | DuckDB read ÷ ret. | DuckDB row groups read / total | DuckDB ms | runs |');
    p('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const pct of pcts) {
      for (const kind of [...KINDS, 'plain']) {
        const layout = kind === 'plain' ? 'plain' : `${kind} ${set}`;
        const o = boxSummary(lines, 'lakeindex', layout, set, pct);
        const d = boxSummary(lines, 'duckdb', layout, set, pct);
        if (!o && !d) continue;
        summaries[`${set} ${pct} ${kind}`] = { o, d };
        p(`| ${pct}% × ${o?.boxes ?? d?.boxes} | ${KIND_NAMES[kind]} | ${int(o?.returned_mean ?? d?.returned_mean)} | ${f2(o?.amp)} | ${o?.blocks ?? '—'} | ${f2(o ? o.bytes_mean / 1e6 : NaN)} | ${ms(o?.time_mean)} | ${f2(d?.amp)} | ${d?.row_groups ?? '—'} | ${ms(d?.time_mean)} | ${o?.rounds ?? 0} / ${d?.rounds ?? 0} |`);
      }
    }
    p();
  }

  const boxRuns = lines.filter((r) => r.part === 'box');
  const mismatches = boxRuns.filter((r) => r.engine === 'lakeindex').filter((o) => {
    const d = boxRuns.find((r) => r.engine === 'duckdb' && r.layout === o.layout && r.case === o.case);
    return d && d.rows_returned !== o.rows_returned;
  });
  if (boxRuns.length) {
    p(mismatches.length === 0 ? 'Rows returned: ours = DuckDB for every box on every layout.'
                              : `**Rows returned differ from DuckDB's** for ${mismatches.map((m) => `${m.layout} ${m.case}`).join(', ')}.`);
    p();
  }

  // ---- samples ----
  const samples = lines.filter((r) => r.part === 'sample');
  const fractions = [...new Set(samples.map((r) => r.fraction))].sort((a, b) => a - b);
  const sampleStats = {};
  if (fractions.length) {
    p('### Sampling');
    p();
    p('Ours: `lakeindex explain TABLE --sample f --analyze --json` on the OTree tables (rows with `_lakeindex_weight < f`; reads only');
    p('blocks whose min weight is below f). DuckDB: `CREATE TEMP TABLE r AS SELECT * FROM read_parquet(events.parquet)');
    p('USING SAMPLE p% (bernoulli)` (reads every row). Bound = 1.2·f·N + cube_rows (the goal).');
    p();
    p('| f | table | rows returned | rows read | f·N | read ÷ f·N | bound | row groups read / total | ours MB read | ours ms | DuckDB rows returned | DuckDB ms | runs |');
    p('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const f of fractions) {
      const duck = samples.filter((r) => r.engine === 'duckdb' && r.fraction === f);
      const dms = median(duck.map((r) => r.wall_s));
      for (const layout of [...new Set(samples.filter((r) => r.engine === 'lakeindex').map((r) => r.layout))]) {
        const runs = samples.filter((r) => r.engine === 'lakeindex' && r.layout === layout && r.fraction === f);
        if (!runs.length) continue;
        const r = runs[0];
        const fn = f * r.rows;
        const bound = 1.2 * fn + cubeRows;
        sampleStats[`${layout} ${f}`] = { read: r.rows_read, bound };
        p(`| ${f * 100}% | ${layout} | ${int(r.rows_returned)} | ${int(r.rows_read)} | ${int(fn)} | ${f2(r.rows_read / fn)} | ${int(bound)} | ${r.blocks_read} / ${r.blocks_total} | ${f2(r.bytes_read / 1e6)} | ${ms(median(runs.map((x) => x.wall_s)))} | ${int(duck[0]?.rows_returned)} | ${ms(dms)} | ${runs.length} / ${duck.length} |`);
      }
    }
    p();
  }

  const stats = lines.filter((r) => r.part === 'stats');
  if (stats.length) {
    p('OTree shapes (`lakeindex stats`):');
    p();
    p('```');
    for (const s of stats) p(s.text.trimEnd());
    p('```');
    p();
  }

  // ---- goals ----
  p('### Goals of issue 9');
  p();
  if (rows !== 10000000 || cubeRows !== 100000 || meta.layout_args) {
    p(`The goals are stated for 10M rows with the default settings; this run has ${int(rows)} rows, cube rows`);
    p(`${int(cubeRows)}${meta.layout_args ? `, options \`${meta.layout_args}\`` : ''}.`);
    p();
  }
  p('| goal | measured | verdict |');
  p('|---|---|---|');
  const amp = (set, pct, kind) => summaries[`${set} ${pct} ${kind}`]?.o?.amp;
  for (const [pct, limit] of [[0.01, 10], [0.1, 3], [1, 1.5], [10, 1.2]]) {
    const a = amp('xy', pct, 'otree');
    p(`| 2-D (x, y) box ${pct}%: read amplification ≤ ${limit} | ${f2(a)} (Hilbert ${f2(amp('xy', pct, 'hilbert'))}, Z-order ${f2(amp('xy', pct, 'zorder'))}, sort ${f2(amp('xy', pct, 'sort'))}) | ${verdict(a === undefined ? undefined : a <= limit)} |`);
  }
  for (const pct of [0.01, 0.1, 1, 10]) {
    const a = amp('xy', pct, 'otree');
    const h = amp('xy', pct, 'hilbert');
    const r = a / h;
    const judged = pct >= 1;
    p(`| ${judged ? '' : '(for information) '}OTree within 1.5× of Hilbert at ${pct}% | ${f2(a)} ÷ ${f2(h)} = ${f2(r)}× | ${judged ? verdict(Number.isFinite(r) ? r <= 1.5 : undefined) : '—'} |`);
  }
  const a3 = amp('xyz', 0.1, 'otree');
  p(`| 3-D (x, y, z) box 0.1%: read amplification ≤ 5 | ${f2(a3)} (Hilbert ${f2(amp('xyz', 0.1, 'hilbert'))}) | ${verdict(a3 === undefined ? undefined : a3 <= 5)} |`);
  for (const pct of [0.01, 0.1, 1, 10]) {
    const s = amp('xz', pct, 'otree');
    const u = amp('xy', pct, 'otree');
    p(`| skewed (x, z) within 1.5× of uniform (x, y), ${pct}% | ${f2(s)} ÷ ${f2(u)} = ${f2(s / u)}× | ${verdict(Number.isFinite(s / u) ? s / u <= 1.5 : undefined)} |`);
  }
  for (const [key, s] of Object.entries(sampleStats)) {
    const [, set, f] = key.split(' ');
    p(`| sample ${Number(f) * 100}% (OTree ${set}) reads ≤ 1.2·f·N + cube_rows | ${int(s.read)} ≤ ${int(s.bound)} | ${verdict(s.read <= s.bound)} |`);
  }
  const ot = layoutStats['otree xy'];
  const dk = layoutStats['duckdb sort x,y'];
  if (ot) {
    p(`| layout throughput ≥ 1M rows/s (OTree (x, y), process wall) | ${f2(ot.rows / ot.wall / 1e6)} M rows/s (${f2(ot.wall)} s; CPU ${f2(ot.cpu)} s) | ${verdict(ot.rows / ot.wall >= 1e6)} |`);
    p(`| layout no slower than DuckDB's sorted COPY | ours ${f2(ot.wall)} s vs DuckDB ${f2(dk?.wall)} s wall (CPU ${f2(ot.cpu)} vs ${f2(dk?.cpu)} s) | ${verdict(dk ? ot.wall <= dk.wall : undefined)} |`);
  }
  p();
  return out;
}

// Alone: parse the lines as bench/report.mjs does and print the section.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const meta = {};
  const results = [];
  let round = 0;
  for (const line of readFileSync(process.argv[2], 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const j = JSON.parse(line);
    if (j.meta) Object.assign(meta, j.meta);
    else if (j.round !== undefined) round = j.round;
    else results.push({ ...j, round });
  }
  process.stdout.write(`${layoutSection(results, meta).join('\n')}\n`);
}
