// Binds a parsed expression to a schema: resolves columns and checks types.
//
// Columns resolve by exact name first, then by a unique case-insensitive match (DuckDB treats
// identifiers case-insensitively). Comparable operand types: numeric with numeric (int32, int64,
// float, double; compared exactly), date/timestamp with date/timestamp (a date is its midnight),
// string with string, bool with bool; a NULL literal with anything. A string literal next to a
// date or timestamp operand is read as a literal of that type, as DuckDB casts it: next to a
// date, '2024-01-31 12:00' means DATE '2024-01-31' (the time of day is dropped); a date
// literal next to a timestamp operand becomes a timestamp literal (midnight). Everything else is an
// InvalidArgument "at position N: ..." naming the operands, e.g. comparing a string with a
// number (DuckDB would cast the string; we refuse, so that a typo never silently matches).
// A bare boolean column or TRUE/FALSE/NULL is a predicate; a bare column of another type is an
// error. LIKE needs a string operand. Nothing is constant-folded.
// Thread safety: a pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lakeindex/status.h"
#include "lakeindex/types.h"
#include "query/expr.h"

namespace lakeindex::query {

// Returns a bound copy of `expr` (every column node has column_index and type); errors are about
// the parameter "where".
Result<ExprPtr> Bind(const Expr& expr, const Schema& schema);

// The column `name` names in `schema`, as filters resolve names: the exact name, else the one
// column equal to it ignoring ASCII case. InvalidArgument "unknown column 'x'" (with "; did you
// mean 'y'?" naming the columns a typo away), or "... is ambiguous" when several differ from it
// only in case.
Result<int> FindColumnFolded(const Schema& schema, std::string_view name);
// InvalidArgument "unknown column 'x'", with "; did you mean 'y'?" naming the columns of `schema`
// a typo away (common/text.h NearestNames).
Status UnknownColumn(const Schema& schema, std::string_view name);

}  // namespace lakeindex::query
