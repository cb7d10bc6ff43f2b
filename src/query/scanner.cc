#include "query/scanner.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <map>
#include <iterator>
#include <set>

#include "common/lru_cache.h"
#include "common/thread_pool.h"
#include "format/parquet/reader.h"
#include "query/binder.h"
#include "query/evaluator.h"
#include "query/held_rows_prefetch.h"
#include "query/parser.h"
#include "query/page_pruning.h"
#include "query/pruning.h"
#include "query/row_gather.h"
#include "query/take_cost.h"

namespace lakeindex::query {

namespace {

// Rows decoded per step inside a row group when reading page by page (bounds memory and lets
// LIMIT stop early).
constexpr uint64_t kWindowRows = 64 * 1024;
// Takes of at most this many rows run on the caller's thread (see Scanner::Init).
constexpr uint64_t kSerialTakeRows = 4096;

void CollectColumns(const Expr& e, std::set<std::string>* out) {
  if (e.kind == ExprKind::kColumn) out->insert(e.name);
  for (const auto& c : e.children) CollectColumns(*c, out);
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
  std::vector<int> file_columns;  // file column of each read column
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
  counters_.blocks_whole += unit.counters.blocks_whole;
  counters_.pages_total += unit.counters.pages_total;
  counters_.pages_tested += unit.counters.pages_tested;
  counters_.pages_read += unit.counters.pages_read;
  counters_.pages_by_value += unit.counters.pages_by_value;
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
  if (request.parsed) {
    parsed = request.parsed;
  } else if (!request.where.empty()) {
    ASSIGN_OR_RETURN(parsed, ParseExpression(request.where));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const std::optional<layout::LayoutMeta>> shared_layout, layout::LoadLayout(*table_));
  const std::optional<layout::LayoutMeta>& table_layout = *shared_layout;
  if (request.sample) {
    const double f = *request.sample;
    if (!(f > 0 && f <= 1)) return Status::InvalidArgument("must be a fraction in (0, 1], got " + FormatDouble(f)).About("sample");
    if (!table_layout || !table_layout->is_otree()) {
      return Status::InvalidArgument("a sample needs an OTree layout: lay the table out as an OTree first").About("sample");
    }
    // The sample is the rows whose weight is below f: one more conjunct, checked like the filter.
    ExprPtr weight_below = MakeCompare(CompareOp::kLt, MakeColumn(layout::kWeightColumn), MakeLiteral(Value::Double(f)));
    parsed = parsed ? MakeAnd({parsed, weight_below}) : weight_below;
    if (request.sample_from > 0) {
      if (!(request.sample_from < f)) {
        return Status::InvalidArgument("sample_from must be below the sample fraction, got " +
                                       FormatDouble(request.sample_from) + " and " + FormatDouble(f));
      }
      parsed = MakeAnd({parsed, MakeCompare(CompareOp::kGe, MakeColumn(layout::kWeightColumn),
                                            MakeLiteral(Value::Double(request.sample_from)))});
    }
  }
  if (parsed) {
    ASSIGN_OR_RETURN(filter_, Bind(*parsed, schema));
    CollectColumns(*filter_, &filter_columns);
  }
  std::vector<int> output;
  count_only_ = request.count_only;
  if (count_only_) {
    // No output column: only the filter's columns are read.
  } else if (request.select.empty()) {
    output.reserve(schema.num_fields());
    for (size_t c = 0; c < schema.num_fields(); ++c) {
      if (!IsHiddenColumn(schema.field(c).name)) output.push_back(int(c));
    }
  } else {
    for (const std::string& name : request.select) {
      Result<int> c = FindColumnFolded(schema, name);  // as the filter resolves names
      if (!c.ok()) return Status::InvalidArgument(c.status().message()).About("select");
      output.push_back(*c);
    }
  }
  // Filter columns come first in read_columns_ (page pruning walks them).
  read_columns_.reserve(filter_columns.size() + output.size());
  for (const std::string& name : filter_columns) read_columns_.push_back(schema.FindField(name));
  num_filter_columns_ = read_columns_.size();
  for (int c : output) {
    if (std::find(read_columns_.begin(), read_columns_.end(), c) == read_columns_.end()) read_columns_.push_back(c);
  }
  std::vector<Field> read_fields, output_fields;
  read_fields.reserve(read_columns_.size());
  output_fields.reserve(output.size());
  output_in_read_.reserve(output.size());
  for (int c : read_columns_) read_fields.push_back(schema.field(size_t(c)));
  filter_schema_ = Schema(std::vector<Field>(read_fields.begin(), read_fields.begin() + std::ptrdiff_t(num_filter_columns_)));
  read_schema_ = Schema(std::move(read_fields));
  for (int c : output) {
    output_in_read_.push_back(int(std::find(read_columns_.begin(), read_columns_.end(), c) - read_columns_.begin()));
    output_fields.push_back(schema.field(size_t(c)));
  }
  output_schema_ = Schema(std::move(output_fields));
  if (parsed) {
    ASSIGN_OR_RETURN(read_filter_, Bind(*parsed, filter_schema_));
  }
  want_addresses_ = request.with_addresses;
  std::set<int> distinct(output_in_read_.begin(), output_in_read_.end());
  filter_output_.assign(num_filter_columns_, false);
  for (int i : output_in_read_) {
    if (size_t(i) < num_filter_columns_) filter_output_[size_t(i)] = true;
  }
  moveable_output_ = distinct.size() == output_in_read_.size();
  counters_.fragments_total = table_->manifest().fragments.size();
  plan_.reserve(counters_.fragments_total * 2 + 8);
  if (table_layout && table_layout->is_otree()) {
    ASSIGN_OR_RETURN(blocks_, SelectBlocks(*table_layout, schema, filter_.get(), request.sample, request.sample_from));
    for (const std::string& line : blocks_->explain) plan_.push_back(Note(line));
  }
  if (filter_ && !request.indexes.empty()) {
    // The version's fragment row counts, made once per Table and version (every query of it plans
    // with them).
    ASSIGN_OR_RETURN(std::shared_ptr<const void> shared_rows, table_->SharedObject("rows@" + std::to_string(table_->version()), [&]() -> Result<std::shared_ptr<const void>> {
      auto rows = std::make_shared<std::map<uint32_t, uint64_t>>();
      for (const auto& f : table_->manifest().fragments) (*rows)[f.id] = f.rows;
      return std::shared_ptr<const void>(std::move(rows));
    }));
    const auto& fragment_rows = *std::static_pointer_cast<const std::map<uint32_t, uint64_t>>(shared_rows);
    ASSIGN_OR_RETURN(index_plan_, PlanWithIndexes(*filter_, request.indexes, fragment_rows));
    counters_.index = index_plan_.counters;
    if (index_plan_.used) {
      // Covered fragments without candidates are left out: IndexCandidates answers "none" for them.
      for (uint32_t f : index_plan_.covered) {
        std::vector<uint32_t> offsets = index_plan_.candidates.OffsetsIn(f);
        if (!offsets.empty()) index_candidates_.emplace(f, std::move(offsets));
      }
    }
    for (const std::string& line : index_plan_.explain) plan_.push_back(Note(line));
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
      if (index_candidates_.count(f.id)) continue;
      const bool none_from_index = index_plan_.used && index_plan_.covered.count(f.id) > 0;
      index_candidates_[f.id] = none_from_index ? std::vector<uint32_t>{} : request.rows->OffsetsIn(f.id);
    }
    index_plan_.residual = filter_ != nullptr;  // the given rows are exact; a filter is checked on them
    given_rows_ = true;
    plan_.push_back(Note("take " + std::to_string(request.rows->Cardinality()) + " given rows"));
  }
  // Fragments run on the pool when there is work to share: not for a take of a few rows, where
  // waking the pool's threads costs more than the reads.
  const bool small_take = (index_plan_.used || request.rows) && !index_plan_.residual && [&] {
    for (const auto& f : table_->manifest().fragments) {
      if (IndexCandidates(f.id) == nullptr) return false;  // a fragment to scan
    }
    uint64_t n = 0;
    for (const auto& [f, offsets] : index_candidates_) n += offsets.size();
    return n <= kSerialTakeRows;
  }();
  remote_ = table_->store()->remote();
  cache_pages_ = request.cache_pages;
  // Not under a LIMIT: the scan may stop long before it has read what the plan names.
  if (remote_ && !count_only_ && !limit_ && (blocks_ || !index_candidates_.empty())) PrefetchPlan();
  // On a remote store a small take waits on the network, not the CPU: its fragments overlap.
  parallel_ = request.parallel && !limit_ && (!small_take || remote_) && ThreadPool::Default()->size() > 1 &&
              table_->manifest().fragments.size() > 1;
  plan_.push_back(Note("scan version " + std::to_string(table_->version()) + ": " +
                       std::to_string(counters_.fragments_total) + " fragments, filter " +
                       (filter_ ? filter_->ToString() : std::string("(none)"))));
  return Status::OK();
}

void Scanner::PrefetchPlan() const {
  constexpr uint64_t kPrefetchBytes = 64ull << 20;
  const uint64_t budget = std::min<uint64_t>(kPrefetchBytes, LruCache::Default()->capacity_bytes() / 4);
  // The fragments to read: those with blocks the layout selected, or rows the index found.
  std::vector<const table::FragmentMeta*> files;
  auto add = [&](uint32_t id, bool any) {
    const table::FragmentMeta* meta = table_->manifest().FindFragment(id);
    if (meta && any && meta->live_rows() > 0) files.push_back(meta);
  };
  if (blocks_) {
    for (const auto& [id, row_groups] : blocks_->row_groups) add(id, !row_groups.empty());
  } else {
    for (const auto& [id, offsets] : index_candidates_) add(id, !offsets.empty());
  }
  std::vector<std::shared_ptr<const parquet::ParquetReader>> readers(files.size());
  ParallelForThreads(files.size(), kRemoteFanOut, [&](size_t i) {
    auto reader = table_->OpenDataFile(*files[i]);
    if (reader.ok()) readers[i] = std::move(*reader);
  });
  // Per file, the pages to load and their bytes (a file with a page map reads the blocks that
  // locate them here: the files' blocks in parallel, one round trip).
  std::vector<std::vector<parquet::ParquetReader::ChunkWant>> wanted(files.size());
  std::vector<uint64_t> file_bytes(files.size());
  ParallelForThreads(files.size(), kRemoteFanOut, [&](size_t i) {
    if (!readers[i]) return;
    const parquet::ParquetReader& reader = *readers[i];
    // Per row group, the rows to read: all of a selected block, or the index's rows.
    std::vector<std::pair<int, Ranges>> reads;
    if (blocks_) {
      for (int rg : blocks_->row_groups.at(files[i]->id)) {
        if (rg < reader.num_row_groups()) reads.emplace_back(rg, Ranges{{0, uint64_t(reader.row_group_num_rows(rg))}});
      }
    } else {
      const std::vector<uint32_t>& offsets = index_candidates_.at(files[i]->id);
      uint64_t first = 0;
      for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
        const uint64_t rows = uint64_t(reader.row_group_num_rows(rg));
        Ranges in_rg = RowGroupRows(offsets, first, rows);
        if (!in_rg.empty()) reads.emplace_back(rg, std::move(in_rg));
        first += rows;
      }
    }
    for (int c : read_columns_) {
      const int fc = reader.schema().FindField(table_->schema().field(size_t(c)).name);
      if (fc < 0) continue;
      for (const auto& [rg, rows] : reads) {
        auto chunk = reader.SharedChunk(rg, fc);
        if (!chunk.ok()) continue;
        auto pages = PagesOf(*(*chunk)->locations, rows, reader.path());
        if (!pages.ok() || !reader.LocatePages(**chunk, rg, fc, *pages).ok()) continue;
        file_bytes[i] += PageBytes(*(*chunk)->locations, *pages);
        if (file_bytes[i] > budget) return;
        wanted[i].push_back({rg, fc, std::move(*pages)});
      }
    }
  });
  uint64_t bytes = 0;
  for (uint64_t b : file_bytes) bytes += b;
  if (bytes > budget) return;  // too much to hold: the scan reads it as it goes
  // A scan that will prune by page statistics reads the files' ColumnIndexes too: in the same
  // round trip as the pages, not one more after them.
  const bool page_statistics = filter_ != nullptr && (blocks_ || index_plan_.residual);
  ParallelForThreads(files.size() * (page_statistics ? 2 : 1), kRemoteFanOut, [&](size_t task) {
    const size_t i = task % files.size();
    if (!readers[i]) return;
    if (task < files.size()) (void)readers[i]->LoadPages(wanted[i], readers[i]->read_hint());
    else (void)readers[i]->LoadColumnIndexes();
  });
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

PlanStep Scanner::DecideFragment(const table::FragmentMeta& frag, std::set<int>* no_nan) const {
  PlanStep step;
  step.fragment = frag.id;
  // Cheapest tests first: a lookup visits every fragment and skips all but a few.
  const std::vector<uint32_t>* candidates = IndexCandidates(frag.id);
  if (frag.live_rows() == 0) {
    step.kind = StepKind::kFragmentEmpty;
  } else if (candidates && candidates->empty()) {
    step.kind = StepKind::kFragmentSkippedByIndex;
  } else if (LayoutSkipsFragment(frag.id)) {
    step.kind = StepKind::kFragmentSkippedByLayout;
  } else if (candidates && !index_plan_.residual) {
    // An exact index answer with nothing left to check: these rows match, statistics cannot
    // rule the fragment out.
    step.kind = StepKind::kFragmentTake;
    step.rows = candidates->size();
  } else if (!FragmentMayMatch(frag, no_nan)) {
    step.kind = StepKind::kFragmentSkippedByStats;
  } else if (candidates) {
    step.kind = StepKind::kFragmentTake;
    step.rows = candidates->size();
  } else {
    step.kind = StepKind::kFragmentScan;
    step.rows = frag.live_rows();
  }
  return step;
}

Result<bool> Scanner::CountWithoutReading(const table::FragmentMeta& frag, const PlanStep& step, UnitOutput* out) const {
  uint64_t n = 0;
  if (step.kind == StepKind::kFragmentTake && !index_plan_.residual && !limit_) {
    // The index's answer is exact and complete: its candidates less the deleted rows.
    const std::vector<uint32_t>* candidates = IndexCandidates(frag.id);
    ASSIGN_OR_RETURN(std::shared_ptr<const roaring::Roaring> deleted, table_->Deletions(frag));
    n = candidates->size();
    if (!deleted->isEmpty()) {
      for (uint32_t r : *candidates) n -= deleted->contains(r) ? 1 : 0;
    }
  } else if (step.kind == StepKind::kFragmentScan && !filter_ && !limit_) {
    n = frag.live_rows();
  } else if (step.kind == StepKind::kFragmentScan && !limit_) {
    std::optional<uint64_t> counted = CountFromStatistics(frag);
    if (!counted) return false;
    n = *counted;
  } else {
    return false;
  }
  if (n > 0) {
    out->batches.push_back(Batch(output_schema_, {}, size_t(n)));
    out->addresses.emplace_back();
    out->counters.rows_returned += n;
  }
  return true;
}

Result<std::shared_ptr<Scanner::OpenFragment>> Scanner::OpenFragmentAt(const table::FragmentMeta& frag,
                                                                        UnitOutput* out) const {
  std::set<int> no_nan;
  PlanStep step = DecideFragment(frag, &no_nan);
  const bool read = step.kind == StepKind::kFragmentTake || step.kind == StepKind::kFragmentScan;
  if (read && count_only_) {
    ASSIGN_OR_RETURN(bool counted, CountWithoutReading(frag, step, out));
    if (counted) {
      out->plan.push_back(std::move(step));
      return std::shared_ptr<OpenFragment>();
    }
  }
  out->plan.push_back(std::move(step));
  if (!read) return std::shared_ptr<OpenFragment>();  // most fragments of a lookup: nothing made
  auto open = std::make_shared<OpenFragment>();
  open->meta = &frag;
  open->no_nan = std::move(no_nan);
  ++out->counters.fragments_scanned;
  ASSIGN_OR_RETURN(open->reader, table_->OpenDataFile(frag));
  if (uint64_t(open->reader->num_rows()) != frag.rows) {
    return Status::Corruption(frag.file + ": has " + std::to_string(open->reader->num_rows()) +
                              " rows, the manifest says " + std::to_string(frag.rows));
  }
  ASSIGN_OR_RETURN(open->file_columns, FileColumnsOf(*open->reader, table_->schema(), read_columns_, frag.file));
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
  static const std::vector<uint32_t> kNone;
  auto it = index_candidates_.find(fragment_id);
  if (it != index_candidates_.end()) return &it->second;
  return index_plan_.used && index_plan_.covered.count(fragment_id) ? &kNone : nullptr;
}

bool Scanner::FragmentMayMatch(const table::FragmentMeta& frag, std::set<int>* no_nan) const {
  if (!filter_) return true;
  // Only the filter's columns matter (MayMatch reads no other, nor does no_nan's user).
  for (size_t pos = 0; pos < num_filter_columns_; ++pos) {
    auto it = frag.stats.find(table_->schema().field(size_t(read_columns_[pos])).name);
    if (it != frag.stats.end() && it->second.nan_count == 0) no_nan->insert(read_columns_[pos]);
  }
  return MayMatch(*filter_, NamedStatsProvider(&table_->schema(), &frag.stats));
}

std::optional<uint64_t> Scanner::CountFromStatistics(const table::FragmentMeta& frag) const {
  if (MustMatch(*filter_, NamedStatsProvider(&table_->schema(), &frag.stats))) {
    return frag.live_rows();  // deleted rows matched too: not counted
  }
  // `c IS [NOT] NULL` with no row deleted: the exact NULL count (deleted rows would be in it).
  const Expr& e = *filter_;
  if (e.kind != ExprKind::kIsNull || !e.children[0]->is_bound_column() || frag.deletion) return std::nullopt;
  auto it = frag.stats.find(table_->schema().field(size_t(e.children[0]->column_index)).name);
  if (it == frag.stats.end() || it->second.row_count != frag.rows || it->second.null_count > frag.rows) return std::nullopt;
  return e.negated ? frag.rows - it->second.null_count : it->second.null_count;
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
    PlanStep step = DecideFragment(frag, &no_nan);
    if (step.kind == StepKind::kFragmentTake || step.kind == StepKind::kFragmentScan) ++counters_.fragments_scanned;
    const bool take = step.kind == StepKind::kFragmentTake;
    plan_.push_back(std::move(step));
    if (take) {  // what each row group's take would read against its scan, from the page index
      ASSIGN_OR_RETURN(auto reader, table_->OpenDataFile(frag));
      ASSIGN_OR_RETURN(auto fcs, FileColumnsOf(*reader, table_->schema(), read_columns_, frag.file));
      const TakeColumns columns{fcs, num_filter_columns_, filter_output_, index_plan_.residual, given_rows_};
      ASSIGN_OR_RETURN(auto steps, PlanTakeSteps(*reader, frag.id, columns, *IndexCandidates(frag.id)));
      plan_.insert(plan_.end(), steps.begin(), steps.end());
    }
  }
  return Status::OK();
}

