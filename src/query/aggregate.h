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
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/column_stats.h"
#include "lakeindex/status.h"
#include "query/index_manager.h"
#include "query/select_list.h"
#include "table/table.h"

namespace lakeindex::query {

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
  // Folds in `rows` rows known only by their statistics (`stats`: by input column name, every
  // aggregated column's): only when there are no groups and every aggregate is count(*),
  // count(c), min(c) or max(c); false (nothing added) when the statistics do not tell.
  bool AddStatistics(uint64_t rows, const std::map<std::string, ColumnStats>& stats);
  // One row per group (first seen first), or one row when there is no grouping.
  Result<Batch> Finish() const;

  // Estimates (OTree samples). Call before the first Add: keep what the variances need.
  void TrackVariances() { track_variances_ = true; }
  // The rows added so far are taken as a Bernoulli(fraction) sample of the rows aggregated: the
  // estimates of the aggregates over all of them. count(*), count(c) and sum(c) are
  // Horvitz–Thompson estimates (the sample's ÷ fraction), avg(c) the ratio of the two; each is
  // followed by a column "<name> ±", the half-width of its normal-approximation interval at
  // `confidence` (variances: count n(1-f)/f², sum (1-f)/f²·Σy², avg (1-f)·Σ(y-ȳ)²/n²). min, max
  // and count_distinct are the sample's own values, with no interval. Needs TrackVariances.
  Result<Batch> FinishEstimate(double fraction, double confidence) const;
  // Over the intervals FinishEstimate would give: the largest half-width ÷ |estimate| (+inf when
  // an estimate is 0 with an interval wider than 0, or NULL: no value sampled), and the fewest
  // sampled values behind one. InvalidArgument when no aggregate has an interval.
  struct Precision {
    double max_relative_half_width = 0;
    uint64_t min_sampled = 0;
  };
  Result<Precision> EstimatePrecision(double fraction, double confidence) const;

 private:
  struct Impl;
  Aggregation() = default;
  std::vector<std::string> input_columns_;
  Schema output_;
  bool track_variances_ = false;
  std::unique_ptr<Impl> impl_;
};

// SELECT group_by..., aggregates FROM table WHERE where GROUP BY group_by [ORDER BY order_by]
// [LIMIT limit] [OFFSET offset] over a
// table's version: a scan of only the columns the aggregates need (the filter's indexes used as
// for any query), folded as it goes. What `lakeindex query --agg` and Python's Table.aggregate run.
//
// Estimates (OTree tables): with `sample` f, the aggregates are estimated from the rows whose
// weight is below f (a Bernoulli(f) sample of the table: Aggregation::FinishEstimate). With
// `error` E, the fraction is found: the nested samples are read in increasing fractions, each
// round reading only the rows the previous ones did not (weights in [f_prev, f)), the next
// fraction predicted from the intervals so far (a half-width shrinks as sqrt((1-f)/f)), until
// every interval's half-width is at most E × |estimate| (or the whole table is read: then the
// values are exact and the intervals 0 wide). `sample`, if given with `error`, is the first
// fraction tried.
struct AggregateRequest {
  std::string where;
  std::string aggregates;             // ParseAggregates' text
  std::vector<std::string> group_by;
  std::optional<uint64_t> limit;      // groups returned at most
  uint64_t offset = 0;                // groups skipped before the first returned (SQL's OFFSET)
  std::string order_by;               // of the result's columns (query/order.h), before `limit`
  std::vector<IndexHandle> indexes;   // the table's indexes the filter may use
  std::function<void(uint64_t rows)> progress;  // rows aggregated so far (may be empty)
  std::optional<double> sample;       // estimate from this sample fraction, in (0, 1]
  std::optional<double> error;        // estimate to this relative half-width, in (0, 1)
  double confidence = 0.95;           // of the intervals, in (0, 1)
  // Read through the process's page cache (ScanRequest::cache_pages): slower the first time
  // (page by page), faster when the same columns are aggregated again in a long-lived process
  // (the Python module sets it; a CLI command, which reads once, does not).
  bool cache_pages = false;
};

struct AggregateResult {
  // Group-by columns, then the aggregates (estimates: each count/sum/avg followed by its "<name> ±").
  Batch rows;
  bool estimated = false;
  double fraction = 1;          // the sample fraction the estimates come from
  double confidence = 0;
  std::vector<double> rounds;   // the fractions read, in order (one unless `error` asked for more)
  double max_relative_half_width = 0;  // the widest interval ÷ |estimate|
  uint64_t rows_aggregated = 0;  // rows that passed the filter (sampled rows, for estimates)
  uint64_t rows_read = 0;        // rows decoded by the scans
  std::vector<std::string> plan;  // how it was answered, for explain: one line per step
};
Result<AggregateResult> AggregateTable(const table::Table& table, const AggregateRequest& request);

// The z of a two-sided normal interval at `confidence` (0.95 -> 1.959964).
double NormalQuantile(double confidence);

}  // namespace lakeindex::query
