// A data file's tail (page index + footer) carries no checksum of its own in Parquet; the
// manifest records them (table/manifest.h "tail"). Every byte flip there must make every read of
// it — a filtered query that prunes on page statistics, a full read, `verify` — fail with
// Corruption naming the file, never return a wrong answer. A full read reads no page index, and
// a scan pruned by page statistics none of the page map's blocks (table/data_tail.h): a flip
// there is found by what reads them (a lookup, verify).
#include <gtest/gtest.h>

#include <xxhash.h>

#include "format/parquet/reader.h"
#include "query/scanner.h"
#include "table/table.h"
#include "util/test_util.h"

namespace lakeindex::query {
namespace {

using table::FragmentMeta;
using table::Table;

Result<uint64_t> CountRows(const Table& table, const std::string& where) {
  ScanRequest request;
  request.where = where;
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(&table, request));
  uint64_t rows = 0;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    rows += batch.num_rows();
  }
  return rows;
}

std::shared_ptr<ObjectStore> SmallTable(std::unique_ptr<Table>* out) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  Batch batch = testing::RandomBatch(*Schema::Parse("id:int64,name:string,x:double"), 600, 7);
  auto source = table::MemorySource(batch.schema(), {batch});
  table::WriteConfig config;
  config.parquet.page_rows = 50;
  config.parquet.row_group_rows = 200;
  auto created = Table::Create(store, source.get(), config);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  *out = std::move(*created);
  return store;
}

void ExpectCorruptionNaming(const Status& st, const std::string& file, size_t offset) {
  EXPECT_TRUE(st.IsCorruption()) << "flip at offset " << offset << ": " << st.ToString();
  EXPECT_NE(st.message().find(file), std::string::npos) << "flip at offset " << offset << ": " << st.ToString();
}

TEST(DataTailCorruptionTest, ManifestRecordsTheTailOfEveryDataFile) {
  std::unique_ptr<Table> table;
  auto store = SmallTable(&table);
  for (const FragmentMeta& f : table->manifest().fragments) {
    ASSERT_TRUE(f.tail.has_value()) << f.file;
    std::string bytes = *store->Read(f.file);
    auto offset = parquet::TailOffset(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), f.file);
    ASSERT_TRUE(offset.ok());
    EXPECT_EQ(f.tail->offset, *offset);
    EXPECT_LT(f.tail->offset + 8, f.file_size);
    auto sum = [&](uint64_t begin, uint64_t end) { return XXH64(bytes.data() + begin, size_t(end - begin), 0); };
    EXPECT_EQ(f.tail->xxh64, sum(f.tail->offset, f.file_size));
    // The split: where the first OffsetIndex starts, every ColumnIndex before it.
    ASSERT_TRUE(f.tail->split.has_value()) << f.file;
    auto reader = parquet::ParquetReader::Open(store.get(), f.file);
    ASSERT_TRUE(reader.ok());
    uint64_t first_oi = f.file_size, ci_end = 0;
    for (const parquet::RowGroup& g : (*reader)->metadata().row_groups) {
      for (const parquet::ColumnChunk& cc : g.columns) {
        first_oi = std::min(first_oi, uint64_t(*cc.offset_index_offset));
        ci_end = std::max(ci_end, uint64_t(*cc.column_index_offset + *cc.column_index_length));
      }
    }
    EXPECT_EQ(f.tail->split->oi_offset, first_oi);
    EXPECT_EQ(ci_end, first_oi);
    EXPECT_EQ(f.tail->split->ci_xxh64, sum(f.tail->offset, first_oi));
    EXPECT_EQ(f.tail->split->oi_xxh64, sum(first_oi, f.file_size));
  }
  // The manifest written and re-read keeps it.
  auto reopened = Table::Open(store);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->manifest().fragments, table->manifest().fragments);
}

