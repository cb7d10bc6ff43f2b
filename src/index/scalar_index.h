// The contract between the planner and scalar indexes (BTree, zone map): what a query on one
// column looks like, and what an index answers.
//
// Semantics (SQL three-valued logic, DuckDB's order): values compare as CompareValues() in
// include/lakeindex/types.h does — numbers numerically, NaN equal to NaN and above every number,
// strings bytewise. A row whose column is NULL makes every query kind below UNKNOWN (it goes to
// `null_rows`), except kIsNull, which is TRUE for it and never UNKNOWN.
// The planner converts literals to the column's type before asking (e.g. `int_col < 2.5` becomes
// `int_col <= 2`), so an index compares values of one type only.
// Thread safety: ScalarQuery and SearchResult are values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lakeindex/row_set.h"
#include "lakeindex/types.h"

namespace lakeindex::index {

struct ScalarQuery {
  enum class Kind : uint8_t {
    kEquals,  // column = values[0]
    kRange,   // lower/upper bounds, each optional (open), inclusive or exclusive
    kIn,      // column IN (values...); values sorted, distinct, non-NULL
    kIsNull,  // column IS NULL
    kPrefix,  // string column starts with `prefix` (LIKE 'prefix%')
  };
  Kind kind = Kind::kEquals;
  std::vector<Value> values;
  std::optional<Value> lower, upper;
  bool lower_inclusive = true, upper_inclusive = true;
  std::string prefix;

  static ScalarQuery Equals(Value v);
  static ScalarQuery Range(std::optional<Value> lower, bool lower_inclusive, std::optional<Value> upper,
                           bool upper_inclusive);
  static ScalarQuery In(std::vector<Value> values);  // sorts and dedups
  static ScalarQuery IsNull();
  static ScalarQuery Prefix(std::string prefix);
  // Whether a non-NULL value satisfies the query (the brute-force definition, used by tests).
  bool Matches(const Value& v) const;
  std::string ToString(const std::string& column) const;
};

enum class Exactness : uint8_t {
  kExact,    // rows.true_rows/null_rows are exactly the TRUE/UNKNOWN rows of the covered fragments
  kAtMost,   // supersets: true_rows ⊇ the TRUE rows, null_rows ⊇ the UNKNOWN rows; the executor rechecks
  kAtLeast,  // true_rows ⊆ the TRUE rows (used by combinations)
};

struct SearchResult {
  Exactness exactness = Exactness::kExact;
  NullableRowSet rows;
};

// Counters a search adds to (explain --analyze).
struct SearchCounters {
  uint64_t pages_total = 0;        // leaf pages / zones in the searched segments
  uint64_t pages_selected = 0;     // candidates after the directory
  uint64_t pages_all_match = 0;    // taken whole without comparisons
  uint64_t pages_read = 0;         // loaded from the store (cache misses)
  uint64_t bytes_read = 0;

  SearchCounters& operator+=(const SearchCounters& o) {
    pages_total += o.pages_total;
    pages_selected += o.pages_selected;
    pages_all_match += o.pages_all_match;
    pages_read += o.pages_read;
    bytes_read += o.bytes_read;
    return *this;
  }
};

}  // namespace lakeindex::index
