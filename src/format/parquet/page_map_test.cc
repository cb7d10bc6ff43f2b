// The page map (page_map.h): pages located through it are the pages the OffsetIndex locates, an
// open with it reads the map's header and the footer only, a take reads one block, and damage to
// a block or a map that disagrees with the OffsetIndexes is Corruption.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "format/parquet/crc32.h"
#include "format/parquet/page_map.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

struct Written {
  Batch batch;
  std::string file;
  ParquetWriter::TailParts parts;
  uint64_t tail_offset = 0;
  OpenOptions Options() const {
    OpenOptions o;
    o.tail_offset = tail_offset;
    o.offset_index_offset = tail_offset + parts.column_indexes;
    o.page_map = OpenOptions::PageMapAt{*o.offset_index_offset + parts.offset_indexes,
                                        *o.offset_index_offset + parts.offset_indexes + parts.page_map_blocks};
    o.file_size = file.size();
    return o;
  }
};

Written Write(ObjectStore* store, const std::string& path, const Batch& batch, WriteOptions options) {
  Written w;
  w.batch = batch;
  options.page_map = true;
  auto sink = store->OpenWriter(path);
  EXPECT_TRUE(sink.ok());
  auto writer = ParquetWriter::Make(batch.schema(), options, sink->get());
  EXPECT_TRUE(writer.ok());
  EXPECT_TRUE((*writer)->Write(batch).ok());
  const uint64_t size = *(*writer)->FinishToSink();
  EXPECT_TRUE((*sink)->Close().ok());
  w.parts = (*writer)->tail_parts();
  w.tail_offset = size - (*writer)->tail().size();
  w.file = *store->Read(path);
  return w;
}

// Every page of every chunk of `mapped` (opened with the page map) against `plain` (opened
// through its OffsetIndexes): the same locations, the same rows.
void ExpectSamePages(const ParquetReader& mapped, const ParquetReader& plain, testing::Rng& rng) {
  for (int rg = 0; rg < plain.num_row_groups(); ++rg) {
    for (int c = 0; c < int(plain.schema().num_fields()); ++c) {
      auto truth = plain.SharedPageIndex(rg, c, false);
      ASSERT_TRUE(truth.ok()) << truth.status().ToString();
      auto chunk = mapped.SharedChunk(rg, c);
      ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
      ASSERT_EQ((*chunk)->locations->pages.size(), (*truth)->pages.size());
      // A random subset of the pages, read through the map.
      std::vector<int> pages;
      for (size_t p = 0; p < (*truth)->pages.size(); ++p) {
        if (rng.Uniform(3) == 0) pages.push_back(int(p));
      }
      if (pages.empty()) pages.push_back(int(rng.Uniform((*truth)->pages.size())));
      auto got = mapped.ReadPagesShared(*chunk, rg, c, pages, ObjectStore::ReadHint{});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      auto want = plain.ReadPages(rg, c, pages, ObjectStore::ReadHint{});
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      for (size_t k = 0; k < pages.size(); ++k) {
        const PageIndexEntry &a = (*chunk)->locations->pages[size_t(pages[k])], &b = (*truth)->pages[size_t(pages[k])];
        EXPECT_EQ(a.offset, b.offset);
        EXPECT_EQ(a.compressed_size, b.compressed_size);
        EXPECT_EQ(a.first_row_index, b.first_row_index);
        EXPECT_EQ(a.num_rows, b.num_rows);
        EXPECT_TRUE(got->pages[k]->Equals((*want)[k])) << "row group " << rg << " column " << c << " page " << pages[k];
      }
    }
  }
}

TEST(PageMapTest, PagesLocatedByTheMapAreTheOffsetIndexsPagesOnRandomFiles) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    testing::Rng rng(seed);
    const Schema schema = testing::RandomSchema(seed);
    const Batch batch = testing::RandomBatch(schema, 200 + rng.Uniform(1500), seed, seed % 3 == 0 ? 0.0 : 0.2);
    WriteOptions options;
    options.page_rows = std::vector<size_t>{7, 50, 64, 1024}[seed % 4];
    options.row_group_rows = std::vector<size_t>{300, 1000, 1 << 20}[seed % 3];
    options.dictionary = seed % 2 == 0;
    options.delta_integers = seed % 5 == 0;
    options.byte_stream_split_floats = seed % 5 == 0;
    options.delta_length_strings = seed % 7 == 0;
    options.page_crc = seed % 2 == 1;
    auto store = NewMemoryStore();
    const Written w = Write(store.get(), "f.parquet", batch, options);
    ASSERT_GT(w.parts.page_map_header, 0u);
    auto plain = ParquetReader::Open(store.get(), "f.parquet");
    ASSERT_TRUE(plain.ok()) << plain.status().ToString();
    auto mapped = ParquetReader::Open(store.get(), "f.parquet", w.Options());
    ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
    ASSERT_TRUE((*mapped)->has_page_map());
    ExpectSamePages(**mapped, **plain, rng);
    EXPECT_TRUE((*mapped)->CheckPageMap().ok());
    // The whole file, read through the map's reader, is the batch.
    auto all = (*mapped)->ReadAll();
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_TRUE(all->Equals(batch));
  }
}

