// Parquet write and full-read throughput of lakeindex, single-threaded, end to end against local
// files (bench/run.sh compares it with DuckDB through bench/duckdb_bench.mjs).
//
//   parquet_bench write --rows N --seed S --dir D [--codec zstd,snappy]
//       Generates the events data set in memory first (not timed), then per codec times
//       ParquetWriter (Make, Write every batch, Finish) and the write of the bytes to
//       D/lakeindex_<codec>.parquet through the local store (which fsyncs; both parts are
//       reported separately).
//   parquet_bench read --dir D FILE...
//       Per file: times Open + ReadAll() of every column from the local store (through an
//       InstrumentedStore, so bytes and requests are counted).
//   parquet_bench sortgen --rows N --seed S --output PATH
//       Writes the events data set sorted by ts (for the zone-map queries). Not a measurement.
//
// Output: one JSON object per measurement on stdout (see bench_util.h).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "bench_util.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "lakeindex/object_store.h"

namespace lakeindex::bench {
namespace {

struct Args {
  std::string command;
  uint64_t rows = 10'000'000;
  uint64_t seed = 42;
  std::string dir = ".";
  std::string output;
  std::vector<std::string> codecs = {"zstd"};
  std::vector<std::string> files;
};

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Args ParseArgs(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: parquet_bench write|read|sortgen [options] (see the file comment)\n");
    std::exit(1);
  }
  Args args;
  args.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--rows") args.rows = std::stoull(value());
    else if (a == "--seed") args.seed = std::stoull(value());
    else if (a == "--dir") args.dir = value();
    else if (a == "--output") args.output = value();
    else if (a == "--codec") args.codecs = SplitComma(value());
    else args.files.push_back(a);
  }
  return args;
}

std::shared_ptr<ObjectStore> LocalStore(const std::string& dir) {
  return std::shared_ptr<ObjectStore>(CheckResult(OpenLocalStore(dir), "open local store " + dir));
}

void RunWrite(const Args& args) {
  Stopwatch gen_clock;
  std::vector<Batch> batches = GenerateEvents(args.rows, args.seed);
  std::fprintf(stderr, "generated %llu rows in %.1f s\n", static_cast<unsigned long long>(args.rows),
               gen_clock.wall());
  std::shared_ptr<ObjectStore> store = LocalStore(args.dir);
  for (const std::string& codec_name : args.codecs) {
    parquet::WriteOptions options;
    options.codec = CheckResult(parquet::CodecFromName(codec_name), "codec");
    std::string key = "lakeindex_" + codec_name + ".parquet";

    Stopwatch clock;
    auto writer = CheckResult(parquet::ParquetWriter::Make(EventsGenerator::EventsSchema(), options), "writer");
    for (const Batch& b : batches) Check(writer->Write(b), "write batch");
    std::string bytes = CheckResult(writer->Finish(), "finish");
    double encode_wall = clock.wall(), encode_cpu = clock.cpu();
    Stopwatch io_clock;
    Check(store->Write(key, bytes), "write " + key);
    double io_wall = io_clock.wall(), io_cpu = io_clock.cpu();

    Emit({{"bench", "write"},
          {"engine", "lakeindex"},
          {"case", codec_name},
          {"threads", 1},
          {"rows", args.rows},
          {"file", key},
          {"file_bytes", bytes.size()},
          {"wall_s", encode_wall + io_wall},
          {"cpu_s", encode_cpu + io_cpu},
          {"encode_wall_s", encode_wall},
          {"encode_cpu_s", encode_cpu},
          {"io_wall_s", io_wall}});
  }
}

void RunRead(const Args& args) {
  auto store = std::make_shared<InstrumentedStore>(LocalStore(args.dir));
  for (const std::string& file : args.files) {
    store->counters().Reset();
    Stopwatch clock;
    auto reader = CheckResult(parquet::ParquetReader::Open(store.get(), file), "open " + file);
    Batch all = CheckResult(reader->ReadAll(), "read " + file);
    double wall = clock.wall(), cpu = clock.cpu();
    Emit({{"bench", "read"},
          {"engine", "lakeindex"},
          {"case", file},
          {"threads", 1},
          {"rows", all.num_rows()},
          {"columns", all.num_columns()},
          {"row_groups", reader->num_row_groups()},
          {"file_bytes", CheckResult(store->Size(file), "size " + file)},
          {"bytes_read", store->counters().bytes_read.load()},
          {"io_requests", store->counters().read_requests.load()},
          {"wall_s", wall},
          {"cpu_s", cpu}});
  }
}

// The events rows ordered by ts (stable, so ties keep generation order), written as one file.
void RunSortGen(const Args& args) {
  std::vector<Batch> batches = GenerateEvents(args.rows, args.seed);
  Batch all(EventsGenerator::EventsSchema());
  for (const Batch& b : batches) Check(all.Append(b), "append");
  batches.clear();
  const Column* ts = all.FindColumn("ts");
  if (ts == nullptr) Die(Status::InvalidArgument("no ts column"), "sortgen");
  std::vector<uint32_t> order(all.num_rows());
  std::iota(order.begin(), order.end(), 0u);
  const int64_t* t = ts->data<int64_t>();
  std::stable_sort(order.begin(), order.end(), [t](uint32_t a, uint32_t b) { return t[a] < t[b]; });
  std::vector<Column> sorted;
  for (size_t c = 0; c < all.num_columns(); ++c) {
    sorted.emplace_back(all.column(c).type());
    sorted.back().AppendSelected(all.column(c), order.data(), order.size());
  }
  Batch out(all.schema(), std::move(sorted), all.num_rows());
  std::filesystem::path path(args.output);
  auto store = LocalStore(path.parent_path().empty() ? "." : path.parent_path().string());
  Check(parquet::WriteParquet(store.get(), path.filename().string(), out), "write " + args.output);
  std::fprintf(stderr, "wrote %s (%llu rows sorted by ts)\n", args.output.c_str(),
               static_cast<unsigned long long>(out.num_rows()));
}

}  // namespace
}  // namespace lakeindex::bench

int main(int argc, char** argv) {
  using namespace lakeindex::bench;
  Args args = ParseArgs(argc, argv);
  if (args.command == "write") RunWrite(args);
  else if (args.command == "read") RunRead(args);
  else if (args.command == "sortgen") RunSortGen(args);
  else {
    std::fprintf(stderr, "unknown command '%s'\n", args.command.c_str());
    return 1;
  }
  return 0;
}
