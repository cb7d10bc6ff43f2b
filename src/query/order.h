// ORDER BY for query results (`lakeindex query --order-by`, and aggregates' groups).
//
// DuckDB's semantics (the tests compare): ascending unless `desc`; NULLs last in either
// direction; NaN above every number; -0.0 equal to 0.0; rows with equal keys in no particular
// order. Keys resolve as filters resolve names (query::FindColumnFolded).
//
// OrderedQuery reads the filtered rows and keeps the first `limit` of them (a bounded buffer, not
// the whole result, when there is a limit). ORDER BY one column that a BTree indexes, with a
// limit and no filter, is read from the index instead: its leaf pages from the wanted end until
// `limit` live rows are found (about limit / page_rows pages per segment), then only those rows.
// Thread safety: functions of their arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/status.h"
#include "query/index_planner.h"
#include "query/select_list.h"
#include "table/table.h"

namespace lakeindex::query {

// The rows of `batch` in the order of `keys` (columns of its schema), the first `limit` of them.
Result<Batch> SortBatch(const Batch& batch, const std::vector<OrderKey>& keys, std::optional<uint64_t> limit);

struct OrderedQuery {
  std::string where;
  std::vector<std::string> select;  // empty: every visible column
  std::string order_by;             // ParseOrderBy's text
  std::optional<uint64_t> limit;
  std::optional<double> sample;
  std::vector<IndexHandle> indexes;  // the table's indexes (the filter's, and the order column's)
  ExprPtr parsed;                    // `where` parsed already (ops::PlanFilter), or null
};

struct OrderedResult {
  Batch rows;
  bool from_index = false;      // read in order from a BTree
  index::SearchCounters index;  // its leaf pages
  uint64_t rows_read = 0;       // rows the scan or take decoded
};

Result<OrderedResult> QueryOrdered(const table::Table& table, const OrderedQuery& query);

}  // namespace lakeindex::query
