// The bitmap kind's own cases: the file's damage is found and named, its reads are counted, and
// columns of too many values are refused. (Answers against a brute-force scan: the conformance
// suite of every kind, index/registry/registry_test.cc.)
#include "index/bitmap/bitmap_segment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <tuple>

#include "index/bitmap/bitmap_kind.h"
#include "util/test_util.h"

namespace lakeindex::index::bitmap {
namespace {

struct Built {
  std::shared_ptr<ObjectStore> store;
  std::unique_ptr<table::Table> table;
  IndexMeta meta;
  std::string uuid;
};

// A table of `rows` rows whose column "c" holds "v<i % values>" (NULL every 10th row).
Built Build(size_t rows, size_t values, nlohmann::json params = nlohmann::json::object()) {
  Built b;
  b.store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  Batch batch(*Schema::Parse("c:string"));
  for (size_t i = 0; i < rows; ++i) {
    if (i % 10 == 9) {
      batch.mutable_column(0).AppendNull();
    } else {
      EXPECT_TRUE(batch.mutable_column(0).AppendString("v" + std::to_string(i % values)).ok());
    }
  }
  EXPECT_TRUE(batch.Seal().ok());
  table::WriteConfig config;
  config.rows_per_file = 400;
  auto src = table::MemorySource(batch.schema(), {batch});
  auto t = table::Table::Create(b.store, src.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  b.table = std::move(*t);
  b.meta.name = "c_bitmap";
  b.meta.column = "c";
  b.meta.type = "bitmap";
  auto checked = Kind().Params(params, b.table->schema().field(0));
  EXPECT_TRUE(checked.ok()) << checked.status().ToString();
  b.meta.params = checked.ok() ? *checked : nlohmann::json::object();
  SegmentBuild build{b.table.get(), &b.meta, b.table->manifest().fragments, {}, b.table->manifest().total_rows(), {}};
  auto uuid = Kind().Build(build);
  if (uuid.ok()) b.uuid = *uuid;
  return b;
}

TEST(BitmapSegment, CountsFromTheDictionaryAndReadsOnlyTheBitmapsAsked) {
  Built b = Build(1000, 7);
  ASSERT_FALSE(b.uuid.empty());
  auto seg = BitmapSegment::Open(b.store.get(), b.uuid);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ((*seg)->dictionary().keys.size(), 7u);
  EXPECT_EQ((*seg)->dictionary().rows, 1000u);
  SearchCounters counters;
  auto n = (*seg)->Count(ScalarQuery::In({Value::String("v1"), Value::String("v2")}), &counters);
  ASSERT_TRUE(n.ok());
  size_t want = 0;
  for (size_t i = 0; i < 1000; ++i) want += i % 10 != 9 && (i % 7 == 1 || i % 7 == 2);
  EXPECT_EQ(*n, want);
  EXPECT_EQ(counters.pages_read, 0u);  // no bitmap read for a count
  EXPECT_EQ(counters.pages_selected, 2u);
  auto r = (*seg)->Search(ScalarQuery::Equals(Value::String("v3")), &counters);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(counters.pages_read, 2u);  // v3's bitmap and the NULL rows'
  r = (*seg)->Search(ScalarQuery::Equals(Value::String("v3")), &counters);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(counters.pages_read, 2u);  // kept
  EXPECT_EQ(r->rows.null_rows.Cardinality(), 100u);
  // A value absent from the dictionary: nothing matches.
  r = (*seg)->Search(ScalarQuery::Equals(Value::String("zzz")), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->rows.true_rows.IsEmpty());
}

TEST(BitmapSegment, AColumnOfTooManyValuesIsRefusedNamingIt) {
  Built b = Build(500, 100, nlohmann::json{{"max_values", 50}});
  EXPECT_TRUE(b.uuid.empty());
  SegmentBuild build{b.table.get(), &b.meta, b.table->manifest().fragments, {}, 500, {}};
  Status st = Kind().Build(build).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_EQ(st.parameter(), "column");
  EXPECT_NE(st.message().find("more than 50 distinct values"), std::string::npos) << st.ToString();
}

// Every byte of the file flipped: Open or the search of the entry it belongs to fails with
// Corruption (or NotSupported for the version field), never a wrong answer or a crash.
TEST(BitmapSegment, EveryFlippedByteIsFound) {
  Built b = Build(300, 3);
  ASSERT_FALSE(b.uuid.empty());
  const std::string path = BitmapPath(b.uuid);
  auto original = b.store->Read(path);
  ASSERT_TRUE(original.ok());
  auto clean = BitmapSegment::Open(b.store.get(), b.uuid);
  ASSERT_TRUE(clean.ok());
  std::vector<SearchResult> want;
  std::vector<ScalarQuery> queries;
  for (const char* v : {"v0", "v1", "v2"}) queries.push_back(ScalarQuery::Equals(Value::String(v)));
  queries.push_back(ScalarQuery::IsNull());
  for (const ScalarQuery& q : queries) want.push_back(*(*clean)->Search(q, nullptr));
  size_t found = 0;
  for (size_t i = 0; i < original->size(); ++i) {
    std::string damaged = *original;
    damaged[i] = char(damaged[i] ^ 0x41);
    ASSERT_TRUE(b.store->Write(path, damaged).ok());
    auto seg = BitmapSegment::Open(b.store.get(), b.uuid);
    if (!seg.ok()) {
      EXPECT_TRUE(seg.status().IsCorruption() || seg.status().IsNotSupported()) << i << ": " << seg.status().ToString();
      ++found;
      continue;
    }
    bool failed = false;
    for (size_t q = 0; q < queries.size(); ++q) {
      auto r = (*seg)->Search(queries[q], nullptr);
      if (!r.ok()) {
        EXPECT_TRUE(r.status().IsCorruption()) << i << ": " << r.status().ToString();
        EXPECT_NE(r.status().message().find(path), std::string::npos);
        failed = true;
      } else {
        EXPECT_EQ(r->rows, want[q].rows) << "byte " << i << " flipped, yet answered differently";
      }
    }
    EXPECT_TRUE(failed) << "byte " << i << " flipped, unnoticed";
    found += failed;
  }
  EXPECT_EQ(found, original->size());
  // Cut short anywhere: Open fails.
  for (size_t n : {size_t(0), size_t(10), original->size() - 1}) {
    ASSERT_TRUE(b.store->Write(path, original->substr(0, n)).ok());
    EXPECT_FALSE(BitmapSegment::Open(b.store.get(), b.uuid).ok()) << n;
  }
}

}  // namespace
}  // namespace lakeindex::index::bitmap

namespace lakeindex::index::bitmap {
namespace {

// Seed corpus of fuzz/bitmap_fuzz.cc: small segments the kind writes.
//   LAKEINDEX_WRITE_SEEDS=1 ctest --test-dir build -R BitmapSeedCorpus   (re)writes them;
// without the variable the test checks that the corpus exists and every seed still opens.
TEST(BitmapSeedCorpus, EverySeedOpens) {
  const char* src = std::getenv("LAKEINDEX_SOURCE_DIR");
  const std::string dir = std::string(src && *src ? src : LAKEINDEX_SOURCE_DIR) + "/fuzz/corpus/bitmap_fuzz/";
  const bool write = std::getenv("LAKEINDEX_WRITE_SEEDS") != nullptr;
  for (const auto& [name, rows, values] : std::vector<std::tuple<std::string, size_t, size_t>>{
           {"three_values.idx", 300, 3}, {"one_row_each.idx", 40, 40}, {"seven_values.idx", 1000, 7}}) {
    Built b = Build(rows, values);
    ASSERT_FALSE(b.uuid.empty()) << name;
    auto bytes = b.store->Read(BitmapPath(b.uuid));
    ASSERT_TRUE(bytes.ok());
    if (write) {
      std::ofstream(dir + name, std::ios::binary) << *bytes;
      continue;
    }
    std::ifstream in(dir + name, std::ios::binary);
    ASSERT_TRUE(in.good()) << dir + name << " is missing: LAKEINDEX_WRITE_SEEDS=1 writes it";
    std::string seed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto store = NewMemoryStore();
    ASSERT_TRUE(store->Write(BitmapPath("seed"), seed).ok());
    auto seg = BitmapSegment::Open(store.get(), "seed");
    ASSERT_TRUE(seg.ok()) << name << ": " << seg.status().ToString();
    EXPECT_EQ((*seg)->dictionary().rows, rows) << name;
  }
}

}  // namespace
}  // namespace lakeindex::index::bitmap
