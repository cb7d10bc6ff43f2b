// Data files are opened without their ColumnIndexes (table/data_tail.h): an exact index take never
// reads page statistics, page pruning reads all of a file's with one more request, and either way
// the rows are those of a brute-force read.
#include <gtest/gtest.h>

#include <algorithm>

#include "lakeindex/events.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/table.h"

namespace lakeindex::query {
namespace {

using table::FragmentMeta;
using table::Table;

// 20,000 events rows in 2 files of 256-row pages; a btree on `id`. `sorted_ids`: id = row number
// (then its pages' statistics prune).
std::unique_ptr<Table> EventsTable(std::shared_ptr<ObjectStore> store, bool sorted_ids = false) {
  EventsGenerator gen(20000, 52);
  std::vector<Batch> batches;
  Batch b;
  int64_t next_id = 0;
  while (gen.Next(4096, &b)) {
    if (sorted_ids) {
      int64_t* ids = b.mutable_column(0).mutable_data<int64_t>();
      for (size_t r = 0; r < b.num_rows(); ++r) ids[r] = next_id++;
    }
    batches.push_back(std::move(b));
  }
  auto source = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
  table::WriteConfig config;
  config.rows_per_file = 10000;
  config.parquet.page_rows = 256;
  auto t = Table::Create(store, source.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  IndexOptions options;
  options.column = "id";
  options.type = "btree";
  EXPECT_TRUE(CreateIndex(t->get(), options).ok());
  return std::move(*t);
}

Result<std::pair<Batch, ScanCounters>> Query(const Table& t, const std::string& where, bool use_indexes) {
  ScanRequest request;
  request.where = where;
  if (use_indexes) {
    ASSIGN_OR_RETURN(request.indexes, OpenIndexes(t, {}));
  }
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(&t, request));
  Batch all, batch;
  for (bool first = true;; first = false) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    if (first) all = std::move(batch);
    else RETURN_IF_ERROR(all.Append(batch));
  }
  return std::make_pair(std::move(all), scanner->counters());
}

// Commits a version whose manifest records the tails as an older writer did: without their page
// map (`map`), or without the split as well.
Status Rewrite(Table* table, bool drop_split) {
  table::Transaction txn;
  txn.operation = drop_split ? "unsplit tails" : "unmap tails";
  txn.apply_extra = [drop_split](table::Manifest* m) {
    for (FragmentMeta& f : m->fragments) {
      if (drop_split) f.tail->split.reset();
      else f.tail->split->map.reset();
    }
    return Status::OK();
  };
  return table->Commit(std::move(txn));
}
Status Unsplit(Table* table) { return Rewrite(table, /*drop_split=*/true); }
Status Unmap(Table* table) { return Rewrite(table, /*drop_split=*/false); }

// Bytes of ColumnIndexes each data file's reader (the table's cached one) has read.
std::vector<uint64_t> ColumnIndexBytesRead(const Table& t) {
  std::vector<uint64_t> out;
  for (const FragmentMeta& f : t.manifest().fragments) out.push_back((*t.OpenDataFile(f))->column_index_bytes_read());
  return out;
}

TEST(LazyColumnIndexTest, AnExactBtreeTakeReadsNoColumnIndex) {
  auto memory = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto store = std::make_shared<InstrumentedStore>(memory);
  auto created = EventsTable(store);
  const auto fragments = created->manifest().fragments;
  ASSERT_EQ(fragments.size(), 2u);
  for (const FragmentMeta& f : fragments) ASSERT_TRUE(f.tail && f.tail->split) << f.file;
  auto brute = Table::Open(memory);
  ASSERT_TRUE(brute.ok());
  auto ids = (*brute)->ReadAll({0});
  ASSERT_TRUE(ids.ok());
  const std::vector<size_t> rows = {3, 9999, 10000, 17777};
  struct Lookup {
    Batch rows;
    uint64_t requests, bytes;
    uint64_t map_bytes = 0;  // of the page map's blocks, by the file holding the row
  };
  // Each lookup cold (a table just opened, no data file open yet): its rows and what it read.
  auto lookups = [&]() {
    std::vector<Lookup> out;
    for (size_t row : rows) {
      const std::string where = "id = " + std::to_string(ids->column(0).Get<int64_t>(row));
      auto fresh = Table::Open(store);
      EXPECT_TRUE(fresh.ok());
      store->counters().Reset();
      auto taken = Query(**fresh, where, /*use_indexes=*/true);
      EXPECT_TRUE(taken.ok()) << taken.status().ToString();
      out.push_back({taken->first, store->counters().read_requests.load(), store->counters().bytes_read.load()});
      EXPECT_LE(taken->second.pages_read, taken->second.pages_total / 4) << where;  // a take, not a scan
      for (uint64_t bytes : ColumnIndexBytesRead(**fresh)) EXPECT_EQ(bytes, 0u) << where;
      const FragmentMeta& f = (*fresh)->manifest().fragments[row / 10000];
      auto reader = (*fresh)->OpenDataFile(f);
      EXPECT_TRUE(reader.ok());
      EXPECT_EQ((*reader)->offset_index_bytes_read(), 0u) << where;  // with a page map, not even the OffsetIndexes
      out.back().map_bytes = (*reader)->page_map_bytes_read();
      auto scanned = Query(**brute, where, /*use_indexes=*/false);
      EXPECT_TRUE(scanned.ok()) << scanned.status().ToString();
      EXPECT_EQ(taken->first.num_rows(), 1u) << where;
      EXPECT_TRUE(taken->first.Equals(scanned->first)) << where;
    }
    return out;
  };
  for (const FragmentMeta& f : fragments) ASSERT_TRUE(f.tail->split->map) << f.file;
  const std::vector<Lookup> mapped = lookups();
  // The same lookups under a manifest written before the page map: the OffsetIndexes at open.
  ASSERT_TRUE(Unmap(created.get()).ok());
  const std::vector<Lookup> split = lookups();
  // And before the split: the whole tail at open.
  ASSERT_TRUE(Unsplit(created.get()).ok());
  const std::vector<Lookup> whole = lookups();
  for (size_t i = 0; i < rows.size(); ++i) {
    // Only the file holding the row is opened; it no longer reads its ColumnIndexes.
    const FragmentMeta& f = fragments[rows[i] / 10000];
    EXPECT_TRUE(split[i].rows.Equals(whole[i].rows)) << rows[i];
    EXPECT_TRUE(mapped[i].rows.Equals(whole[i].rows)) << rows[i];
    EXPECT_EQ(split[i].requests, whole[i].requests) << rows[i];
    EXPECT_EQ(whole[i].bytes - split[i].bytes, f.tail->split->oi_offset - f.tail->offset) << rows[i];
    // With the map: its header and the footer at open, then one block, in one more request.
    EXPECT_EQ(split[i].map_bytes, 0u);
    const uint64_t page = rows[i] % 10000 / 256, pages = (10000 + 255) / 256;  // 40 pages of 256 rows a file
    const uint64_t block_pages = std::min<uint64_t>(16, pages - page / 16 * 16);
    EXPECT_EQ(mapped[i].map_bytes, 4 * 9 * (block_pages + 1) + 4) << rows[i];  // 9 columns, the next page, a CRC
    EXPECT_EQ(mapped[i].requests, split[i].requests + 1) << rows[i];
    EXPECT_EQ(split[i].bytes - mapped[i].bytes, f.tail->split->map->header_offset - f.tail->split->oi_offset -
                                                    mapped[i].map_bytes) << rows[i];
  }
}

TEST(LazyColumnIndexTest, PagePruningReadsEveryColumnIndexOfAFileWithOneMoreRequest) {
  auto memory = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto store = std::make_shared<InstrumentedStore>(memory);
  auto created = EventsTable(store, /*sorted_ids=*/true);
  const std::string where = "id BETWEEN 5000 AND 5100 OR id BETWEEN 15000 AND 15010";  // a page or two of each file
  auto run = [&]() -> std::tuple<Batch, ScanCounters, uint64_t, uint64_t, std::vector<uint64_t>> {
    auto fresh = Table::Open(store);
    EXPECT_TRUE(fresh.ok());
    store->counters().Reset();
    auto result = Query(**fresh, where, /*use_indexes=*/false);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return {result->first, result->second, store->counters().read_requests.load(), store->counters().bytes_read.load(),
            ColumnIndexBytesRead(**fresh)};
  };
  const auto fragments = created->manifest().fragments;
  // With the page map, pruning reads the OffsetIndexes too, in the ColumnIndexes' request: all of
  // the tail but the map's blocks, in as many requests.
  auto [map_rows, map_counters, map_requests, map_bytes, map_ci_read] = run();
  ASSERT_TRUE(Unmap(created.get()).ok());
  auto [rows, counters, requests, bytes, ci_read] = run();
  ASSERT_GT(rows.num_rows(), 0u);
  ASSERT_LT(counters.pages_read, counters.pages_total / 4);  // pruned by page statistics
  for (size_t i = 0; i < fragments.size(); ++i) {
    EXPECT_EQ(ci_read[i], fragments[i].tail->split->oi_offset - fragments[i].tail->offset) << fragments[i].file;
    EXPECT_EQ(map_ci_read[i], ci_read[i]) << fragments[i].file;
  }
  EXPECT_TRUE(map_rows.Equals(rows));
  EXPECT_EQ(map_counters.pages_read, counters.pages_read);
  EXPECT_EQ(map_requests, requests);
  uint64_t blocks = 0;
  for (const FragmentMeta& f : fragments) blocks += f.tail->split->map->header_offset - f.tail->split->map->offset;
  EXPECT_EQ(map_bytes + blocks, bytes);
  // The same table under a manifest written before the split: the whole tail at open (the page
  // map's OffsetIndexes, read for the page statistics' pruning, are this version's tail).
  ASSERT_TRUE(Unsplit(created.get()).ok());
  auto [old_rows, old_counters, old_requests, old_bytes, old_ci_read] = run();
  EXPECT_TRUE(rows.Equals(old_rows));
  EXPECT_EQ(counters.pages_read, old_counters.pages_read);
  EXPECT_EQ(counters.rows_read, old_counters.rows_read);
  EXPECT_EQ(bytes, old_bytes);                         // the same bytes,
  EXPECT_EQ(requests, old_requests + fragments.size());  // in one more request per file
  for (uint64_t b : old_ci_read) EXPECT_EQ(b, 0u);
}

TEST(LazyColumnIndexTest, TheTablesReaderCacheCountsWhatItsReadersReadAfterTheirOpen) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto created = EventsTable(store, /*sorted_ids=*/true);
  auto fresh = Table::Open(store);
  ASSERT_TRUE(fresh.ok());
  const auto& fragments = (*fresh)->manifest().fragments;
  for (const FragmentMeta& f : fragments) ASSERT_TRUE((*fresh)->OpenDataFile(f).ok());
  const uint64_t opened = (*fresh)->reader_cache_bytes();
  // A scan pruned by page statistics reads every file's ColumnIndexes and OffsetIndexes.
  auto result = Query(**fresh, "id BETWEEN 5000 AND 5100 OR id BETWEEN 15000 AND 15010", /*use_indexes=*/false);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  uint64_t regions = 0;
  for (const FragmentMeta& f : fragments) {
    auto reader = (*fresh)->OpenDataFile(f);  // a hit: counts what the reader holds now
    ASSERT_TRUE(reader.ok());
    ASSERT_GT((*reader)->column_index_bytes_read() + (*reader)->offset_index_bytes_read(), 0u) << f.file;
    regions += (*reader)->column_index_bytes_read() + (*reader)->offset_index_bytes_read();
  }
  EXPECT_GE((*fresh)->reader_cache_bytes(), opened + regions);
}

}  // namespace
}  // namespace lakeindex::query
