// create, append, delete, query, explain, versions, stats.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/table_printer.h"
#include "format/arrow/arrow.h"
#include "format/csv/csv_writer.h"
#include "format/parquet/writer.h"
#include "layout/otree/layout_writer.h"
#include "ops/operations.h"
#include "ops/read.h"
#include "query/aggregate.h"
#include "query/order.h"
#include "index/registry/registry.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/table.h"

namespace lakeindex::cli {

namespace {

constexpr size_t kTerminalRows = 40;  // query's preview on a terminal, as DuckDB's CLI shows

// ---- create / append -----------------------------------------------------------------------

struct LoadArgs {
  std::string table, from, schema;
  // CSV dialect (csv::Dialect): each one character; empty: the default or detected.
  std::string delimiter, quote, escape;  // --delimiter also takes "tab" / "\t"
  bool header = false, no_header = false;
  std::string null_string;
  bool null_given = false;           // --null was given (its value may be "")
  std::string date_format, thousands;  // --dateformat, --thousands (csv::ValueSyntax)
  uint64_t rows_per_file = 1000000;
  std::string memory_limit;          // append only: --memory-limit SIZE
  bool iceberg = false;              // create only
  std::string iceberg_location;      // create only; default: the table's own URI
  std::optional<int> iceberg_format; // create only: --iceberg-format (implies --iceberg)
};

// One character of a dialect option, or `unset` when not given ("tab" / "\t" stand for TAB).
Result<char> DialectCharacter(const std::string& text, const char* option, char unset) {
  if (text.empty()) return unset;
  if (text == "tab" || text == "\\t" || text == "\t") return '\t';
  if (text.size() != 1 || text == "\n" || text == "\r") {
    return Status::InvalidArgument(std::string(option) + " must be one character other than CR or LF (or \"tab\"), got '" +
                                   text + "'");
  }
  return text[0];
}

// The CSV dialect the options name (csv::Dialect): what is not given is the default or sniffed.
Result<csv::Dialect> DialectOf(const LoadArgs& args) {
  csv::Dialect d;
  ASSIGN_OR_RETURN(d.delimiter, DialectCharacter(args.delimiter, "--delimiter", 0));
  ASSIGN_OR_RETURN(d.quote, DialectCharacter(args.quote, "--quote", '"'));
  ASSIGN_OR_RETURN(d.escape, DialectCharacter(args.escape, "--escape", 0));
  if (d.delimiter != 0 && (d.delimiter == d.quote || d.delimiter == d.escape)) {
    return Status::InvalidArgument("--delimiter must differ from the quote and escape characters");
  }
  if (args.header && args.no_header) return Status::InvalidArgument("--header and --no-header do not go together");
  if (args.header) d.header = true;
  if (args.no_header) d.header = false;
  if (args.null_given) d.null_string = args.null_string;
  d.date_format = args.date_format;
  ASSIGN_OR_RETURN(d.thousands, DialectCharacter(args.thousands, "--thousands", 0));
  return d;
}

Status RunCreate(const LoadArgs& args) {
  std::optional<Schema> schema;
  if (!args.schema.empty()) {
    ASSIGN_OR_RETURN(schema, Schema::Parse(args.schema));
  }
  ASSIGN_OR_RETURN(csv::Dialect dialect, DialectOf(args));
  ASSIGN_OR_RETURN(auto source, table::OpenLocalFileSource(args.from, schema, dialect));
  for (const csv::CsvNote& note : source->notes()) {
    const std::string route = !note.reads_them.date_format.empty()
                                  ? "--dateformat '" + note.reads_them.date_format + "' reads them as dates"
                                  : std::string("--thousands '") + note.reads_them.thousands + "' reads them as numbers";
    std::fprintf(stderr, "note: %s; %s (or declare the column's type with --schema)\n", note.message.c_str(),
                 route.c_str());
  }
  auto progress = std::make_shared<Progress>("create " + args.table, source->total_rows());
  table::WriteConfig config = MakeWriteConfig(args.rows_per_file, progress);
  if (args.iceberg || !args.iceberg_location.empty() || args.iceberg_format) {
    config.iceberg_location = args.iceberg_location.empty() ? table::TableLocationUri(args.table) : args.iceberg_location;
    config.iceberg_format = args.iceberg_format.value_or(2);
  }
  ASSIGN_OR_RETURN(auto table, ops::CreateAt(args.table, source.get(), config));
  progress->Clear();
  std::fprintf(stderr, "created %s: version %llu, %llu rows in %zu fragments\n", args.table.c_str(),
               static_cast<unsigned long long>(table->version()),
               static_cast<unsigned long long>(table->manifest().total_rows()), table->manifest().fragments.size());
  return Status::OK();
}

Status RunAppend(const LoadArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  ASSIGN_OR_RETURN(std::optional<layout::LayoutMeta> table_layout, layout::LoadLayout(h.table->manifest()));
  const bool otree = table_layout && table_layout->is_otree();
  // An OTree table's hidden `_lakeindex_weight` is drawn at append, not read from the input.
  ASSIGN_OR_RETURN(csv::Dialect dialect, DialectOf(args));
  ASSIGN_OR_RETURN(auto source, table::OpenLocalFileSource(args.from, otree ? layout::VisibleSchema(h.table->schema()) : h.table->schema(),
                                                           dialect));
  auto progress = std::make_shared<Progress>("append " + args.table, source->total_rows());
  // Rows, their OTree blocks and their index segments: one commit (ops::Append), started over
  // from the newest version if a concurrent commit changed the tree or the schema (the file is
  // read again then).
  auto open = [&](const Schema& columns) -> Result<std::unique_ptr<table::BatchSource>> {
    if (source && source->schema() == columns) return std::move(source);
    return table::OpenLocalFileSource(args.from, columns, dialect);
  };
  table::WriteConfig config = MakeWriteConfig(args.rows_per_file, progress);
  if (!args.memory_limit.empty()) {
    ASSIGN_OR_RETURN(config.memory_limit, ParseByteSize(args.memory_limit, "--memory-limit"));
  }
  ASSIGN_OR_RETURN(ops::AppendResult result, ops::Append(h.table.get(), open, config));
  progress->Clear();
  if (result.otree) {
    std::fprintf(stderr, "placed the new rows into the OTree: %zu blocks in %zu files\n", result.layout.blocks, result.layout.files);
  }
  if (result.index_segments > 0) std::fprintf(stderr, "indexed the new fragments: %zu new segments\n", result.index_segments);
  std::fprintf(stderr, "appended %llu rows: version %llu\n", static_cast<unsigned long long>(result.rows),
               static_cast<unsigned long long>(h.table->version()));
  return Status::OK();
}

// ---- delete ---------------------------------------------------------------------------------

struct DeleteArgs {
  std::string table, where;
};

Status RunDelete(const DeleteArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table, std::nullopt, args.where));
  ASSIGN_OR_RETURN(uint64_t deleted, ops::Delete(h.table.get(), args.where));
  std::fprintf(stderr, "deleted %llu rows: version %llu\n", static_cast<unsigned long long>(deleted),
               static_cast<unsigned long long>(h.table->version()));
  return Status::OK();
}

