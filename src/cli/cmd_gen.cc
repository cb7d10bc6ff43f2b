// `lakeindex gen`: the events data set as a file.
#include <memory>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "format/csv/csv_writer.h"
#include "format/parquet/writer.h"
#include "lakeindex/events.h"

namespace lakeindex::cli {

namespace {
constexpr size_t kGenChunkRows = 64 * 1024;
}  // namespace

Status WriteEvents(uint64_t rows, uint64_t seed, const std::string& path) {
  std::string ext = FileExtension(path);
  if (ext != "parquet" && ext != "csv") {
    return Status::InvalidArgument("--output '" + path + "': expected a .csv or .parquet file name");
  }
  EventsGenerator gen(rows, seed);
  Progress progress("gen " + path, rows);
  // Streamed: one chunk of rows and one row group in memory, whatever --rows says.
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> out, OutputFile::Open(path));
  Batch batch;
  if (ext == "parquet") {
    ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Make(EventsGenerator::EventsSchema(), parquet::WriteOptions{}, out.get()));
    while (gen.Next(kGenChunkRows, &batch)) {
      RETURN_IF_ERROR(writer->Write(batch));
      progress.Update(rows - gen.rows_left());
    }
    RETURN_IF_ERROR(writer->FinishToSink().status());
  } else {
    bool header = true;
    std::string text;
    while (gen.Next(kGenChunkRows, &batch) || header) {
      if (batch.num_columns() == 0) batch = Batch(EventsGenerator::EventsSchema());
      text.clear();
      csv::WriteCsv(batch, header, &text);
      RETURN_IF_ERROR(out->Append(text));
      header = false;
      batch = Batch();
      progress.Update(rows - gen.rows_left());
    }
  }
  return out->Close();
}

namespace {
struct GenArgs {
  uint64_t rows = 1000000;
  std::string output;
  uint64_t seed = 42;
};
}  // namespace

static Status RunGen(const GenArgs& args) {
  return WriteEvents(args.rows, args.seed, args.output);
}

void AddDataCommands(CLI::App& app, CommandList* commands) {
  auto gen = std::make_shared<GenArgs>();
  auto* gen_cmd = app.add_subcommand("gen", "Write the generated 'events' data set to a CSV or Parquet file");
  gen_cmd->add_option("--rows", gen->rows, "Number of rows")->check(WholeNumber())->required();
  gen_cmd->add_option("--output", gen->output, "Output file (.csv or .parquet)")->required();
  gen_cmd->add_option("--seed", gen->seed, "Random seed (same seed, same rows)")->check(WholeNumber())->capture_default_str();
  commands->emplace_back(gen_cmd, [gen] { return RunGen(*gen); });
}

}  // namespace lakeindex::cli
