// Logical types, schemas and scalar values shared by every layer.
//
// Physical representation (also used by Column, see batch.h):
//   kBool      -> uint8_t (0 or 1)       kInt32  -> int32_t     kInt64 -> int64_t
//   kFloat     -> float                  kDouble -> double
//   kString    -> bytes (UTF-8 expected, compared bytewise)
//   kDate      -> int32_t days since 1970-01-01
//   kTimestamp -> int64_t microseconds since 1970-01-01 00:00:00 (no time zone)
//   kTimestampTz -> int64_t microseconds since 1970-01-01 00:00:00 UTC (an instant)
//   kTimestampNs -> int64_t nanoseconds since 1970-01-01 00:00:00 (no time zone)
//   kBinary    -> bytes (any), compared bytewise
//   kUuid      -> bytes: exactly 16, in RFC 4122 order (so bytewise order is the text's order)
//   decimal(p,s) -> int64_t unscaled value (the number times 10^s), 1 <= p <= 18, 0 <= s <= p
// The byte types (IsBytes) share the string layout everywhere: Column offsets + characters,
// Value::string_value.
// Thread safety: values; safe to copy between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex {

// Serialized in manifests by name (TypeName); the numeric values are stable too.
enum class TypeId : uint8_t {
  kBool = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloat = 3,
  kDouble = 4,
  kString = 5,
  kDate = 6,
  kTimestamp = 7,
  kTimestampTz = 8,
  kTimestampNs = 9,
  kBinary = 10,
  kUuid = 11,
  // Then one id per decimal(p, s), 12 to 200: DecimalType(p, s). Every switch over TypeId must
  // test IsDecimal first (the decimals have no enumerator of their own).
};

// Decimals: exact numbers of `precision` digits, `scale` of them after the point, held as int64
// unscaled values (decimal(10,2) holds 1.50 as 150). Precision above 18 needs 128 bits and is
// refused by name.
inline constexpr int kMaxDecimalPrecision = 18;
// REQUIRES: 1 <= precision <= kMaxDecimalPrecision, 0 <= scale <= precision.
TypeId DecimalType(int precision, int scale);
bool IsDecimal(TypeId type);
int DecimalPrecision(TypeId type);  // REQUIRES: IsDecimal(type)
int DecimalScale(TypeId type);      // REQUIRES: IsDecimal(type)
// 10^n. REQUIRES: 0 <= n <= 18.
int64_t Pow10(int n);
// Whether `unscaled` is a value of the decimal `type`: fewer digits than its precision. Every
// decimal in memory is; readers check what they read. REQUIRES: IsDecimal(type).
inline bool FitsDecimal(__int128 unscaled, TypeId type) {
  const __int128 limit = Pow10(DecimalPrecision(type));
  return unscaled < limit && unscaled > -limit;
}
// Units of a number type's physical value per 1: 10^scale for a decimal, 1 for an integer.
// REQUIRES: IsInteger(type) || IsDecimal(type).
inline int64_t NumericUnitsPerOne(TypeId type) { return IsDecimal(type) ? Pow10(DecimalScale(type)) : 1; }
// Reads "[+-]digits[.digits][e[+-]digits]" as a value of the decimal `type`, rounding half away
// from zero past its scale (as DuckDB's cast); InvalidArgument when it is not a number or does
// not fit the precision.
Result<int64_t> ParseDecimal(std::string_view text, TypeId type);
// "1.50", "-0.05", "12" (scale 0): as DuckDB prints decimals.
std::string FormatDecimal(int64_t unscaled, int scale);
// The nearest double to unscaled / 10^scale.
double DecimalToDouble(int64_t unscaled, int scale);

