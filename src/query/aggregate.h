// Exact aggregates over the rows of a scan, with optional grouping (`lakeindex query --agg`).
//
// SQL semantics, as DuckDB's (the tests compare): aggregates skip NULLs; over no rows count is 0
// and the others NULL; without GROUP BY there is always one row, with it one row per group (NULL
// a group of its own, NaN one group, -0.0 and 0.0 one group). sum of integers is exact (128-bit
// accumulator) and an error when the result leaves int64 (DuckDB widens to HUGEINT); sum and avg
// of floating values use Neumaier's compensated summation (so they are as exact as a double
// allows, where DuckDB's plain summation may differ in the last bits) and give NaN or ±inf as
// IEEE addition does. min and max order NaN above every number (DuckDB's order) and work on
// every type; count_distinct counts distinct non-NULL values.
// Thread safety: one Aggregation per thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/status.h"
#include "query/index_manager.h"
#include "table/table.h"

namespace lakeindex::query {

enum class AggKind { kCountStar, kCount, kSum, kAvg, kMin, kMax, kCountDistinct };

struct AggregateSpec {
  AggKind kind = AggKind::kCountStar;
  std::string column;  // empty for count(*)
  std::string name;    // the output column: "count(*)", "sum(score)"
};

// "count(*), count(c), sum(c), avg(c), min(c), max(c), count_distinct(c)" (names case-folded as
// filters do). InvalidArgument naming the position of what it cannot read.
Result<std::vector<AggregateSpec>> ParseAggregates(std::string_view text);

class Aggregation {
 public:
  // `input` is the schema of the batches Add receives; every column named (group-by and
  // aggregated) must be in it. InvalidArgument for unknown columns and for sum/avg of a type
  // that has none (strings, booleans, dates, timestamps).
  static Result<std::unique_ptr<Aggregation>> Make(const Schema& input, std::vector<std::string> group_by,
                                                   std::vector<AggregateSpec> aggregates);
  ~Aggregation();
  // The columns a scan must return (group-by columns, then aggregated ones; may be empty for
  // count(*) alone).
  const std::vector<std::string>& input_columns() const { return input_columns_; }
  // The result's schema: the group-by columns, then one column per aggregate.
  const Schema& output_schema() const { return output_; }

  Status Add(const Batch& batch);
  // Adds `rows` rows counted elsewhere; only when every aggregate is count(*) and there are no
  // groups (InvalidArgument otherwise).
  Status AddCount(uint64_t rows);
  // One row per group (first seen first), or one row when there is no grouping.
  Result<Batch> Finish();

 private:
  struct Impl;
  Aggregation() = default;
  std::vector<std::string> input_columns_;
  Schema output_;
  std::unique_ptr<Impl> impl_;
};

// SELECT group_by..., aggregates FROM table WHERE where GROUP BY group_by [LIMIT limit] over a
// table's version: a scan of only the columns the aggregates need (the filter's indexes used as
// for any query), folded as it goes. What `lakeindex query --agg` and Python's Table.aggregate run.
struct AggregateRequest {
  std::string where;
  std::string aggregates;             // ParseAggregates' text
  std::vector<std::string> group_by;
  std::optional<uint64_t> limit;      // groups returned at most
  std::vector<IndexHandle> indexes;   // the table's indexes the filter may use
  std::function<void(uint64_t rows)> progress;  // rows aggregated so far (may be empty)
};
Result<Batch> AggregateTable(const table::Table& table, const AggregateRequest& request);

}  // namespace lakeindex::query
