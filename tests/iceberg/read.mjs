// Reads a lakeindex table's Iceberg metadata with icebird (an independent Iceberg reader) and
// prints the rows of each version asked for, one JSON object per line:
//   {"version": N, "rows": [[col values...], ...], "columns": [names], "files": K}
// or {"version": N, "error": "..."}.
//
// Usage: node read.mjs TABLE_DIR LOCATION VERSION...   (VERSION "latest": via version-hint.text)
//        node read.mjs TABLE_DIR LOCATION --manifests VERSION
// The second form prints the version's manifest entries as icebird decodes them, one JSON object
// per line: {"status", "sequence_number", "data_file": {..., bounds as hex strings}}.
//
// icebird reads through fetch(), so the table directory is served over HTTP on a loopback port
// (with Range requests, as object stores serve them) and every URL under LOCATION (the URI the
// metadata names files by: file:///abs/path, s3://bucket/prefix) is fetched from that server
// instead; nothing else is fetched.
// Values: BigInt and Date are not JSON; int64 become decimal strings, DATE days since 1970, and
// TIMESTAMP milliseconds since 1970 (icebird's hyparquet returns a JS Date: milliseconds);
// bytes (binary, uuid) as lower-case hex.
import { createServer } from 'node:http'
import { open, stat } from 'node:fs/promises'
import { join, normalize } from 'node:path'
import { icebergManifests, icebergMetadata, icebergRead } from 'icebird'

const [dir, location, ...versions] = process.argv.slice(2)
if (!dir || !location || versions.length === 0) {
  console.error('usage: node read.mjs TABLE_DIR LOCATION VERSION...')
  process.exit(2)
}

let requests = 0
const server = createServer(async (req, res) => {
  requests++
  try {
    const rel = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname))
    if (rel.includes('..')) throw Object.assign(new Error('bad path'), { code: 'ENOENT' })
    const path = join(dir, rel)
    const size = (await stat(path)).size
    let start = 0, end = size - 1
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '')
    if (range) {
      start = Number(range[1])
      end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1
    }
    const len = Math.max(0, end - start + 1)
    const buf = Buffer.alloc(len)
    const fh = await open(path, 'r')
    try { await fh.read(buf, 0, len, start) } finally { await fh.close() }
    res.writeHead(range ? 206 : 200, {
      'Content-Length': len,
      'Content-Range': `bytes ${start}-${end}/${size}`,
      'Accept-Ranges': 'bytes',
    })
    if (req.method === 'HEAD') res.end()
    else res.end(buf)
  } catch (e) {
    res.writeHead(e.code === 'ENOENT' ? 404 : 500)
    res.end(String(e))
  }
})
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
const base = `http://127.0.0.1:${server.address().port}`
const realFetch = globalThis.fetch
// icebird turns s3://bucket/key into https://bucket.s3.amazonaws.com/key before fetching it.
const prefixes = [location]
const s3 = /^s3a?:\/\/([^/]+)(\/.*)?$/.exec(location)
if (s3) prefixes.push(`https://${s3[1]}.s3.amazonaws.com${s3[2] ?? ''}`)
globalThis.fetch = (url, init) => {
  let u = String(url)
  for (const p of prefixes) {
    if (u.startsWith(p)) {
      u = base + u.slice(p.length)
      break
    }
  }
  if (!u.startsWith(base)) return Promise.reject(new Error(`read.mjs: ${u} is outside the table`))
  return realFetch(u, init)
}

function plain(v) {
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex')
  if (v instanceof Date) return v.getTime()
  if (v === undefined) return null
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v)
  return v
}

function jsonable(key, v) {
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex')
  return v
}

if (versions[0] === '--manifests') {
  const metadata = await icebergMetadata({ tableUrl: base, metadataFileName: `v${versions[1]}.metadata.json` })
  for (const { entries } of await icebergManifests(metadata)) {
    for (const entry of entries) console.log(JSON.stringify(entry, jsonable))
  }
  server.close()
  process.exit(0)
}

for (const version of versions) {
  try {
    const tableUrl = base
    const metadataFileName = version === 'latest' ? undefined : `v${version}.metadata.json`
    const metadata = await icebergMetadata({ tableUrl, metadataFileName })
    const schema = metadata.schemas.find(s => s['schema-id'] === metadata['current-schema-id'])
    const columns = schema.fields.map(f => f.name)
    const types = schema.fields.map(f => f.type)
    const records = await icebergRead({ tableUrl, metadata })
    const rows = records.map(r => columns.map((c, i) => {
      const v = r[c]
      if (types[i] === 'date' && v instanceof Date) return Math.round(v.getTime() / 86400000)
      return plain(v)
    }))
    console.log(JSON.stringify({ version: metadata['current-snapshot-id'], columns, types, rows }))
  } catch (e) {
    console.log(JSON.stringify({ version, error: String(e?.stack ?? e) }))
  }
}
server.close()