// ---- query / explain ------------------------------------------------------------------------

struct QueryArgs {
  // format: as given; empty: from --output's extension (FormatForExtension), else "table".
  std::string table, where, select, format, output;
  std::optional<uint64_t> max_rows;  // query --format table: rows shown (0: all); default 40 on a terminal
  std::string agg, group_by;  // query only: aggregates (query/aggregate.h) and their grouping
  std::string order_by;       // query only: query/order.h
  std::optional<uint64_t> limit, version;
  uint64_t offset = 0;          // query only: rows (with --agg, groups) skipped first
  std::optional<double> sample;
  std::optional<double> error;  // query --agg only: estimate to this relative half-width
  double confidence = 0.95;     // query --agg with --sample / --error
  bool analyze = false, json = false;
};

// The read the flags ask for (ops::Read) from a table of `schema`.
Result<ops::ReadRequest> ReadRequestFrom(const QueryArgs& args, const Schema& schema) {
  ops::ReadRequest request{args.where, {}, args.sample, args.limit, args.order_by, args.offset};
  if (!args.select.empty()) {
    ASSIGN_OR_RETURN(request.select, ops::SelectColumns(schema, args.select));
  }
  return request;
}

Status WriteResult(const QueryArgs& args, const Schema& schema, const std::function<Result<bool>(Batch*)>& next);

// One batch, the whole result.
Status WriteBatch(const QueryArgs& args, Batch batch) {
  std::unique_ptr<ops::RowStream> rows = ops::RowsOf(std::move(batch));
  return WriteResult(args, rows->schema(), [&](Batch* out) { return rows->Next(out); });
}

// The aggregation `query --agg` / `explain --agg` ask for (without limit and order; the indexes
// ops::Aggregate's).
Result<query::AggregateRequest> AggregateRequestFrom(const QueryArgs& args) {
  query::AggregateRequest request;
  request.where = args.where;
  request.aggregates = args.agg;
  if (!args.group_by.empty()) {
    ASSIGN_OR_RETURN(std::vector<query::ColumnItem> items, query::ParseColumnList(args.group_by, "group_by", false));
    for (query::ColumnItem& item : items) request.group_by.push_back(std::move(item.name));
  }
  request.sample = args.sample;
  request.error = args.error;
  request.confidence = args.confidence;
  return request;
}

// query --agg [--group-by]: the filtered rows (only the columns the aggregates need) folded into
// one row, or one per group; --limit then caps the groups.
Status RunAggregate(const TableHandle& h, const QueryArgs& args) {
  if (args.agg.empty()) return Status::InvalidArgument("--group-by needs --agg (the aggregates to compute per group)");
  if (!args.select.empty()) return Status::InvalidArgument("--select and --agg do not go together: the result's columns are the --group-by columns and the aggregates");
  if (args.format == "parquet" && (args.sample || args.error)) {
    return Status::InvalidArgument("--format parquet does not take estimates; use table, csv or json");
  }
  if (args.offset > 0 && args.order_by.empty()) {
    return Status::InvalidArgument("--offset with --agg needs --order-by: groups come in no defined order without it");
  }
  ASSIGN_OR_RETURN(query::AggregateRequest request, AggregateRequestFrom(args));
  request.limit = args.limit;
  request.offset = args.offset;
  request.order_by = args.order_by;
  auto progress = std::make_unique<Progress>("aggregate " + args.table, h.table->manifest().total_rows());
  request.progress = [&progress](uint64_t rows) { progress->Update(rows); };
  h.store->counters().Reset();
  ASSIGN_OR_RETURN(query::AggregateResult result, ops::Aggregate(*h.table, request));
  progress.reset();  // the bar's line cleared before the result is printed
  if (result.estimated && args.format == "table") {
    ASSIGN_OR_RETURN(result.rows, JoinIntervals(result.rows));
  }
  RETURN_IF_ERROR(WriteBatch(args, std::move(result.rows)));
  if (result.estimated) {
    // What the estimates rest on: on stdout under a table, on stderr beside csv / json.
    const StoreCounters& io = h.store->counters();
    char line[512];
    std::snprintf(line, sizeof(line),
                  "estimated from the %s sample (%zu round%s): %llu rows aggregated, %llu rows read, %llu bytes in %llu "
                  "requests; intervals at %g%% confidence (widest ±%.3g%%); min, max and count_distinct are the "
                  "sample's own values\n",
                  FormatDouble(result.fraction).c_str(), result.rounds.size(), result.rounds.size() == 1 ? "" : "s",
                  static_cast<unsigned long long>(result.rows_aggregated), static_cast<unsigned long long>(result.rows_read),
                  static_cast<unsigned long long>(io.bytes_read.load()), static_cast<unsigned long long>(io.read_requests.load()),
                  100 * result.confidence, 100 * result.max_relative_half_width);
    std::fputs(line, args.format == "table" && args.output.empty() ? stdout : stderr);
  }
  return Status::OK();
}

Status RunQuery(const QueryArgs& given) {
  QueryArgs args = given;
  if (args.format.empty() && FileExtension(args.output) == "feather") {
    // Feather (v2) is Arrow's IPC *file* format, which readers of .feather expect; lakeindex writes
    // the IPC stream, so it says so rather than write what they cannot open (or a text table).
    return Status::InvalidArgument("--output: .feather is Arrow's IPC file format, which lakeindex does not write: "
                                   "--output FILE.arrows writes an Arrow IPC stream (pyarrow.ipc.open_stream, "
                                   "polars.read_ipc_stream)");
  }
  if (args.format.empty()) args.format = FormatForExtension(args.output);
  if (args.format.empty()) args.format = "table";
  if (args.format != "table" && args.format != "csv" && args.format != "json" && args.format != "parquet" &&
      args.format != "arrow") {
    return Status::InvalidArgument("--format must be table, csv, json, parquet or arrow");
  }
  if (args.format == "parquet" && args.output.empty()) return Status::InvalidArgument("--format parquet needs --output FILE");
  // Binary output is not for a terminal (DuckDB refuses it too).
  if (args.format == "arrow" && args.output.empty() && ::isatty(STDOUT_FILENO)) {
    return Status::InvalidArgument("--format arrow writes binary, not for a terminal: give --output FILE or pipe it to a program");
  }
  if (args.max_rows && args.format != "table") return Status::InvalidArgument("--max-rows is for --format table");
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table, args.version, args.where));
  if (!args.agg.empty() || !args.group_by.empty()) return RunAggregate(h, args);
  if (args.error) return Status::InvalidArgument("--error needs --agg: it sets how close the aggregates' estimates must be");
  ASSIGN_OR_RETURN(ops::ReadRequest request, ReadRequestFrom(args, h.table->schema()));
  ASSIGN_OR_RETURN(std::unique_ptr<ops::RowStream> rows, ops::Read(*h.table, request));
  return WriteResult(args, rows->schema(), [&](Batch* batch) { return rows->Next(batch); });
}