TEST(DataTailCorruptionTest, EveryByteFlipInTheTailIsCorruptionNamingTheFile) {
  std::unique_ptr<Table> table;
  auto store = SmallTable(&table);
  const FragmentMeta frag = table->manifest().fragments[0];
  const std::string good = *store->Read(frag.file);
  const uint64_t expected_rows = *CountRows(*table, "x > 0.5 AND id < 0");
  ASSERT_EQ(*CountRows(*table, ""), 600u);
  ASSERT_TRUE(table->Verify().ok());
  const Batch all = *table->ReadAll();
  size_t flips = 0;
  for (size_t offset = frag.tail->offset; offset < good.size(); ++offset) {
    for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80)}) {
      std::string bad = good;
      bad[offset] = char(uint8_t(bad[offset]) ^ mask);
      ASSERT_TRUE(store->Write(frag.file, bad).ok());
      auto reopened = Table::Open(store);  // fresh: nothing cached from the good file
      ASSERT_TRUE(reopened.ok());
      // The regions: ColumnIndexes, OffsetIndexes, the page map's blocks, its header and the footer.
      const auto& map = *frag.tail->split->map;
      const bool in_blocks = offset >= map.offset && offset < map.header_offset;
      auto count = CountRows(**reopened, "x > 0.5 AND id < 0");
      if (in_blocks) {  // pruning locates pages by the OffsetIndexes it reads: no block is read
        ASSERT_TRUE(count.ok()) << "flip at offset " << offset << ": " << count.status().ToString();
        EXPECT_EQ(*count, expected_rows) << "flip at offset " << offset;
        // A lookup (of a table that has not read the OffsetIndexes) reads the blocks: the damaged
        // one is Corruption.
        auto fresh = Table::Open(store);
        ASSERT_TRUE(fresh.ok());
        auto reader = (*fresh)->OpenDataFile(frag);
        ASSERT_TRUE(reader.ok());
        Status located;
        for (int rg = 0; rg < (*reader)->num_row_groups() && located.ok(); ++rg) {
          for (int c = 0; c < 3 && located.ok(); ++c) {
            auto chunk = (*reader)->SharedChunk(rg, c);
            ASSERT_TRUE(chunk.ok());
            std::vector<int> pages((*chunk)->locations->pages.size());
            for (size_t p = 0; p < pages.size(); ++p) pages[p] = int(p);
            located = (*reader)->LocatePages(**chunk, rg, c, pages);
          }
        }
        ExpectCorruptionNaming(located, frag.file, offset);
      } else {
        ExpectCorruptionNaming(count.status(), frag.file, offset);
      }
      if (offset >= map.header_offset) {  // read at open
        ExpectCorruptionNaming((*reopened)->ReadAll().status(), frag.file, offset);
      } else {  // a full read needs no page index, and reads none
        auto read = (*reopened)->ReadAll();
        ASSERT_TRUE(read.ok()) << "flip at offset " << offset << ": " << read.status().ToString();
        EXPECT_TRUE(read->Equals(all)) << "flip at offset " << offset;
      }
      ExpectCorruptionNaming((*reopened)->Verify().status(), frag.file, offset);
      ++flips;
    }
  }
  EXPECT_GT(flips, 200u);
  RecordProperty("flips", int(flips));
  ASSERT_TRUE(store->Write(frag.file, good).ok());
  EXPECT_EQ(*CountRows(*table, "x > 0.5 AND id < 0"), expected_rows);
}

TEST(DataTailCorruptionTest, OnARemoteStoreADamagedPageMapIsFoundAtOpen) {
  // A remote store's tables open without the page map, reading [oi_offset, end) as before the map
  // (data_tail.h): oi_xxh64 covers the blocks, so a damaged block fails every read; verify, which
  // also compares the blocks with the OffsetIndexes, passes on the healthy table.
  std::unique_ptr<Table> table;
  auto store = SmallTable(&table);
  const FragmentMeta frag = table->manifest().fragments[0];
  auto remote = std::make_shared<InstrumentedStore>(store);
  remote->SetLatencyMicros(1);  // counts as remote
  ASSERT_TRUE(remote->remote());
  {
    auto healthy = Table::Open(remote);
    ASSERT_TRUE(healthy.ok());
    auto reader = (*healthy)->OpenDataFile(frag);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_FALSE((*reader)->has_page_map());
    auto verified = (*healthy)->Verify();
    EXPECT_TRUE(verified.ok()) << verified.status().ToString();
  }
  std::string bad = *store->Read(frag.file);
  const size_t at = size_t(frag.tail->split->map->offset) + 5;  // in a block
  bad[at] ^= 0x20;
  ASSERT_TRUE(store->Write(frag.file, bad).ok());
  auto reopened = Table::Open(remote);
  ASSERT_TRUE(reopened.ok());
  ExpectCorruptionNaming(CountRows(**reopened, "").status(), frag.file, at);
  ExpectCorruptionNaming((*reopened)->Verify().status(), frag.file, at);
}

