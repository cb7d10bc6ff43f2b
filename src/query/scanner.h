// Scanner: executes `SELECT cols FROM table WHERE filter [LIMIT n]` over one table version,
// exactly, reading as little as the statistics allow.
//
// Per fragment: skip it when the manifest's column statistics prove the filter cannot be TRUE;
// per row group: the same with the Parquet chunk statistics; inside a row group: the page index
// of every filter column selects the row ranges whose pages may match, and only those pages are
// read. Then the filter is evaluated exactly, deleted rows are dropped and the selected columns
// are returned. LIMIT stops reading as soon as enough rows are out.
// Thread safety: one Scanner per thread; the Table may be shared.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeindex/batch.h"
#include "query/expr.h"
#include "query/index_planner.h"
#include "query/layout_pruning.h"
#include "query/plan.h"
#include "table/table.h"

namespace lakeindex::query {

struct ScanRequest {
  std::string where;                // SQL filter; empty = every row
  ExprPtr parsed;                   // `where` parsed already (ops::PlanFilter), or null: parsed here
  std::vector<std::string> select;  // empty = every visible column (names not starting with '_')
  std::optional<uint64_t> limit;
  // Next() may return each row's address (delete, take) only when this is set.
  bool with_addresses = false;
  // Take: when set, only these row addresses are read (only the pages holding them), and the
  // filter, if any, applies to them. Deleted rows are still dropped.
  std::optional<RowSet> rows;
  // Scan fragments on the shared thread pool (ignored with LIMIT, which reads in order and stops).
  bool parallel = true;
  // Scalar indexes of the table that the planner may use (see index_planner.h).
  std::vector<IndexHandle> indexes;
  // Uniform sample fraction in (0, 1] (OTree tables only): exactly the rows with `_lakeindex_weight` below
  // it (deterministic and nested across fractions), reading only blocks whose weights start
  // below it.
  std::optional<double> sample;
  // With `sample`: only the rows whose weight is at least this (in [0, sample)), so that a larger
  // fraction can be read as what a smaller one did not read (aggregate estimates grow their
  // sample this way); blocks whose weights all lie below it are not read.
  double sample_from = 0;
  // Count only: batches have no columns, just the number of matching rows (`select` is
  // ignored). Fragments that an exact index answers whole are counted from the index and the
  // deletion vector, without opening their data file; without a filter, from the manifest.
  // Other fragments read only the filter's columns.
  bool count_only = false;
  // Whole row groups too are read page by page through the process's page cache (as on a remote
  // store), so that a repeated scan of the same columns decodes nothing again: for aggregates,
  // which read few columns of many rows, again and again in an interactive session.
  bool cache_pages = false;
};

// Counters that do not depend on machine load (docs/user-guide.md, explain --analyze).
struct ScanCounters {
  uint64_t fragments_total = 0;
  uint64_t fragments_scanned = 0;
  uint64_t blocks_total = 0;  // row groups of scanned fragments
  uint64_t blocks_read = 0;
  uint64_t blocks_whole = 0;  // of those, read as whole column chunks (no page counted)
  uint64_t pages_total = 0;   // data pages of read row groups (per column) read page by page
  uint64_t pages_read = 0;
  uint64_t pages_by_value = 0;  // of those, read value by value (query/value_take.h)
  uint64_t pages_tested = 0;    // page bounds tested against the filter (page pruning), per column
  uint64_t rows_read = 0;     // rows decoded
  uint64_t rows_returned = 0;
  index::SearchCounters index;  // index pages searched / read
};

class Scanner {
 public:
  // Parses and binds the filter and selection against the table's schema (InvalidArgument
  // naming the position or column on error).
  static Result<std::unique_ptr<Scanner>> Make(const table::Table* table, const ScanRequest& request);
  ~Scanner();

  // The output schema (selected columns).
  const Schema& schema() const { return output_schema_; }
  // Next non-empty batch of results; false at the end. When `addresses` is given it receives the
  // row address of every returned row.
  Result<bool> Next(Batch* out, std::vector<uint64_t>* addresses = nullptr);
  // explain without --analyze: makes every fragment's decision (DecideFragment, the one that
  // running the scan makes), reads nothing.
  Status PlanFragments();
  // On a remote store, what the plan reads, fetched before it is scanned: the blocks a layout
  // selected (whole), or the pages holding the rows an index found — every data file's footer at
  // once, then every page of the read columns at once (one batch of requests per file, the files
  // together): two round trips for the scan, not a few per block or per fragment. Only while
  // the pages fit 64 MiB (and a quarter of the cache). Best effort: what fails is met again, and
  // reported, by the scan.
  void PrefetchPlan() const;
  // explain's work: with `analyze` runs the scan to the end (results dropped) so that the
  // counters and plan are complete; without, PlanFragments.
  Status Explain(bool analyze);
  const ScanCounters& counters() const { return counters_; }
  // The decisions so far, as data and as text (explain).
  const std::vector<PlanStep>& plan_steps() const { return plan_; }
  std::vector<std::string> plan() const;
  const ExprPtr& filter() const { return filter_; }