// Writes a result, batch by batch as `next` gives them, in args.format to stdout or args.output.
Status WriteResult(const QueryArgs& args, const Schema& schema, const std::function<Result<bool>(Batch*)>& next) {
  // To a file, csv / json / parquet stream (one batch and one row group in memory); the table
  // format needs every row's width first.
  std::unique_ptr<OutputFile> file;
  if (!args.output.empty()) {
    ASSIGN_OR_RETURN(file, OutputFile::Open(args.output));
  }
  std::unique_ptr<parquet::ParquetWriter> writer;
  arrow::IpcStreamWriter arrow_writer(schema);
  if (args.format == "parquet") {
    ASSIGN_OR_RETURN(writer, parquet::ParquetWriter::Make(schema, parquet::WriteOptions{}, file.get()));
  }
  std::string text;
  auto flush = [&]() -> Status {
    if (file) {
      RETURN_IF_ERROR(file->Append(text));
    } else if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
      return Status::IOError("cannot write to stdout");
    }
    text.clear();
    return Status::OK();
  };
  // The text table: every row to a file or a pipe (or --max-rows of them); a terminal gets a
  // preview of --max-rows rows (default 40) fitted to its width, only those rows kept.
  const bool terminal = !file && ::isatty(STDOUT_FILENO);
  TablePrinter table(schema, args.max_rows.value_or(terminal ? kTerminalRows : 0),
                     terminal ? TerminalWidth(STDOUT_FILENO) : 0);
  bool header = true;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, next(&batch));
    if (!more) break;
    if (args.format == "csv") {
      csv::WriteCsv(batch, header, &text);
      header = false;
      RETURN_IF_ERROR(flush());
    } else if (args.format == "json") {
      text += FormatJsonLines(batch);
      RETURN_IF_ERROR(flush());
    } else if (args.format == "parquet") {
      RETURN_IF_ERROR(writer->Write(batch));
    } else if (args.format == "arrow") {
      RETURN_IF_ERROR(arrow_writer.Write(batch, &text));
      RETURN_IF_ERROR(flush());
    } else {
      RETURN_IF_ERROR(table.Add(batch));  // aligned output needs every shown row's width
    }
  }
  if (args.format == "csv" && header) csv::WriteCsv(Batch(schema), true, &text);
  if (args.format == "arrow") arrow_writer.Finish(&text);
  if (args.format == "table") text = table.Finish();
  if (args.format == "parquet") {
    RETURN_IF_ERROR(writer->FinishToSink().status());
  } else {
    RETURN_IF_ERROR(flush());
  }
  return file ? file->Close() : Status::OK();
}

// explain --agg: runs the aggregation (as --analyze does a query) and tells how it was answered.
Status ExplainAggregate(const TableHandle& h, const QueryArgs& args) {
  h.store->counters().Reset();
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(query::AggregateRequest request, AggregateRequestFrom(args));
  ASSIGN_OR_RETURN(query::AggregateResult result, ops::Aggregate(*h.table, std::move(request)));
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const StoreCounters& io = h.store->counters();
  nlohmann::json j;
  j["version"] = h.table->version();
  j["aggregates"] = args.agg;
  j["plan"] = result.plan;
  j["groups"] = result.rows.num_rows();
  j["rows_aggregated"] = result.rows_aggregated;
  j["rows_read"] = result.rows_read;
  if (result.estimated) {
    j["fraction"] = result.fraction;
    j["rounds"] = result.rounds;
    j["confidence"] = result.confidence;
    j["max_relative_half_width"] = result.max_relative_half_width;
  }
  j["bytes_read"] = io.bytes_read.load();
  j["io_requests"] = io.read_requests.load();
  j["elapsed_ms"] = elapsed_ms;
  if (args.json) {
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return Status::OK();
  }
  for (const std::string& line : result.plan) std::printf("%s\n", line.c_str());
  std::printf("groups: %zu\nrows aggregated: %llu\nrows read: %llu\nbytes read: %llu in %llu requests\nelapsed: %.1f ms\n",
              result.rows.num_rows(), static_cast<unsigned long long>(result.rows_aggregated),
              static_cast<unsigned long long>(result.rows_read), static_cast<unsigned long long>(io.bytes_read.load()),
              static_cast<unsigned long long>(io.read_requests.load()), elapsed_ms);
  if (result.estimated) {
    std::string rounds;
    for (double f : result.rounds) rounds += (rounds.empty() ? "" : ", ") + FormatDouble(f);
    std::printf("sample fractions read: %s; widest interval ±%.3g%% at %g%% confidence\n", rounds.c_str(),
                100 * result.max_relative_half_width, 100 * result.confidence);
  }
  return Status::OK();
}

Status RunExplain(const QueryArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table, args.version, args.where));
  if (!args.agg.empty()) return ExplainAggregate(h, args);
  auto start = std::chrono::steady_clock::now();
  h.store->counters().Reset();
  ASSIGN_OR_RETURN(ops::ReadRequest request, ReadRequestFrom(args, h.table->schema()));
  request.order_by.clear();  // explain tells the scan's plan
  ASSIGN_OR_RETURN(std::unique_ptr<query::Scanner> scanner, ops::Explain(*h.table, request, args.analyze));
  double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const query::ScanCounters& c = scanner->counters();
  StoreCounters& io = h.store->counters();
  if (args.json) {
    nlohmann::json j = query::ExplainJson(*scanner, h.table->version(), args.analyze, io);
    if (args.analyze) j["elapsed_ms"] = elapsed_ms;
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return Status::OK();
  }
  for (const std::string& line : scanner->plan()) std::printf("%s\n", line.c_str());
  std::printf("fragments: %llu of %llu to scan\n", static_cast<unsigned long long>(c.fragments_scanned),
              static_cast<unsigned long long>(c.fragments_total));
  if (args.analyze) {
    if (c.index.pages_total > 0) {
      std::printf("index pages (btree leaf pages / zones): %llu total, %llu selected, %llu taken whole, %llu read\n",
                  static_cast<unsigned long long>(c.index.pages_total),
                  static_cast<unsigned long long>(c.index.pages_selected),
                  static_cast<unsigned long long>(c.index.pages_all_match),
                  static_cast<unsigned long long>(c.index.pages_read));
    }
    // Row groups read whole count no pages: say so instead of "pages read: 0 of 0".
    std::printf("row groups read: %llu of %llu", static_cast<unsigned long long>(c.blocks_read),
                static_cast<unsigned long long>(c.blocks_total));
    if (c.blocks_whole > 0) {
      std::printf(" (%llu of them whole: column chunks at once, not page by page)",
                  static_cast<unsigned long long>(c.blocks_whole));
    }
    std::printf("\n");
    if (c.pages_total > 0) {
      std::printf("pages read: %llu of %llu%s", static_cast<unsigned long long>(c.pages_read),
                  static_cast<unsigned long long>(c.pages_total), c.blocks_whole > 0 ? " (of the columns read page by page)" : "");
      if (c.pages_by_value > 0) {
        std::printf(" (%llu of them value by value)", static_cast<unsigned long long>(c.pages_by_value));
      }
      std::printf("\n");
    }
    std::printf("rows read: %llu\nrows returned: %llu\nbytes read: %llu in %llu requests\nelapsed: %.1f ms\n",
                static_cast<unsigned long long>(c.rows_read), static_cast<unsigned long long>(c.rows_returned),
                static_cast<unsigned long long>(io.bytes_read.load()),
                static_cast<unsigned long long>(io.read_requests.load() + io.list_requests.load()), elapsed_ms);
  }
  return Status::OK();
}

