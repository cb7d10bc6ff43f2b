// CSV text <-> typed values: the value syntax of docs/user-guide.md "Types and CSV values", shared by the reader
// (parsing, type inference) and the writer (formatting).
//
// Syntax of a non-string value (surrounding spaces and tabs are ignored):
//   bool       true | false                      (case-insensitive)
//   int32/64   [+|-]digits                       (out of range is an error, never wraps)
//   float/dbl  decimal or exponent notation, nan, inf, -inf (case-insensitive), parsed exactly
//   date       YYYY-MM-DD
//   timestamp  YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]  (as ParseTimestamp in types.h)
//   timestamptz  the same with Z or an offset, kept in UTC; written with "+00"
//   timestamp_ns up to 9 fractional digits
//   binary     bytes, \xHH escapes (as ParseBinary)  uuid  as ParseUuid
// Strings are taken verbatim.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lakeindex/batch.h"
#include "lakeindex/types.h"

namespace lakeindex::csv {

// Each returns false when `text` is not a value of the type; they never allocate.
bool ParseBool(std::string_view text, bool* out);
bool ParseInt64(std::string_view text, int64_t* out);
bool ParseInt32(std::string_view text, int32_t* out);
bool ParseDouble(std::string_view text, double* out);
bool ParseFloat(std::string_view text, float* out);

// Parses `text` as a value of `column->type()` and appends it. Returns false (appending nothing)
// when it does not parse. REQUIRES: column->type() != kString.
bool AppendParsed(std::string_view text, Column* column);

// Picks the narrowest of bool < int64 < double < date < timestamp < string that holds every
// value observed; timestamps are a timestamptz when one names its offset from UTC (as DuckDB's
// sniffer). A column with no observed values is a string column.
class TypeInference {
 public:
  // `text` is a non-NULL field value.
  void Observe(std::string_view text);
  TypeId Type() const;

 private:
  static constexpr uint8_t kBoolBit = 1, kInt64Bit = 2, kDoubleBit = 4, kDateBit = 8,
                           kTimestampBit = 16;
  uint8_t candidates_ = kBoolBit | kInt64Bit | kDoubleBit | kDateBit | kTimestampBit;
  bool seen_ = false;
  bool zoned_ = false;
};

// Appends the CSV text of row `row` of `column` (which must be valid at `row`) to *out, unquoted:
// shortest round-trip doubles, nan/inf/-inf, true/false, FormatDate/FormatTimestamp.
void AppendFormatted(const Column& column, size_t row, std::string* out);

}  // namespace lakeindex::csv
