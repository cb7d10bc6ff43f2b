// The lists a query's options take besides its filter: columns (select, group_by), order keys
// (order_by) and aggregates (aggregates), read by one parser on the filter's tokens
// (query/lexer.h), so names are written alike everywhere: plain (resolved ignoring case, as
// filters resolve them) or "double quoted" ("Dep Delay", "" for a quote).
//
// SQL beyond these lists is refused where it starts, naming it (query::BeyondSubset): function
// calls (lower(c)), arithmetic (a + b), HAVING, subqueries, joins. Every error is "at position
// N: ...", N the 1-based character, about the option's parameter (Status::parameter).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex::query {

// One item of a column list: a name, or `*` (every visible column).
struct ColumnItem {
  std::string name;       // empty for `*`
  bool star = false;
  uint32_t position = 0;  // 1-based character of the item in the option's text
};
// "a, \"Dep Delay\", *": the items in order. `*` only where `star` allows it (select). Errors
// are about `parameter` ("select", "group_by").
Result<std::vector<ColumnItem>> ParseColumnList(std::string_view text, const std::string& parameter, bool star);

struct OrderKey {
  std::string column;  // a column, or an aggregate's result as --agg names it: "count(*)"
  bool descending = false;
};
// "a, b desc, \"Dep Delay\" asc, count(*) desc" (NULLS LAST allowed, it is the only order of
// NULLs): errors about "order_by".
Result<std::vector<OrderKey>> ParseOrderBy(std::string_view text);

enum class AggKind { kCountStar, kCount, kSum, kAvg, kMin, kMax, kCountDistinct };

struct AggregateSpec {
  AggKind kind = AggKind::kCountStar;
  std::string column;  // empty for count(*)
  std::string name;    // the output column: its alias, else as written: "count(*)", "sum(score)"
};

// "count(*) AS n, count(c), sum(c), avg(c), min(c), max(c), count_distinct(c), count(DISTINCT c)"
// (function names ignore case; an alias, with or without AS, names the result column as in
// DuckDB): errors about "aggregates".
Result<std::vector<AggregateSpec>> ParseAggregates(std::string_view text);

}  // namespace lakeindex::query
