// ForEachColumnChunk, which reads the next row group ahead on another thread: every row group of
// every fragment in order, with its offset, each fragment closed by fragment_done; a damaged
// fragment fails when it is reached, after the fragments before it.
#include "index/index_kind.h"

#include <gtest/gtest.h>

#include "table/table.h"
#include "util/test_util.h"

namespace lakeindex::index {
namespace {

struct Built {
  std::shared_ptr<ObjectStore> store;
  std::unique_ptr<table::Table> table;
  Batch batch;
};

// 3,500 rows in files of 1,000 rows, row groups of 300 (300, 300, 300, 100; the last file 500).
Built MakeTable() {
  Built b;
  b.store = NewMemoryStore();
  b.batch = testing::RandomBatch(*Schema::Parse("id:int64,name:string"), 3500, 21, 0.1);
  table::WriteConfig config;
  config.rows_per_file = 1000;
  config.parquet.row_group_rows = 300;
  config.parquet.page_rows = 64;
  auto source = table::MemorySource(b.batch.schema(), {b.batch});
  auto t = table::Table::Create(b.store, source.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (t.ok()) b.table = std::move(*t);
  return b;
}

TEST(ForEachColumnChunk, EveryRowGroupInOrderThenItsFragmentDone) {
  Built b = MakeTable();
  ASSERT_NE(b.table, nullptr);
  const auto& fragments = b.table->manifest().fragments;
  ASSERT_EQ(fragments.size(), 4u);
  Column names(TypeId::kString);
  std::vector<std::string> calls;
  Status st = ForEachColumnChunk(
      *b.table, "name", fragments,
      [&](const table::FragmentMeta& f, uint32_t offset, const Column& values) {
        calls.push_back("chunk " + std::to_string(f.id) + "@" + std::to_string(offset) + "+" + std::to_string(values.length()));
        names.AppendSlice(values, 0, values.length());
        return Status::OK();
      },
      [&](const table::FragmentMeta& f) {
        calls.push_back("done " + std::to_string(f.id));
        return Status::OK();
      });
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<std::string> want;
  for (const auto& f : fragments) {
    for (uint64_t at = 0; at < f.rows; at += 300) {
      want.push_back("chunk " + std::to_string(f.id) + "@" + std::to_string(at) + "+" + std::to_string(std::min<uint64_t>(300, f.rows - at)));
    }
    want.push_back("done " + std::to_string(f.id));
  }
  EXPECT_EQ(calls, want);
  ASSERT_EQ(names.length(), b.batch.num_rows());
  for (size_t r = 0; r < names.length(); ++r) {
    ASSERT_EQ(names.IsNull(r), b.batch.column(1).IsNull(r)) << r;
    if (!names.IsNull(r)) {
      ASSERT_EQ(names.GetString(r), b.batch.column(1).GetString(r)) << r;
    }
  }
}

TEST(ForEachColumnChunk, ADamagedFragmentFailsWhenReached) {
  Built b = MakeTable();
  ASSERT_NE(b.table, nullptr);
  const auto& fragments = b.table->manifest().fragments;
  ASSERT_TRUE(b.store->Write(fragments[2].file, std::string(4096, 'x')).ok());  // read ahead during fragment 1
  std::vector<std::string> calls;
  Status st = ForEachColumnChunk(
      *b.table, "id", fragments,
      [&](const table::FragmentMeta& f, uint32_t offset, const Column&) {
        calls.push_back("chunk " + std::to_string(f.id) + "@" + std::to_string(offset));
        return Status::OK();
      },
      [&](const table::FragmentMeta& f) {
        calls.push_back("done " + std::to_string(f.id));
        return Status::OK();
      });
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(fragments[2].file), std::string::npos) << st.ToString();
  std::vector<std::string> want;
  for (size_t i = 0; i < 2; ++i) {
    for (uint64_t at = 0; at < 1000; at += 300) want.push_back("chunk " + std::to_string(fragments[i].id) + "@" + std::to_string(at));
    want.push_back("done " + std::to_string(fragments[i].id));
  }
  EXPECT_EQ(calls, want);
}

// A chunk callback's error ends the walk at once (the read ahead in flight is waited for).
TEST(ForEachColumnChunk, AChunkErrorStopsTheWalk) {
  Built b = MakeTable();
  ASSERT_NE(b.table, nullptr);
  size_t chunks = 0;
  Status st = ForEachColumnChunk(*b.table, "id", b.table->manifest().fragments,
                                 [&](const table::FragmentMeta&, uint32_t, const Column&) {
                                   return ++chunks == 4 ? Status::IOError("stop") : Status::OK();
                                 });
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_EQ(chunks, 4u);
}

}  // namespace
}  // namespace lakeindex::index