// "bool", "int32", "int64", "float", "double", "string", "date", "timestamp", "timestamptz",
// "timestamp_ns", "binary", "uuid", "decimal(10,2)".
const char* TypeName(TypeId type);
// The names above and DuckDB's aliases (bigint, varchar, blob, "timestamp with time zone",
// numeric(p,s), decimal(p) for decimal(p,0), decimal alone for DuckDB's decimal(18,3), ...).
Result<TypeId> ParseTypeName(std::string_view name);
// Width in bytes of one value in a Column buffer; 0 for the byte types.
int FixedWidth(TypeId type);
bool IsInteger(TypeId type);    // int32, int64
bool IsFloating(TypeId type);   // float, double
bool IsNumeric(TypeId type);    // integer, floating or decimal
bool IsBytes(TypeId type);      // string, binary, uuid: held as bytes
bool IsTimestamp(TypeId type);  // timestamp, timestamptz, timestamp_ns
bool IsTemporal(TypeId type);   // date or a timestamp
// Units of a temporal type's value per day: 1 (date), 86,400,000,000 (timestamp and timestamptz:
// microseconds), 86,400,000,000,000 (timestamp_ns). REQUIRES: IsTemporal(type).
int64_t TemporalUnitsPerDay(TypeId type);
// Compares temporal values of any two temporal types exactly (-1, 0, 1): a date counts as its
// midnight, and the infinite timestamps of every unit equal one another.
int CompareTemporal(TypeId a_type, int64_t a, TypeId b_type, int64_t b);

struct Field {
  std::string name;
  TypeId type = TypeId::kInt64;
  bool nullable = true;
  bool operator==(const Field&) const = default;
};

// Columns whose names start with "_lakeindex_" belong to lakeindex (the OTree's
// `_lakeindex_weight`): a query's default column list leaves them out, and a table cannot be
// created from input that has such a column. Every other name, `_x` and `_weight` included, is
// the user's.
inline constexpr std::string_view kHiddenColumnPrefix = "_lakeindex_";
inline bool IsHiddenColumn(std::string_view name) { return name.starts_with(kHiddenColumnPrefix); }

class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Field> fields) : fields_(std::move(fields)) {}

  // Parses "id:int64,name:string,amount:decimal(10,2)..."; a type may end in '!' for NOT NULL
  // ("id:int64!").
  // Errors name the position of the bad entry.
  static Result<Schema> Parse(std::string_view text);
  // Inverse of Parse.
  std::string ToString() const;

  const std::vector<Field>& fields() const { return fields_; }
  size_t num_fields() const { return fields_.size(); }
  const Field& field(size_t i) const { return fields_[i]; }
  // Index of the column named `name`, or -1.
  int FindField(std::string_view name) const;
  void AddField(Field f) { fields_.push_back(std::move(f)); }
  bool operator==(const Schema&) const = default;

 private:
  std::vector<Field> fields_;
};

// A scalar of a logical type, or NULL. Integers of every width, dates, timestamps and decimals
// (unscaled) are held as int64; float and double as double; bool as bool.
class Value {
 public:
  Value() = default;  // NULL of kInt64
  static Value Null(TypeId type) { Value v; v.type_ = type; return v; }
  static Value Bool(bool b) { Value v; v.type_ = TypeId::kBool; v.data_ = b; return v; }
  static Value Int32(int32_t x) { return Int(TypeId::kInt32, x); }
  static Value Int64(int64_t x) { return Int(TypeId::kInt64, x); }
  static Value Date(int32_t days) { return Int(TypeId::kDate, days); }
  static Value Timestamp(int64_t micros) { return Int(TypeId::kTimestamp, micros); }
  static Value TimestampTz(int64_t micros) { return Int(TypeId::kTimestampTz, micros); }
  static Value TimestampNs(int64_t nanos) { return Int(TypeId::kTimestampNs, nanos); }
  static Value Float(float x) { Value v; v.type_ = TypeId::kFloat; v.data_ = double(x); return v; }
  static Value Double(double x) { Value v; v.type_ = TypeId::kDouble; v.data_ = x; return v; }
  static Value String(std::string s) { return Bytes(TypeId::kString, std::move(s)); }
  static Value Binary(std::string s) { return Bytes(TypeId::kBinary, std::move(s)); }
  // REQUIRES: type is a byte type (IsBytes); a kUuid holds 16 bytes.
  static Value Bytes(TypeId type, std::string s) { Value v; v.type_ = type; v.data_ = std::move(s); return v; }
  static Value Int(TypeId type, int64_t x) { Value v; v.type_ = type; v.data_ = x; return v; }
  // REQUIRES: IsDecimal(type); `unscaled` is the number times 10^scale.
  static Value Decimal(TypeId type, int64_t unscaled) { return Int(type, unscaled); }

