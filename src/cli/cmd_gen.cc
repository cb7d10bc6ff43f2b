// `lakeindex gen` and `lakeindex demo`.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include <memory>
#include "cli/output.h"
#include "format/csv/csv_writer.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "lakeindex/events.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/batch_source.h"
#include "table/table.h"

namespace lakeindex::cli {

namespace {
constexpr size_t kGenChunkRows = 64 * 1024;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Writes the events rows to `path` as Parquet or CSV, by the file's extension.
Status WriteEvents(uint64_t rows, uint64_t seed, const std::string& path) {
  std::string ext = FileExtension(path);
  if (ext != "parquet" && ext != "csv") {
    return Status::InvalidArgument("--output '" + path + "': expected a .csv or .parquet file name");
  }
  EventsGenerator gen(rows, seed);
  Progress progress("gen " + path, rows);
  Batch batch;
  std::string bytes;
  if (ext == "parquet") {
    ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Make(EventsGenerator::EventsSchema(), parquet::WriteOptions{}));
    while (gen.Next(kGenChunkRows, &batch)) {
      RETURN_IF_ERROR(writer->Write(batch));
      progress.Update(rows - gen.rows_left());
    }
    ASSIGN_OR_RETURN(bytes, writer->Finish());
  } else {
    bool header = true;
    while (gen.Next(kGenChunkRows, &batch) || header) {
      if (batch.num_columns() == 0) batch = Batch(EventsGenerator::EventsSchema());
      csv::WriteCsv(batch, header, &bytes);
      header = false;
      batch = Batch();
      progress.Update(rows - gen.rows_left());
    }
  }
  return WriteOutputFile(path, bytes);
}
}  // namespace

namespace {
struct GenArgs {
  uint64_t rows = 1000000;
  std::string output;
  uint64_t seed = 42;
};
struct DemoArgs {
  uint64_t rows = 1000000;
  std::string dir = "lakeindex-demo";
};
}  // namespace

static Status RunGen(const GenArgs& args) {
  return WriteEvents(args.rows, args.seed, args.output);
}