// ---- versions / stats -----------------------------------------------------------------------

struct InfoArgs {
  std::string table;
  bool json = false;  // versions: one JSON object per line; stats: one JSON object
};

// A statistic in JSON: numbers as numbers (NaN and infinities as null: JSON has none), booleans
// as booleans, everything else as the text `query` prints.
nlohmann::json JsonOf(const Value& v) {
  if (v.is_null()) return nullptr;
  if (v.type() == TypeId::kBool) return v.bool_value();
  if (IsInteger(v.type())) return v.int_value();
  if (IsFloating(v.type())) return std::isfinite(v.double_value()) ? nlohmann::json(v.double_value()) : nlohmann::json();
  if (IsDecimal(v.type())) return nlohmann::json::parse(v.ToString(), nullptr, /*allow_exceptions=*/false);
  return v.ToString();
}

std::string FormatTime(int64_t ms) {
  std::time_t t = std::time_t(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

Status RunVersions(const InfoArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  ASSIGN_OR_RETURN(auto versions, h.table->Versions());
  Batch b(*Schema::Parse("version:int64,time_utc:string,operation:string,rows:int64,fragments:int64"));
  for (const auto& v : versions) {
    b.mutable_column(0).Append<int64_t>(int64_t(v.version));
    RETURN_IF_ERROR(b.mutable_column(1).AppendString(FormatTime(v.timestamp_ms)));
    RETURN_IF_ERROR(b.mutable_column(2).AppendString(v.operation));
    b.mutable_column(3).Append<int64_t>(int64_t(v.rows));
    b.mutable_column(4).Append<int64_t>(int64_t(v.fragments));
  }
  RETURN_IF_ERROR(b.Seal());
  std::fputs((args.json ? FormatJsonLines(b) : FormatTable(b)).c_str(), stdout);
  return Status::OK();
}

// stats --json: one object (as explain --json), the fields of docs/user-guide.md.
Status PrintStatsJson(const InfoArgs& args, const table::Table& table, const ops::TableStats& stats) {
  const table::Manifest& m = table.manifest();
  nlohmann::json j;
  j["table"] = args.table;
  j["version"] = m.version;
  j["schema"] = m.schema.ToString();
  j["fragments"] = stats.fragments;
  j["rows"] = stats.rows;
  j["deleted_rows"] = stats.deleted_rows;
  j["data_bytes"] = stats.data_bytes;
  j["columns"] = nlohmann::json::array();
  for (size_t c = 0; c < m.schema.num_fields(); ++c) {
    const Field& field = m.schema.field(c);
    auto it = stats.columns.find(field.name);
    const ColumnStats total = it == stats.columns.end() ? ColumnStats() : it->second;
    j["columns"].push_back({{"column", field.name},
                            {"type", TypeName(field.type)},
                            {"min", total.min ? JsonOf(*total.min) : nlohmann::json()},
                            {"max", total.max ? JsonOf(*total.max) : nlohmann::json()},
                            {"nulls", total.null_count},
                            {"nans", total.nan_count}});
  }
  ASSIGN_OR_RETURN(std::optional<layout::LayoutMeta> meta, layout::LoadLayout(m));
  if (meta) {
    nlohmann::json l = {{"kind", meta->kind}, {"columns", meta->columns}, {"cube_rows", meta->cube_rows}};
    if (meta->is_otree()) {
      l["slices"] = meta->slices;
      l["page_rows"] = meta->page_rows;
      l["transform"] = meta->transform;
      l["revisions"] = nlohmann::json::array();
      for (const layout::Revision& rev : meta->revisions) {
        l["revisions"].push_back({{"id", rev.id}, {"depth", rev.tree.depth()}, {"cubes", rev.tree.cubes().size()}});
      }
    }
    j["layout"] = std::move(l);
  } else {
    j["layout"] = nullptr;
  }
  std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  return Status::OK();
}

Status RunStats(const InfoArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  const table::Manifest& m = h.table->manifest();
  ops::TableStats stats = ops::Stats(*h.table);
  if (args.json) return PrintStatsJson(args, *h.table, stats);
  std::printf("table: %s\nversion: %llu\nschema: %s\nfragments: %llu\nrows: %llu (%llu deleted)\ndata bytes: %llu\n",
              args.table.c_str(), static_cast<unsigned long long>(m.version), m.schema.ToString().c_str(),
              static_cast<unsigned long long>(stats.fragments), static_cast<unsigned long long>(stats.rows),
              static_cast<unsigned long long>(stats.deleted_rows), static_cast<unsigned long long>(stats.data_bytes));
  Batch b(*Schema::Parse("column:string,type:string,min:string,max:string,nulls:int64,nans:int64"));
  for (size_t c = 0; c < m.schema.num_fields(); ++c) {
    const Field& field = m.schema.field(c);
    const ColumnStats& total = stats.columns[field.name];
    RETURN_IF_ERROR(b.mutable_column(0).AppendString(field.name));
    RETURN_IF_ERROR(b.mutable_column(1).AppendString(TypeName(field.type)));
    RETURN_IF_ERROR(b.mutable_column(2).AppendValue(total.min ? Value::String(total.min->ToString()) : Value::Null(TypeId::kString)));
    RETURN_IF_ERROR(b.mutable_column(3).AppendValue(total.max ? Value::String(total.max->ToString()) : Value::Null(TypeId::kString)));
    b.mutable_column(4).Append<int64_t>(int64_t(total.null_count));
    b.mutable_column(5).Append<int64_t>(int64_t(total.nan_count));
  }
  RETURN_IF_ERROR(b.Seal());
  std::printf("\n%s", FormatTable(b).c_str());
  return PrintLayoutStats(*h.table);
}

struct FilesArgs {
  std::string table, format = "table";
  std::optional<uint64_t> version;
};

// The live data files of a version (table::Table::Files): JSON for engines, or a table / CSV of
// path, fragment, rows, live rows and deleted positions (space-separated).
Status RunFiles(const FilesArgs& args) {
  if (args.format != "table" && args.format != "csv" && args.format != "json") {
    return Status::InvalidArgument("--format must be table, csv or json");
  }
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table, args.version));
  ASSIGN_OR_RETURN(nlohmann::json files, h.table->Files(args.table));
  if (args.format == "json") {
    std::printf("%s\n", files.dump(1).c_str());
    return Status::OK();
  }
  Batch b(*Schema::Parse("path:string,fragment:int64,rows:int64,live_rows:int64,deleted:string"));
  for (const nlohmann::json& f : files) {
    std::string deleted;
    for (const nlohmann::json& p : f["deleted"]) deleted += (deleted.empty() ? "" : " ") + std::to_string(p.get<uint64_t>());
    RETURN_IF_ERROR(b.mutable_column(0).AppendString(f["path"].get<std::string>()));
    b.mutable_column(1).Append<int64_t>(f["fragment"].get<int64_t>());
    b.mutable_column(2).Append<int64_t>(f["rows"].get<int64_t>());
    b.mutable_column(3).Append<int64_t>(f["live_rows"].get<int64_t>());
    RETURN_IF_ERROR(b.mutable_column(4).AppendString(deleted));
  }
  RETURN_IF_ERROR(b.Seal());
  std::string text;
  if (args.format == "csv") csv::WriteCsv(b, true, &text);
  else text = FormatTable(b, 80);
  std::fputs(text.c_str(), stdout);
  return Status::OK();
}

