// Writes N rows of the Arrow types lakeindex reads with apache-arrow (Arrow's JavaScript
// implementation, independent of lakeindex), as an IPC file and an IPC stream, and prints the
// values it wrote as JSON on one line: {"columns": [name, ...], "rows": [[value, ...], ...]} with
// null for NULL, integers (dates in days, timestamps in their unit) as decimal strings, floating
// values as numbers, strings as themselves, binaries as lower-case hex and decimals as their
// unscaled integers.
// Usage: node write.mjs FILE.arrow FILE.arrows N
import { writeFileSync } from 'node:fs'
import {
  makeData, makeVector, Table, tableToIPC, Int8, Uint16, Uint32, Int64, Float32, Float64, Utf8, LargeUtf8, Binary,
  Bool, DateDay, TimestampMicrosecond, TimestampNanosecond, TimestampMillisecond, FixedSizeBinary, Decimal,
} from 'apache-arrow'

const [filePath, streamPath, count] = process.argv.slice(2)
const n = Number(count)
if (!filePath || !streamPath || !(n > 0)) {
  console.error('usage: node write.mjs FILE.arrow FILE.arrows N')
  process.exit(2)
}

// A validity bitmap (LSB first) of the rows where isNull is false, and the NULL count.
function validity(isNull) {
  const bits = new Uint8Array(Math.ceil(n / 8))
  let nulls = 0
  for (let i = 0; i < n; i++) {
    if (isNull(i)) nulls++
    else bits[i >> 3] |= 1 << (i & 7)
  }
  return { nullBitmap: bits, nullCount: nulls }
}

const hex = (bytes) => Buffer.from(bytes).toString('hex')
const columns = {}
const shown = {}
function fixed(name, type, Array_, value, isNull, show) {
  const data = new Array_(n)
  for (let i = 0; i < n; i++) data[i] = isNull(i) ? (typeof data[0] === 'bigint' ? 0n : 0) : value(i)
  columns[name] = makeVector(makeData({ type, length: n, data, ...validity(isNull) }))
  shown[name] = (i) => (isNull(i) ? null : show(data[i]))
}
function variable(name, type, Offsets, bytesOf, isNull, show) {
  const offsets = new Offsets(n + 1)
  const parts = []
  let at = 0
  for (let i = 0; i < n; i++) {
    const b = isNull(i) ? new Uint8Array(0) : bytesOf(i)
    parts.push(b)
    at += b.length
    offsets[i + 1] = typeof offsets[0] === 'bigint' ? BigInt(at) : at
  }
  const data = new Uint8Array(at)
  let k = 0
  for (const b of parts) {
    data.set(b, k)
    k += b.length
  }
  columns[name] = makeVector(makeData({ type, length: n, valueOffsets: offsets, data, ...validity(isNull) }))
  shown[name] = (i) => (isNull(i) ? null : show(parts[i]))
}
const text = (s) => new TextEncoder().encode(s)
const decode = (b) => new TextDecoder().decode(b)

fixed('i8', new Int8(), Int8Array, (i) => ((i * 37) % 256) - 128, (i) => i % 7 === 0, String)
fixed('u16', new Uint16(), Uint16Array, (i) => (i * 997) % 65536, () => false, String)
fixed('u32', new Uint32(), Uint32Array, (i) => (i * 21474836) % 4294967296, (i) => i % 10 === 3, String)
fixed('i64', new Int64(), BigInt64Array, (i) => BigInt(i - 100) * 92233720368547n, (i) => i % 11 === 4, String)
fixed('f32', new Float32(), Float32Array, (i) => (i - 100) / 8, () => false, Number)
fixed('f64', new Float64(), Float64Array, (i) => (i - 50) * 0.25, (i) => i % 5 === 1, Number)
variable('s', new Utf8(), Int32Array, (i) => text(i % 11 === 0 ? '' : `s${i} é,"q"`), (i) => i % 9 === 2, decode)
variable('ls', new LargeUtf8(), BigInt64Array, (i) => text(`large ${i}`), (i) => i % 8 === 5, decode)
variable('bin', new Binary(), Int32Array, (i) => new Uint8Array([i % 256, (i * 7) % 256, 92].slice(0, i % 4)),
  (i) => i % 6 === 1, hex)
fixed('day', new DateDay(), Int32Array, (i) => i * 101 - 10000, (i) => i % 12 === 7, String)
fixed('ts_ms', new TimestampMillisecond(), BigInt64Array, (i) => BigInt(i - 30) * 86399999n, () => false, String)
fixed('ts_utc', new TimestampMicrosecond('UTC'), BigInt64Array, (i) => BigInt(i - 70) * 3600000001n, (i) => i % 14 === 0,
  String)
fixed('ts_ns', new TimestampNanosecond(), BigInt64Array, (i) => BigInt(i - 90) * 1000000000007n, (i) => i % 15 === 2,
  String)
{
  const data = new Uint8Array(16 * n)
  for (let i = 0; i < 16 * n; i++) data[i] = (i * 131) % 256
  const isNull = (i) => i % 16 === 9
  columns.fsb = makeVector(makeData({ type: new FixedSizeBinary(16), length: n, data, ...validity(isNull) }))
  shown.fsb = (i) => (isNull(i) ? null : hex(data.subarray(16 * i, 16 * i + 16)))
}
{  // decimal(12, 3): 128-bit little-endian two's complement, shown as the unscaled integer
  const data = new Uint32Array(4 * n)
  const isNull = (i) => i % 10 === 6
  const unscaled = (i) => BigInt(i - 250) * 123456789n + BigInt(i % 7)
  for (let i = 0; i < n; i++) {
    let v = isNull(i) ? 0n : BigInt.asUintN(128, unscaled(i))
    for (let w = 0; w < 4; w++) {
      data[4 * i + w] = Number(v & 0xffffffffn)
      v >>= 32n
    }
  }
  columns.dec = makeVector(makeData({ type: new Decimal(3, 12, 128), length: n, data, ...validity(isNull) }))
  shown.dec = (i) => (isNull(i) ? null : String(unscaled(i)))
}
{  // booleans: bit-packed values
  const values = new Uint8Array(Math.ceil(n / 8))
  for (let i = 0; i < n; i++) if (i % 3 === 0) values[i >> 3] |= 1 << (i & 7)
  const isNull = (i) => i % 13 === 0
  columns.flag = makeVector(makeData({ type: new Bool(), length: n, data: values, ...validity(isNull) }))
  shown.flag = (i) => (isNull(i) ? null : i % 3 === 0)
}

const table = new Table(columns)
writeFileSync(filePath, tableToIPC(table, 'file'))
writeFileSync(streamPath, tableToIPC(table, 'stream'))
const names = Object.keys(columns)
const rows = []
for (let i = 0; i < n; i++) rows.push(names.map((c) => shown[c](i)))
console.log(JSON.stringify({ columns: names, rows }))