  TypeId type() const { return type_; }
  bool is_null() const { return std::holds_alternative<std::monostate>(data_); }
  // REQUIRES: !is_null() and the matching representation.
  bool bool_value() const { return std::get<bool>(data_); }
  int64_t int_value() const { return std::get<int64_t>(data_); }
  double double_value() const { return std::get<double>(data_); }
  const std::string& string_value() const { return std::get<std::string>(data_); }

  // Renders as SQL/CSV text as DuckDB does: 42, 1.5, abc, 2024-01-31, 2024-01-31 12:00:00.5,
  // 2024-01-31 12:00:00+00 (timestamptz, in UTC), \x00ab (binary: bytes outside printable ASCII
  // and backslash as \xHH), a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11, 1.50 (decimal(p,2)), true, NULL.
  std::string ToString() const;
  bool operator==(const Value& o) const { return type_ == o.type_ && data_ == o.data_; }

 private:
  TypeId type_ = TypeId::kInt64;
  std::variant<std::monostate, bool, int64_t, double, std::string> data_;
};

// Total order used for statistics and sorting (NULL handled by callers): numbers compare
// numerically (integers and decimals exactly, a decimal and a double as doubles, as DuckDB casts
// them), NaN is above every number and equal to NaN, strings compare bytewise.
// REQUIRES: both non-null and of comparable types (both numeric, both temporal, both bytes or
// both bool).
int CompareValues(const Value& a, const Value& b);

// A number Value (integer, decimal or floating) as the decimal `type`'s unscaled value, rounded
// half away from zero past its scale; InvalidArgument naming the value when it does not fit the
// precision (or is NaN or infinite).
Result<int64_t> ToDecimal(const Value& v, TypeId type);

// Civil-date helpers (proleptic Gregorian). Parse errors are InvalidArgument.
Result<int32_t> ParseDate(std::string_view text);            // "YYYY-MM-DD", "YYYY-MM-DD (BC)"
// "YYYY-MM-DD[(' '|'T')HH:MM[:SS[.ffffff]][Z|(+|-)HH[[:]MM]]]": an offset from UTC is applied (the
// result is in UTC).
Result<int64_t> ParseTimestamp(std::string_view text);
std::string FormatDate(int32_t days);
// Shortest text that reads back to the same double; "nan", "inf", "-inf".
std::string FormatDouble(double x);
std::string FormatTimestamp(int64_t micros);                 // fraction printed only when non-zero
// As ParseTimestamp with up to 9 fractional digits, into nanoseconds (1677-09-21 to 2262-04-11).
Result<int64_t> ParseTimestampNs(std::string_view text);
std::string FormatTimestampNs(int64_t nanos);
// A timestamp_ns of `micros` (a timestamp's or timestamptz's value); InvalidArgument past 2262.
Result<int64_t> MicrosToNanos(int64_t micros);
// "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", also without hyphens, in braces and in capitals (as
// DuckDB reads them); the 16 bytes.
Result<std::string> ParseUuid(std::string_view text);
std::string FormatUuid(std::string_view bytes);
// Binary values as text: \xHH escapes for bytes outside printable ASCII and for backslash
// (DuckDB's BLOB text). ParseBinary reads \xHH escapes and takes every other byte as it is; a
// backslash not starting \xHH is an error.
Result<std::string> ParseBinary(std::string_view text);
std::string FormatBinary(std::string_view bytes);
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

}  // namespace lakeindex
