// Vectorized evaluation of a bound expression (see binder.h) over a Batch.
//
// Results are three-valued, one byte per row, encoded so that Kleene logic is arithmetic:
//   kTriFalse = 0, kTriNull = 1, kTriTrue = 2;   AND = min, OR = max, NOT = 2 - x.
// A row passes a filter only when its value is kTriTrue.
//
// Column-vs-literal comparisons, BETWEEN, IN and LIKE run type-specialized loops over the
// column buffers: the literal is first turned into an inclusive range in the column's own
// domain (e.g. `int_col < 2.5` becomes `int_col <= 2`, `date_col = TIMESTAMP '... 10:00'`
// becomes FALSE), so the per-row work is two compares and no Value is built. Semantics are
// exact: int64 vs double without rounding, NaN equal to NaN and above +inf, -0.0 == 0.0, a date
// equal to its midnight timestamp, strings bytewise, LIKE per like_matcher.h.
//
// Errors: InvalidArgument when the tree does not fit the batch (column index out of range,
// column type differs from the bound type, incomparable operands of a hand-built tree).
// Thread safety: pure functions; concurrent calls on shared inputs are safe.
#pragma once

#include <cstdint>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/status.h"
#include "query/expr.h"

namespace lakeindex::query {

inline constexpr uint8_t kTriFalse = 0;
inline constexpr uint8_t kTriNull = 1;
inline constexpr uint8_t kTriTrue = 2;

struct TriVector {
  std::vector<uint8_t> v;  // one of kTriFalse / kTriNull / kTriTrue per row
  size_t size() const { return v.size(); }
};

// Evaluates `bound` for every row of `batch`; out->v gets batch.num_rows() entries.
Status Evaluate(const Expr& bound, const Batch& batch, TriVector* out);

// Replaces *passing_rows with the ascending indices of the rows where `bound` is TRUE.
Status Filter(const Expr& bound, const Batch& batch, std::vector<uint32_t>* passing_rows);

}  // namespace lakeindex::query
