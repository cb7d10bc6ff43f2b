// Seed corpus of fuzz/zonemap_fuzz.cc: small segments from ZoneMapBuilder (several types, NULL
// and NaN zones, zone_rows 1, several fragments, an empty segment).
//   LAKEINDEX_WRITE_SEEDS=1 ctest --test-dir build -R ZoneMapSeedCorpus   (re)writes them;
// without the variable the test checks that the corpus exists and every seed still opens.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "index/zonemap/zonemap_builder.h"
#include "index/zonemap/zonemap_reader.h"
#include "util/test_util.h"

namespace lakeindex::index::zonemap {
namespace {

namespace fs = std::filesystem;
using lakeindex::testing::RandomBatch;

constexpr size_t kMaxSeedBytes = 20 * 1024;

std::string CorpusDir() {
  const char* src = std::getenv("LAKEINDEX_SOURCE_DIR");
  return std::string(src && *src ? src : LAKEINDEX_SOURCE_DIR) + "/fuzz/corpus/zonemap_fuzz";
}

struct Seed {
  std::string name;
  TypeId type;
  uint32_t zone_rows;
  std::vector<size_t> fragment_rows;
  double null_fraction;
};

std::vector<Seed> Seeds() {
  return {
      {"int64_three_fragments.parquet", TypeId::kInt64, 16, {100, 7, 40}, 0.1},
      {"double_nan_null.parquet", TypeId::kDouble, 8, {120}, 0.3},
      {"float_zone_rows_1.parquet", TypeId::kFloat, 1, {20}, 0.2},
      {"string.parquet", TypeId::kString, 10, {60, 30}, 0.1},
      {"date_all_null.parquet", TypeId::kDate, 4, {12}, 1.0},
      {"timestamp.parquet", TypeId::kTimestamp, 32, {50}, 0.0},
      {"bool.parquet", TypeId::kBool, 5, {23}, 0.2},
      {"empty.parquet", TypeId::kInt32, 8, {}, 0.0},
  };
}

Result<std::string> SeedBytes(const Seed& s, uint64_t seed) {
  auto store = NewMemoryStore();
  ZoneMapBuilder b(s.type, s.zone_rows);
  for (size_t f = 0; f < s.fragment_rows.size(); ++f) {
    Batch batch = RandomBatch(Schema({{"c", s.type, true}}), s.fragment_rows[f], seed + f, s.null_fraction);
    RETURN_IF_ERROR(b.AddFragment(uint32_t(f * 3), batch.column(0)));
  }
  RETURN_IF_ERROR(b.Finish(store.get(), "seed").status());
  return store->Read(ZoneMapPath("seed"));
}

TEST(ZoneMapSeedCorpus, UpToDate) {
  std::string dir = CorpusDir();
  const char* write = std::getenv("LAKEINDEX_WRITE_SEEDS");
  std::vector<Seed> seeds = Seeds();
  if (write && std::string(write) == "1") {
    fs::create_directories(dir);
    for (size_t i = 0; i < seeds.size(); ++i) {
      auto bytes = SeedBytes(seeds[i], 1000 + i);
      ASSERT_TRUE(bytes.ok()) << seeds[i].name << ": " << bytes.status().ToString();
      EXPECT_LT(bytes->size(), kMaxSeedBytes) << seeds[i].name;
      std::ofstream(dir + "/" + seeds[i].name, std::ios::binary) << *bytes;
    }
  }
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " missing; run with LAKEINDEX_WRITE_SEEDS=1";
  size_t count = 0;
  for (const Seed& s : seeds) {
    std::ifstream in(dir + "/" + s.name, std::ios::binary);
    if (!in) continue;
    ++count;
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto store = NewMemoryStore();
    ASSERT_TRUE(store->Write(ZoneMapPath("s"), bytes).ok());
    auto seg = ZoneMapSegment::Open(store.get(), "s");
    ASSERT_TRUE(seg.ok()) << s.name << ": " << seg.status().ToString();
    EXPECT_EQ((*seg)->type(), s.type) << s.name;
  }
  EXPECT_GE(count, 5u) << dir;
}

}  // namespace
}  // namespace lakeindex::index::zonemap