struct IcebergArgs {
  std::string table, location;
  std::optional<int> format;  // --iceberg-format
};

// Starts keeping Iceberg metadata (or writes what a crash left unwritten).
Status RunIcebergEnable(const IcebergArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  const bool was = table::iceberg::Enabled(h.table->manifest());
  // --location on a table that keeps Iceberg metadata elsewhere moves it there. Data files other
  // engines would read wrong are written anew in the same commit (ops::EnableIceberg).
  auto progress = std::make_shared<Progress>("iceberg enable " + args.table, h.table->manifest().total_rows());
  Result<table::IcebergEnabled> done =
      ops::EnableIceberg(h.table.get(), args.location.empty() ? table::TableLocationUri(args.table) : args.location,
                         /*move=*/!args.location.empty(), MakeWriteConfig(1000000, progress), args.format);
  progress->Clear();  // the bar's line cleared before the report (the write config holds the bar too)
  ASSIGN_OR_RETURN(table::IcebergEnabled enabled, std::move(done));
  if (enabled.rewritten > 0) {
    std::fprintf(stderr, "rewrote %zu data files with encodings and statistics every engine reads right\n",
                 enabled.rewritten);
  }
  std::fprintf(stderr, "%s: %s Iceberg metadata at version %llu: %s (location %s)\n", args.table.c_str(),
               !was ? "now keeps" : enabled.committed ? "moved its" : "already keeps",
               static_cast<unsigned long long>(h.table->version()),
               enabled.metadata.c_str(), h.table->manifest().iceberg.value("location", "").c_str());
  if (!enabled.unwritten.ok()) {
    std::fprintf(stderr, "lakeindex: warning: version %llu is committed, but writing %s failed (%s): Iceberg readers "
                         "see it once `lakeindex iceberg enable %s` runs again or the next commit writes it\n",
                 static_cast<unsigned long long>(h.table->version()), enabled.metadata.c_str(),
                 enabled.unwritten.ToString().c_str(), args.table.c_str());
  }
  return Status::OK();
}

struct OptimizeArgs {
  std::string table;
  uint64_t rows_per_file = 1000000;
  std::string memory_limit;
};

Status RunOptimize(const OptimizeArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  auto progress = std::make_shared<Progress>("optimize " + args.table, h.table->manifest().total_rows());
  // The rewritten rows are re-indexed, and each index merged into one segment, in the same
  // commit (ops::Optimize).
  table::WriteConfig config = MakeWriteConfig(args.rows_per_file, progress);
  if (!args.memory_limit.empty()) {
    ASSIGN_OR_RETURN(config.memory_limit, ParseByteSize(args.memory_limit, "--memory-limit"));
  }
  ASSIGN_OR_RETURN(ops::OptimizeResult result, ops::Optimize(h.table.get(), std::move(config)));
  progress->Clear();
  if (result.rewritten == 0) {
    std::fprintf(stderr, "nothing to optimize: version %llu\n", static_cast<unsigned long long>(h.table->version()));
  } else {
    if (result.index_segments > 0) std::fprintf(stderr, "indexed the rewritten fragments: %zu new segments\n", result.index_segments);
    std::fprintf(stderr, "rewrote %zu fragments into %zu: version %llu\n", result.rewritten, h.table->manifest().fragments.size(),
                 static_cast<unsigned long long>(h.table->version()));
  }
  return Status::OK();
}

struct VerifyArgs {
  std::string table;
  std::optional<uint64_t> version;
  bool repair = false;
};

Status RunVerify(const VerifyArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table, args.version));
  if (args.repair) {  // first, so that the verification below tells what remains
    ASSIGN_OR_RETURN(table::iceberg::Rewritten rewritten, ops::RepairIceberg(*h.table));
    for (const std::string& file : rewritten.written) std::fprintf(stderr, "repair: wrote %s again\n", file.c_str());
    for (const std::string& file : rewritten.left) std::fprintf(stderr, "repair: left %s\n", file.c_str());
    if (!table::iceberg::Enabled(h.table->manifest())) {
      std::fprintf(stderr, "repair: the table keeps no Iceberg metadata: nothing to write again\n");
    } else if (rewritten.written.empty() && rewritten.left.empty()) {
      std::fprintf(stderr, "repair: no Iceberg metadata file of version %llu is missing\n",
                   static_cast<unsigned long long>(h.table->version()));
    }
  }
  ASSIGN_OR_RETURN(auto report, ops::Verify(*h.table));
  for (const std::string& line : report) std::printf("%s\n", line.c_str());
  std::printf("version %llu: every file verified\n", static_cast<unsigned long long>(h.table->version()));
  return Status::OK();
}

struct RecoverArgs {
  std::string table;
  uint64_t lost = 0;
};

// A table whose newest versions are lost opens with an error naming them; this accepts the loss.
Status RunRecover(const RecoverArgs& args) {
  ASSIGN_OR_RETURN(auto store, OpenTableStore(args.table, false));
  ASSIGN_OR_RETURN(uint64_t newest, table::Table::AcceptLostVersions(store.get(), args.lost));
  std::fprintf(stderr, "recover: versions %llu to %llu accepted as lost; the table goes on from version %llu (their "
                       "files are left to vacuum)\n",
               static_cast<unsigned long long>(newest + 1), static_cast<unsigned long long>(args.lost),
               static_cast<unsigned long long>(newest));
  return Status::OK();
}

