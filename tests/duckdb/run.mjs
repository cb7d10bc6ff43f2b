// Runs SQL in an in-memory DuckDB and prints the result of the LAST statement as one JSON object:
//   {"columns": [names], "types": [DuckDB type names], "rows": [[value, ...], ...]}
// SQL comes from the arguments (joined by spaces) or, when there are none, from stdin; several
// statements separated by ';' are allowed.
//
// Values are rendered exactly, so that tests can compare them as strings:
//   BIGINT, HUGEINT, UBIGINT, UHUGEINT -> string of the decimal integer (JS numbers lose precision)
//   INTEGER, SMALLINT, TINYINT, U* of <= 32 bits -> JSON number
//   DOUBLE -> string, shortest that round-trips (JS Number#toString layout, e.g. "0.1", "1e+21");
//   FLOAT  -> string, shortest that round-trips *as a float* ("0.1" for 0.1::FLOAT), same layout;
//             both use "nan", "inf", "-inf", and "-0" for negative zero
//   BOOLEAN -> true/false       VARCHAR -> string
//   DATE -> "YYYY-MM-DD" (proleptic Gregorian, astronomical years: year 0 = 1 BC, written
//           "-0044-03-15" before year 0 and with more digits after 9999; "infinity"/"-infinity")
//   TIMESTAMP -> string of the integer microseconds since 1970-01-01 00:00:00
//   TIMESTAMPTZ -> string of the integer microseconds since 1970-01-01 00:00:00 UTC
//   TIMESTAMP_NS -> string of the integer nanoseconds since 1970-01-01 00:00:00
//   BLOB -> "hex:" and the bytes in lower-case hex    UUID -> its text (8-4-4-4-12, lower case)
//   NULL -> null                anything else -> String(value) (DuckDB's own text form)
// On an SQL error: prints {"error": "..."} and exits 1. If DuckDB itself cannot be loaded:
// prints {"error": "..."} naming scripts/install-deps.sh and exits 2.
// tests/util/duckdb_ref.cc is the C++ side of this contract (and renders lakeindex values the same way).

import { readFileSync } from 'node:fs';

function fail(message, code) {
  process.stdout.write(JSON.stringify({ error: message }) + '\n');
  process.exitCode = code;
}

function readSql() {
  const args = process.argv.slice(2);
  if (args.length > 0) return args.join(' ');
  return readFileSync(0, 'utf8');
}

function pad(n, width) {
  return String(n).padStart(width, '0');
}

// Days since 1970-01-01 -> civil date (proleptic Gregorian), by whole 400-year eras.
function formatDate(days) {
  if (days === 2147483647) return 'infinity';
  if (days === -2147483647) return '-infinity';
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) -
                          Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const year = y < 0 ? '-' + pad(-y, 4) : pad(y, 4);
  return `${year}-${pad(m, 2)}-${pad(d, 2)}`;
}

function specialFloat(x) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (Object.is(x, -0)) return '-0';
  return null;
}

function formatDouble(x) {
  return specialFloat(x) ?? String(x);
}

// The float x (widened to double) as an exact rational: {m, e} with |x| = m * 2^e.
function floatParts(x) {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, Math.abs(x));
  const bits = view.getUint32(0);
  const biased = (bits >>> 23) & 0xff;
  const frac = bits & 0x7fffff;
  if (biased === 0) return { m: BigInt(frac), e: -149, pow2: false };
  return { m: BigInt(frac | 0x800000), e: biased - 150, pow2: frac === 0 && biased > 1 };
}

function pow(base, n) {
  return n > 0 ? base ** BigInt(n) : 1n;
}