TEST(DataTailCorruptionTest, TruncatedOrExtendedFilesAreCorruption) {
  std::unique_ptr<Table> table;
  auto store = SmallTable(&table);
  const FragmentMeta frag = table->manifest().fragments[0];
  const std::string good = *store->Read(frag.file);
  for (std::string bad : {good.substr(0, good.size() - 1), good.substr(0, size_t(frag.tail->offset)), good + "x"}) {
    ASSERT_TRUE(store->Write(frag.file, bad).ok());
    auto reopened = Table::Open(store);
    ASSERT_TRUE(reopened.ok());
    ExpectCorruptionNaming((*reopened)->Verify().status(), frag.file, bad.size());
    if (bad.size() < good.size()) ExpectCorruptionNaming((*reopened)->ReadAll().status(), frag.file, bad.size());
  }
}

TEST(DataTailCorruptionTest, TailsWithoutTheSplitReadAndCheckTheWholeTailAtOpen) {
  // Manifests written before the split: the whole tail is read and checked at open, as then.
  std::unique_ptr<Table> table;
  auto store = SmallTable(&table);
  Batch before = *table->ReadAll();
  table::Transaction txn;
  txn.operation = "unsplit tails";
  txn.apply_extra = [](table::Manifest* m) {
    for (FragmentMeta& f : m->fragments) f.tail->split.reset();
    return Status::OK();
  };
  ASSERT_TRUE(table->Commit(std::move(txn)).ok());
  auto reopened = Table::Open(store);
  ASSERT_TRUE(reopened.ok());
  const FragmentMeta frag = (*reopened)->manifest().fragments[0];
  ASSERT_TRUE(frag.tail.has_value());
  ASSERT_FALSE(frag.tail->split.has_value());
  EXPECT_TRUE((*reopened)->ReadAll()->Equals(before));
  EXPECT_TRUE((*reopened)->Verify().ok());
  EXPECT_EQ(*CountRows(**reopened, ""), 600u);
  // A ColumnIndex byte flipped: the open finds it, whatever is read.
  const std::string good = *store->Read(frag.file);
  std::string bad = good;
  bad[size_t(frag.tail->offset) + 1] ^= 0x04;
  ASSERT_TRUE(store->Write(frag.file, bad).ok());
  auto damaged = Table::Open(store);
  ASSERT_TRUE(damaged.ok());
  ExpectCorruptionNaming((*damaged)->ReadAll().status(), frag.file, size_t(frag.tail->offset) + 1);
}

TEST(DataTailCorruptionTest, FragmentsWithoutATailStillRead) {
  // Manifests written before the tail existed: the files open the old way.
  std::unique_ptr<Table> table;
  auto store = SmallTable(&table);
  Batch before = *table->ReadAll();
  table::Transaction txn;
  txn.operation = "strip tails";
  txn.apply_extra = [](table::Manifest* m) {
    for (FragmentMeta& f : m->fragments) f.tail.reset();
    return Status::OK();
  };
  ASSERT_TRUE(table->Commit(std::move(txn)).ok());
  auto reopened = Table::Open(store);
  ASSERT_TRUE(reopened.ok());
  for (const FragmentMeta& f : (*reopened)->manifest().fragments) EXPECT_FALSE(f.tail.has_value());
  EXPECT_TRUE((*reopened)->ReadAll()->Equals(before));
  auto report = (*reopened)->Verify();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(*CountRows(**reopened, ""), 600u);
}

}  // namespace
}  // namespace lakeindex::query
