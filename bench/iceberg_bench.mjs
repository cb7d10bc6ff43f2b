// The cost of keeping Iceberg metadata (issue 19) and what an Iceberg planner prunes with it.
//
//   node bench/iceberg_bench.mjs --cli BUILD/lakeindex --events EVENTS.parquet --more MORE.parquet
//        --boxes BOXES.tsv --dir SCRATCH --location-of-scratch file:///abs/SCRATCH > RESULTS.jsonl
//
// 1. The same sequence of commands on two copies of the table, one created with --iceberg: create
//    (EVENTS), append (MORE), delete 1%, an OTree layout on (x, y), delete another 1%. Per
//    command: wall and CPU seconds of the process, bytes under metadata/ it added, and the
//    table's bytes.
// 2. On the Iceberg table's last version, for each (x, y) box of BOXES (bench/layout_bench.mjs
//    boxes): the data files an Iceberg planner keeps by the manifests' bounds (decoded by icebird,
//    tests/iceberg/read.mjs) and their bytes, beside what lakeindex reads for the same box
//    (`explain --analyze --json`: files scanned, bytes read) and the rows it returns.
// One JSON object per line on stdout (bench: "iceberg", part: "cost" | "prune").
//   node bench/iceberg_bench.mjs report RESULTS.jsonl     renders them as markdown tables.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { dirBytes, emitLine, runTimed } from './bench_util.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
if (process.argv[2] === 'report') {
  const lines = readFileSync(process.argv[3], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const fmt = (x, d = 2) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const cost = lines.filter((l) => l.part === 'cost');
  console.log('| step | plain s (CPU s) | with Iceberg s (CPU s) | metadata added | metadata total | table |');
  console.log('|---|---|---|---|---|---|');
  for (const c of cost.filter((l) => l.table === 'iceberg')) {
    const p = cost.find((l) => l.table === 'plain' && l.step === c.step);
    console.log(`| ${c.step} | ${fmt(p.wall_s)} (${fmt(p.cpu_s)}) | ${fmt(c.wall_s)} (${fmt(c.cpu_s)}) | ` +
                `${fmt(c.metadata_bytes_added / 1024, 1)} KiB | ${fmt(c.metadata_bytes / 1024, 1)} KiB | ${fmt(c.table_bytes / 2 ** 20, 0)} MiB |`);
  }
  console.log('');
  console.log('| box | rows returned | files: Iceberg bounds keep / lakeindex scans / total | MB: in the files kept / lakeindex reads | rows: in the files kept / lakeindex reads |');
  console.log('|---|---|---|---|---|');
  for (const b of lines.filter((l) => l.part === 'prune')) {
    console.log(`| ${b.case} | ${b.rows_returned.toLocaleString('en-US')} | ${b.iceberg_files} / ${b.ours_files} / ${b.files_total} | ` +
                `${fmt(b.iceberg_bytes / 1e6, 1)} / ${fmt(b.ours_bytes / 1e6, 1)} | ${b.iceberg_rows.toLocaleString('en-US')} / ${b.ours_rows_read.toLocaleString('en-US')} |`);
  }
  process.exit(0);
}
const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const k of ['cli', 'events', 'more', 'boxes', 'dir']) {
  if (!args[k]) throw new Error(`--${k} is required (see the file comment)`);
}

const metadataBytes = (table) => dirBytes(path.join(table, 'metadata'));
const steps = [
  ['create', (t, ice) => ['create', t, '--from', args.events, ...(ice ? ['--iceberg'] : [])]],
  ['append', (t) => ['append', t, '--from', args.more]],
  ['delete 1%', (t) => ['delete', t, '--where', 'id BETWEEN 0 AND 99999']],
  ['layout otree x,y', (t) => ['layout', t, '--otree', 'x,y', '--cube-rows', '100000']],
  ['delete 1% (OTree)', (t) => ['delete', t, '--where', 'id BETWEEN 200000 AND 299999']],
];
for (const ice of [false, true]) {
  const table = path.join(args.dir, ice ? 'iceberg' : 'plain');
  spawnSync('rm', ['-rf', table]);
  for (const [name, argv] of steps) {
    const before = ice ? metadataBytes(table) : 0;
    const t = runTimed(args.cli, argv(table, ice));
    emitLine({ bench: 'iceberg', part: 'cost', table: ice ? 'iceberg' : 'plain', step: name, wall_s: t.wall_s,
               cpu_s: t.cpu_s, metadata_bytes_added: ice ? metadataBytes(table) - before : 0,
               metadata_bytes: ice ? metadataBytes(table) : 0, table_bytes: dirBytes(table) });
  }
}

const table = path.join(args.dir, 'iceberg');
const location = 'file://' + path.resolve(table);
const version = Number(readFileSync(path.join(table, 'metadata/version-hint.text'), 'utf8'));
const read = spawnSync(process.execPath, [path.join(here, '../tests/iceberg/read.mjs'), table, location, '--manifests', String(version)],
                       { encoding: 'utf8', maxBuffer: 1 << 28 });
if (read.status !== 0) throw new Error(`read.mjs failed: ${read.stderr}`);
const bound = (list, id) => {
  const e = list.find((kv) => kv.key === id);
  return e ? Buffer.from(e.value, 'hex').readDoubleLE(0) : NaN;
};
const files = read.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.data_file.content === 0).map((e) => ({
  size: Number(e.data_file.file_size_in_bytes), rows: Number(e.data_file.record_count),
  x: [bound(e.data_file.lower_bounds, 2), bound(e.data_file.upper_bounds, 2)],
  y: [bound(e.data_file.lower_bounds, 3), bound(e.data_file.upper_bounds, 3)],
}));
for (const line of readFileSync(args.boxes, 'utf8').split('\n')) {
  const [name, set, pct, where] = line.split('\t');
  if (set !== 'xy') continue;
  const r = {};
  for (const m of where.matchAll(/(\w+) BETWEEN (\S+) AND (\S+)/g)) r[m[1]] = [Number(m[2]), Number(m[3])];
  const kept = files.filter((f) => !(f.x[1] < r.x[0] || f.x[0] > r.x[1] || f.y[1] < r.y[0] || f.y[0] > r.y[1]));
  const ex = runTimed(args.cli, ['explain', table, '--where', where, '--analyze', '--json']);
  const j = JSON.parse(ex.stdout);
  emitLine({ bench: 'iceberg', part: 'prune', case: name, pct: Number(pct), where, version,
             files_total: files.length, iceberg_files: kept.length, iceberg_bytes: kept.reduce((a, f) => a + f.size, 0),
             iceberg_rows: kept.reduce((a, f) => a + f.rows, 0),
             ours_files: j.fragments_scanned, ours_bytes: j.bytes_read, ours_rows_read: j.rows_read,
             rows_returned: j.rows_returned });
}