Written EventsLike(ObjectStore* store) {
  const Batch batch = testing::RandomBatch(*Schema::Parse("id:int64,name:string,x:double,k:int32,t:timestamp"), 20000, 52, 0.1);
  WriteOptions options;
  options.page_rows = 1024;
  return Write(store, "f.parquet", batch, options);
}

TEST(PageMapTest, TheOpenReadsTheHeaderAndFooterAndATakeOneBlockNoOffsetIndex) {
  std::shared_ptr<ObjectStore> base = NewMemoryStore();
  const Written w = EventsLike(base.get());
  auto store = std::make_shared<InstrumentedStore>(base);
  auto reader = ParquetReader::Open(store.get(), "f.parquet", w.Options());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const uint64_t header = w.Options().page_map->header_offset;
  EXPECT_EQ(store->counters().bytes_read.load(), w.file.size() - header);  // the header and the footer
  EXPECT_LT(w.file.size() - header, 2000u);
  // One row of every column: one block of the map (for every column), no OffsetIndex.
  for (int c = 0; c < 5; ++c) {
    auto chunk = (*reader)->SharedChunk(0, c);
    ASSERT_TRUE(chunk.ok());
    auto pages = (*reader)->ReadPagesShared(*chunk, 0, c, {13}, store->read_hint());
    ASSERT_TRUE(pages.ok()) << pages.status().ToString();
    EXPECT_EQ(pages->pages[0]->length(), 1024u);
  }
  EXPECT_EQ((*reader)->page_map_bytes_read(), 4u * 5 * 17 + 4);  // 5 columns x (16 pages + the next), its CRC
  EXPECT_EQ((*reader)->offset_index_bytes_read(), 0u);
  EXPECT_EQ((*reader)->column_index_bytes_read(), 0u);
  // The full page index of a chunk (page pruning, verify) reads the OffsetIndexes once.
  ASSERT_TRUE((*reader)->SharedPageIndex(0, 1, true).ok());
  EXPECT_EQ((*reader)->offset_index_bytes_read(), w.parts.offset_indexes);
  EXPECT_EQ((*reader)->column_index_bytes_read(), w.parts.column_indexes);
}

TEST(PageMapTest, ADamagedBlockIsCorruptionNamingIt) {
  auto store = NewMemoryStore();
  Written w = EventsLike(store.get());
  const uint64_t blocks = w.Options().page_map->blocks_offset;
  std::string damaged = w.file;
  damaged[size_t(blocks + 4 * 5 * 17 + 4 + 9)] ^= 0x10;  // block 1 of row group 0
  ASSERT_TRUE(store->Write("f.parquet", damaged).ok());
  auto reader = ParquetReader::Open(store.get(), "f.parquet", w.Options());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto chunk = (*reader)->SharedChunk(0, 2);
  ASSERT_TRUE(chunk.ok());
  EXPECT_TRUE((*reader)->LocatePages(**chunk, 0, 2, {3}).ok());  // block 0 is whole
  Status st = (*reader)->LocatePages(**chunk, 0, 2, {17});
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.ToString().find("page map row group 0 block 1"), std::string::npos) << st.ToString();
  EXPECT_NE(st.ToString().find("CRC"), std::string::npos) << st.ToString();
  EXPECT_TRUE((*reader)->CheckPageMap().IsCorruption());
}

TEST(PageMapTest, AMapThatDisagreesWithTheOffsetIndexesFailsTheCheck) {
  auto store = NewMemoryStore();
  Written w = EventsLike(store.get());
  const uint64_t blocks = w.Options().page_map->blocks_offset;
  // Page 5 of column 3 moved by one byte inside its chunk, the block's CRC made right again.
  std::string damaged = w.file;
  const size_t block = size_t(blocks), length = 4 * 5 * 17;
  uint32_t v;
  std::memcpy(&v, damaged.data() + block + (5 * 5 + 3) * 4, 4);
  v += 1;
  std::memcpy(damaged.data() + block + (5 * 5 + 3) * 4, &v, 4);
  const uint32_t crc = Crc32(reinterpret_cast<const uint8_t*>(damaged.data() + block), length);
  std::memcpy(damaged.data() + block + length, &crc, 4);
  ASSERT_TRUE(store->Write("f.parquet", damaged).ok());
  auto reader = ParquetReader::Open(store.get(), "f.parquet", w.Options());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  Status st = (*reader)->CheckPageMap();
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  // Page 4 ends where page 5 begins: it is the first to disagree.
  EXPECT_NE(st.ToString().find("disagrees with the offset index on page 4"), std::string::npos) << st.ToString();
  // A take of that page (by a reader that has not read the OffsetIndexes) finds no page where the
  // map says.
  auto fresh = ParquetReader::Open(store.get(), "f.parquet", w.Options());
  ASSERT_TRUE(fresh.ok());
  auto chunk = (*fresh)->SharedChunk(0, 3);
  ASSERT_TRUE(chunk.ok());
  EXPECT_FALSE((*fresh)->ReadPagesShared(*chunk, 0, 3, {5}, ObjectStore::ReadHint{}).ok());
}

