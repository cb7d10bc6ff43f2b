#include "query/scanner.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <map>
#include <iterator>
#include <set>

#include "common/thread_pool.h"
#include "format/parquet/reader.h"
#include "query/binder.h"
#include "query/evaluator.h"
#include "query/parser.h"
#include "query/pruning.h"

namespace lakeindex::query {

namespace {

// Rows decoded per step inside a row group when reading page by page (bounds memory and lets
// LIMIT stop early).
constexpr uint64_t kWindowRows = 64 * 1024;
// Pages of one column chunk at most this far apart are read with one request (the bytes between
// are read and dropped): requests, not bytes, dominate the cost of scattered reads on object
// stores. Measured on the demo's range lookup (2,045 rows of 2M, all columns): no coalescing
// 16,730 requests / 14.3 MB; 4 KiB holes 8,672 / 28 MB; 8 KiB (Arrow's pre-buffer default)
// 5,235 / 48 MB.
constexpr uint64_t kCoalesceHoleBytes = 4 * 1024;

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;  // sorted, disjoint [begin, end)

void CollectColumns(const Expr& e, std::set<std::string>* out) {
  if (e.kind == ExprKind::kColumn) out->insert(e.name);
  for (const auto& c : e.children) CollectColumns(*c, out);
}

Ranges Intersect(const Ranges& a, const Ranges& b) {
  Ranges out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return out;
}

uint64_t RangeRows(const Ranges& r) {
  uint64_t n = 0;
  for (const auto& [b, e] : r) n += e - b;
  return n;
}

// Statistics by table column index, for one fragment / row group / page.
class MapStatsProvider : public StatsProvider {
 public:
  const ColumnStats* Stats(int column_index) const override {
    auto it = stats_.find(column_index);
    return it == stats_.end() ? nullptr : &it->second;
  }
  bool NanCountKnown(int column_index) const override { return nan_known_.count(column_index) > 0; }
  void Set(int column, ColumnStats s, bool nan_known) {
    stats_[column] = std::move(s);
    if (nan_known) nan_known_.insert(column);
  }

