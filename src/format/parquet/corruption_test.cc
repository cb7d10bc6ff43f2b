// Damaged files: every truncation and many byte flips of a small file give a clean error (or,
// for flips that only touch statistics or padding, the original values) — never a crash, a
// hang or different values. Meant to run under ASan/UBSan too.
#include <gtest/gtest.h>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

// A small file with every type, NULLs, dictionary and PLAIN pages, several row groups,
// page index and CRCs.
std::string SmallFile(Batch* batch, Codec codec) {
  Schema schema({Field{"i", TypeId::kInt64, false}, Field{"s", TypeId::kString, true},
                 Field{"d", TypeId::kDouble, true}, Field{"b", TypeId::kBool, true},
                 Field{"t", TypeId::kTimestamp, true}, Field{"x", TypeId::kInt32, true}});
  *batch = lakeindex::testing::RandomBatch(schema, 60, 42, 0.2);
  WriteOptions o;
  o.codec = codec;
  o.page_rows = 10;
  o.row_group_rows = 30;
  auto w = ParquetWriter::Make(schema, o);
  EXPECT_TRUE(w.ok());
  EXPECT_TRUE((*w)->Write(*batch).ok());
  auto bytes = (*w)->Finish();
  EXPECT_TRUE(bytes.ok());
  return *bytes;
}

// Reads everything; returns the first error. *same is set when everything read equals `want`.
Status ReadEverything(const std::string& bytes, const Batch& want, bool* same) {
  *same = false;
  auto store = NewMemoryStore();
  RETURN_IF_ERROR(store->Write("f.parquet", bytes));
  ASSIGN_OR_RETURN(auto reader, ParquetReader::Open(store.get(), "f.parquet"));
  ASSIGN_OR_RETURN(Batch all, reader->ReadAll());
  bool pages_same = true;
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    for (int c = 0; c < int(reader->schema().num_fields()); ++c) {
      (void)reader->column_statistics(rg, c);
      ASSIGN_OR_RETURN(PageIndex index, reader->ReadPageIndex(rg, c));
      for (size_t p = 0; p < index.pages.size(); ++p) {
        ASSIGN_OR_RETURN(Column page, reader->ReadPage(rg, c, int(p)));
        (void)page;
      }
    }
  }
  // Column names are not protected by anything in Parquet (the footer has no checksum), so
  // only types, NULLs and values are compared.
  bool columns_same = all.num_columns() == want.num_columns() && all.num_rows() == want.num_rows();
  for (size_t c = 0; columns_same && c < all.num_columns(); ++c) {
    columns_same = all.column(c).Equals(want.column(c));
  }
  *same = pages_same && columns_same;
  return Status::OK();
}

class CorruptionTest : public ::testing::TestWithParam<Codec> {};

TEST_P(CorruptionTest, EveryTruncationIsAnError) {
  Batch batch;
  std::string file = SmallFile(&batch, GetParam());
  bool same = false;
  ASSERT_TRUE(ReadEverything(file, batch, &same).ok());
  ASSERT_TRUE(same);
  for (size_t len = 0; len < file.size(); ++len) {
    Status st = ReadEverything(file.substr(0, len), batch, &same);
    ASSERT_FALSE(st.ok()) << "truncated to " << len;
    ASSERT_TRUE(st.IsCorruption() || st.IsNotSupported()) << len << ": " << st.ToString();
  }
}

TEST_P(CorruptionTest, ByteFlipsGiveErrorsOrTheOriginalValues) {
  Batch batch;
  std::string file = SmallFile(&batch, GetParam());
  lakeindex::testing::Rng rng(7);
  int errors = 0, unchanged = 0;
  for (size_t at = 0; at < file.size(); ++at) {
    for (uint8_t mask : {uint8_t(0xFF), uint8_t(1u << rng.Uniform(8))}) {
      std::string damaged = file;
      damaged[at] = char(uint8_t(damaged[at]) ^ mask);
      bool same = false;
      Status st = ReadEverything(damaged, batch, &same);
      if (st.ok()) {
        // Flips in statistics, page-index bounds or unused header fields change no value;
        // a flip that changes values undetected would be a bug.
        ++unchanged;
        EXPECT_TRUE(same) << "flip 0x" << std::hex << int(mask) << std::dec << " at offset " << at
                          << " changed values without an error";
      } else {
        ++errors;
        ASSERT_TRUE(st.IsCorruption() || st.IsNotSupported()) << at << ": " << st.ToString();
      }
    }
  }
  EXPECT_GT(errors, unchanged);
}

INSTANTIATE_TEST_SUITE_P(Codecs, CorruptionTest,
                         ::testing::Values(Codec::kUncompressed, Codec::kSnappy, Codec::kZstd));

}  // namespace
}  // namespace lakeindex::parquet
