// OpenOptions::offset_index_offset: the open reads the OffsetIndexes and the footer only, and the
// ColumnIndexes (page statistics) are read with one request when statistics are first asked for,
// checked by their own hook before they are parsed.

#include <gtest/gtest.h>

#include <xxhash.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

// Forwards to a store and records every byte range read from it.
class RangeRecordingStore final : public ObjectStore {
 public:
  struct Range {
    uint64_t offset, length;
  };
  explicit RangeRecordingStore(std::shared_ptr<ObjectStore> base) : base_(std::move(base)) {}
  std::vector<Range> ranges() const {
    std::lock_guard<std::mutex> lock(mu_);
    return ranges_;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    ranges_.clear();
  }
  // Bytes read inside [begin, end).
  uint64_t BytesWithin(uint64_t begin, uint64_t end) const {
    uint64_t n = 0;
    for (const Range& r : ranges()) {
      const uint64_t b = std::max(begin, r.offset), e = std::min(end, r.offset + r.length);
      if (b < e) n += e - b;
    }
    return n;
  }

  Result<std::string> Read(std::string_view p) override {
    ASSIGN_OR_RETURN(std::string bytes, base_->Read(p));
    Record(0, bytes.size());
    return bytes;
  }
  Result<std::string> ReadRange(std::string_view p, uint64_t offset, uint64_t length) override {
    Record(offset, length);
    return base_->ReadRange(p, offset, length);
  }
  Result<std::vector<std::string>> ReadRanges(std::string_view p, const std::vector<ByteRange>& ranges) override {
    for (const ByteRange& r : ranges) Record(r.offset, r.length);
    return base_->ReadRanges(p, ranges);
  }
  Result<uint64_t> Size(std::string_view p) override { return base_->Size(p); }
  Status Write(std::string_view p, std::string_view d) override { return base_->Write(p, d); }
  Status CreateIfAbsent(std::string_view p, std::string_view d) override { return base_->CreateIfAbsent(p, d); }
  Result<std::vector<ObjectInfo>> List(std::string_view p) override { return base_->List(p); }
  Status Delete(std::string_view p) override { return base_->Delete(p); }
  std::string Describe() const override { return base_->Describe(); }

 private:
  void Record(uint64_t offset, uint64_t length) {
    std::lock_guard<std::mutex> lock(mu_);
    ranges_.push_back({offset, length});
  }
  std::shared_ptr<ObjectStore> base_;
  mutable std::mutex mu_;
  std::vector<Range> ranges_;
};

struct Written {
  Batch batch;
  uint64_t size = 0, tail_offset = 0, oi_offset = 0;
};

// A file of 3 row groups of small pages, streamed (as tables write them).
Written WriteFile(ObjectStore* store, const std::string& path) {
  Written w;
  w.batch = testing::RandomBatch(*Schema::Parse("id:int64,name:string,x:double,k:int32"), 900, 11, 0.1);
  WriteOptions options;
  options.page_rows = 50;
  options.row_group_rows = 300;
  auto sink = store->OpenWriter(path);
  EXPECT_TRUE(sink.ok());
  auto writer = ParquetWriter::Make(w.batch.schema(), options, sink->get());
  EXPECT_TRUE(writer.ok());
  EXPECT_TRUE((*writer)->Write(w.batch).ok());
  w.size = *(*writer)->FinishToSink();
  EXPECT_TRUE((*sink)->Close().ok());
  w.tail_offset = w.size - (*writer)->tail().size();
  w.oi_offset = w.tail_offset + (*writer)->tail_parts().column_indexes;
  return w;
}

OpenOptions LazyOptions(const Written& w, uint64_t ci_xxh64) {
  OpenOptions o;
  o.tail_offset = w.tail_offset;
  o.offset_index_offset = w.oi_offset;
  o.file_size = w.size;
  o.check_column_indexes = [ci_xxh64](const uint8_t* data, size_t size) {
    return XXH64(data, size, 0) == ci_xxh64 ? Status::OK() : Status::Corruption("f.parquet: column index checksum");
  };
  return o;
}

