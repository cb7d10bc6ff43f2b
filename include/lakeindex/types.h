// Logical types, schemas and scalar values shared by every layer.
//
// Physical representation (also used by Column, see batch.h):
//   kBool      -> uint8_t (0 or 1)       kInt32  -> int32_t     kInt64 -> int64_t
//   kFloat     -> float                  kDouble -> double
//   kString    -> bytes (UTF-8 expected, compared bytewise)
//   kDate      -> int32_t days since 1970-01-01
//   kTimestamp -> int64_t microseconds since 1970-01-01 00:00:00 (no time zone)
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
};

// "bool", "int32", "int64", "float", "double", "string", "date", "timestamp".
const char* TypeName(TypeId type);
Result<TypeId> ParseTypeName(std::string_view name);
// Width in bytes of one value in a Column buffer; 0 for kString.
int FixedWidth(TypeId type);
bool IsInteger(TypeId type);   // int32, int64
bool IsFloating(TypeId type);  // float, double
bool IsNumeric(TypeId type);   // integer or floating

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

  // Parses "id:int64,name:string,..."; a type may end in '!' for NOT NULL ("id:int64!").
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

// A scalar of a logical type, or NULL. Integers of every width, dates and timestamps are held as
// int64; float and double as double; bool as bool.
class Value {
 public:
  Value() = default;  // NULL of kInt64
  static Value Null(TypeId type) { Value v; v.type_ = type; return v; }
  static Value Bool(bool b) { Value v; v.type_ = TypeId::kBool; v.data_ = b; return v; }
  static Value Int32(int32_t x) { return Int(TypeId::kInt32, x); }
  static Value Int64(int64_t x) { return Int(TypeId::kInt64, x); }
  static Value Date(int32_t days) { return Int(TypeId::kDate, days); }
  static Value Timestamp(int64_t micros) { return Int(TypeId::kTimestamp, micros); }
  static Value Float(float x) { Value v; v.type_ = TypeId::kFloat; v.data_ = double(x); return v; }
  static Value Double(double x) { Value v; v.type_ = TypeId::kDouble; v.data_ = x; return v; }
  static Value String(std::string s) { Value v; v.type_ = TypeId::kString; v.data_ = std::move(s); return v; }
  static Value Int(TypeId type, int64_t x) { Value v; v.type_ = type; v.data_ = x; return v; }

  TypeId type() const { return type_; }
  bool is_null() const { return std::holds_alternative<std::monostate>(data_); }
  // REQUIRES: !is_null() and the matching representation.
  bool bool_value() const { return std::get<bool>(data_); }
  int64_t int_value() const { return std::get<int64_t>(data_); }
  double double_value() const { return std::get<double>(data_); }
  const std::string& string_value() const { return std::get<std::string>(data_); }

  // Renders as SQL/CSV text: 42, 1.5, abc, 2024-01-31, 2024-01-31 12:00:00.5, true, NULL.
  std::string ToString() const;
  bool operator==(const Value& o) const { return type_ == o.type_ && data_ == o.data_; }

 private:
  TypeId type_ = TypeId::kInt64;
  std::variant<std::monostate, bool, int64_t, double, std::string> data_;
};

// Total order used for statistics and sorting (NULL handled by callers): numbers compare
// numerically, NaN is above every number and equal to NaN, strings compare bytewise.
// REQUIRES: both non-null and of comparable types (both numeric/temporal, both string or both bool).
int CompareValues(const Value& a, const Value& b);

// Civil-date helpers (proleptic Gregorian). Parse errors are InvalidArgument.
Result<int32_t> ParseDate(std::string_view text);            // "YYYY-MM-DD"
// "YYYY-MM-DD[(' '|'T')HH:MM[:SS[.ffffff]][Z|(+|-)HH[[:]MM]]]": an offset from UTC is applied (the
// result is in UTC).
Result<int64_t> ParseTimestamp(std::string_view text);
std::string FormatDate(int32_t days);
// Shortest text that reads back to the same double; "nan", "inf", "-inf".
std::string FormatDouble(double x);
std::string FormatTimestamp(int64_t micros);                 // fraction printed only when non-zero
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

}  // namespace lakeindex