struct VacuumArgs {
  std::string table;
  double older_than_hours = ops::kDefaultVacuumGraceHours;
  bool force = false;
  std::optional<uint64_t> keep_versions;
};

Status RunVacuum(const VacuumArgs& args) {
  // The library refuses these too; here they are said in the command's own flags.
  if (!(args.older_than_hours >= 0)) return Status::InvalidArgument("--older-than must be >= 0 hours");
  if (args.older_than_hours < ops::kMinVacuumGraceHours && !args.force) {
    return Status::InvalidArgument("--older-than below 1 hour may delete the files of a write still in progress "
                                   "(they become part of the table when it commits); add --force if no other process "
                                   "writes to the table");
  }
  if (args.keep_versions && *args.keep_versions == 0) {
    return Status::InvalidArgument("--keep-versions must be at least 1 (the newest version)");
  }
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  ops::VacuumOptions options;
  options.older_than_hours = args.older_than_hours;
  options.force = args.force;
  options.keep_versions = args.keep_versions;
  ASSIGN_OR_RETURN(ops::VacuumResult result, ops::Vacuum(h.table.get(), options));
  if (!result.expired.empty()) {
    std::fprintf(stderr, "vacuum: expired %zu versions (%llu to %llu): version %llu\n", result.expired.size(),
                 static_cast<unsigned long long>(result.expired.front()),
                 static_cast<unsigned long long>(result.expired.back()),
                 static_cast<unsigned long long>(h.table->version()));
  }
  for (const std::string& w : result.warnings) std::fprintf(stderr, "vacuum: warning: %s\n", w.c_str());
  for (const std::string& path : result.removed) std::printf("removed %s\n", path.c_str());
  std::fprintf(stderr, "vacuum: removed %zu unreferenced files\n", result.removed.size());
  return Status::OK();
}

struct IndexArgs {
  std::string table, name, column, type;
  std::optional<uint64_t> page_rows, zone_rows;
  std::vector<std::string> params;  // --param NAME=VALUE
  bool merge = false;
  bool json = false;  // index list: one JSON object per line
};

// `--param NAME=VALUE`'s value as JSON: a whole number, a number, true / false, or else the text.
nlohmann::json ParamValue(const std::string& text) {
  if (text == "true" || text == "false") return text == "true";
  nlohmann::json number = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (number.is_number()) return number;
  return text;
}

Status RunIndexCreate(const IndexArgs& args) {
  query::IndexOptions options;
  options.name = args.name;
  options.column = args.column;
  if (!args.column.empty() && args.column.front() == '"') {
    // "Wind Speed" in SQL's double quotes, as every option takes a name; otherwise the text is the
    // name as it is (--column 'Wind Speed' too).
    ASSIGN_OR_RETURN(std::vector<query::ColumnItem> items, query::ParseColumnList(args.column, "column", false));
    if (items.size() != 1) return Status::InvalidArgument("names one column, got " + args.column).About("column");
    options.column = items[0].name;
  }
  options.type = args.type;
  if (args.page_rows) options.params["page_rows"] = *args.page_rows;
  if (args.zone_rows) options.params["zone_rows"] = *args.zone_rows;
  std::set<std::string> by_param;
  for (const std::string& p : args.params) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("expected NAME=VALUE, got '" + p + "'").About("param");
    }
    by_param.insert(p.substr(0, eq));
    options.params[p.substr(0, eq)] = ParamValue(p.substr(eq + 1));
  }
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  auto progress = std::make_shared<Progress>("index " + args.column, h.table->manifest().total_rows());
  options.progress = [progress](const std::string& step, uint64_t done, uint64_t total) {
    progress->Step(step, total);
    progress->Update(done);
  };
  auto start = std::chrono::steady_clock::now();
  Status built = ops::CreateIndex(h.table.get(), options);
  // A kind's parameter given by --param is named so (FlagFor says "--param NAME").
  if (by_param.count(built.parameter())) built = built.About("param " + built.parameter());
  RETURN_IF_ERROR(built);
  progress->Clear();  // before the summary (options.progress holds the bar too)
  std::fprintf(stderr, "created %s index on %s in %.2f s: version %llu\n", args.type.c_str(), args.column.c_str(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
               static_cast<unsigned long long>(h.table->version()));
  return Status::OK();
}

Status RunIndexList(const IndexArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  ASSIGN_OR_RETURN(auto indexes, index::ReadIndexes(h.table->manifest()));
  Batch b(*Schema::Parse("name:string,column:string,type:string,segments:int64,covered_fragments:int64,uncovered_fragments:int64,params:string"));
  for (const auto& meta : indexes) {
    if (!args.name.empty() && meta.name != args.name) continue;
    size_t covered = meta.CoveredFragments(h.table->manifest()).size();
    RETURN_IF_ERROR(b.mutable_column(0).AppendString(meta.name));
    RETURN_IF_ERROR(b.mutable_column(1).AppendString(meta.column));
    RETURN_IF_ERROR(b.mutable_column(2).AppendString(meta.type));
    b.mutable_column(3).Append<int64_t>(int64_t(meta.segments.size()));
    b.mutable_column(4).Append<int64_t>(int64_t(covered));
    b.mutable_column(5).Append<int64_t>(int64_t(h.table->manifest().fragments.size() - covered));
    RETURN_IF_ERROR(b.mutable_column(6).AppendString(meta.params.dump()));
  }
  RETURN_IF_ERROR(b.Seal());
  if (!args.json) {
    std::printf("%s", FormatTable(b).c_str());
    return Status::OK();
  }
  // One object per line, as query --format json; params as an object.
  for (size_t r = 0; r < b.num_rows(); ++r) {
    nlohmann::json j;
    for (size_t c = 0; c + 1 < b.num_columns(); ++c) j[b.schema().field(c).name] = JsonOf(b.column(c).GetValue(r));
    j["params"] = nlohmann::json::parse(b.column(6).GetString(r), nullptr, /*allow_exceptions=*/false);
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  }
  return Status::OK();
}

Status RunIndexDrop(const IndexArgs& args) {
  if (args.name.empty()) return Status::InvalidArgument("index drop: --name is required");
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  RETURN_IF_ERROR(ops::DropIndex(h.table.get(), args.name));
  std::fprintf(stderr, "dropped index %s: version %llu\n", args.name.c_str(), static_cast<unsigned long long>(h.table->version()));
  return Status::OK();
}

Status RunIndexUpdate(const IndexArgs& args) {
  ASSIGN_OR_RETURN(TableHandle h, OpenTable(args.table));
  query::UpdateOptions options;
  options.merge = args.merge;
  ASSIGN_OR_RETURN(size_t built, ops::UpdateIndexes(h.table.get(), args.name, options));
  std::fprintf(stderr, "built %zu new segments: version %llu\n", built, static_cast<unsigned long long>(h.table->version()));
  return Status::OK();
}