uint64_t Xxh(const std::string& file, uint64_t begin, uint64_t end) {
  return XXH64(file.data() + begin, size_t(end - begin), 0);
}

TEST(LazyColumnIndexTest, TheWriterReportsWhereTheOffsetIndexesStart) {
  auto store = NewMemoryStore();
  Written w = WriteFile(store.get(), "f.parquet");
  auto reader = ParquetReader::Open(store.get(), "f.parquet");
  ASSERT_TRUE(reader.ok());
  uint64_t first_ci = w.size, last_ci_end = 0, first_oi = w.size;
  for (const RowGroup& g : (*reader)->metadata().row_groups) {
    for (const ColumnChunk& cc : g.columns) {
      ASSERT_TRUE(cc.column_index_offset && cc.offset_index_offset);
      first_ci = std::min(first_ci, uint64_t(*cc.column_index_offset));
      last_ci_end = std::max(last_ci_end, uint64_t(*cc.column_index_offset + *cc.column_index_length));
      first_oi = std::min(first_oi, uint64_t(*cc.offset_index_offset));
    }
  }
  EXPECT_EQ(first_ci, w.tail_offset);
  EXPECT_EQ(last_ci_end, w.oi_offset);
  EXPECT_EQ(first_oi, w.oi_offset);
  EXPECT_LT(w.tail_offset, w.oi_offset);
}