static Status RunDemo(const DemoArgs& args) {
  std::error_code ec;
  std::filesystem::create_directories(args.dir, ec);
  if (ec) return Status::IOError("cannot create demo directory '" + args.dir + "': " + ec.message());
  std::string path = (std::filesystem::path(args.dir) / "events.parquet").string();
  ASSIGN_OR_RETURN(FileRef ref, OpenFileRef(path));

  std::printf("lakeindex demo: %llu rows of the generated 'events' data set in %s\n",
              static_cast<unsigned long long>(args.rows), args.dir.c_str());
  auto start = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(WriteEvents(args.rows, /*seed=*/42, path));
  double write_s = SecondsSince(start);
  ASSIGN_OR_RETURN(uint64_t file_size, ref.store->Size(ref.key));
  std::printf("wrote %s: %.1f MiB in %.2f s (our Parquet writer, ZSTD, statistics + page index)\n", path.c_str(),
              double(file_size) / (1 << 20), write_s);

  start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(ref.store.get(), ref.key));
  std::vector<int> all_columns;
  for (size_t c = 0; c < reader->schema().num_fields(); ++c) all_columns.push_back(int(c));
  ASSIGN_OR_RETURN(Batch back, reader->ReadAll(all_columns));
  double read_s = SecondsSince(start);
  std::printf("read it back: %zu rows, %d row groups in %.2f s\n", back.num_rows(), reader->num_row_groups(), read_s);

  // Check every value against a second run of the generator: the demo proves the round trip.
  EventsGenerator gen(args.rows, 42);
  Batch expected;
  size_t at = 0;
  while (gen.Next(kGenChunkRows, &expected)) {
    if (!back.Slice(at, expected.num_rows()).Equals(expected)) {
      return Status::Internal("demo: rows " + std::to_string(at) + ".." + std::to_string(at + expected.num_rows()) +
                              " read back differ from what was written");
    }
    at += expected.num_rows();
  }
  if (at != back.num_rows()) return Status::Internal("demo: row count differs after the round trip");
  std::printf("every value read back equals what was written\n\n");

  // The table: fragments of a quarter of the rows, queried with SQL filters.
  std::string table_dir = (std::filesystem::path(args.dir) / "events_table").string();
  std::filesystem::remove_all(table_dir, ec);
  ASSIGN_OR_RETURN(std::unique_ptr<ObjectStore> local, OpenLocalStore(table_dir));
  auto store = std::make_shared<InstrumentedStore>(std::shared_ptr<ObjectStore>(std::move(local)));
  ASSIGN_OR_RETURN(auto source, table::OpenFileSource(ref.store.get(), ref.key, std::nullopt, path));
  table::WriteConfig config;
  config.rows_per_file = std::max<uint64_t>(1, args.rows / 4);
  start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(auto table, table::Table::Create(store, source.get(), config));
  std::printf("created table %s: version %llu, %zu fragments, in %.2f s\n\n", table_dir.c_str(),
              static_cast<unsigned long long>(table->version()), table->manifest().fragments.size(), SecondsSince(start));

  auto run = [&](const std::string& where, const std::string& select, uint64_t limit) -> Status {
    query::ScanRequest request;
    request.where = where;
    request.select = SplitList(select);
    request.limit = limit;
    ASSIGN_OR_RETURN(request.indexes, query::OpenIndexes(*table, {}));
    store->counters().Reset();
    auto t0 = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(auto scanner, query::Scanner::Make(table.get(), request));
    Batch all(scanner->schema()), batch;
    while (true) {
      ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
      if (!more) break;
      RETURN_IF_ERROR(all.Append(batch));
    }
    const query::ScanCounters& c = scanner->counters();
    std::printf("$ lakeindex query %s --where \"%s\" --select %s --limit %llu\n%s", table_dir.c_str(), where.c_str(),
                select.c_str(), static_cast<unsigned long long>(limit), FormatTable(all).c_str());
    std::printf("  fragments scanned %llu/%llu, row groups %llu/%llu, pages %llu, rows read %llu, %llu bytes in %llu requests, "
                "%.1f ms\n\n",
                static_cast<unsigned long long>(c.fragments_scanned), static_cast<unsigned long long>(c.fragments_total),
                static_cast<unsigned long long>(c.blocks_read), static_cast<unsigned long long>(c.blocks_total),
                static_cast<unsigned long long>(c.pages_read), static_cast<unsigned long long>(c.rows_read),
                static_cast<unsigned long long>(store->counters().bytes_read.load()),
                static_cast<unsigned long long>(store->counters().read_requests.load()),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    return Status::OK();
  };
  RETURN_IF_ERROR(run("x < 10 AND y < 10", "id,x,y,category", 5));
  RETURN_IF_ERROR(run("category = 'cat_007' AND maybe IS NULL AND name LIKE 'ab%'", "id,name,ts,maybe", 5));
  RETURN_IF_ERROR(run("id BETWEEN 1000 AND 1004", "id,score,ts", 10));

  // The same lookup with a BTree index on id: only the leaf pages and data pages of 5 rows are read.
  {
    query::IndexOptions options;
    options.column = "id";
    options.type = "btree";
    auto t0 = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(query::CreateIndex(table.get(), options));
    std::printf("$ lakeindex index create %s --column id --type btree\n  built in %.2f s: version %llu\n\n",
                table_dir.c_str(), SecondsSince(t0), static_cast<unsigned long long>(table->version()));
  }
  RETURN_IF_ERROR(run("id BETWEEN 1000 AND 1004", "id,score,ts", 10));
  RETURN_IF_ERROR(run("id IN (7, 42, 999) OR id = 123456", "id,category,name", 10));

  // Delete, then read the old version again (time travel).
  {
    ASSIGN_OR_RETURN(uint64_t deleted, query::DeleteWhere(table.get(), "score < 1000"));
    std::printf("$ lakeindex delete %s --where \"score < 1000\"\n  deleted %llu rows: version %llu has %llu rows; "
                "version 1 still has %llu (time travel: --version 1)\n",
                table_dir.c_str(), static_cast<unsigned long long>(deleted),
                static_cast<unsigned long long>(table->version()),
                static_cast<unsigned long long>(table->manifest().total_rows()), static_cast<unsigned long long>(args.rows));
  }
  std::printf("\nTry: build/lakeindex query %s --where \"...\" | explain --analyze | versions | stats\n", table_dir.c_str());
  return Status::OK();
}

void AddDataCommands(CLI::App& app, CommandList* commands) {
  auto gen = std::make_shared<GenArgs>();
  auto* gen_cmd = app.add_subcommand("gen", "Write the generated 'events' data set to a CSV or Parquet file");
  gen_cmd->add_option("--rows", gen->rows, "Number of rows")->required();
  gen_cmd->add_option("--output", gen->output, "Output file (.csv or .parquet)")->required();
  gen_cmd->add_option("--seed", gen->seed, "Random seed (same seed, same rows)")->capture_default_str();
  commands->emplace_back(gen_cmd, [gen] { return RunGen(*gen); });

  auto demo = std::make_shared<DemoArgs>();
  auto* demo_cmd = app.add_subcommand("demo", "Run the main job on built-in generated data");
  demo_cmd->add_option("--rows", demo->rows, "Rows of generated events data")->capture_default_str();
  demo_cmd->add_option("--dir", demo->dir, "Working directory for the demo's files")->capture_default_str();
  commands->emplace_back(demo_cmd, [demo] { return RunDemo(*demo); });
}

}  // namespace lakeindex::cli
