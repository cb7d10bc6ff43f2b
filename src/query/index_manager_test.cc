#include "query/index_manager.h"

#include <gtest/gtest.h>

#include "lakeindex/events.h"
#include "query/scanner.h"

namespace lakeindex::query {
namespace {

// A table of `rows` events rows, `sorted_ids` making id follow row order (clustered).
std::unique_ptr<table::Table> EventsTable(std::shared_ptr<ObjectStore> store, uint64_t rows, bool sorted_ids,
                                          uint64_t rows_per_file) {
  EventsGenerator gen(rows, 7);
  std::vector<Batch> batches;
  Batch b;
  int64_t next_id = 0;
  while (gen.Next(65536, &b)) {
    if (sorted_ids) {
      int64_t* ids = b.mutable_column(0).mutable_data<int64_t>();
      for (size_t r = 0; r < b.num_rows(); ++r) ids[r] = next_id++;
    }
    batches.push_back(std::move(b));
  }
  auto src = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
  table::WriteConfig config;
  config.rows_per_file = rows_per_file;
  auto t = table::Table::Create(store, src.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(*t);
}

Result<std::pair<uint64_t, ScanCounters>> Count(const table::Table& t, const std::string& where, bool use_indexes) {
  ScanRequest request;
  request.where = where;
  request.select = {"id"};
  if (use_indexes) {
    ASSIGN_OR_RETURN(request.indexes, OpenIndexes(t, {}));
  }
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(&t, request));
  uint64_t n = 0;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    n += batch.num_rows();
  }
  return std::make_pair(n, scanner->counters());
}

TEST(IndexManagerTest, ZoneMapOnClusteredIdReadsAtMostTwoZones) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 1000000, /*sorted_ids=*/true, 1000000);
  IndexOptions options;
  options.column = "id";
  options.type = "zonemap";
  ASSERT_TRUE(CreateIndex(t.get(), options).ok());
  auto r = Count(*t, "id BETWEEN 500000 AND 500100", true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->first, 101u);
  EXPECT_LE(r->second.rows_read, 2u * 8192u);
  EXPECT_LE(r->second.index.pages_selected, 2u);
  // Two range conjuncts on one column are merged into one search (not two half-table answers).
  auto merged = Count(*t, "id >= 500000 AND id <= 500100 AND id > 499990", true);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->first, 101u);
  EXPECT_LE(merged->second.index.pages_selected, 2u);
}

TEST(IndexManagerTest, BTreeColdEqualityReadsOneLeafPageAndMatchesTheScan) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 200000, /*sorted_ids=*/false, 50000);
  IndexOptions options;
  options.column = "id";
  options.type = "btree";
  ASSERT_TRUE(CreateIndex(t.get(), options).ok());
  // Selective filters read fewer rows; 10% of the rows, scattered, touch every page, so the
  // scanner reads whole row groups there (same rows read as without the index).
  for (const auto& [where, selective] : std::vector<std::pair<std::string, bool>>{
           {"id = 123457", true}, {"id IN (5, 99999, 7) OR id < 3", true}, {"NOT (id >= 10) AND score > 0", true},
           {"id BETWEEN 10 AND 20000", false}}) {
    auto with = Count(*t, where, true);
    auto without = Count(*t, where, false);
    ASSERT_TRUE(with.ok() && without.ok()) << where;
    EXPECT_EQ(with->first, without->first) << where;
    if (selective) {
      EXPECT_LT(with->second.rows_read, without->second.rows_read) << where;
    } else {
      EXPECT_EQ(with->second.rows_read, without->second.rows_read) << where;
    }
  }
  auto cold = Count(*t, "id = 4242", true);
  ASSERT_TRUE(cold.ok());
  EXPECT_EQ(cold->first, 1u);
  EXPECT_EQ(cold->second.index.pages_read, 1u);
}