// create's and append's CSV options (DialectOf reads them).
void AddDialectOptions(CLI::App* cmd, LoadArgs* args) {
  cmd->add_option("--delimiter", args->delimiter,
                  "CSV field separator: one character or \"tab\" (default: ',', or the one of ';', TAB, '|' the header uses)");
  cmd->add_option("--quote", args->quote, "CSV quote character (default '\"')");
  cmd->add_option("--escape", args->escape,
                  "CSV escape: inside quotes, it before the quote or itself stands for that character (default: the quote doubled)");
  cmd->add_flag("--header", args->header, "The first line holds the column names (default: sniffed)");
  cmd->add_flag("--no-header", args->no_header, "The first line is a record; columns are column0, column1, ... (or the schema's)");
  cmd->add_option("--null", args->null_string, "CSV fields equal to this (unquoted) are NULL, as empty ones are")
      ->each([args](const std::string&) { args->null_given = true; });
  cmd->add_option("--dateformat", args->date_format,
                  "CSV dates written so, as DuckDB's dateformat: %Y, %y, %m, %d, %b, e.g. '%m/%d/%Y' (default YYYY-MM-DD)");
  cmd->add_option("--thousands", args->thousands,
                  "A character between the digits of CSV numbers, left out when read: ',' for \"1,234.50\" (default none)");
}

}  // namespace