std::vector<std::string> Scanner::plan() const {
  std::vector<std::string> lines;
  lines.reserve(plan_.size());
  for (const PlanStep& step : plan_) lines.push_back(step.ToString());
  return lines;
}

Status Scanner::ScanRowGroup(const OpenFragment& open, int rg, uint64_t rg_first_row, uint64_t returned_before,
                             UnitOutput* out) const {
  const table::FragmentMeta& fragment = *open.meta;
  const parquet::ParquetReader& reader = *open.reader;
  const uint64_t rg_rows = uint64_t(reader.row_group_num_rows(rg));
  if (LayoutSkipsRowGroup(fragment.id, rg)) return Status::OK();
  auto where = [&] { return "fragment " + std::to_string(fragment.id) + " row group " + std::to_string(rg); };
  const std::vector<int>& file_columns = open.file_columns;
  PlanStep step;
  step.fragment = fragment.id;
  step.row_group = rg;

  Ranges candidate = {{0, rg_rows}};
  // Take: read only the rows the indexes selected in this row group, page by page, when that reads
  // fewer bytes than the scan (take_cost.h). Otherwise the row group is scanned and the (exact)
  // filter evaluated on every row: the same answer.
  bool take = false;
  if (const std::vector<uint32_t>* from_index = IndexCandidates(fragment.id)) {
    candidate = RowGroupRows(*from_index, rg_first_row, rg_rows);
    if (candidate.empty()) return Status::OK();
    if (!remote_) PrefetchHeldRows(reader, rg, file_columns, candidate);  // held_rows_prefetch.h
    const TakeColumns columns{file_columns, num_filter_columns_, filter_output_, index_plan_.residual, given_rows_};
    auto choice = ChooseTake(reader, rg, columns, candidate);
    if (!choice.ok()) return choice.status().WithContext(where());
    take = choice->take;
    DescribeChoice(*choice, &step);
    if (!take) candidate = {{0, rg_rows}};
  }
  // Rows of an exact index answer with nothing left to check skip evaluation, as do row groups
  // whose statistics prove every row matches (an OTree block wholly inside a sample, say).
  bool evaluate = filter_ != nullptr && !(take && !index_plan_.residual);
  if (evaluate) {
    MapStatsProvider stats;
    for (size_t pos = 0; pos < read_columns_.size(); ++pos) {
      const int c = read_columns_[pos];
      parquet::ColumnStatistics cs = reader.column_statistics(rg, file_columns[pos]);
      if (!cs.null_count) continue;
      ColumnStats s;
      s.min = cs.min;
      s.max = cs.max;
      s.null_count = uint64_t(*cs.null_count);
      s.row_count = rg_rows;
      stats.Set(c, std::move(s), open.no_nan.count(c) > 0);
    }
    if (!MayMatch(*filter_, stats)) {
      step.kind = StepKind::kRowGroupSkippedByStats;
      out->plan.push_back(std::move(step));
      return Status::OK();
    }
    if (MustMatch(*filter_, stats)) evaluate = false;
  }
  if (evaluate) {
    // Page pruning: for each filter column alone, the rows of the pages that may match, testing
    // only the pages of the rows the columns before it left.
    for (size_t pos = 0; pos < num_filter_columns_ && !candidate.empty(); ++pos) {
      const int c = read_columns_[pos];
      auto pi = reader.SharedPageIndex(rg, file_columns[pos]);
      if (!pi.ok()) return pi.status().WithContext(where());
      if (!(*pi)->has_statistics) continue;
      candidate = PagesMayMatch(*filter_, c, **pi, open.no_nan.count(c) > 0, candidate, &out->counters.pages_tested);
    }
    if (candidate.empty()) {
      step.kind = StepKind::kRowGroupSkippedByPageIndex;
      out->plan.push_back(std::move(step));
      return Status::OK();
    }
  }
  ++out->counters.blocks_read;
  const bool whole = RangeRows(candidate) == rg_rows && !limit_;
  out->counters.blocks_whole += whole && !remote_ && !cache_pages_;  // column chunks read at once (`read` below)
  step.kind = take ? StepKind::kRowGroupTake : whole ? StepKind::kRowGroupWhole : StepKind::kRowGroupPages;
  step.rows = RangeRows(candidate);
  out->plan.push_back(std::move(step));
  const roaring::Roaring& deleted = *open.deleted;
  GatherCounters gathered;
  std::vector<bool> pages_counted(read_columns_.size());

  // Reads read columns [from, to) for `rows` of the row group: whole chunks when `rows` is the
  // whole row group, else page by page.
  auto read = [&](size_t from, size_t to, const Ranges& rows, std::vector<Column>* cols) -> Status {
    if (from == to) return Status::OK();
    // Whole chunks, except on a remote store: there pages go through the cache, where
    // PrefetchPlan may have put them, or PrefetchColumns puts them with one batch of requests.
    if (RangeRows(rows) == rg_rows && !remote_ && !cache_pages_) {
      std::vector<int> wanted(file_columns.begin() + std::ptrdiff_t(from), file_columns.begin() + std::ptrdiff_t(to));
      auto batch = reader.ReadRowGroup(rg, wanted);
      if (!batch.ok()) return batch.status().WithContext(where());
      for (size_t i = from; i < to; ++i) (*cols)[i] = std::move(batch->mutable_column(i - from));
      return Status::OK();
    }
    if (remote_ && to - from > 1) {
      PrefetchColumns(reader, rg, std::vector<int>(file_columns.begin() + std::ptrdiff_t(from), file_columns.begin() + std::ptrdiff_t(to)),
                      rows);
    }
    for (size_t i = from; i < to; ++i) {
      (*cols)[i] = Column(read_schema_.field(i).type);
      GatherCounters g;
      Status st = GatherRows(reader, rg, file_columns[i], rows, &(*cols)[i], &g);
      if (!st.ok()) return st.WithContext(where());
      gathered.pages_read += g.pages_read;
      gathered.pages_by_value += g.pages_by_value;
      gathered.pages_loaded += g.pages_loaded;
      if (!pages_counted[i]) gathered.pages_total += g.pages_total;  // once per chunk, not per window
      pages_counted[i] = true;
    }
    return Status::OK();
  };

  // Windows of up to kWindowRows candidate rows (the whole row group at once when reading it whole).
  size_t range_i = 0;
  uint64_t range_pos = candidate[0].first;
  while (range_i < candidate.size()) {
    if (limit_ && returned_before + out->counters.rows_returned >= *limit_) break;
    Ranges window;
    uint64_t budget = whole ? rg_rows : kWindowRows;
    while (range_i < candidate.size() && budget > 0) {
      uint64_t end = std::min(candidate[range_i].second, range_pos + budget);
      window.emplace_back(range_pos, end);
      budget -= end - range_pos;
      range_pos = end;
      if (range_pos == candidate[range_i].second && ++range_i < candidate.size()) range_pos = candidate[range_i].first;
    }
    const size_t n = size_t(RangeRows(window));
    out->counters.rows_read += n;
    // Row i of the window is row group offset offset_of(i) (i itself when reading whole).
    std::vector<uint32_t> offsets;
    if (!whole) {
      offsets.reserve(n);
      for (const auto& [b, e] : window) {
        for (uint64_t r = b; r < e; ++r) offsets.push_back(uint32_t(r));
      }
    }
    auto offset_of = [&](uint32_t i) { return whole ? i : offsets[i]; };
    // Late materialization: the filter's columns first, the other columns only for the rows
    // that pass it (and are not deleted, and fit under LIMIT).
    std::vector<Column> cols(read_columns_.size());
    std::vector<uint32_t> rows;  // window rows that pass
    bool all = true;             // every window row passes (rows left empty)
    if (evaluate) {
      RETURN_IF_ERROR(read(0, num_filter_columns_, window, &cols));
      Batch filter_batch(filter_schema_, std::vector<Column>(std::make_move_iterator(cols.begin()),
                                                             std::make_move_iterator(cols.begin() + std::ptrdiff_t(num_filter_columns_))), n);
      RETURN_IF_ERROR(Filter(*read_filter_, filter_batch, &rows));
      for (size_t i = 0; i < num_filter_columns_; ++i) cols[i] = std::move(filter_batch.mutable_column(i));
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
      std::erase_if(rows, [&](uint32_t r) { return deleted.contains(uint32_t(rg_first_row + offset_of(r))); });
    }
    const uint64_t returned = returned_before + out->counters.rows_returned;
    if (limit_ && (all ? n : rows.size()) > *limit_ - returned) {
      materialize();
      rows.resize(size_t(*limit_ - returned));
    }
    const size_t count = all ? n : rows.size();
    if (count == 0) continue;
    // The other columns, for the passing rows only.
    const size_t first_rest = evaluate ? num_filter_columns_ : 0;
    if (all && !evaluate) {
      // Nothing evaluated: of the filter's columns only those the output shows are read.
      for (size_t i = 0; i < num_filter_columns_; ++i) {
        if (filter_output_[i]) RETURN_IF_ERROR(read(i, i + 1, window, &cols));
      }
      RETURN_IF_ERROR(read(num_filter_columns_, read_columns_.size(), window, &cols));
    } else if (all) {
      RETURN_IF_ERROR(read(first_rest, read_columns_.size(), window, &cols));
    } else {
      // The passing rows' ranges, only when other columns are read for them (a count reads none).
      Ranges rest;
      if (first_rest < read_columns_.size()) {
        std::vector<uint32_t> passing(rows.size());
        for (size_t i = 0; i < rows.size(); ++i) passing[i] = offset_of(rows[i]);
        rest = RangesOf(passing.data(), passing.size());
      }
      // Whole chunks when the passing rows hold most of their bytes (as for a take above).
      if (whole && first_rest < read_columns_.size()) {
        auto pi = reader.SharedPageIndex(rg, file_columns[first_rest], /*statistics=*/false);
        if (!pi.ok()) return pi.status().WithContext(where());
        ASSIGN_OR_RETURN(std::vector<int> pages, PagesOf(**pi, rest, fragment.file));
        if (PageBytes(**pi, pages) * 4 > ChunkBytes(**pi) * 3) {
          RETURN_IF_ERROR(read(first_rest, read_columns_.size(), window, &cols));
          for (size_t i = first_rest; i < cols.size(); ++i) {
            Column picked(cols[i].type());
            picked.AppendSelected(cols[i], rows.data(), rows.size());
            cols[i] = std::move(picked);
          }
          rest.clear();
        }
      }
      if (!rest.empty()) RETURN_IF_ERROR(read(first_rest, read_columns_.size(), rest, &cols));
      for (size_t i = 0; i < first_rest; ++i) {
        if (!filter_output_[i]) continue;  // tested, not shown
        Column picked(cols[i].type());
        picked.AppendSelected(cols[i], rows.data(), rows.size());
        cols[i] = std::move(picked);
      }
    }
    Batch result(output_schema_);
    for (size_t i = 0; i < output_in_read_.size(); ++i) {
      Column& c = cols[size_t(output_in_read_[i])];
      result.mutable_column(i) = moveable_output_ ? std::move(c) : c;
    }
    if (output_in_read_.empty()) result = Batch(output_schema_, {}, count);
    RETURN_IF_ERROR(result.Seal());
    std::vector<uint64_t> addresses;
    if (want_addresses_) {
      addresses.resize(count);
      for (size_t i = 0; i < count; ++i) {
        addresses[i] = MakeRowAddress(fragment.id, uint32_t(rg_first_row + offset_of(all ? uint32_t(i) : rows[i])));
      }
    }
    out->counters.rows_returned += count;
    out->batches.push_back(std::move(result));
    out->addresses.push_back(std::move(addresses));
  }
  out->counters.pages_total += gathered.pages_total;
  out->counters.pages_read += gathered.pages_read;
  out->counters.pages_by_value += gathered.pages_by_value;
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
  j["blocks_read_whole"] = c.blocks_whole;
  j["pages_total"] = c.pages_total;
  j["pages_read"] = c.pages_read;
  j["pages_read_by_value"] = c.pages_by_value;
  j["pages_tested"] = c.pages_tested;
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

Result<uint64_t> CountWhere(const table::Table& table, const std::string& where, std::vector<IndexHandle> indexes,
                            std::vector<std::string>* plan, ExprPtr parsed, ExprPtr bound) {
  if (!where.empty() && !parsed) {
    ASSIGN_OR_RETURN(parsed, ParseExpression(where));
  }
  if (!where.empty() && !indexes.empty()) {
    // One exact index answering the whole filter over every fragment, none with deleted rows:
    // counted from the index's directory, not a data file nor most of its leaf pages read.
    if (!bound) {
      ASSIGN_OR_RETURN(bound, Bind(*parsed, table.schema()));
    }
    std::optional<SingleIndexQuery> single = AsSingleIndexQuery(*bound, indexes);
    const table::Manifest& m = table.manifest();
    if (single && single->index->count && single->index->fragments->size() == m.fragments.size() &&
        std::all_of(m.fragments.begin(), m.fragments.end(), [&](const table::FragmentMeta& f) {
          return !f.deletion && single->index->fragments->count(f.id) > 0;
        })) {
      index::SearchCounters counters;
      ASSIGN_OR_RETURN(uint64_t n, single->index->count(single->query, &counters));
      if (plan) {
        plan->push_back("count(*) from index " + single->index->name + "'s directory: " +
                        std::to_string(counters.pages_all_match) + " " + single->index->unit + " counted whole, " +
                        std::to_string(counters.pages_selected - counters.pages_all_match) + " looked into, no data file read");
      }
      return n;
    }
  }
  ScanRequest request;
  request.where = where;
  request.parsed = parsed;
  request.count_only = true;
  request.indexes = std::move(indexes);
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(&table, request));
  uint64_t n = 0;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    n += batch.num_rows();
  }
  if (plan) {
    plan->push_back("count(*): " + std::to_string(scanner->counters().rows_read) +
                    " rows of the filter's columns read (the rest counted from statistics, indexes and deletion vectors)");
    for (const std::string& line : scanner->plan()) plan->push_back("  " + line);
  }
  return n;
}

Result<uint64_t> DeleteWhere(table::Table* table, const std::string& where, std::vector<IndexHandle> indexes) {
  if (where.empty()) return Status::InvalidArgument("delete needs a filter (to delete every row, say so: TRUE)").About("where");
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
