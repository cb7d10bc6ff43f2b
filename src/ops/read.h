// Reads of a table version, as every front end does them (the command line's query / explain /
// aggregate, Python's query / scan / count / aggregate / explain / stats): the filter parsed and
// bound once, one policy for the indexes a read uses, the rows as a stream. Front ends keep their
// flags, argument checks and rendering; what is read, and how, is decided here.
// Thread safety: as the table::Table read (concurrent reads of one Table are safe).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/column_stats.h"
#include "lakeindex/status.h"
#include "query/aggregate.h"
#include "query/expr.h"
#include "query/index_planner.h"
#include "query/scanner.h"
#include "table/table.h"

namespace lakeindex::ops {

// A filter ready for a read: parsed once (null: no filter) and the indexes a read with it uses —
// those on the columns the bound filter names, or, without a filter, on the first key of
// `order_by` — opened once per version of the table and shared (query::SharedIndexes).
struct PlannedFilter {
  query::ExprPtr parsed;
  query::ExprPtr bound;  // `parsed` bound to the table's schema
  std::vector<query::IndexHandle> indexes;
};
// InvalidArgument for a filter that does not parse or bind.
Result<PlannedFilter> PlanFilter(const table::Table& table, const std::string& where, const std::string& order_by = "");

struct ReadRequest {
  std::string where;                // SQL filter; empty: every row
  std::vector<std::string> select;  // empty: every visible column
  std::optional<double> sample;     // an OTree table's sample fraction
  std::optional<uint64_t> limit;
  std::string order_by;             // "c [desc], ..." (query/order.h); empty: the table's order
  uint64_t offset = 0;              // rows skipped before the first returned (SQL's OFFSET)
};

// The columns of a select list's text (query::ParseColumnList: names plain or "quoted", `*` for
// every visible column in the table's order), resolved as filters resolve names. InvalidArgument
// about "select" naming the position of an unknown column and the columns it may mean.
Result<std::vector<std::string>> SelectColumns(const Schema& schema, std::string_view text);

// The rows of a read, batch by batch.
class RowStream {
 public:
  virtual ~RowStream() = default;
  virtual const Schema& schema() const = 0;
  // False when there are no more rows.
  virtual Result<bool> Next(Batch* out) = 0;
};

// `rows` as a stream of one batch.
std::unique_ptr<RowStream> RowsOf(Batch rows);

// The rows `request` asks for from `table`. A read without order_by streams as it is consumed;
// with one, the result is one batch. `planned`: the filter planned already (against a table of
// the same version, whose indexes are then shared), or null.
Result<std::unique_ptr<RowStream>> Read(const table::Table& table, const ReadRequest& request,
                                        const PlannedFilter* planned = nullptr);

// The scanner of a read (no order_by), its plan decided (query::Scanner::Explain; with `analyze`
// run as well), for a front end to render (plan lines, counters, ExplainJson).
Result<std::unique_ptr<query::Scanner>> Explain(const table::Table& table, const ReadRequest& request, bool analyze);

// How many rows `where` holds (all live rows when empty): from an exact index when one answers
// the whole filter, else reading only the filter's columns.
Result<uint64_t> Count(const table::Table& table, const std::string& where);

// An aggregation (query::AggregateTable) with the indexes the policy above gives its filter.
Result<query::AggregateResult> Aggregate(const table::Table& table, query::AggregateRequest request);

// What the manifest says of a version: sizes and each column's statistics over its fragments.
struct TableStats {
  uint64_t fragments = 0;
  uint64_t rows = 0;          // live
  uint64_t deleted_rows = 0;
  uint64_t data_bytes = 0;
  std::map<std::string, ColumnStats> columns;  // merged over the fragments, by name; a bound of 0 is +0.0
};
TableStats Stats(const table::Table& table);

}  // namespace lakeindex::ops