void AddTableCommands(CLI::App& app, CommandList* commands) {
  auto create = std::make_shared<LoadArgs>();
  auto* c = app.add_subcommand("create", "Create a table from a CSV or Parquet file");
  c->add_option("TABLE", create->table, "Table directory")->required();
  c->add_option("--from", create->from, "Input file (.csv or .parquet)")->required();
  c->add_option("--schema", create->schema, "Column types, e.g. \"id:int64,name:string\" (CSV only; default: inferred)");
  c->add_option("--rows-per-file", create->rows_per_file, "Rows per data file")->check(WholeNumber(1))->capture_default_str();
  AddDialectOptions(c, create.get());
  c->add_flag("--iceberg", create->iceberg, "Also keep Iceberg metadata (metadata/), written with every commit");
  c->add_option("--iceberg-location", create->iceberg_location,
                "The URI other engines read the table at (implies --iceberg; default: the table's own)");
  c->add_option("--iceberg-format", create->iceberg_format,
                "Iceberg format version: 2 (default), or 3: deletes as deletion vectors (implies --iceberg)")
      ->check(CLI::IsMember({2, 3}));
  commands->emplace_back(c, [create] { return RunCreate(*create); });

  auto append = std::make_shared<LoadArgs>();
  auto* a = app.add_subcommand("append", "Append the rows of a CSV or Parquet file (same schema)");
  a->add_option("TABLE", append->table, "Table directory")->required();
  a->add_option("--from", append->from, "Input file (.csv or .parquet)")->required();
  a->add_option("--rows-per-file", append->rows_per_file, "Rows per data file")->check(WholeNumber(1))->capture_default_str();
  AddDialectOptions(a, append.get());
  a->add_option("--memory-limit", append->memory_limit,
                "Memory an append into an OTree may take (512M, 2G, bytes; default a quarter of RAM, at most 2G): the input is placed a chunk at a time");
  commands->emplace_back(a, [append] { return RunAppend(*append); });

  auto del = std::make_shared<DeleteArgs>();
  auto* d = app.add_subcommand("delete", "Delete the rows matching a filter");
  d->add_option("TABLE", del->table, "Table directory")->required();
  d->add_option("--where", del->where, "SQL filter, e.g. \"id < 10 AND name LIKE 'a%'\"")->required();
  commands->emplace_back(d, [del] { return RunDelete(*del); });

  auto query = std::make_shared<QueryArgs>();
  auto* q = app.add_subcommand("query", "Select rows");
  q->add_option("TABLE", query->table, "Table directory")->required();
  q->add_option("--where", query->where, "SQL filter");
  q->add_option("--select", query->select, "Columns to return, comma-separated, \"quoted\" names too; * is every column (default: all)");
  q->add_option("--agg", query->agg, "Aggregates instead of rows: \"count(*) AS n, count(c), count(DISTINCT c), sum(c), avg(c), min(c), max(c)\"");
  q->add_option("--group-by", query->group_by, "With --agg: one result row per distinct value of these columns (comma-separated)");
  q->add_option("--sample", query->sample, "Uniform sample fraction in (0,1] (needs an OTree layout); with --agg, estimates with intervals");
  q->add_option("--error", query->error, "With --agg on an OTree table: estimate from the smallest sample whose intervals are within this relative half-width (0.01 = ±1%)");
  q->add_option("--confidence", query->confidence, "Confidence of the estimates' intervals")->capture_default_str();
  q->add_option("--order-by", query->order_by, "Order the rows (or with --agg the groups): \"col [desc], ...\" (names plain or \"quoted\"), NULLs last");
  q->add_option("--limit", query->limit, "Return at most N rows")->check(WholeNumber());
  q->add_option("--offset", query->offset, "Skip the first N rows (with --agg and --order-by: groups), as SQL's OFFSET")->check(WholeNumber());
  q->add_option("--version", query->version, "Read this version (time travel)")->check(WholeNumber());
  q->add_option("--format", query->format,
                 "table, csv, json (one object per line), parquet or arrow (an Arrow IPC stream); default: --output's "
                 "extension (.csv, .json/.jsonl/.ndjson, .parquet, .arrow/.arrows/.ipc), else table");
  q->add_option("--output", query->output, "Write to FILE instead of stdout");
  q->add_option("--max-rows", query->max_rows,
                "--format table: show at most N rows, the first and last halves (0: all; default 40 on a terminal, all "
                "to a pipe or file)")
      ->check(WholeNumber());
  commands->emplace_back(q, [query] { return RunQuery(*query); });

  auto explain = std::make_shared<QueryArgs>();
  auto* e = app.add_subcommand("explain", "Show how a query would run (--analyze: run it and count)");
  e->add_option("TABLE", explain->table, "Table directory")->required();
  e->add_option("--where", explain->where, "SQL filter");
  e->add_option("--sample", explain->sample, "Uniform sample fraction");
  e->add_option("--agg", explain->agg, "Explain these aggregates (runs them): how they are answered and what they read");
  e->add_option("--group-by", explain->group_by, "With --agg: the grouping");
  e->add_option("--error", explain->error, "With --agg: as query --error");
  e->add_option("--confidence", explain->confidence, "With --agg: as query --confidence")->capture_default_str();
  e->add_option("--version", explain->version, "Explain against this version")->check(WholeNumber());
  e->add_flag("--analyze", explain->analyze, "Run the query and report counters");
  e->add_flag("--json", explain->json, "One JSON object");
  commands->emplace_back(e, [explain] { return RunExplain(*explain); });

  auto optimize = std::make_shared<OptimizeArgs>();
  auto* o = app.add_subcommand("optimize", "Merge small fragments and fold deleted rows into rewritten files");
  o->add_option("TABLE", optimize->table, "Table directory")->required();
  o->add_option("--rows-per-file", optimize->rows_per_file, "Target rows per data file")->check(WholeNumber(1))->capture_default_str();
  o->add_option("--memory-limit", optimize->memory_limit,
                "Memory optimizing an OTree may take (512M, 2G, bytes; default a quarter of RAM, at most 2G): rows over it are spilled to the table's _tmp/");
  commands->emplace_back(o, [optimize] { return RunOptimize(*optimize); });

  auto verify = std::make_shared<VerifyArgs>();
  auto* vf = app.add_subcommand("verify", "Check every file of a version (checksums, row counts)");
  vf->add_option("TABLE", verify->table, "Table directory")->required();
  vf->add_option("--version", verify->version, "Verify this version (default: the newest)")->check(WholeNumber());
  vf->add_flag("--repair", verify->repair,
               "First write again the Iceberg metadata files of the version that the store lost (no commit, no data changed)");
  commands->emplace_back(vf, [verify] { return RunVerify(*verify); });

  auto recover = std::make_shared<RecoverArgs>();
  auto* rc = app.add_subcommand("recover", "Go on from the newest version left when the newest versions were lost");
  rc->add_option("TABLE", recover->table, "Table directory")->required();
  rc->add_option("--accept-lost-version", recover->lost,
                 "The lost version an open named (the table then goes on from the newest version left)")
      ->required()->check(WholeNumber(1));
  commands->emplace_back(rc, [recover] { return RunRecover(*recover); });

  auto vacuum = std::make_shared<VacuumArgs>();
  auto* vc = app.add_subcommand("vacuum", "Remove files no version references (left by failed or killed writers)");
  vc->add_option("TABLE", vacuum->table, "Table directory")->required();
  vc->add_option("--older-than", vacuum->older_than_hours,
                 "Only files older than this many hours (protects writers about to commit)")->capture_default_str();
  vc->add_flag("--force", vacuum->force, "Allow --older-than below 1 hour (no other process may be writing)");
  vc->add_option("--keep-versions", vacuum->keep_versions,
                 "Also expire versions, in one commit: keep the newest N counting that new version (and every one younger than "
                 "--older-than), remove the rest and their files")
      ->check(WholeNumber());
  commands->emplace_back(vc, [vacuum] { return RunVacuum(*vacuum); });

  auto* idx = app.add_subcommand("index", "Create, list, update or drop scalar indexes (" + index::IndexKindNames() + ")");
  idx->require_subcommand(1);
  auto icreate = std::make_shared<IndexArgs>();
  auto* ic = idx->add_subcommand("create", "Build an index over every fragment");
  ic->add_option("TABLE", icreate->table, "Table directory")->required();
  ic->add_option("--column", icreate->column, "Indexed column")->required();
  std::string kinds = "Index kind:";
  for (const index::IndexKind* kind : index::IndexKinds()) kinds += "\n  " + std::string(kind->name()) + ": " + std::string(kind->summary());
  ic->add_option("--type", icreate->type, kinds)->required();
  ic->add_option("--name", icreate->name, "Index name (default COLUMN_TYPE)");
  ic->add_option("--page-rows", icreate->page_rows, "btree: rows per leaf page (default 4096)")->check(WholeNumber(1));
  ic->add_option("--zone-rows", icreate->zone_rows, "zonemap: rows per zone (default 8192)")->check(WholeNumber(1));
  ic->add_option("--param", icreate->params,
                 "A parameter of the kind, NAME=VALUE (repeatable), e.g. max_values=1000 for a bitmap")
      ->allow_extra_args(false);
  commands->emplace_back(ic, [icreate] { return RunIndexCreate(*icreate); });
  auto ilist = std::make_shared<IndexArgs>();
  auto* il = idx->add_subcommand("list", "List the table's indexes");
  il->add_option("TABLE", ilist->table, "Table directory")->required();
  il->add_option("--name", ilist->name, "Only this index");
  il->add_flag("--json", ilist->json, "One JSON object per index, one per line");
  commands->emplace_back(il, [ilist] { return RunIndexList(*ilist); });
  auto iupdate = std::make_shared<IndexArgs>();
  auto* iu = idx->add_subcommand("update", "Index the fragments appended or rewritten since the index was built");
  iu->add_option("TABLE", iupdate->table, "Table directory")->required();
  iu->add_option("--name", iupdate->name, "Only this index (default: all)");
  iu->add_flag("--merge", iupdate->merge, "Also merge each index's segments into one");
  commands->emplace_back(iu, [iupdate] { return RunIndexUpdate(*iupdate); });
  auto idrop = std::make_shared<IndexArgs>();
  auto* id = idx->add_subcommand("drop", "Remove an index from the next version");
  id->add_option("TABLE", idrop->table, "Table directory")->required();
  id->add_option("--name", idrop->name, "Index name")->required();
  commands->emplace_back(id, [idrop] { return RunIndexDrop(*idrop); });

  auto versions = std::make_shared<InfoArgs>();
  auto* v = app.add_subcommand("versions", "List the table's versions");
  v->add_option("TABLE", versions->table, "Table directory")->required();
  v->add_flag("--json", versions->json, "One JSON object per version, one per line");
  commands->emplace_back(v, [versions] { return RunVersions(*versions); });

  auto ice = std::make_shared<IcebergArgs>();
  auto* ig = app.add_subcommand("iceberg", "Iceberg metadata for engines that read Iceberg tables");
  ig->require_subcommand(1);
  auto* ie = ig->add_subcommand("enable", "Keep Iceberg metadata from now on (written for the current version at once)");
  ie->add_option("TABLE", ice->table, "Table directory")->required();
  ie->add_option("--location", ice->location, "The URI other engines read the table at (default: the table's own)");
  ie->add_option("--iceberg-format", ice->format,
                 "Iceberg format version: 2 or 3 (deletes as deletion vectors); default 2, or the one the table keeps")
      ->check(CLI::IsMember({2, 3}));
  commands->emplace_back(ie, [ice] { return RunIcebergEnable(*ice); });

  auto files = std::make_shared<FilesArgs>();
  auto* fl = app.add_subcommand("files", "List a version's live data files: rows, deleted positions, statistics");
  fl->add_option("TABLE", files->table, "Table directory")->required();
  fl->add_option("--version", files->version, "Version (default: the newest)")->check(WholeNumber());
  fl->add_option("--format", files->format, "table, csv or json (with column statistics)")->capture_default_str();
  commands->emplace_back(fl, [files] { return RunFiles(*files); });

  auto stats = std::make_shared<InfoArgs>();
  auto* s = app.add_subcommand("stats", "Show the table's size and column statistics");
  s->add_option("TABLE", stats->table, "Table directory")->required();
  s->add_flag("--json", stats->json, "One JSON object");
  commands->emplace_back(s, [stats] { return RunStats(*stats); });
}

}  // namespace lakeindex::cli