 private:
  std::map<int, ColumnStats> stats_;
  std::set<int> nan_known_;
};

}  // namespace

struct Scanner::OpenFragment {
  const table::FragmentMeta* meta = nullptr;
  std::shared_ptr<const parquet::ParquetReader> reader;
  std::shared_ptr<const roaring::Roaring> deleted;
  std::set<int> no_nan;  // table columns the manifest proves NaN-free
  int next_rg = 0;
  uint64_t next_rg_first_row = 0;
};

struct Scanner::Task {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status status;
  UnitOutput out;
};

Scanner::~Scanner() {
  // Tasks use this scanner: wait for the ones still running.
  for (auto& task : inflight_) {
    std::unique_lock<std::mutex> lock(task->mu);
    task->cv.wait(lock, [&] { return task->done; });
  }
}

void Scanner::Merge(UnitOutput&& unit) {
  counters_.fragments_scanned += unit.counters.fragments_scanned;
  counters_.blocks_total += unit.counters.blocks_total;
  counters_.blocks_read += unit.counters.blocks_read;
  counters_.pages_total += unit.counters.pages_total;
  counters_.pages_read += unit.counters.pages_read;
  counters_.rows_read += unit.counters.rows_read;
  counters_.rows_returned += unit.counters.rows_returned;
  for (auto& line : unit.plan) plan_.push_back(std::move(line));
  for (size_t i = 0; i < unit.batches.size(); ++i) {
    pending_.push_back(std::move(unit.batches[i]));
    pending_addresses_.push_back(std::move(unit.addresses[i]));
  }
}

Result<std::unique_ptr<Scanner>> Scanner::Make(const table::Table* table, const ScanRequest& request) {
  std::unique_ptr<Scanner> s(new Scanner(table));
  RETURN_IF_ERROR(s->Init(request));
  return s;
}

Status Scanner::Init(const ScanRequest& request) {
  const Schema& schema = table_->schema();
  limit_ = request.limit;
  ExprPtr parsed;
  std::set<std::string> filter_columns;
  if (!request.where.empty()) {
    ASSIGN_OR_RETURN(parsed, ParseExpression(request.where));
  }
  ASSIGN_OR_RETURN(std::optional<layout::LayoutMeta> table_layout, layout::LoadLayout(table_->manifest()));
  if (request.sample) {
    const double f = *request.sample;
    if (!(f > 0 && f <= 1)) return Status::InvalidArgument("--sample must be a fraction in (0, 1], got " + FormatDouble(f));
    if (!table_layout || !table_layout->is_otree()) {
      return Status::InvalidArgument("--sample needs an OTree layout: run `lakeindex layout TABLE --otree COLUMNS` first");
    }
    // The sample is the rows whose weight is below f: one more conjunct, checked like the filter.
    ExprPtr weight_below = MakeCompare(CompareOp::kLt, MakeColumn(layout::kWeightColumn), MakeLiteral(Value::Double(f)));
    parsed = parsed ? MakeAnd({parsed, weight_below}) : weight_below;
  }
  if (parsed) {
    ASSIGN_OR_RETURN(filter_, Bind(*parsed, schema));
    CollectColumns(*filter_, &filter_columns);
  }
  std::vector<int> output;
  if (request.select.empty()) {
    for (size_t c = 0; c < schema.num_fields(); ++c) {
      if (schema.field(c).name.rfind('_', 0) != 0) output.push_back(int(c));
    }
  } else {
    for (const std::string& name : request.select) {
      int c = schema.FindField(name);
      if (c < 0) return Status::InvalidArgument("--select: unknown column '" + name + "'");
      output.push_back(c);
    }
  }
  // Filter columns come first in read_columns_ (page pruning walks them).
  for (const std::string& name : filter_columns) read_columns_.push_back(schema.FindField(name));
  num_filter_columns_ = read_columns_.size();
  for (int c : output) {
    if (std::find(read_columns_.begin(), read_columns_.end(), c) == read_columns_.end()) read_columns_.push_back(c);
  }
  for (int c : read_columns_) read_schema_.AddField(schema.field(size_t(c)));
  for (int c : output) {
    output_in_read_.push_back(int(std::find(read_columns_.begin(), read_columns_.end(), c) - read_columns_.begin()));
    output_schema_.AddField(schema.field(size_t(c)));
  }
  if (parsed) {
    ASSIGN_OR_RETURN(read_filter_, Bind(*parsed, read_schema_));
  }
  want_addresses_ = request.with_addresses;
  parallel_ = request.parallel && !limit_ && ThreadPool::Default()->size() > 1 && table_->manifest().fragments.size() > 1;
  std::set<int> distinct(output_in_read_.begin(), output_in_read_.end());
  moveable_output_ = distinct.size() == output_in_read_.size();
  counters_.fragments_total = table_->manifest().fragments.size();
  if (table_layout && table_layout->is_otree()) {
    ASSIGN_OR_RETURN(blocks_, SelectBlocks(*table_layout, schema, filter_.get(), request.sample));
    for (const std::string& line : blocks_->explain) plan_.push_back(line);
  }
  if (filter_ && !request.indexes.empty()) {
    std::map<uint32_t, uint64_t> fragment_rows;
    for (const auto& f : table_->manifest().fragments) fragment_rows[f.id] = f.rows;
    ASSIGN_OR_RETURN(index_plan_, PlanWithIndexes(*filter_, request.indexes, fragment_rows));
    counters_.index = index_plan_.counters;
    if (index_plan_.used) {
      for (uint32_t f : index_plan_.covered) index_candidates_[f] = index_plan_.candidates.OffsetsIn(f);
    }
    for (const std::string& line : index_plan_.explain) plan_.push_back(line);
  }
  if (request.rows) {
    // Take: the given rows are the candidates of every fragment; a filter still applies to them.
    if (index_plan_.used) {
      for (auto& [f, offsets] : index_candidates_) {
        std::vector<uint32_t> given = request.rows->OffsetsIn(f), both;
        std::set_intersection(offsets.begin(), offsets.end(), given.begin(), given.end(), std::back_inserter(both));
        offsets = std::move(both);
      }
    }
    for (const auto& f : table_->manifest().fragments) {
      if (!index_candidates_.count(f.id)) index_candidates_[f.id] = request.rows->OffsetsIn(f.id);
    }
    index_plan_.residual = filter_ != nullptr;  // the given rows are exact; a filter is checked on them
    plan_.push_back("take " + std::to_string(request.rows->Cardinality()) + " given rows");
  }
  plan_.push_back("scan version " + std::to_string(table_->version()) + ": " +
                  std::to_string(counters_.fragments_total) + " fragments, filter " +
                  (filter_ ? filter_->ToString() : std::string("(none)")));
  return Status::OK();
}

Result<bool> Scanner::Next(Batch* out, std::vector<uint64_t>* addresses) {
  while (pending_.empty()) {
    if (done_) return false;
    RETURN_IF_ERROR(ScanNextUnit());
  }
  *out = std::move(pending_.front());
  pending_.pop_front();
  if (addresses) {
    if (!want_addresses_) return Status::Internal("Scanner::Next: addresses need ScanRequest::with_addresses");
    *addresses = std::move(pending_addresses_.front());
  }
  pending_addresses_.pop_front();
  return true;
}

Result<std::shared_ptr<Scanner::OpenFragment>> Scanner::OpenFragmentAt(const table::FragmentMeta& frag,
                                                                        UnitOutput* out) const {
  if (frag.live_rows() == 0) return std::shared_ptr<OpenFragment>();
  auto open = std::make_shared<OpenFragment>();
  open->meta = &frag;
  if (!FragmentMayMatch(frag, &open->no_nan)) {
    out->plan.push_back("fragment " + std::to_string(frag.id) + ": skipped by manifest statistics");
    return std::shared_ptr<OpenFragment>();
  }
  if (LayoutSkipsFragment(frag.id)) {
    out->plan.push_back("fragment " + std::to_string(frag.id) + ": skipped by the OTree layout");
    return std::shared_ptr<OpenFragment>();
  }
  if (const auto* candidates = IndexCandidates(frag.id); candidates && candidates->empty()) {
    out->plan.push_back("fragment " + std::to_string(frag.id) + ": skipped by the index");
    return std::shared_ptr<OpenFragment>();
  }
  ++out->counters.fragments_scanned;
  ASSIGN_OR_RETURN(open->reader, table_->OpenDataFile(frag));
  if (uint64_t(open->reader->num_rows()) != frag.rows) {
    return Status::Corruption(frag.file + ": has " + std::to_string(open->reader->num_rows()) +
                              " rows, the manifest says " + std::to_string(frag.rows));
  }
  ASSIGN_OR_RETURN(open->deleted, table_->Deletions(frag));
  out->counters.blocks_total += uint64_t(open->reader->num_row_groups());
  return open;
}

Status Scanner::ScanFragment(const table::FragmentMeta& frag, UnitOutput* out) const {
  ASSIGN_OR_RETURN(auto open, OpenFragmentAt(frag, out));
  if (!open) return Status::OK();
  uint64_t first = 0;
  for (int rg = 0; rg < open->reader->num_row_groups(); ++rg) {
    RETURN_IF_ERROR(ScanRowGroup(*open, rg, first, 0, out));
    first += uint64_t(open->reader->row_group_num_rows(rg));
  }
  return Status::OK();
}

Status Scanner::ScanNextUnit() {
  const auto& fragments = table_->manifest().fragments;
  if (parallel_) {
    // Keep a window of fragments running on the pool; hand out the oldest when it is done.
    const size_t window = 2 * ThreadPool::Default()->size();
    while (inflight_.size() < window && next_fragment_ < fragments.size()) {
      auto task = std::make_shared<Task>();
      const table::FragmentMeta* frag = &fragments[next_fragment_++];
      ThreadPool::Default()->Submit([this, task, frag] {
        Status st = ScanFragment(*frag, &task->out);
        std::lock_guard<std::mutex> lock(task->mu);
        task->status = std::move(st);
        task->done = true;
        task->cv.notify_all();
      });
      inflight_.push_back(std::move(task));
    }
    if (inflight_.empty()) {
      done_ = true;
      return Status::OK();
    }
    std::shared_ptr<Task> task = inflight_.front();
    {
      std::unique_lock<std::mutex> lock(task->mu);
      task->cv.wait(lock, [&] { return task->done; });
    }
    inflight_.pop_front();
    RETURN_IF_ERROR(task->status);
    Merge(std::move(task->out));
    return Status::OK();
  }
  if (limit_ && counters_.rows_returned >= *limit_) {
    done_ = true;
    return Status::OK();
  }
  if (current_ && current_->next_rg >= current_->reader->num_row_groups()) current_.reset();
  UnitOutput unit;
  while (!current_) {
    if (next_fragment_ >= fragments.size()) {
      Merge(std::move(unit));
      done_ = true;
      return Status::OK();
    }
    ASSIGN_OR_RETURN(current_, OpenFragmentAt(fragments[next_fragment_++], &unit));
    if (current_ && current_->next_rg >= current_->reader->num_row_groups()) current_.reset();
  }
  int rg = current_->next_rg++;
  uint64_t first = current_->next_rg_first_row;
  current_->next_rg_first_row += uint64_t(current_->reader->row_group_num_rows(rg));
  Status st = ScanRowGroup(*current_, rg, first, counters_.rows_returned, &unit);
  Merge(std::move(unit));
  return st;
}

bool Scanner::LayoutSkipsFragment(uint32_t fragment_id) const {
  return blocks_ && blocks_->row_groups.count(fragment_id) == 0;
}

bool Scanner::LayoutSkipsRowGroup(uint32_t fragment_id, int rg) const {
  if (!blocks_) return false;
  auto it = blocks_->row_groups.find(fragment_id);
  return it == blocks_->row_groups.end() || it->second.count(rg) == 0;
}

const std::vector<uint32_t>* Scanner::IndexCandidates(uint32_t fragment_id) const {
  auto it = index_candidates_.find(fragment_id);
  return it == index_candidates_.end() ? nullptr : &it->second;
}

bool Scanner::FragmentMayMatch(const table::FragmentMeta& frag, std::set<int>* no_nan) const {
  MapStatsProvider stats;
  for (const auto& [name, s] : frag.stats) {
    int c = table_->schema().FindField(name);
    if (c < 0) continue;
    stats.Set(c, s, /*nan_known=*/true);
    if (s.nan_count == 0) no_nan->insert(c);
  }
  return !filter_ || MayMatch(*filter_, stats);
}

Status Scanner::Explain(bool analyze) {
  if (!analyze) return PlanFragments();
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, Next(&batch));
    if (!more) return Status::OK();
  }
}