TEST(LazyColumnIndexTest, OpenAndTakeReadNoColumnIndexByte) {
  auto recording = std::make_shared<RangeRecordingStore>(NewMemoryStore());
  Written w = WriteFile(recording.get(), "f.parquet");
  const std::string file = *recording->Read("f.parquet");
  recording->Clear();
  LruCache cache(64 << 20);
  OpenOptions options = LazyOptions(w, Xxh(file, w.tail_offset, w.oi_offset));
  options.cache = &cache;
  uint64_t checked_tail = 0;
  options.check_tail = [&](const uint8_t*, size_t size) {
    checked_tail = size;
    return Status::OK();
  };
  auto reader = ParquetReader::Open(recording.get(), "f.parquet", options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  // One request: the OffsetIndexes and the footer, all checked.
  ASSERT_EQ(recording->ranges().size(), 1u);
  EXPECT_EQ(recording->ranges()[0].offset, w.oi_offset);
  EXPECT_EQ(recording->ranges()[0].length, w.size - w.oi_offset);
  EXPECT_EQ(checked_tail, w.size - w.oi_offset);
  // A take: scattered pages of every column, by their locations only.
  for (int c = 0; c < 4; ++c) {
    for (int rg = 0; rg < 3; ++rg) {
      auto pages = (*reader)->ReadPages(rg, c, {0, 2, 5}, ObjectStore::ReadHint{});
      ASSERT_TRUE(pages.ok()) << pages.status().ToString();
      for (size_t i = 0; i < 3; ++i) {
        const size_t page = std::vector<size_t>{0, 2, 5}[i];
        Batch expected = w.batch.Slice(size_t(rg) * 300 + page * 50, 50);
        EXPECT_TRUE((*pages)[i].Equals(expected.column(size_t(c)))) << "column " << c << " rg " << rg << " page " << page;
      }
    }
  }
  ASSERT_TRUE((*reader)->ReadAll().ok());
  EXPECT_EQ(recording->BytesWithin(w.tail_offset, w.oi_offset), 0u);
  EXPECT_EQ((*reader)->column_index_bytes_read(), 0u);
}

TEST(LazyColumnIndexTest, StatisticsCostOneMoreRequestAndMatchTheWholeTailsOnes) {
  auto recording = std::make_shared<RangeRecordingStore>(NewMemoryStore());
  Written w = WriteFile(recording.get(), "f.parquet");
  const std::string file = *recording->Read("f.parquet");
  LruCache lazy_cache(64 << 20), whole_cache(64 << 20);
  OpenOptions options = LazyOptions(w, Xxh(file, w.tail_offset, w.oi_offset));
  options.cache = &lazy_cache;
  auto lazy = ParquetReader::Open(recording.get(), "f.parquet", options);
  ASSERT_TRUE(lazy.ok()) << lazy.status().ToString();
  OpenOptions whole_options;
  whole_options.tail_offset = w.tail_offset;
  whole_options.cache = &whole_cache;
  auto whole = ParquetReader::Open(recording.get(), "f.parquet", whole_options);
  ASSERT_TRUE(whole.ok());
  recording->Clear();
  for (int rg = 0; rg < 3; ++rg) {
    for (int c = 0; c < 4; ++c) {
      auto got = (*lazy)->SharedPageIndex(rg, c);
      auto want = (*whole)->SharedPageIndex(rg, c);
      ASSERT_TRUE(got.ok() && want.ok()) << got.status().ToString();
      ASSERT_TRUE((*got)->has_statistics);
      ASSERT_EQ((*got)->stats.size(), (*want)->stats.size());
      for (size_t p = 0; p < (*got)->stats.size(); ++p) {
        EXPECT_EQ((*got)->stats[p].min, (*want)->stats[p].min);
        EXPECT_EQ((*got)->stats[p].max, (*want)->stats[p].max);
        EXPECT_EQ((*got)->stats[p].null_count, (*want)->stats[p].null_count);
      }
    }
  }
  // Every ColumnIndex of the file came with one request, of exactly their region.
  ASSERT_EQ(recording->ranges().size(), 1u);
  EXPECT_EQ(recording->ranges()[0].offset, w.tail_offset);
  EXPECT_EQ(recording->ranges()[0].length, w.oi_offset - w.tail_offset);
  EXPECT_EQ((*lazy)->column_index_bytes_read(), w.oi_offset - w.tail_offset);
  EXPECT_GE((*lazy)->MemoryBytes(), w.size - w.tail_offset);
}

TEST(LazyColumnIndexTest, ADamagedColumnIndexIsCorruptionWhenReadAndOnlyThen) {
  auto store = NewMemoryStore();
  Written w = WriteFile(store.get(), "f.parquet");
  std::string file = *store->Read("f.parquet");
  const uint64_t ci_sum = Xxh(file, w.tail_offset, w.oi_offset);
  file[size_t(w.tail_offset + (w.oi_offset - w.tail_offset) / 2)] ^= 0x10;
  ASSERT_TRUE(store->Write("f.parquet", file).ok());
  LruCache cache(64 << 20);
  OpenOptions options = LazyOptions(w, ci_sum);
  options.cache = &cache;
  auto reader = ParquetReader::Open(store.get(), "f.parquet", options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto batch = (*reader)->ReadAll();
  ASSERT_TRUE(batch.ok());
  EXPECT_TRUE(batch->Equals(w.batch));
  EXPECT_TRUE((*reader)->SharedPageIndex(1, 2, /*statistics=*/false).ok());
  for (int attempt = 0; attempt < 2; ++attempt) {  // not remembered as loaded
    auto stats = (*reader)->SharedPageIndex(1, 2);
    EXPECT_TRUE(stats.status().IsCorruption()) << stats.status().ToString();
    EXPECT_NE(stats.status().message().find("f.parquet"), std::string::npos) << stats.status().ToString();
  }
}

TEST(LazyColumnIndexTest, OffsetsThatDisagreeWithTheFileAreCorruption) {
  auto store = NewMemoryStore();
  Written w = WriteFile(store.get(), "f.parquet");
  for (auto [tail, oi] : {std::pair{w.tail_offset, w.oi_offset + 1}, std::pair{w.tail_offset, w.oi_offset - 1},
                          std::pair{w.tail_offset, w.tail_offset}, std::pair{w.tail_offset + 1, w.oi_offset},
                          std::pair{w.tail_offset, w.size}, std::pair{w.oi_offset, w.tail_offset}}) {
    OpenOptions options;
    options.tail_offset = tail;
    options.offset_index_offset = oi;
    auto reader = ParquetReader::Open(store.get(), "f.parquet", options);
    EXPECT_TRUE(reader.status().IsCorruption()) << tail << " " << oi << ": " << reader.status().ToString();
    EXPECT_NE(reader.status().message().find("f.parquet"), std::string::npos) << reader.status().ToString();
  }
}

}  // namespace
}  // namespace lakeindex::parquet
