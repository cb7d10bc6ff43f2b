// Reads an Arrow IPC stream with apache-arrow (Arrow's JavaScript implementation, independent of
// lakeindex) and prints what it holds, as JSON on one line:
//   {"fields": [{"name", "type", "nullable"}], "batches": B, "rows": [[value, ...], ...]}
// Values: null for NULL; booleans and strings as themselves; 8-, 16- and 32-bit integers as
// numbers; int64 as decimal strings; floating values as numbers, or "NaN", "Infinity",
// "-Infinity"; DATE (days) as days since 1970; TIMESTAMP as its integer count in its unit, a
// decimal string; DECIMAL as its unscaled integer, a decimal string; binary and fixed-size
// binary as lower-case hex. Fields carry their metadata. Dates and timestamps are read from the column's own buffer, not through a JS Date.
// Usage: node read.mjs FILE   (FILE "-" reads standard input)
import { readFileSync } from 'node:fs'
import { tableFromIPC, Type } from 'apache-arrow'

const path = process.argv[2]
if (!path) {
  console.error('usage: node read.mjs FILE')
  process.exit(2)
}
const bytes = readFileSync(path === '-' ? 0 : path)
const table = tableFromIPC(bytes)

function value(vector, data, index, row) {
  if (!vector.isValid(row)) return null
  const type = data.type
  switch (type.typeId) {
    case Type.Int:
      return type.bitWidth === 64 ? data.values[index].toString() : data.values[index]
    case Type.Float: {
      const v = data.values[index]
      return Number.isFinite(v) ? v : String(v)
    }
    case Type.Date:
      return data.values[index]  // DateDay: Int32Array of days
    case Type.Timestamp:
      return data.values[index].toString()  // BigInt64Array in the unit
    case Type.Decimal: {  // the unscaled integer: 128-bit little-endian two's complement words
      let v = 0n
      for (let w = 3; w >= 0; w--) v = (v << 32n) | BigInt(data.values[4 * index + w])
      return BigInt.asIntN(128, v).toString()
    }
    case Type.Binary:
    case Type.FixedSizeBinary:
      return Buffer.from(vector.get(row)).toString('hex')
    default:
      return vector.get(row)
  }
}

const rows = []
for (let r = 0; r < table.numRows; r++) rows.push([])
table.schema.fields.forEach((field, c) => {
  const vector = table.getChildAt(c)
  let row = 0
  for (const data of vector.data) {
    for (let i = 0; i < data.length; i++, row++) rows[row].push(value(vector, data, data.offset + i, row))
  }
})
const fields = table.schema.fields.map((f) => ({
  name: f.name, type: String(f.type), nullable: f.nullable, metadata: Object.fromEntries(f.metadata),
}))
console.log(JSON.stringify({ fields, batches: table.batches.length, rows }))
