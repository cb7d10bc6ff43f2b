// `lakeindex demo` (what `make demo` runs): the first thing a newcomer sees. It builds the table
// the README talks about from generated events data, then runs a short tour of queries, each
// twice: on the indexed OTree table (the newest version) and as a full scan of the plain files
// (version 1, read by time travel, no index), printing the answer and what each way read.
// The two answers must be equal (the demo fails otherwise), so the demo is also a check.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "format/csv/csv_writer.h"
#include "layout/otree/layout_writer.h"
#include "lakeindex/events.h"
#include "ops/operations.h"
#include "ops/read.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "query/select_list.h"
#include "table/batch_source.h"
#include "table/table.h"

namespace lakeindex::cli {

namespace {

struct DemoArgs {
  uint64_t rows = 2000000;
  std::string dir = "lakeindex-demo";
};

constexpr double kSampleFraction = 0.01;
constexpr size_t kAnswerRowsShown = 5;

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// 1234567 -> "1,234,567".
std::string Bytes(uint64_t n) {
  char buf[32];
  if (n < (1 << 20)) {
    std::snprintf(buf, sizeof(buf), "%.1f KiB", double(n) / 1024);
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f MiB", double(n) / (1 << 20));
  }
  return buf;
}

// "1,234x fewer rows" / "2.5x more bytes": `ours` against `baseline`.
std::string Compared(uint64_t baseline, uint64_t ours, const std::string& noun) {
  if (ours == 0) return "no " + noun;
  const bool fewer = ours <= baseline;
  const double r = fewer ? double(baseline) / double(ours) : double(ours) / double(std::max<uint64_t>(baseline, 1));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1fx", r);
  std::string times = r >= 100 ? Grouped(uint64_t(std::llround(r))) + "x" : std::string(buf);
  return times + (fewer ? " fewer " : " more ") + noun;
}

// Where the demo's table lives and which version is the plain one (the full-scan baseline).
struct DemoTable {
  std::string dir;
  std::shared_ptr<InstrumentedStore> store;
  uint64_t plain_version = 1;
};

// What one query returned and read.
struct Measured {
  Batch answer;
  uint64_t version = 0;
  uint64_t rows_read = 0, bytes_read = 0, requests = 0;
  double ms = 0;
};

// Runs `request` the way `explain --analyze` counts it: the table (the newest version, or
// `version`) is opened anew, and the counters start after the open; with `indexes`, the indexes
// every read uses (ops::PlanFilter) are offered to the planner.
Result<Measured> Measure(const DemoTable& t, std::optional<uint64_t> version, bool indexes, query::ScanRequest request) {
  ASSIGN_OR_RETURN(auto table, table::Table::Open(t.store, version));
  t.store->counters().Reset();
  auto start = Clock::now();
  if (indexes) {
    ASSIGN_OR_RETURN(ops::PlannedFilter planned, ops::PlanFilter(*table, request.where));
    request.parsed = planned.parsed;
    request.indexes = std::move(planned.indexes);
  }
  ASSIGN_OR_RETURN(auto scanner, query::Scanner::Make(table.get(), request));
  Measured m;
  m.answer = Batch(scanner->schema());
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    RETURN_IF_ERROR(m.answer.Append(batch));
  }
  m.ms = 1000 * SecondsSince(start);
  m.version = table->version();
  m.rows_read = scanner->counters().rows_read;
  m.bytes_read = t.store->counters().bytes_read.load();
  m.requests = t.store->counters().read_requests.load() + t.store->counters().list_requests.load();
  return m;
}

// The rows as sorted CSV lines, to compare answers whatever their order.
std::vector<std::string> SortedRows(const Batch& batch) {
  std::string text;
  csv::WriteCsv(batch, /*header=*/false, &text);
  std::vector<std::string> rows;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    rows.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

void PrintReads(const Measured& indexed, const std::string& indexed_label, const Measured& full) {
  std::printf("     %-32s %12s %12s %9s %10s\n", "", "rows read", "bytes read", "requests", "time");
  for (const auto& [label, m] : {std::pair<std::string, const Measured*>{indexed_label, &indexed},
                                 {"full scan (version " + std::to_string(full.version) + ", no index)", &full}}) {
    std::printf("     %-32s %12s %12s %9s %8.1f ms\n", label.c_str(), Grouped(m->rows_read).c_str(),
                Bytes(m->bytes_read).c_str(), Grouped(m->requests).c_str(), m->ms);
  }
}

// One stop of the tour: the command, the first rows of the answer, and what the indexed OTree
// table and a full scan of the plain version read. Internal error if the answers differ.
Status TourQuery(const DemoTable& t, int number, const std::string& title, const std::string& where,
                 const std::string& select) {
  std::printf("%d. %s\n   $ lakeindex query %s --where \"%s\" --select %s\n", number, title.c_str(), t.dir.c_str(),
              where.c_str(), select.c_str());
  query::ScanRequest request;
  request.where = where;
  ASSIGN_OR_RETURN(std::vector<query::ColumnItem> items, query::ParseColumnList(select, "select", false));
  for (query::ColumnItem& item : items) request.select.push_back(std::move(item.name));
  ASSIGN_OR_RETURN(Measured indexed, Measure(t, std::nullopt, /*indexes=*/true, request));
  ASSIGN_OR_RETURN(Measured full, Measure(t, t.plain_version, /*indexes=*/false, request));
  if (SortedRows(indexed.answer) != SortedRows(full.answer)) {
    return Status::Internal("demo: '" + where + "' returned " + std::to_string(indexed.answer.num_rows()) +
                            " rows from the indexes but " + std::to_string(full.answer.num_rows()) +
                            " from a full scan");
  }
  const size_t n = indexed.answer.num_rows();
  std::string shown = FormatTable(indexed.answer.Slice(0, std::min(n, kAnswerRowsShown)));
  for (size_t at = 0; at < shown.size();) {  // indent the answer under the command
    size_t end = shown.find('\n', at);
    std::printf("   %s\n", shown.substr(at, end - at).c_str());
    at = end == std::string::npos ? shown.size() : end + 1;
  }
  std::printf("   (%s row%s%s)\n", Grouped(n).c_str(), n == 1 ? "" : "s",
              n > kAnswerRowsShown ? (", first " + std::to_string(kAnswerRowsShown) + " shown").c_str() : "");
  PrintReads(indexed, "indexed (version " + std::to_string(indexed.version) + ")", full);
  std::printf("     same answer both ways; %s and %s read\n\n", Compared(full.rows_read, indexed.rows_read, "rows").c_str(),
              Compared(full.bytes_read, indexed.bytes_read, "bytes").c_str());
  return Status::OK();
}

// The mean of an int64 column (NULLs skipped; 0 when there are no values).
double Mean(const Column& c) {
  uint64_t count = 0;
  double sum = 0;
  for (size_t i = 0; i < c.length(); ++i) {
    if (c.IsNull(i)) continue;
    ++count;
    sum += double(c.Get<int64_t>(i));
  }
  return count ? sum / double(count) : 0.0;
}

// The last stop: a uniform sample of the OTree (rows with `_lakeindex_weight` below the fraction, reading
// only the blocks whose weights start below it) estimates a count and a mean; the exact values
// come from a full scan.
Status TourSample(const DemoTable& t, int number) {
  std::printf("%d. A %.0f%% uniform sample, for estimates: the row count and the mean score\n"
              "   $ lakeindex query %s --sample %g --select score\n",
              number, 100 * kSampleFraction, t.dir.c_str(), kSampleFraction);
  query::ScanRequest request;
  request.select = {"score"};
  query::ScanRequest sampled = request;
  sampled.sample = kSampleFraction;
  ASSIGN_OR_RETURN(Measured sample, Measure(t, std::nullopt, /*indexes=*/false, sampled));
  ASSIGN_OR_RETURN(Measured full, Measure(t, t.plain_version, /*indexes=*/false, request));
  const double sample_mean = Mean(sample.answer.column(0)), mean = Mean(full.answer.column(0));
  const double estimated_rows = double(sample.answer.num_rows()) / kSampleFraction;
  const double exact_rows = double(full.answer.num_rows());
  auto error = [](double estimate, double exact) { return exact == 0 ? 0.0 : 100 * std::fabs(estimate - exact) / exact; };
  std::printf("   %s sampled rows\n", Grouped(sample.answer.num_rows()).c_str());
  std::printf("     %-32s %14s %14s %8s\n", "", "estimate", "exact", "error");
  std::printf("     %-32s %14s %14s %7.2f%%\n", "rows (sampled rows / f)", Grouped(uint64_t(estimated_rows)).c_str(),
              Grouped(uint64_t(exact_rows)).c_str(), error(estimated_rows, exact_rows));
  std::printf("     %-32s %14.1f %14.1f %7.2f%%\n", "mean score", sample_mean, mean, error(sample_mean, mean));
  PrintReads(sample, "sample (version " + std::to_string(sample.version) + ")", full);
  std::printf("     the sample read %s and %s than the full scan\n\n", Compared(full.rows_read, sample.rows_read, "rows").c_str(),
              Compared(full.bytes_read, sample.bytes_read, "bytes").c_str());
  return Status::OK();
}

// Prints "[k/n] what: $ lakeindex command" before a step (flushed: progress bars follow on stderr).
void StepHeader(int step, int steps, const std::string& what, const std::string& command) {
  std::printf("[%d/%d] %s\n      $ lakeindex %s\n", step, steps, what.c_str(), command.c_str());
  std::fflush(stdout);
}

// The table directory of a previous run is replaced; anything else there is left alone.
Status ClearOldTable(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return Status::OK();
  if (!std::filesystem::is_directory(std::filesystem::path(dir) / "_versions", ec)) {
    return Status::InvalidArgument("'" + dir + "' exists and is not a lakeindex table: choose another --dir");
  }
  std::filesystem::remove_all(dir, ec);
  if (ec) return Status::IOError("cannot remove the previous demo table '" + dir + "': " + ec.message());
  return Status::OK();
}

Status CreateIndexStep(table::Table* table, int step, int steps, const std::string& dir, const std::string& column,
                       const std::string& type, const std::string& why) {
  StepHeader(step, steps, why, "index create " + dir + " --column " + column + " --type " + type);
  query::IndexOptions options;
  options.column = column;
  options.type = type;
  auto start = Clock::now();
  RETURN_IF_ERROR(ops::CreateIndex(table, options));
  std::printf("      built in %.2f s: version %llu\n", SecondsSince(start),
              static_cast<unsigned long long>(table->version()));
  return Status::OK();
}

Status RunDemo(const DemoArgs& args) {
  if (args.rows == 0) return Status::InvalidArgument("--rows must be at least 1");
  const auto demo_start = Clock::now();
  std::error_code ec;
  std::filesystem::create_directories(args.dir, ec);
  if (ec) return Status::IOError("cannot create demo directory '" + args.dir + "': " + ec.message());
  const std::string events = (std::filesystem::path(args.dir) / "events.parquet").string();
  DemoTable t;
  t.dir = (std::filesystem::path(args.dir) / "events").string();
  RETURN_IF_ERROR(ClearOldTable(t.dir));
  std::printf("lakeindex demo: a table of %s generated events (id, x, y, z, score, category, name, ts, maybe)\n"
              "in %s/, its indexes and OTree layout, then a tour of queries.\n\n",
              Grouped(args.rows).c_str(), args.dir.c_str());
  constexpr int kSteps = 6;
  const std::string rows = std::to_string(args.rows);

  StepHeader(1, kSteps, "Generate the events data set (our Parquet writer: ZSTD, statistics, page index)",
             "gen --rows " + rows + " --output " + events);
  auto start = Clock::now();
  RETURN_IF_ERROR(WriteEvents(args.rows, /*seed=*/42, events));
  std::error_code size_error;
  const uint64_t file_size = std::filesystem::file_size(events, size_error);
  if (size_error) return Status::IOError("cannot stat '" + events + "': " + size_error.message());
  std::printf("      %s in %.2f s\n", Bytes(file_size).c_str(), SecondsSince(start));

  StepHeader(2, kSteps, "Create a table from it (version 1: plain Parquet files, the full-scan baseline below)",
             "create " + t.dir + " --from " + events);
  ASSIGN_OR_RETURN(t.store, OpenTableStore(t.dir, /*create=*/true));
  ASSIGN_OR_RETURN(auto source, table::OpenLocalFileSource(events, std::nullopt));
  start = Clock::now();
  auto progress = std::make_shared<Progress>("create", source->total_rows());
  ASSIGN_OR_RETURN(auto table, ops::Create(t.store, source.get(), MakeWriteConfig(1000000, progress)));
  progress.reset();
  t.plain_version = table->version();
  std::printf("      %s rows in %zu files in %.2f s: version %llu\n", Grouped(table->manifest().total_rows()).c_str(),
              table->manifest().fragments.size(), SecondsSince(start), static_cast<unsigned long long>(table->version()));

  RETURN_IF_ERROR(CreateIndexStep(table.get(), 3, kSteps, t.dir, "score", "btree",
                                  "BTree on score: exact answers to =, ranges, IN, IS NULL"));
  RETURN_IF_ERROR(CreateIndexStep(table.get(), 4, kSteps, t.dir, "name", "btree", "BTree on name: LIKE 'prefix%' too"));
  RETURN_IF_ERROR(CreateIndexStep(table.get(), 5, kSteps, t.dir, "ts", "zonemap",
                                  "Zone map on ts: min/max per 8192 rows, prunes scans of clustered columns"));

  StepHeader(6, kSteps, "Lay the table out as an OTree on (x, y): cubes of a recursive split of the plane",
             "layout " + t.dir + " --otree x,y");
  layout::LayoutOptions options;
  options.columns = {"x", "y"};
  progress = std::make_shared<Progress>("layout", table->manifest().total_rows());
  options.write = MakeWriteConfig(1000000, progress);
  options.progress = [progress](const std::string&, uint64_t done, uint64_t) { progress->Update(done); };
  start = Clock::now();
  ASSIGN_OR_RETURN(ops::LayoutResult laid, ops::Layout(table.get(), options));  // re-indexed in the same commit
  const layout::LayoutReport& report = laid.report;
  const size_t segments = laid.index_segments;
  options = layout::LayoutOptions();  // drops the callbacks' references: the bar is cleared now
  progress.reset();
  std::printf("      %s rows in %zu cubes (depth %d), %zu files, in %.2f s; the indexes now cover the new files "
              "(%zu segments rebuilt): version %llu\n\n",
              Grouped(report.rows).c_str(), report.cubes, report.depth, report.files, SecondsSince(start), segments,
              static_cast<unsigned long long>(table->version()));

  std::printf("The tour. Each query runs on the newest version (indexes, OTree) and as a full scan of version %llu\n"
              "(the plain files, no index: `--version %llu`); the answers are compared. Both are timed from a cold\n"
              "open, so bytes read include the manifest and each file's footer and page index (large in OTree\n"
              "files: their pages hold 64 rows).\n\n",
              static_cast<unsigned long long>(t.plain_version), static_cast<unsigned long long>(t.plain_version));
  // A score and a name that exist: those of the first generated row.
  EventsGenerator gen(args.rows, /*seed=*/42);
  Batch first;
  gen.Next(1, &first);
  const int64_t score = first.FindColumn("score")->Get<int64_t>(0);
  const std::string prefix(first.FindColumn("name")->GetString(0).substr(0, 3));
  RETURN_IF_ERROR(TourQuery(t, 1, "Point lookup (btree on score)", "score = " + std::to_string(score), "id,score,name,x,y"));
  RETURN_IF_ERROR(TourQuery(t, 2, "Range, 0.1% of the scores (btree on score)", "score BETWEEN 250000 AND 250999",
                            "id,score"));
  RETURN_IF_ERROR(TourQuery(t, 3, "Prefix (btree on name)", "name LIKE '" + prefix + "%'", "id,name,score"));
  const std::string box = "x BETWEEN 100 AND 130 AND y BETWEEN 700 AND 730";
  RETURN_IF_ERROR(TourQuery(t, 4, "2-D box, 0.09% of the plane (OTree on x, y: only the cubes it meets)", box, "id,x,y"));
  RETURN_IF_ERROR(TourSample(t, 5));

  const std::string svg = (std::filesystem::path(args.dir) / "cubes.svg").string();
  ASSIGN_OR_RETURN(PlotSummary plot, WriteCubesSvg(*table, box, svg));
  std::printf("Plot: %s (open it in a browser): the %zu cubes of the OTree, the box of query 4 in red,\n"
              "the %zu cubes it reads in orange ($ lakeindex plot %s --output %s --where \"%s\").\n\n",
              svg.c_str(), plot.cubes, plot.cubes_read, t.dir.c_str(), svg.c_str(), box.c_str());
  std::printf("Done in %.1f s. Try: build/lakeindex explain %s --where \"score < 100\" --analyze\n"
              "     build/lakeindex stats %s ; build/lakeindex versions %s   (README.md, docs/user-guide.md)\n",
              SecondsSince(demo_start), t.dir.c_str(), t.dir.c_str(), t.dir.c_str());
  return Status::OK();
}

}  // namespace

void AddDemoCommand(CLI::App& app, CommandList* commands) {
  auto demo = std::make_shared<DemoArgs>();
  auto* cmd = app.add_subcommand("demo", "Build an indexed OTree table from generated data and tour its queries");
  cmd->add_option("--rows", demo->rows, "Rows of generated events data")->check(WholeNumber(1))->capture_default_str();
  cmd->add_option("--dir", demo->dir, "Directory for the demo's files (the table is DIR/events)")->capture_default_str();
  commands->emplace_back(cmd, [demo] { return RunDemo(*demo); });
}

}  // namespace lakeindex::cli