// The shortest decimal that reads back as the same float (as std::to_chars(float) picks it:
// among the shortest, the closest; an exact tie goes to the even last digit), laid out like a
// JS number. All comparisons are exact, in BigInt: x is m * 2^e; in units of 2^(e-2) it is 4m,
// and the values that round to it lie within 2 units (1 below a power of two) of it.
function formatFloat(x) {
  const special = specialFloat(x);
  if (special !== null) return special;
  if (x === 0) return '0';
  const sign = x < 0 ? '-' : '';
  const a = Math.abs(x);
  const { m, e, pow2 } = floatParts(a);
  const center = 4n * m;
  const below = pow2 ? 1n : 2n;
  const evenM = m % 2n === 0n;
  for (let p = 1; p <= 9; ++p) {
    // a.toExponential(p - 1) is the nearest p-digit decimal; a neighbour may be the closest one
    // that round-trips when the nearest falls outside the narrower interval below a power of two.
    const [mant, exp] = a.toExponential(p - 1).split('e');
    const digits = BigInt(mant.replace('.', ''));
    const shift = Number(exp) - (p - 1);  // candidate value = c * 10^shift
    // candidate in units of 2^(e-2) is num(c) / den
    const den = pow(10n, -shift) * pow(2n, e - 2);
    const scale = pow(10n, shift) * pow(2n, 2 - e);
    let best = null;
    let bestErr = null;
    for (const c of [digits - 1n, digits, digits + 1n]) {
      if (c <= 0n) continue;
      const diff = c * scale - center * den;  // (candidate - x) * den, in units of 2^(e-2)
      const err = diff < 0n ? -diff : diff;
      const limit = (diff < 0n ? below : 2n) * den;
      if (err > limit || (err === limit && !evenM)) continue;  // would read back as another float
      if (best === null || err < bestErr || (err === bestErr && c % 2n === 0n)) {
        best = c;
        bestErr = err;
      }
    }
    if (best !== null) return sign + String(Number(`${best}e${shift}`));
  }
  return sign + String(a);  // unreachable: 9 digits always round-trip a float
}

function render(value, typeId, T) {
  if (value === null || value === undefined) return null;
  switch (typeId) {
    case T.BOOLEAN:
      return value;
    case T.TINYINT:
    case T.SMALLINT:
    case T.INTEGER:
    case T.UTINYINT:
    case T.USMALLINT:
    case T.UINTEGER:
      return value;
    case T.BIGINT:
    case T.UBIGINT:
    case T.HUGEINT:
    case T.UHUGEINT:
      return value.toString();
    case T.DOUBLE:
      return formatDouble(value);
    case T.FLOAT:
      return formatFloat(value);
    case T.VARCHAR:
      return value;
    case T.DATE:
      return formatDate(value.days);
    case T.TIMESTAMP:
    case T.TIMESTAMP_TZ:
      return value.micros.toString();
    case T.TIMESTAMP_NS:
      return value.nanos.toString();
    case T.BLOB:
      return 'hex:' + Buffer.from(value.bytes).toString('hex');
    default:
      return String(value);
  }
}

async function main() {
  let duckdb;
  try {
    duckdb = await import('@duckdb/node-api');
  } catch (e) {
    fail(`cannot load @duckdb/node-api (run scripts/install-deps.sh): ${e.message}`, 2);
    return;
  }
  const sql = readSql();
  let instance;
  let connection;
  try {
    instance = await duckdb.DuckDBInstance.create(':memory:');
    connection = await instance.connect();
    const result = await connection.run(sql);
    const T = duckdb.DuckDBTypeId;
    const columns = result.columnNames();
    const typeIds = columns.map((_, i) => result.columnTypeId(i));
    const types = columns.map((_, i) => result.columnType(i).toString());
    const rows = (await result.getRows()).map((row) =>
      row.map((v, i) => render(v, typeIds[i], T)));
    process.stdout.write(JSON.stringify({ columns, types, rows }) + '\n');
  } catch (e) {
    fail(e && e.message !== undefined ? e.message : String(e), 1);
  } finally {
    if (connection) connection.closeSync();
    if (instance) instance.closeSync();
  }
}

await main();
