// Parser of the SQL `WHERE` subset of docs/expressions.md into an unbound Expr tree.
//
// Precedence, loosest first: OR < AND < NOT < predicate. Keywords are case-insensitive;
// DATE and TIMESTAMP start a literal only when a string follows, so they remain usable as
// column names. Identifiers: [A-Za-z_][A-Za-z0-9_$]* (bytes >= 0x80 allowed too) or
// "double quoted" with "" for a quote. Strings: 'text' with '' for a quote. Numbers: digits
// without fraction or exponent are int64 literals when they fit (a leading '-' belongs to the
// literal, so -9223372036854775808 is an int64); otherwise, or with '.'/exponent, doubles
// (beyond the double range they become +-inf, as in DuckDB). A parenthesized column or literal
// may stand as an operand: "(x) = 1".
//
// Errors are InvalidArgument "at position N: ...", N the 1-based character (code point) position
// of the offending token (input length + 1 at the end of input), about the parameter "where";
// SQL beyond the subset (arithmetic, function calls, subqueries, HAVING) is NotSupported
// (query::BeyondSubset) where it starts. Hostile input is bounded:
// at most kMaxNestingDepth nested parentheses/NOTs and kMaxInListItems items in one IN list;
// long AND/OR chains are parsed iteratively into one n-ary node.
// Thread safety: a pure function.
#pragma once

#include <string_view>

#include "lakeindex/status.h"
#include "query/expr.h"

namespace lakeindex::query {

inline constexpr int kMaxNestingDepth = 256;
inline constexpr size_t kMaxInListItems = 100000;

Result<ExprPtr> ParseExpression(std::string_view text);

}  // namespace lakeindex::query