TEST(IndexManagerTest, TakeReadsOnlyThePagesOfTheGivenRows) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 100000, /*sorted_ids=*/true, 50000);
  const auto& frags = t->manifest().fragments;
  RowSet rows = RowSet::Of({MakeRowAddress(frags[0].id, 5), MakeRowAddress(frags[0].id, 40000),
                            MakeRowAddress(frags[1].id, 7)});
  ASSERT_TRUE(t->DeleteRows(RowSet::Of({MakeRowAddress(frags[0].id, 40000)})).ok());
  for (const std::string& where : {std::string(""), std::string("id > 6")}) {
    ScanRequest request;
    request.select = {"id"};
    request.rows = rows;
    request.where = where;
    auto scanner = Scanner::Make(t.get(), request);
    ASSERT_TRUE(scanner.ok());
    std::vector<int64_t> ids;
    Batch b;
    while (*(*scanner)->Next(&b)) {
      for (size_t r = 0; r < b.num_rows(); ++r) ids.push_back(b.column(0).Get<int64_t>(r));
    }
    // Row 40000 is deleted; ids follow row order (fragment 1 starts at id 50000).
    EXPECT_EQ(ids, where.empty() ? std::vector<int64_t>({5, 50007}) : std::vector<int64_t>({50007}));
    EXPECT_LE((*scanner)->counters().rows_read, 3u * 8192u);
  }
}

TEST(IndexManagerTest, BadRequestsLeaveTheTableAsItWas) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 1000, false, 1000);
  IndexOptions options;
  options.column = "nope";
  options.type = "btree";
  EXPECT_TRUE(CreateIndex(t.get(), options).IsInvalidArgument());
  options.column = "id";
  options.type = "hash";
  EXPECT_TRUE(CreateIndex(t.get(), options).IsInvalidArgument());
  options.type = "btree";
  options.page_rows = 0;
  EXPECT_TRUE(CreateIndex(t.get(), options).IsInvalidArgument());
  EXPECT_EQ(t->version(), 1u);
  options.page_rows = 64;
  ASSERT_TRUE(CreateIndex(t.get(), options).ok());
  EXPECT_TRUE(CreateIndex(t.get(), options).IsInvalidArgument());  // name in use
  EXPECT_TRUE(DropIndex(t.get(), "missing").IsInvalidArgument());
  EXPECT_EQ(t->version(), 2u);
}

TEST(IndexManagerTest, AppendThenUpdateCoversNewFragmentsAndDropRemoves) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 3000, false, 1000);
  IndexOptions options;
  options.column = "score";
  options.type = "btree";
  options.page_rows = 100;
  ASSERT_TRUE(CreateIndex(t.get(), options).ok());
  EventsGenerator gen(500, 99);
  Batch more;
  ASSERT_TRUE(gen.Next(500, &more));
  auto src = table::MemorySource(more.schema(), {more});
  ASSERT_TRUE(t->Append(src.get(), table::WriteConfig{}).ok());
  auto indexes = index::ReadIndexes(t->manifest());
  ASSERT_TRUE(indexes.ok());
  EXPECT_EQ((*indexes)[0].CoveredFragments(t->manifest()).size(), 3u);  // the appended one is scanned
  auto before = Count(*t, "score < 100000", true);
  auto updated = UpdateIndexes(t.get(), "");
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(*updated, 1u);
  EXPECT_EQ((*index::ReadIndexes(t->manifest()))[0].CoveredFragments(t->manifest()).size(), 4u);
  auto after = Count(*t, "score < 100000", true);
  auto scan = Count(*t, "score < 100000", false);
  ASSERT_TRUE(before.ok() && after.ok() && scan.ok());
  EXPECT_EQ(before->first, scan->first);
  EXPECT_EQ(after->first, scan->first);
  ASSERT_TRUE(DropIndex(t.get(), "score_btree").ok());
  EXPECT_TRUE(OpenIndexes(*t, {})->empty());
}

}  // namespace
}  // namespace lakeindex::query
