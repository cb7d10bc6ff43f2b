#include "index/zonemap/zonemap_table.h"

#include <gtest/gtest.h>

#include "index/zonemap/zonemap_reader.h"
#include "util/test_util.h"

namespace lakeindex::index::zonemap {
namespace {

using table::FragmentMeta;
using table::MemorySource;
using table::Table;

// Table of ids 0..n-1 in files of 100 rows, small row groups so fragments span several.
std::unique_ptr<Table> MakeTable(std::shared_ptr<ObjectStore> store, int64_t n) {
  Batch b(*Schema::Parse("id:int64,name:string"));
  for (int64_t i = 0; i < n; ++i) {
    b.mutable_column(0).Append<int64_t>(i);
    EXPECT_TRUE(b.mutable_column(1).AppendString("n" + std::to_string(i)).ok());
  }
  EXPECT_TRUE(b.Seal().ok());
  table::WriteConfig config;
  config.rows_per_file = 100;
  config.parquet.row_group_rows = 30;
  config.parquet.page_rows = 10;
  auto src = MemorySource(b.schema(), {b});
  auto t = Table::Create(store, src.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(*t) : nullptr;
}

TEST(ZoneMapTable, ZonesUseOriginalOffsetsDespiteDeletions) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto t = MakeTable(store, 250);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->manifest().fragments.size(), 3u);
  const FragmentMeta first = t->manifest().fragments[0];  // a copy: DeleteRows replaces the manifest
  // Delete the first 20 rows of fragment 0: ReadFragment would shift every later row.
  RowSet del;
  for (uint32_t i = 0; i < 20; ++i) del.Add(MakeRowAddress(first.id, i));
  ASSERT_TRUE(t->DeleteRows(del).ok());

  auto info = BuildTableZoneMap(*t, "id", t->manifest().fragments, 16);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->rows, 250u);
  EXPECT_EQ(info->zones, 7u + 7u + 4u);  // 100 = 6*16+4 per full fragment, 50 = 3*16+2
  auto seg = ZoneMapSegment::Open(store.get(), info->uuid);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  // id 40 is row 40 of fragment 0 (its original offset), in zone [32, 48).
  auto r = (*seg)->Search(ScalarQuery::Equals(Value::Int64(40)), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.true_rows, RowSet::Range(first.id, 32, 48));
  // Every zone's bounds are exactly its original rows: ids fragment_start + [start, start+len).
  for (const Zone& z : (*seg)->zones()) {
    const FragmentMeta* f = t->manifest().FindFragment(z.fragment_id);
    ASSERT_NE(f, nullptr);
    int64_t base = int64_t(f - t->manifest().fragments.data()) * 100;
    EXPECT_EQ(*z.min, Value::Int64(base + z.start));
    EXPECT_EQ(*z.max, Value::Int64(base + z.start + z.length - 1));
  }
}

TEST(ZoneMapTable, SubsetOfFragmentsAndBadColumns) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto t = MakeTable(store, 120);
  ASSERT_NE(t, nullptr);
  std::vector<FragmentMeta> last = {t->manifest().fragments.back()};
  auto info = BuildTableZoneMap(*t, "name", last);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->fragments, std::vector<uint32_t>{last[0].id});
  EXPECT_EQ(info->zones, 1u);  // 20 rows < 8192
  EXPECT_EQ(info->type, TypeId::kString);
  EXPECT_TRUE(BuildTableZoneMap(*t, "nope", last).status().IsInvalidArgument());
  EXPECT_TRUE(BuildTableZoneMap(*t, "id", last, 0).status().IsInvalidArgument());
  // A manifest that disagrees with its data file is Corruption naming the file.
  std::vector<FragmentMeta> wrong = last;
  wrong[0].rows += 1;
  Status st = BuildTableZoneMap(*t, "id", wrong).status();
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(last[0].file), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace lakeindex::index::zonemap
