#include "index/zonemap/zonemap_builder.h"

#include <gtest/gtest.h>

#include "index/zonemap/zonemap_reader.h"
#include "util/test_util.h"

namespace lakeindex::index::zonemap {
namespace {

using lakeindex::testing::RandomBatch;

Column Int64Column(int64_t begin, int64_t end) {
  Column c(TypeId::kInt64);
  for (int64_t v = begin; v < end; ++v) c.Append<int64_t>(v);
  return c;
}

// Zones of one fragment as (start, length) pairs.
std::vector<std::pair<uint32_t, uint32_t>> Layout(const std::vector<Zone>& zones, uint32_t fragment) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const Zone& z : zones) {
    if (z.fragment_id == fragment) out.emplace_back(z.start, z.length);
  }
  return out;
}

TEST(ZoneMapBuilder, ZonesAreCutPerFragmentAndNeverCrossOne) {
  ZoneMapBuilder b(TypeId::kInt64, 4);
  ASSERT_TRUE(b.AddFragment(7, Int64Column(0, 10)).ok());
  ASSERT_TRUE(b.AddFragment(2, Int64Column(100, 103)).ok());
  auto c = b.FinishContents();
  ASSERT_TRUE(c.ok());
  // Sorted by fragment id; the short zone of fragment 7 is not topped up by fragment 2's rows.
  EXPECT_EQ(Layout(c->zones, 2), (std::vector<std::pair<uint32_t, uint32_t>>{{0, 3}}));
  EXPECT_EQ(Layout(c->zones, 7), (std::vector<std::pair<uint32_t, uint32_t>>{{0, 4}, {4, 4}, {8, 2}}));
  EXPECT_EQ(c->zones.front().fragment_id, 2u);
  EXPECT_EQ(*c->zones[3].min, Value::Int64(8));
  EXPECT_EQ(*c->zones[3].max, Value::Int64(9));
  EXPECT_TRUE(ValidateZones(*c, "built").ok());
}

TEST(ZoneMapBuilder, ZoneRowsOneAndLargerThanTheFragment) {
  ZoneMapBuilder one(TypeId::kInt64, 1);
  ASSERT_TRUE(one.AddFragment(0, Int64Column(5, 10)).ok());
  ASSERT_EQ(one.zones().size(), 5u);
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(one.zones()[i].start, i);
    EXPECT_EQ(one.zones()[i].length, 1u);
    EXPECT_EQ(*one.zones()[i].min, Value::Int64(5 + i));
    EXPECT_EQ(*one.zones()[i].max, Value::Int64(5 + i));
  }
  ZoneMapBuilder big(TypeId::kInt64, 1000);
  ASSERT_TRUE(big.AddFragment(0, Int64Column(5, 10)).ok());
  ASSERT_EQ(big.zones().size(), 1u);
  EXPECT_EQ(big.zones()[0].length, 5u);
  EXPECT_EQ(*big.zones()[0].min, Value::Int64(5));
  EXPECT_EQ(*big.zones()[0].max, Value::Int64(9));
}

TEST(ZoneMapBuilder, StreamingChunksEqualsWholeFragment) {
  Schema schema = *Schema::Parse("x:double");
  Batch batch = RandomBatch(schema, 1000, 42, 0.2);
  const Column& col = batch.column(0);
  ZoneMapBuilder whole(TypeId::kDouble, 37);
  ASSERT_TRUE(whole.AddFragment(1, col).ok());
  ZoneMapBuilder streamed(TypeId::kDouble, 37);
  size_t sizes[] = {1, 36, 2, 100, 0, 500, 361};
  size_t at = 0;
  for (size_t n : sizes) {
    ASSERT_TRUE(streamed.Add(1, batch.Slice(at, n).column(0)).ok());
    at += n;
  }
  ASSERT_EQ(at, 1000u);
  ASSERT_TRUE(streamed.EndFragment().ok());
  EXPECT_EQ(streamed.zones(), whole.zones());
  // And each zone's statistics are ComputeColumnStats over its rows.
  for (const Zone& z : whole.zones()) {
    ColumnStats s = ComputeColumnStats(col, z.start, z.length);
    EXPECT_EQ(z.min, s.min);
    EXPECT_EQ(z.max, s.max);
    EXPECT_EQ(z.null_count, s.null_count);
    EXPECT_EQ(z.nan_count, s.nan_count);
  }
}

TEST(ZoneMapBuilder, ErrorsAreStickyAndNamed) {
  ZoneMapBuilder bad_rows(TypeId::kInt64, 0);
  EXPECT_TRUE(bad_rows.AddFragment(0, Int64Column(0, 1)).IsInvalidArgument());

  ZoneMapBuilder b(TypeId::kInt64, 4);
  Column strings(TypeId::kString);
  ASSERT_TRUE(strings.AppendString("a").ok());
  Status st = b.Add(3, strings);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("fragment 3"), std::string::npos) << st.ToString();
  EXPECT_TRUE(b.AddFragment(4, Int64Column(0, 1)).IsInvalidArgument());  // sticky

  ZoneMapBuilder twice(TypeId::kInt64, 4);
  ASSERT_TRUE(twice.Add(1, Int64Column(0, 3)).ok());
  ASSERT_TRUE(twice.Add(2, Int64Column(0, 3)).ok());
  EXPECT_TRUE(twice.Add(1, Int64Column(0, 3)).IsInvalidArgument());
}

TEST(ZoneMapBuilder, FinishWritesAFileThatOpensToTheSameZones) {
  auto store = NewMemoryStore();
  ZoneMapBuilder b(TypeId::kInt64, 4);
  ASSERT_TRUE(b.AddFragment(5, Int64Column(0, 9)).ok());
  ASSERT_TRUE(b.AddFragment(6, Column(TypeId::kInt64)).ok());  // empty fragment: covered, no zones
  std::vector<Zone> zones = b.zones();
  auto info = b.Finish(store.get(), "u1");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->path, "_indices/u1/zonemap.parquet");
  EXPECT_EQ(info->zones, 3u);
  EXPECT_EQ(info->rows, 9u);
  EXPECT_EQ(info->fragments, (std::vector<uint32_t>{5, 6}));
  EXPECT_EQ(info->file_size, *store->Size(info->path));
  auto seg = ZoneMapSegment::Open(store.get(), "u1");
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ((*seg)->zones(), zones);
  EXPECT_EQ((*seg)->ZonesTotal(), 3u);
  EXPECT_EQ((*seg)->zone_rows(), 4u);
  EXPECT_EQ((*seg)->Fragments(), (std::vector<uint32_t>{5}));
  // The builder is spent.
  EXPECT_FALSE(b.Finish(store.get(), "u2").ok());
  EXPECT_TRUE(ZoneMapBuilder(TypeId::kInt64).Finish(store.get(), "a/b").status().IsInvalidArgument());
}

TEST(ZoneMapBuilder, EmptySegmentRoundTrips) {
  auto store = NewMemoryStore();
  ZoneMapBuilder b(TypeId::kString);
  auto info = b.Finish(store.get(), "empty");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  auto seg = ZoneMapSegment::Open(store.get(), "empty");
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ((*seg)->ZonesTotal(), 0u);
  auto r = (*seg)->Search(ScalarQuery::Prefix("a"), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->rows.true_rows.IsEmpty());
}

}  // namespace
}  // namespace lakeindex::index::zonemap
