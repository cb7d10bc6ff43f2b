// page_lookup round trip, validation, and damaged files: every corruption of either file is a
// Corruption (or NotFound) naming the file, never a crash or a wrong answer.
#include "index/btree/btree_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "index/btree/btree_test_util.h"

namespace lakeindex::index::btree {
namespace {

std::shared_ptr<BTreeSegment> Sample(ObjectStore* store, TypeId type, size_t rows, uint32_t page_rows,
                                     double nulls = 0.2) {
  const Column values = testutil::RandomColumn(type, rows, 99 + rows, nulls, rows / 4 + 1);
  BTreeBuildOptions options;
  options.page_rows = page_rows;
  return testutil::BuildAndOpen(store, values, testutil::RandomAddresses(rows, 98), options);
}

TEST(BTreeFormat, Base64RoundTrip) {
  for (std::string s : {std::string(), std::string("a"), std::string("ab"), std::string("abc"), std::string("\0\xff\x10", 3)}) {
    auto back = Base64Decode(Base64Encode(s));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, s);
  }
  EXPECT_TRUE(Base64Decode("abc").status().IsCorruption());
  EXPECT_TRUE(Base64Decode("a=bc").status().IsCorruption());
  EXPECT_TRUE(Base64Decode("ab!c").status().IsCorruption());
}

TEST(BTreeFormat, LookupRoundTrip) {
  auto store = NewMemoryStore();
  auto seg = Sample(store.get(), TypeId::kString, 300, 16);
  auto bytes = store->Read(SegmentLookupPath(seg->info().uuid));
  ASSERT_TRUE(bytes.ok());
  auto dir = ParseLookup(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), "x");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(dir->num_pages(), seg->info().num_pages);
  EXPECT_EQ(dir->null_rows, seg->null_rows());
  EXPECT_EQ(dir->checksum, seg->directory().checksum);
  // Re-serializing gives a file that parses to the same directory.
  auto again = SerializeLookup(&*dir);
  ASSERT_TRUE(again.ok());
  auto dir2 = ParseLookup(reinterpret_cast<const uint8_t*>(again->data()), again->size(), "y");
  ASSERT_TRUE(dir2.ok());
  EXPECT_EQ(dir2->checksum, dir->checksum);
}

TEST(BTreeFormat, OpenMissingSegmentIsNotFound) {
  auto store = NewMemoryStore();
  EXPECT_TRUE(BTreeSegment::Open(store.get(), "0123456789abcdef0123456789abcdef").status().IsNotFound());
}

// Flips each byte of page_lookup in turn (and truncates it): Open fails with Corruption naming
// the file, or succeeds with a directory equal to the original (a flip in bytes nobody reads).
TEST(BTreeFormat, DamagedLookupIsCorruption) {
  auto store = NewMemoryStore();
  auto seg = Sample(store.get(), TypeId::kInt64, 200, 8);
  const std::string path = SegmentLookupPath(seg->info().uuid);
  const std::string good = *store->Read(path);
  size_t opened = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = char(bad[i] ^ 0x5a);
    auto dir = ParseLookup(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), path);
    if (dir.ok()) {
      ++opened;
      EXPECT_EQ(dir->checksum, seg->directory().checksum) << "byte " << i;
    } else {
      EXPECT_TRUE(dir.status().IsCorruption() || dir.status().IsNotSupported()) << dir.status().ToString();
      EXPECT_NE(dir.status().message().find(path), std::string::npos) << dir.status().ToString();
    }
  }
  EXPECT_LT(opened, good.size() / 4);
  for (size_t len : {size_t(0), size_t(4), good.size() / 2, good.size() - 1}) {
    auto dir = ParseLookup(reinterpret_cast<const uint8_t*>(good.data()), len, path);
    EXPECT_TRUE(dir.status().IsCorruption()) << len;
  }
}

// Damages page_data: every search either fails with Corruption naming page_data, or returns
// the right answer (a flip the page CRCs and checks prove harmless cannot change the rows).
TEST(BTreeFormat, DamagedPageDataIsCorruption) {
  auto mem = NewMemoryStore();
  auto seg = Sample(mem.get(), TypeId::kInt64, 200, 8, 0.1);
  const std::string path = SegmentDataPath(seg->info().uuid);
  const std::string good = *mem->Read(path);
  const ScalarQuery all = ScalarQuery::Range(std::nullopt, true, std::nullopt, true);
  auto want = seg->Search(all);
  ASSERT_TRUE(want.ok());
  size_t failures = 0;
  for (size_t i = 0; i < good.size(); i += 3) {
    std::string bad = good;
    bad[i] = char(bad[i] ^ 0x21);
    ASSERT_TRUE(mem->Write(path, bad).ok());
    PageCache cache(1 << 20);
    auto s = BTreeSegment::Open(mem.get(), seg->info().uuid, {&cache, nullptr, true});
    ASSERT_TRUE(s.ok());
    auto got = (*s)->Search(all);
    if (got.ok()) {
      EXPECT_EQ(got->rows, want->rows) << "byte " << i;
    } else {
      ++failures;
      EXPECT_TRUE(got.status().IsCorruption() || got.status().IsNotSupported()) << got.status().ToString();
      EXPECT_NE(got.status().message().find("page_data"), std::string::npos) << got.status().ToString();
    }
  }
  EXPECT_GT(failures, 0u);
  // Truncated, and swapped with another segment's page_data (whose size differs).
  ASSERT_TRUE(mem->Write(path, good.substr(0, good.size() / 2)).ok());
  auto s = BTreeSegment::Open(mem.get(), seg->info().uuid);
  EXPECT_TRUE((*s)->Search(all).status().IsCorruption());
  auto other = Sample(mem.get(), TypeId::kInt64, 300, 8, 0.1);
  ASSERT_TRUE(mem->Write(path, *mem->Read(SegmentDataPath(other->info().uuid))).ok());
  s = BTreeSegment::Open(mem.get(), seg->info().uuid);
  auto swapped = (*s)->Search(all);
  EXPECT_TRUE(swapped.status().IsCorruption());
  EXPECT_NE(swapped.status().message().find("page_data"), std::string::npos) << swapped.status().ToString();
}