Status Scanner::PlanFragments() {
  for (const table::FragmentMeta& frag : table_->manifest().fragments) {
    std::set<int> no_nan;
    if (frag.live_rows() == 0) {
      plan_.push_back("fragment " + std::to_string(frag.id) + ": every row deleted");
    } else if (!FragmentMayMatch(frag, &no_nan)) {
      plan_.push_back("fragment " + std::to_string(frag.id) + ": skipped by manifest statistics");
    } else if (LayoutSkipsFragment(frag.id)) {
      plan_.push_back("fragment " + std::to_string(frag.id) + ": skipped by the OTree layout");
    } else {
      ++counters_.fragments_scanned;
      plan_.push_back("fragment " + std::to_string(frag.id) + ": scan (" + std::to_string(frag.live_rows()) +
                      " live rows; row groups and pages pruned by Parquet statistics)");
    }
  }
  return Status::OK();
}

Status Scanner::ScanRowGroup(const OpenFragment& open, int rg, uint64_t rg_first_row, uint64_t returned_before,
                             UnitOutput* out) const {
  const table::FragmentMeta& fragment = *open.meta;
  const parquet::ParquetReader& reader = *open.reader;
  const uint64_t rg_rows = uint64_t(reader.row_group_num_rows(rg));
  if (LayoutSkipsRowGroup(fragment.id, rg)) return Status::OK();
  const std::string where = "fragment " + std::to_string(fragment.id) + " row group " + std::to_string(rg);
  // Table column index -> file column index (the fragment was written with the table schema).
  auto file_column = [&](int table_column) { return reader.schema().FindField(table_->schema().field(size_t(table_column)).name); };
  for (int c : read_columns_) {
    if (file_column(c) < 0) {
      return Status::Corruption(fragment.file + ": column '" + table_->schema().field(size_t(c)).name + "' is missing");
    }
  }

  Ranges candidate = {{0, rg_rows}};
  // Rows the indexes selected in this row group, as ranges of consecutive offsets.
  const std::vector<uint32_t>* from_index = IndexCandidates(fragment.id);
  if (from_index) {
    Ranges selected;
    auto lo = std::lower_bound(from_index->begin(), from_index->end(), uint32_t(rg_first_row));
    for (auto it = lo; it != from_index->end() && *it < rg_first_row + rg_rows; ++it) {
      uint64_t r = *it - rg_first_row;
      if (!selected.empty() && selected.back().second == r) {
        ++selected.back().second;
      } else {
        selected.emplace_back(r, r + 1);
      }
    }
    candidate = std::move(selected);
    if (candidate.empty()) return Status::OK();
  }
  std::map<int, parquet::PageIndex> page_indexes;  // by read column position
  // When the index keeps most of the row group, or rows scattered over most of its pages, reading
  // it whole and evaluating the filter is cheaper than many page reads (the filter is exact on
  // every row, so the answer is the same).
  // Scattered candidates touch most pages anyway: k separate runs touch about
  // P * (1 - e^(-k/P)) of the P pages, over half once k > 0.7 P. P is the real page count of the
  // first read column (pages of 8192 rows in plain files, of 64 in OTree blocks).
  if (from_index && RangeRows(candidate) * 2 <= rg_rows && !read_columns_.empty()) {
    auto pi = reader.ReadPageIndex(rg, file_column(read_columns_[0]));
    if (!pi.ok()) return pi.status().WithContext(where);
    const uint64_t pages = std::max<uint64_t>(1, pi->pages.size());
    page_indexes[0] = std::move(*pi);
    if (candidate.size() * 10 > pages * 7) from_index = nullptr;
  } else if (from_index) {
    from_index = nullptr;
  }
  if (!from_index) candidate = {{0, rg_rows}};
  // Rows from an exact index answer with nothing left to check skip evaluation.
  const bool evaluate = !(from_index && !index_plan_.residual);
  if (filter_ && evaluate) {
    MapStatsProvider stats;
    for (int c : read_columns_) {
      parquet::ColumnStatistics cs = reader.column_statistics(rg, file_column(c));
      if (!cs.null_count) continue;
      ColumnStats s;
      s.min = cs.min;
      s.max = cs.max;
      s.null_count = uint64_t(*cs.null_count);
      s.row_count = rg_rows;
      stats.Set(c, std::move(s), open.no_nan.count(c) > 0);
    }
    if (!MayMatch(*filter_, stats)) {
      out->plan.push_back(where + ": skipped by row-group statistics");
      return Status::OK();
    }
    // Page pruning: for each filter column alone, the rows of the pages that may match.
    for (size_t pos = 0; pos < num_filter_columns_; ++pos) {
      const int c = read_columns_[pos];
      auto pi = reader.ReadPageIndex(rg, file_column(c));
      if (!pi.ok()) return pi.status().WithContext(where);
      if (!pi->has_statistics) continue;
      Ranges keep;
      for (const parquet::PageIndexEntry& page : pi->pages) {
        MapStatsProvider page_stats;
        if (page.null_count) {
          ColumnStats s;
          s.min = page.null_page ? std::nullopt : page.min;
          s.max = page.null_page ? std::nullopt : page.max;
          s.null_count = uint64_t(*page.null_count);
          s.row_count = uint64_t(page.num_rows);
          page_stats.Set(c, std::move(s), open.no_nan.count(c) > 0);
        }
        if (MayMatch(*filter_, page_stats)) {
          uint64_t b = uint64_t(page.first_row_index), e = b + uint64_t(page.num_rows);
          if (!keep.empty() && keep.back().second == b) {
            keep.back().second = e;
          } else {
            keep.emplace_back(b, e);
          }
        }
      }
      candidate = Intersect(candidate, keep);
      page_indexes[int(pos)] = std::move(*pi);
    }
    if (candidate.empty()) {
      out->plan.push_back(where + ": skipped by the page index");
      return Status::OK();
    }
  }
  ++out->counters.blocks_read;
  const roaring::Roaring& deleted = *open.deleted;

  // Evaluates, drops deleted rows, projects and queues the rows of `batch`, whose row i is
  // fragment offset offsets[i].
  // Evaluates, drops deleted rows, projects and queues the rows of `batch`, whose row i is
  // fragment offset (offsets ? (*offsets)[i] : base + i). Columns move out when every row passes.
  auto emit = [&](Batch& batch, uint64_t base, const std::vector<uint32_t>* offsets) -> Status {
    auto offset_of = [&](uint32_t r) { return uint32_t(offsets ? (*offsets)[r] : base + r); };
    const size_t n = batch.num_rows();
    out->counters.rows_read += n;
    std::vector<uint32_t> rows;
    bool all = true;  // rows holds every row 0..n-1 (left empty in that case)
    if (read_filter_ && evaluate) {
      RETURN_IF_ERROR(Filter(*read_filter_, batch, &rows));
      all = rows.size() == n;
    }
    auto materialize = [&] {
      if (all) {
        rows.resize(n);
        for (uint32_t i = 0; i < n; ++i) rows[i] = i;
        all = false;
      }
    };
    if (!deleted.isEmpty()) {
      materialize();
      std::erase_if(rows, [&](uint32_t r) { return deleted.contains(offset_of(r)); });
    }
    const uint64_t returned = returned_before + out->counters.rows_returned;
    if (limit_ && (all ? n : rows.size()) > *limit_ - returned) {
      materialize();
      rows.resize(size_t(*limit_ - returned));
    }
    const size_t count = all ? n : rows.size();
    if (count == 0) return Status::OK();
    Batch result(output_schema_);
    if (all && moveable_output_) {
      for (size_t i = 0; i < output_in_read_.size(); ++i) {
        result.mutable_column(i) = std::move(batch.mutable_column(size_t(output_in_read_[i])));
      }
    } else {
      materialize();
      for (size_t i = 0; i < output_in_read_.size(); ++i) {
        result.mutable_column(i).AppendSelected(batch.column(size_t(output_in_read_[i])), rows.data(), rows.size());
      }
    }
    RETURN_IF_ERROR(result.Seal());
    std::vector<uint64_t> addresses;
    if (want_addresses_) {
      addresses.resize(count);
      for (size_t i = 0; i < count; ++i) addresses[i] = MakeRowAddress(fragment.id, offset_of(all ? uint32_t(i) : rows[i]));
    }
    out->counters.rows_returned += count;
    out->batches.push_back(std::move(result));
    out->addresses.push_back(std::move(addresses));
    return Status::OK();
  };

  std::vector<int> file_columns;
  for (int c : read_columns_) file_columns.push_back(file_column(c));
  if (RangeRows(candidate) == rg_rows && !limit_) {
    auto batch = reader.ReadRowGroup(rg, file_columns);
    if (!batch.ok()) return batch.status().WithContext(where);
    Batch renamed(read_schema_, std::move(batch->columns()), batch->num_rows());
    return emit(renamed, rg_first_row, nullptr);
  }

  // Page by page: windows of candidate rows; each column's pages are decoded once.
  for (size_t pos = 0; pos < read_columns_.size(); ++pos) {
    if (page_indexes.count(int(pos))) continue;
    auto pi = reader.ReadPageIndex(rg, file_columns[pos]);
    if (!pi.ok()) return pi.status().WithContext(where);
    page_indexes[int(pos)] = std::move(*pi);
  }
  for (auto& [pos, pi] : page_indexes) out->counters.pages_total += pi.pages.size();
  std::vector<std::map<size_t, Column>> decoded(read_columns_.size());  // page number -> rows
  size_t range_i = 0;
  uint64_t range_pos = candidate.empty() ? 0 : candidate[0].first;
  while (range_i < candidate.size()) {
    if (limit_ && returned_before + out->counters.rows_returned >= *limit_) break;
    // Next window: up to kWindowRows candidate rows.
    Ranges window;
    uint64_t budget = kWindowRows;
    while (range_i < candidate.size() && budget > 0) {
      uint64_t end = std::min(candidate[range_i].second, range_pos + budget);
      window.emplace_back(range_pos, end);
      budget -= end - range_pos;
      range_pos = end;
      if (range_pos == candidate[range_i].second && ++range_i < candidate.size()) range_pos = candidate[range_i].first;
    }
    Batch batch(read_schema_);
    for (size_t pos = 0; pos < read_columns_.size(); ++pos) {
      const auto& pages = page_indexes[int(pos)].pages;
      auto& cache = decoded[pos];
      // Pages wholly before this window are no longer needed.
      while (!cache.empty()) {
        const auto& p = pages[cache.begin()->first];
        if (uint64_t(p.first_row_index + p.num_rows) > window.front().first) break;
        cache.erase(cache.begin());
      }
      // Walks the window's rows page by page: `visit(p, from, to)` for rows [from, to) of page p.
      auto walk = [&](auto&& visit) -> Status {
        for (const auto& [b, e] : window) {
          // First page whose end is past b.
          size_t p = size_t(std::upper_bound(pages.begin(), pages.end(), b,
                                             [](uint64_t row, const parquet::PageIndexEntry& pg) {
                                               return row < uint64_t(pg.first_row_index + pg.num_rows);
                                             }) - pages.begin());
          uint64_t at = b;
          while (at < e) {
            if (p >= pages.size()) return Status::Corruption(fragment.file + ": page index does not cover row " + std::to_string(at));
            const uint64_t pe = uint64_t(pages[p].first_row_index + pages[p].num_rows);
            const uint64_t take_end = std::min(e, pe);
            visit(p, at, take_end);
            at = take_end;
            if (at == pe) ++p;
          }
        }
        return Status::OK();
      };
      // The pages this window needs and has not decoded, fetched together: pages a few KiB apart
      // share one read (scattered index hits would otherwise cost a request per page).
      std::vector<int> missing;
      RETURN_IF_ERROR(walk([&](size_t p, uint64_t, uint64_t) {
        if (!cache.count(p) && (missing.empty() || missing.back() != int(p))) missing.push_back(int(p));
      }));
      if (!missing.empty()) {
        auto read = reader.ReadPages(rg, file_columns[pos], missing, kCoalesceHoleBytes);
        if (!read.ok()) return read.status().WithContext(where);
        for (size_t k = 0; k < missing.size(); ++k) cache.emplace(size_t(missing[k]), std::move((*read)[k]));
        out->counters.pages_read += missing.size();
      }
      RETURN_IF_ERROR(walk([&](size_t p, uint64_t from, uint64_t to) {
        const uint64_t pb = uint64_t(pages[p].first_row_index);
        batch.mutable_column(pos).AppendSlice(cache.at(p), size_t(from - pb), size_t(to - from));
      }));
    }
    RETURN_IF_ERROR(batch.Seal());
    std::vector<uint32_t> offsets;
    offsets.reserve(batch.num_rows());
    for (const auto& [b, e] : window) {
      for (uint64_t r = b; r < e; ++r) offsets.push_back(uint32_t(rg_first_row + r));
    }
    if (batch.num_columns() == 0) {
      // SELECT of no columns is not expressible; keep the row count for safety.
      batch = Batch(read_schema_, {}, offsets.size());
    }
    RETURN_IF_ERROR(emit(batch, 0, &offsets));
  }
  return Status::OK();
}

