#include "table/batch_source.h"

#include <gtest/gtest.h>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "table/table.h"
#include "util/test_util.h"

namespace lakeindex::table {
namespace {

using lakeindex::testing::RandomBatch;

const Schema& TestSchema() {
  static const Schema s = *Schema::Parse("id:int64,name:string,x:double,d:date,ts:timestamp,b:bool,i:int32,f:float");
  return s;
}

// `batch` as a Parquet file of `group_rows`-row row groups, 64-row pages, at `key` in `store`.
void PutParquet(ObjectStore* store, const std::string& key, const Batch& batch, size_t group_rows) {
  parquet::WriteOptions options;
  options.page_rows = 64;
  options.row_group_rows = group_rows;
  auto writer = parquet::ParquetWriter::Make(batch.schema(), options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Write(batch).ok());
  auto bytes = (*writer)->Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  ASSERT_TRUE(store->Write(key, *bytes).ok());
}

// Every row of `source`, asked for `max_rows` at a time; the pieces' sizes in `sizes`.
Result<Batch> ReadAll(BatchSource* source, size_t max_rows, std::vector<size_t>* sizes) {
  Batch all(source->schema());
  Batch piece;
  while (true) {
    ASSIGN_OR_RETURN(bool more, source->Next(max_rows, &piece));
    if (!more) return all;
    sizes->push_back(piece.num_rows());
    RETURN_IF_ERROR(all.Append(piece));
  }
}

// The Parquet source reads the next row group on another thread while its caller works: the rows
// come out as the file holds them, in pieces of the size asked for, whole row groups when asked
// for held_rows() (handed over, not copied), and a source dropped with a read ahead in flight
// waits for it.
TEST(ParquetSourceTest, ReadsAheadTheFileRowsInThePiecesAskedFor) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  const Batch batch = RandomBatch(TestSchema(), 4500, 11, 0.1);
  PutParquet(store.get(), "f.parquet", batch, 1000);  // row groups of 1000, 1000, 1000, 1000, 500
  for (size_t max_rows : {size_t(1000), size_t(300), size_t(4096), size_t(1)}) {
    auto source = OpenFileSource(store.get(), "f.parquet", std::nullopt, "f.parquet");
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    EXPECT_EQ((*source)->held_rows(), 1000u);
    std::vector<size_t> sizes;
    auto all = ReadAll(source->get(), max_rows, &sizes);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_TRUE(all->Equals(batch)) << max_rows;
    size_t expected_pieces = 0;
    for (size_t group : {1000, 1000, 1000, 1000, 500}) expected_pieces += (group + max_rows - 1) / max_rows;
    EXPECT_EQ(sizes.size(), expected_pieces) << max_rows;
    if (max_rows >= 1000) {
      EXPECT_EQ(sizes, (std::vector<size_t>{1000, 1000, 1000, 1000, 500}));
    }
  }
  auto dropped = OpenFileSource(store.get(), "f.parquet", std::nullopt, "f.parquet");
  ASSERT_TRUE(dropped.ok());
  Batch piece;
  ASSERT_TRUE((*dropped)->Next(10, &piece).ok());  // row group 1 is being read ahead
  dropped->reset();
}

// A damaged row group read ahead is the caller's error when it reaches that row group: the rows
// before it first, then the Corruption, never a crash or rows from the damaged bytes.
TEST(ParquetSourceTest, ADamagedRowGroupReadAheadFailsWhenReached) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  const Batch batch = RandomBatch(TestSchema(), 3000, 12, 0.0);
  PutParquet(store.get(), "f.parquet", batch, 1000);
  auto reader = parquet::ParquetReader::Open(store.get(), "f.parquet");
  ASSERT_TRUE(reader.ok());
  const parquet::ColumnMetaData& chunk = *(*reader)->metadata().row_groups[2].columns[1].meta_data;
  auto bytes = store->Read("f.parquet");
  ASSERT_TRUE(bytes.ok());
  std::string damaged = *bytes;
  damaged[size_t(chunk.data_page_offset + chunk.total_compressed_size / 2)] ^= 0x5a;  // inside a page of `name`
  ASSERT_TRUE(store->Write("f.parquet", damaged).ok());
  auto source = OpenFileSource(store.get(), "f.parquet", std::nullopt, "f.parquet");
  ASSERT_TRUE(source.ok());
  Batch piece;
  size_t rows = 0;
  Status status;
  while (true) {
    Result<bool> more = (*source)->Next(1000, &piece);
    if (!more.ok()) {
      status = more.status();
      break;
    }
    ASSERT_TRUE(*more) << "the damaged row group was read without an error";
    rows += piece.num_rows();
  }
  EXPECT_EQ(rows, 2000u);
  EXPECT_TRUE(status.IsCorruption()) << status.ToString();
}

// A create from Parquet (its row groups handed over whole, the next read ahead, the columns
// encoded on the thread pool: the table's default write options) writes the very files a
// sequential writer fed small pieces writes: the same bytes, file by file.
TEST(ParquetSourceTest, CreateFromParquetWritesTheFilesASequentialLoadWrites) {
  std::shared_ptr<ObjectStore> input = NewMemoryStore();
  const Batch batch = RandomBatch(TestSchema(), 5000, 13, 0.1);
  PutParquet(input.get(), "f.parquet", batch, 1200);
  WriteConfig parallel;
  parallel.rows_per_file = 1700;  // files across row groups
  parallel.parquet.row_group_rows = 800;
  ASSERT_NE(parallel.parquet.column_pool, nullptr);  // the default
  WriteConfig sequential = parallel;
  sequential.parquet.column_pool = nullptr;
  auto source = OpenFileSource(input.get(), "f.parquet", std::nullopt, "f.parquet");
  ASSERT_TRUE(source.ok());
  std::shared_ptr<ObjectStore> a = NewMemoryStore();
  auto from_parquet = Table::Create(a, source->get(), parallel);
  ASSERT_TRUE(from_parquet.ok()) << from_parquet.status().ToString();
  std::vector<Batch> pieces;
  for (size_t at = 0; at < batch.num_rows(); at += 333) pieces.push_back(batch.Slice(at, std::min<size_t>(333, batch.num_rows() - at)));
  auto memory = MemorySource(batch.schema(), std::move(pieces));
  std::shared_ptr<ObjectStore> b = NewMemoryStore();
  auto from_pieces = Table::Create(b, memory.get(), sequential);
  ASSERT_TRUE(from_pieces.ok()) << from_pieces.status().ToString();
  const auto& fa = (*from_parquet)->manifest().fragments;
  const auto& fb = (*from_pieces)->manifest().fragments;
  ASSERT_EQ(fa.size(), 3u);
  ASSERT_EQ(fa.size(), fb.size());
  for (size_t i = 0; i < fa.size(); ++i) {
    EXPECT_EQ(fa[i].rows, fb[i].rows);
    auto x = a->Read(fa[i].file);
    auto y = b->Read(fb[i].file);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(*x, *y) << "file " << i;
  }
}

}  // namespace
}  // namespace lakeindex::table