// A segment written before page_lookup recorded page locations (format version 1) is still
// read, through page_data's footer, with the same answers; its page_data is checked against the
// segment (a swapped one is refused).
TEST(BTreeFormat, Version1SegmentsAreReadThroughTheFooter) {
  auto mem = NewMemoryStore();
  for (TypeId type : {TypeId::kInt64, TypeId::kString}) {
    auto seg = Sample(mem.get(), type, 300, 16, 0.1);
    PageDirectory dir = seg->directory();
    ASSERT_EQ(dir.locations.size(), dir.num_pages());
    dir.locations.clear();
    auto v1 = SerializeLookup(&dir);
    ASSERT_TRUE(v1.ok());
    ASSERT_TRUE(mem->Write(SegmentLookupPath(seg->info().uuid), *v1).ok());
    auto old = BTreeSegment::Open(mem.get(), seg->info().uuid, {nullptr, nullptr, false});
    ASSERT_TRUE(old.ok()) << old.status().ToString();
    EXPECT_TRUE((*old)->directory().locations.empty());
    for (const ScalarQuery& q : {ScalarQuery::Range(std::nullopt, true, std::nullopt, true), ScalarQuery::IsNull()}) {
      auto want = seg->Search(q);
      auto got = (*old)->Search(q);
      ASSERT_TRUE(want.ok() && got.ok()) << got.status().ToString();
      EXPECT_EQ(got->rows, want->rows);
    }
    auto other = Sample(mem.get(), type, 300, 16, 0.1);
    ASSERT_TRUE(mem->Write(SegmentDataPath(seg->info().uuid), *mem->Read(SegmentDataPath(other->info().uuid))).ok());
    auto swapped = BTreeSegment::Open(mem.get(), seg->info().uuid, {nullptr, nullptr, false});
    ASSERT_TRUE(swapped.ok());
    auto r = (*swapped)->Search(ScalarQuery::Range(std::nullopt, true, std::nullopt, true));
    EXPECT_TRUE(r.status().IsCorruption());
    EXPECT_NE(r.status().message().find("belongs to segment"), std::string::npos) << r.status().ToString();
  }
}

// The fuzz seed corpus parses; LAKEINDEX_BTREE_CORPUS_DIR=<dir> rewrites it from the writer.
TEST(BTreeFormat, FuzzCorpus) {
  const char* dir = std::getenv("LAKEINDEX_BTREE_CORPUS_DIR");
  if (dir == nullptr) {
    const char* src = std::getenv("LAKEINDEX_SOURCE_DIR");
    std::string corpus = std::string(src ? src : LAKEINDEX_SOURCE_DIR) + "/fuzz/corpus/btree_lookup_fuzz";
    size_t files = 0, parsed = 0;
    for (const auto& e : std::filesystem::directory_iterator(corpus)) {
      ++files;
      std::ifstream in(e.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      parsed += ParseLookup(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), e.path().string()).ok();
    }
    EXPECT_GE(files, 5u);
    EXPECT_EQ(parsed, files);  // the seeds are valid lookups (the fuzzer mutates from there)
    return;
  }
  auto store = NewMemoryStore();
  struct Seed { const char* name; TypeId type; size_t rows; uint32_t page_rows; double nulls; };
  const Seed seeds[] = {{"int64_pages8", TypeId::kInt64, 100, 8, 0.1}, {"string_pages3", TypeId::kString, 30, 3, 0.2},
                        {"double_pages4", TypeId::kDouble, 40, 4, 0.1}, {"date_one_page", TypeId::kDate, 10, 64, 0.0},
                        {"all_null", TypeId::kInt32, 20, 4, 1.0},       {"empty", TypeId::kTimestamp, 0, 4, 0.0}};
  for (const Seed& s : seeds) {
    auto seg = Sample(store.get(), s.type, s.rows, s.page_rows, s.nulls);
    const std::string bytes = *store->Read(SegmentLookupPath(seg->info().uuid));
    std::ofstream(std::string(dir) + "/" + s.name + ".parquet", std::ios::binary) << bytes;
  }
}

}  // namespace
}  // namespace lakeindex::index::btree
