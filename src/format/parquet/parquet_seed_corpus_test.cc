// Seed corpus of fuzz/parquet_reader_fuzz.cc: small, varied files from our writer (every type,
// REQUIRED/OPTIONAL, dictionary on/off, several codecs, many row groups and pages, page index,
// statistics and CRCs on/off, key-value metadata, zero rows, all NULLs, the layout files'
// DELTA_BINARY_PACKED / BYTE_STREAM_SPLIT / DELTA_LENGTH_BYTE_ARRAY pages).
//   LAKEINDEX_WRITE_SEEDS=1 ctest --test-dir build -R ParquetSeedCorpus   (re)writes them;
// without the variable the test checks that the corpus exists and our seeds read back.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

namespace fs = std::filesystem;
using lakeindex::testing::RandomBatch;
using lakeindex::testing::RandomSchema;

constexpr size_t kMaxSeedBytes = 20 * 1024;

std::string CorpusDir() {
  const char* src = std::getenv("LAKEINDEX_SOURCE_DIR");
  return std::string(src && *src ? src : LAKEINDEX_SOURCE_DIR) + "/fuzz/corpus/parquet_reader_fuzz";
}

struct Seed {
  std::string name;
  uint64_t seed;
  int max_columns;
  size_t rows;
  double null_fraction;
  WriteOptions options;
};

std::vector<Seed> Seeds() {
  auto opts = [](Codec codec, bool dictionary, size_t rg_rows, size_t page_rows) {
    WriteOptions o;
    o.codec = codec;
    o.dictionary = dictionary;
    o.row_group_rows = rg_rows;
    o.page_rows = page_rows;
    return o;
  };
  std::vector<Seed> seeds = {
      {"writer_all_types_zstd.parquet", 1, 8, 40, 0.1, opts(Codec::kZstd, true, 1 << 20, 8192)},
      {"writer_plain_uncompressed.parquet", 2, 8, 40, 0.1, opts(Codec::kUncompressed, false, 1 << 20, 8192)},
      {"writer_dict_snappy_pages.parquet", 3, 8, 120, 0.2, opts(Codec::kSnappy, true, 1 << 20, 16)},
      {"writer_many_row_groups.parquet", 4, 4, 100, 0.1, opts(Codec::kUncompressed, true, 10, 4)},
      {"writer_required_only.parquet", 5, 8, 30, 0.0, opts(Codec::kUncompressed, false, 1 << 20, 8)},
      {"writer_all_null.parquet", 6, 8, 20, 1.0, opts(Codec::kUncompressed, true, 1 << 20, 8192)},
      {"writer_zero_rows.parquet", 7, 8, 0, 0.1, opts(Codec::kZstd, true, 1 << 20, 8192)},
      {"writer_one_row_gzip.parquet", 8, 8, 1, 0.0, opts(Codec::kGzip, false, 1 << 20, 8192)},
      {"writer_no_stats_no_index_no_crc.parquet", 9, 6, 60, 0.1, opts(Codec::kUncompressed, true, 25, 10)},
      {"writer_kv_metadata.parquet", 10, 3, 10, 0.1, opts(Codec::kUncompressed, false, 1 << 20, 8192)},
      {"writer_layout_delta_split.parquet", 11, 8, 90, 0.1, opts(Codec::kZstd, false, 30, 8)},
  };
  seeds[8].options.statistics = false;
  seeds[8].options.page_index = false;
  seeds[8].options.page_crc = false;
  seeds[9].options.key_value_metadata = {{"k", "v"}, {"", "empty key"}, {"ключ", "😀"}};
  // As the OTree's layout files: DELTA_BINARY_PACKED / BYTE_STREAM_SPLIT / DELTA_LENGTH_BYTE_ARRAY pages, zstd -1 for
  // numbers, page bounds for one column only, no page-header statistics.
  Seed& layout = seeds[10];
  layout.options.delta_integers = layout.options.byte_stream_split_floats = true;
  layout.options.delta_length_strings = true;
  layout.options.fixed_width_zstd_level = -1;
  layout.options.page_header_statistics = false;
  layout.options.column_index_columns = {RandomSchema(layout.seed, layout.max_columns).field(0).name};
  return seeds;
}

TEST(ParquetSeedCorpus, UpToDate) {
  std::string dir = CorpusDir();
  const char* write = std::getenv("LAKEINDEX_WRITE_SEEDS");
  if (write && std::string(write) == "1") {
    fs::create_directories(dir);
    for (const Seed& s : Seeds()) {
      Batch batch = RandomBatch(RandomSchema(s.seed, s.max_columns), s.rows, s.seed, s.null_fraction);
      auto writer = ParquetWriter::Make(batch.schema(), s.options);
      ASSERT_TRUE(writer.ok()) << s.name << ": " << writer.status().ToString();
      ASSERT_TRUE((*writer)->Write(batch).ok()) << s.name;
      auto bytes = (*writer)->Finish();
      ASSERT_TRUE(bytes.ok()) << s.name << ": " << bytes.status().ToString();
      EXPECT_LT(bytes->size(), kMaxSeedBytes) << s.name;
      std::ofstream(dir + "/" + s.name, std::ios::binary) << *bytes;
    }
  }
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " missing; run with LAKEINDEX_WRITE_SEEDS=1";
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    count += entry.is_regular_file();
    EXPECT_LT(entry.file_size(), kMaxSeedBytes) << entry.path();
  }
  EXPECT_GE(count, 5u) << dir;
  // Our own seeds must still be readable files (a seed the reader rejects fuzzes only the
  // footer parser).
  auto store = OpenLocalStore(dir);
  ASSERT_TRUE(store.ok());
  for (const Seed& s : Seeds()) {
    if (!fs::exists(dir + "/" + s.name)) continue;
    auto reader = ParquetReader::Open(store->get(), s.name);
    ASSERT_TRUE(reader.ok()) << s.name << ": " << reader.status().ToString();
    auto batch = (*reader)->ReadAll();
    ASSERT_TRUE(batch.ok()) << s.name << ": " << batch.status().ToString();
    EXPECT_EQ(batch->num_rows(), s.rows) << s.name;
  }
}

}  // namespace
}  // namespace lakeindex::parquet
