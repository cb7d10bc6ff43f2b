// Type-specialized comparison loops behind the evaluator (internal to query/).
//
// Each writes kTriTrue/kTriFalse (evaluator.h) for rows [0, n) as if no value were NULL; the
// caller then marks NULL rows. Literals are first folded into the column's domain:
//   * integer-like columns (bool, int32, int64, date, timestamp): an inclusive range
//     [lo, hi] of the physical type, or a constant answer when the range is empty/everything;
//   * float/double columns: an inclusive range in the total order (NaN greatest), or a constant;
//   * strings: compared bytewise with the literal as is.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lakeindex/batch.h"
#include "lakeindex/status.h"
#include "query/expr.h"

namespace lakeindex::query::internal {

// Same comparison families as the binder: bool, numeric, temporal, string.
bool Comparable(TypeId a, TypeId b);

// Rows of `col` compared with the non-NULL literal `lit`: `col op lit`.
Status CompareColumnLiteral(const Column& col, CompareOp op, const Value& lit, size_t n, uint8_t* out);

// Rows of `col` in [low, high] (both non-NULL literals), negated for NOT BETWEEN.
Status BetweenColumnLiterals(const Column& col, const Value& low, const Value& high, bool negated, size_t n,
                             uint8_t* out);

// Row by row `a op b`.
Status CompareColumns(const Column& a, CompareOp op, const Column& b, size_t n, uint8_t* out);

// Row by row membership of `col` in the non-NULL literals `items`: TRUE when equal to one,
// else FALSE (the caller turns FALSE into NULL when the list held a NULL).
Status InColumnLiterals(const Column& col, const std::vector<const Value*>& items, size_t n, uint8_t* out);

}  // namespace lakeindex::query::internal
