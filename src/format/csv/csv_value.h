// CSV text <-> typed values: the value syntax of docs/user-guide.md "Types and CSV values", shared by the reader
// (parsing, type inference) and the writer (formatting).
//
// Syntax of a non-string value (surrounding spaces and tabs are ignored):
//   bool       true | false | t | f | yes | no | y | n | 1 | 0   (case-insensitive; what DuckDB's
//              cast to BOOLEAN takes — its sniffer, and TypeInference, infer bool from the first
//              six only: 1/0 is an integer column, y/n a string one)
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

// Values written otherwise than the syntax above, as DuckDB's read_csv options `dateformat` and
// `thousands` say (the command line's --dateformat, --thousands).
struct ValueSyntax {
  // Dates as strptime writes them: %Y (a 4-digit year), %y (2 digits: 00-68 are 20xx, 69-99
  // 19xx, as Python's strptime), %m and %d (1 or 2 digits), %b (Jan ... Dec, any case), %%, and
  // other characters for themselves: "%m/%d/%Y" reads 12/31/2024. Empty: YYYY-MM-DD.
  std::string date_format;
  // A character between the digits of numbers ("1,234.50" with ','), left out when they are read;
  // 0: none.
  char thousands = 0;
};

// A date in `format` (ValueSyntax::date_format), as days since 1970-01-01; false when `text` is
// not one (a valid date).
bool ParseFormattedDate(std::string_view text, std::string_view format, int32_t* out);

// Parses `text` as a value of `column->type()` and appends it. Returns false (appending nothing)
// when it does not parse. REQUIRES: column->type() != kString.
bool AppendParsed(std::string_view text, Column* column, const ValueSyntax& syntax = {});

// Picks the narrowest of bool < int64 < double < date < timestamp < string that holds every
// value observed; timestamps are a timestamptz when one names its offset from UTC (as DuckDB's
// sniffer). A column with no observed values is a string column.
class TypeInference {
 public:
  // Values in `syntax` (which must outlive this); nullptr: the syntax above.
  explicit TypeInference(const ValueSyntax* syntax = nullptr) : syntax_(syntax) {}
  // `text` is a non-NULL field value.
  void Observe(std::string_view text);
  TypeId Type() const;
  // When Type() is kString though every value looks like a date other than YYYY-MM-DD
  // ("12/31/2024", "31.12.2024") or a number with ',' between its thousands ("1,234.50"): what
  // they look like, with the first such value and why it is not one ("dates such as '12/31/2024'
  // (a CSV date is YYYY-MM-DD)"); else empty. The
  // reader tells the user, so that such a column does not become strings silently.
  std::string Lookalike() const;
  // For a Lookalike column: the ValueSyntax that reads its values — a date_format
  // ("%m/%d/%Y", day first when some first number is past 12) or thousands ','.
  ValueSyntax LookalikeSyntax() const;

 private:
  static constexpr uint8_t kBoolBit = 1, kInt64Bit = 2, kDoubleBit = 4, kDateBit = 8,
                           kTimestampBit = 16;
  uint8_t candidates_ = kBoolBit | kInt64Bit | kDoubleBit | kDateBit | kTimestampBit;
  bool seen_ = false;
  bool zoned_ = false;
  // Every value so far looks like a non-ISO date / is a number, some with thousands separators.
  bool all_dates_ = true, all_numbers_ = true, some_thousands_ = false;
  bool day_first_ = false;  // some lookalike date's first number is past 12
  std::string example_;    // the first value that looks like either
  const ValueSyntax* syntax_;
};

// Appends the CSV text of row `row` of `column` (which must be valid at `row`) to *out, unquoted:
// shortest round-trip doubles, nan/inf/-inf, true/false, FormatDate/FormatTimestamp.
void AppendFormatted(const Column& column, size_t row, std::string* out);

}  // namespace lakeindex::csv