 private:
  Scanner(const table::Table* table) : table_(table) {}
  Status Init(const ScanRequest& request);
  // What scanning one row group or fragment produced (merged into the scanner in order).
  struct UnitOutput {
    std::vector<Batch> batches;
    std::vector<std::vector<uint64_t>> addresses;
    ScanCounters counters;
    std::vector<PlanStep> plan;
  };
  struct OpenFragment;
  struct Task;
  // Produces the results of the next fragment/row group into pending_.
  Status ScanNextUnit();
  // What to do with a fragment: the one decision plain explain shows and the scan follows.
  // `no_nan` receives the table columns the manifest proves NaN-free.
  PlanStep DecideFragment(const table::FragmentMeta& frag, std::set<int>* no_nan) const;
  // count_only: counts `frag` without reading its data file when `step` allows (an exact take, or
  // no filter), into *out; false when the fragment must be read.
  Result<bool> CountWithoutReading(const table::FragmentMeta& frag, const PlanStep& step, UnitOutput* out) const;
  // Opens a fragment for reading, or returns nullptr when statistics or indexes skip it.
  Result<std::shared_ptr<OpenFragment>> OpenFragmentAt(const table::FragmentMeta& frag, UnitOutput* out) const;
  // Every row group of one fragment (parallel scans run one per pool task).
  Status ScanFragment(const table::FragmentMeta& frag, UnitOutput* out) const;
  void Merge(UnitOutput&& unit);
  // Whether the manifest statistics allow `fragment` to hold a matching row.
  bool FragmentMayMatch(const table::FragmentMeta& fragment, std::set<int>* no_nan) const;
  // count_only: the fragment's matching live rows from its statistics alone, when they tell
  // (every row matches, or the filter is `c IS [NOT] NULL` and no row is deleted).
  std::optional<uint64_t> CountFromStatistics(const table::FragmentMeta& fragment) const;
  // `returned_before` counts rows already returned (for LIMIT).
  Status ScanRowGroup(const OpenFragment& open, int rg, uint64_t rg_first_row, uint64_t returned_before,
                      UnitOutput* out) const;
  // Whether the OTree layout (if any) lets fragment / row group be skipped.
  bool LayoutSkipsFragment(uint32_t fragment_id) const;
  bool LayoutSkipsRowGroup(uint32_t fragment_id, int rg) const;
  // The index plan's candidate offsets of `fragment` when the indexes cover it, else nullptr.
  const std::vector<uint32_t>* IndexCandidates(uint32_t fragment_id) const;

  const table::Table* table_;
  ExprPtr filter_;            // bound to the table schema (null = no filter)
  ExprPtr read_filter_;       // bound to filter_schema_ (the filter's columns, read first)
  std::vector<int> read_columns_;  // table column indexes read: filter columns, then the rest
  size_t num_filter_columns_ = 0;  // read_columns_[0, n) are the filter's columns
  Schema read_schema_;
  Schema filter_schema_;           // read_schema_'s first num_filter_columns_ fields
  std::vector<int> output_in_read_;  // output column i = read column output_in_read_[i]
  std::vector<bool> filter_output_;  // per filter column (read_columns_[0, n)): the output shows it
  Schema output_schema_;
  std::optional<uint64_t> limit_;
  bool want_addresses_ = false;
  bool count_only_ = false;
  bool moveable_output_ = true;  // no output column repeats a read column
  IndexPlan index_plan_;
  bool given_rows_ = false;  // ScanRequest::rows: the candidates must be taken
  std::map<uint32_t, std::vector<uint32_t>> index_candidates_;  // covered fragment -> offsets
  std::optional<BlockSelection> blocks_;  // OTree tables: the blocks the layout selected

  size_t next_fragment_ = 0;
  std::shared_ptr<OpenFragment> current_;
  // Parallel mode (no LIMIT, a pool of more than one thread): whole fragments run as pool tasks,
  // a bounded window ahead of the consumer; results are merged in fragment order.
  bool parallel_ = false;
  bool remote_ = false;  // the table's store is remote: columns of a take are fetched together
  bool cache_pages_ = false;  // ScanRequest::cache_pages
  // Lists, not deques: an empty std::deque allocates, and most scans hold a batch or two.
  std::list<std::shared_ptr<Task>> inflight_;
  std::list<Batch> pending_;
  std::list<std::vector<uint64_t>> pending_addresses_;
  ScanCounters counters_;
  std::vector<PlanStep> plan_;
  bool done_ = false;
};

// The number of rows of `table` where `where` is TRUE (every live row when empty), as
// ScanRequest::count_only counts them.
// `plan` (optional) receives how it was counted, for explain; `parsed`: `where` parsed already,
// and `bound` it bound to the table's schema (ops::PlanFilter), or null.
Result<uint64_t> CountWhere(const table::Table& table, const std::string& where, std::vector<IndexHandle> indexes = {},
                            std::vector<std::string>* plan = nullptr, ExprPtr parsed = nullptr, ExprPtr bound = nullptr);

// Deletes the rows of `table` where `where` is TRUE (using `indexes` to find them) and commits a
// new version; returns how many rows were newly deleted (0: no new version).
Result<uint64_t> DeleteWhere(table::Table* table, const std::string& where, std::vector<IndexHandle> indexes = {});

// What `lakeindex explain --json` prints and Python's Table.explain returns, for a scanner after
// Explain(analyze): version, filter, plan and fragment counts; with `analyze` also the read
// counters and the store's bytes and requests (`io`, reset before the scanner was made).
nlohmann::json ExplainJson(const Scanner& scanner, uint64_t version, bool analyze, const StoreCounters& io);

}  // namespace lakeindex::query