TEST(PageMapTest, ChunksWithPagesOfOtherSizesAreReadThroughTheirOffsetIndex) {
  auto store = NewMemoryStore();
  const Batch batch = testing::RandomBatch(*Schema::Parse("id:int64,w:double,name:string"), 3000, 7, 0.0);
  WriteOptions options;
  options.page_rows = 100;
  options.column_page_rows = {{"w", 333}};
  options.cut_columns = {"name"};
  Written w;
  {
    w.batch = batch;
    options.page_map = true;
    auto sink = store->OpenWriter("f.parquet");
    ASSERT_TRUE(sink.ok());
    auto writer = ParquetWriter::Make(batch.schema(), options, sink->get());
    ASSERT_TRUE(writer.ok());
    const std::vector<uint32_t> ends = {250, 750, 2000};  // page row counts of the cut column
    ASSERT_TRUE((*writer)->Write(batch, 0, batch.num_rows(), ends).ok());
    const uint64_t size = *(*writer)->FinishToSink();
    ASSERT_TRUE((*sink)->Close().ok());
    w.parts = (*writer)->tail_parts();
    w.tail_offset = size - (*writer)->tail().size();
    w.file = *store->Read("f.parquet");
  }
  auto mapped = ParquetReader::Open(store.get(), "f.parquet", w.Options());
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  auto plain = ParquetReader::Open(store.get(), "f.parquet");
  ASSERT_TRUE(plain.ok());
  auto chunk = (*mapped)->SharedChunk(0, 0);
  ASSERT_TRUE(chunk.ok());
  EXPECT_NE((*chunk)->unlocated, nullptr);  // id: 100-row pages, mapped
  for (int c : {1, 2}) {
    auto other = (*mapped)->SharedChunk(0, c);
    ASSERT_TRUE(other.ok());
    EXPECT_EQ((*other)->unlocated, nullptr) << c;
  }
  testing::Rng rng(3);
  ExpectSamePages(**mapped, **plain, rng);
  EXPECT_GT((*mapped)->offset_index_bytes_read(), 0u);
  EXPECT_TRUE((*mapped)->CheckPageMap().ok());
}

TEST(PageMapTest, MalformedHeadersAreCorruption) {
  auto store = NewMemoryStore();
  const Written w = EventsLike(store.get());
  auto plain = ParquetReader::Open(store.get(), "f.parquet");
  ASSERT_TRUE(plain.ok());
  const OpenOptions o = w.Options();
  const uint64_t header = o.page_map->header_offset, blocks = o.page_map->blocks_offset;
  const uint64_t footer = w.file.size() - 8 - [&] {
    uint32_t n;
    std::memcpy(&n, w.file.data() + w.file.size() - 8, 4);
    return n;
  }();
  const std::string bytes = w.file.substr(size_t(header), size_t(footer - header));
  auto parse = [&](const std::string& b, uint64_t blocks_at) {
    return ParsePageMapHeader(reinterpret_cast<const uint8_t*>(b.data()), b.size(), (*plain)->metadata(), blocks_at,
                              header, "f.parquet").status();
  };
  ASSERT_TRUE(parse(bytes, blocks).ok()) << parse(bytes, blocks).ToString();
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_TRUE(parse(bytes.substr(0, cut), blocks).IsCorruption()) << cut;
  }
  EXPECT_TRUE(parse(bytes + "x", blocks).IsCorruption());
  EXPECT_TRUE(parse(bytes, blocks + 4).IsCorruption());  // blocks not where the header says
  for (size_t at : {size_t(0), size_t(4), size_t(8), size_t(12), size_t(16), size_t(20), size_t(28), size_t(32)}) {
    std::string b = bytes;
    b[at] ^= 0x41;
    EXPECT_TRUE(parse(b, blocks).IsCorruption()) << at;
  }
}

}  // namespace
}  // namespace lakeindex::parquet