nlohmann::json ExplainJson(const Scanner& scanner, uint64_t version, bool analyze, const StoreCounters& io) {
  const ScanCounters& c = scanner.counters();
  nlohmann::json j = {{"version", version},
                      {"filter", scanner.filter() ? scanner.filter()->ToString() : ""},
                      {"plan", scanner.plan()},
                      {"fragments_total", c.fragments_total},
                      {"fragments_scanned", c.fragments_scanned}};
  if (!analyze) return j;
  j["blocks_total"] = c.blocks_total;
  j["blocks_read"] = c.blocks_read;
  j["pages_total"] = c.pages_total;
  j["pages_read"] = c.pages_read;
  j["index_pages_read"] = c.index.pages_read;
  j["index_pages_total"] = c.index.pages_total;
  j["index_pages_selected"] = c.index.pages_selected;
  j["index_pages_all_match"] = c.index.pages_all_match;
  j["index_bytes_read"] = c.index.bytes_read;
  j["rows_read"] = c.rows_read;
  j["rows_returned"] = c.rows_returned;
  j["bytes_read"] = io.bytes_read.load();
  j["io_requests"] = io.read_requests.load() + io.list_requests.load();
  return j;
}

Result<uint64_t> DeleteWhere(table::Table* table, const std::string& where, std::vector<IndexHandle> indexes) {
  if (where.empty()) return Status::InvalidArgument("delete needs a --where filter");
  ScanRequest request;
  request.where = where;
  request.select = {table->schema().field(0).name};
  request.with_addresses = true;
  request.indexes = std::move(indexes);
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(table, request));
  RowSet rows;
  Batch batch;
  std::vector<uint64_t> addresses;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch, &addresses));
    if (!more) break;
    for (uint64_t a : addresses) rows.Add(a);
  }
  return table->DeleteRows(rows);
}

}  // namespace lakeindex::query
