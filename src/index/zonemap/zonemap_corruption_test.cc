// Damaged segment files: Open reports Corruption naming the file (or NotFound / NotSupported),
// and never returns zones other than the ones written.
#include <gtest/gtest.h>

#include "format/parquet/writer.h"
#include "index/zonemap/zonemap_builder.h"
#include "index/zonemap/zonemap_reader.h"
#include "util/test_util.h"

namespace lakeindex::index::zonemap {
namespace {

using lakeindex::testing::RandomBatch;

struct Written {
  std::unique_ptr<ObjectStore> store = NewMemoryStore();
  std::vector<Zone> zones;
  std::string bytes;
};

Written WriteSegment(TypeId type, uint64_t seed) {
  Written w;
  Batch b = RandomBatch(Schema({{"c", type, true}}), 300, seed, 0.2);
  ZoneMapBuilder builder(type, 16);
  EXPECT_TRUE(builder.AddFragment(2, b.column(0)).ok());
  EXPECT_TRUE(builder.AddFragment(5, b.Slice(0, 40).column(0)).ok());
  w.zones = builder.zones();
  EXPECT_TRUE(builder.Finish(w.store.get(), "s").ok());
  w.bytes = *w.store->Read(ZoneMapPath("s"));
  return w;
}

TEST(ZoneMapCorruption, MissingFileIsNotFound) {
  auto store = NewMemoryStore();
  EXPECT_TRUE(ZoneMapSegment::Open(store.get(), "nope").status().IsNotFound());
}

TEST(ZoneMapCorruption, TruncatedFileIsCorruptionNamingIt) {
  Written w = WriteSegment(TypeId::kInt64, 1);
  for (size_t keep : {size_t(0), size_t(3), w.bytes.size() / 2, w.bytes.size() - 1}) {
    ASSERT_TRUE(w.store->Write(ZoneMapPath("s"), w.bytes.substr(0, keep)).ok());
    Status st = ZoneMapSegment::Open(w.store.get(), "s").status();
    EXPECT_TRUE(st.IsCorruption()) << keep << ": " << st.ToString();
    EXPECT_NE(st.message().find("zonemap.parquet"), std::string::npos) << st.ToString();
  }
}

TEST(ZoneMapCorruption, ForeignParquetFileIsCorruption) {
  auto store = NewMemoryStore();
  Batch b = RandomBatch(*Schema::Parse("min:int64,max:int64"), 10, 3);
  ASSERT_TRUE(parquet::WriteParquet(store.get(), ZoneMapPath("x"), b).ok());
  Status st = ZoneMapSegment::Open(store.get(), "x").status();
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("_indices/x/zonemap.parquet"), std::string::npos) << st.ToString();
}

// Every single-byte change is either detected or harmless (metadata the zone map does not use).
TEST(ZoneMapCorruption, FlippedBytesNeverChangeTheZones) {
  for (TypeId type : {TypeId::kInt64, TypeId::kString, TypeId::kDouble}) {
    Written w = WriteSegment(type, 7 + int(type));
    size_t detected = 0, total = 0;
    size_t step = std::max<size_t>(1, w.bytes.size() / 600);
    for (size_t at = 0; at < w.bytes.size(); at += step) {
      std::string damaged = w.bytes;
      damaged[at] = char(damaged[at] ^ 0x5a);
      ASSERT_TRUE(w.store->Write(ZoneMapPath("s"), damaged).ok());
      auto seg = ZoneMapSegment::Open(w.store.get(), "s");
      ++total;
      if (seg.ok()) {
        ASSERT_EQ((*seg)->zones(), w.zones) << TypeName(type) << " byte " << at;
        continue;
      }
      ++detected;
      Status st = seg.status();
      EXPECT_TRUE(st.IsCorruption() || st.IsNotSupported()) << "byte " << at << ": " << st.ToString();
    }
    EXPECT_GT(detected * 2, total) << TypeName(type);
  }
}

}  // namespace
}  // namespace lakeindex::index::zonemap
