// Conformance: every file of apache/parquet-testing (data/ and bad_data/) either reads
// completely and consistently or fails with a clean Corruption / NotSupported; files with an
// *_expect.csv must match it; corrupt-checksum files must be Corruption.
// Location: $LAKEINDEX_SHARED_DIR/parquet-testing, default $LAKEINDEX_SOURCE_DIR/../shared/...
#include <gtest/gtest.h>

#include "util/duckdb_ref.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "format/parquet/reader.h"

namespace lakeindex::parquet {
namespace {

namespace fs = std::filesystem;

// Reads everything the reader offers; page reads must agree with whole-row-group reads.
Status Exercise(ObjectStore* store, const std::string& path, Batch* all) {
  ASSIGN_OR_RETURN(auto reader, ParquetReader::Open(store, path));
  ASSIGN_OR_RETURN(*all, reader->ReadAll());
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    ASSIGN_OR_RETURN(Batch batch, reader->ReadRowGroup(rg, {}));
    for (int c = 0; c < int(reader->schema().num_fields()); ++c) {
      (void)reader->column_statistics(rg, c);
      ASSIGN_OR_RETURN(PageIndex index, reader->ReadPageIndex(rg, c));
      for (size_t p = 0; p < index.pages.size(); ++p) {
        ASSIGN_OR_RETURN(Column page, reader->ReadPage(rg, c, int(p)));
        Column want(page.type());
        want.AppendSlice(batch.column(size_t(c)), size_t(index.pages[p].first_row_index),
                         size_t(index.pages[p].num_rows));
        if (!page.Equals(want)) {
          return Status::Internal(path + ": page " + std::to_string(p) + " of column " +
                                  std::to_string(c) + " differs from the row group read");
        }
      }
    }
  }
  return Status::OK();
}

// Minimal RFC 4180 reader: quoted fields with "" escapes; an unquoted empty field is NULL.
std::vector<std::vector<std::optional<std::string>>> ReadCsv(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::vector<std::vector<std::optional<std::string>>> rows(1);
  std::optional<std::string> field;
  bool quoted = false, in_quotes = false;
  auto end_field = [&] {
    rows.back().push_back(quoted || (field && !field->empty()) ? std::optional<std::string>(field.value_or(""))
                                                               : std::nullopt);
    field.reset();
    quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (in_quotes) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field->push_back('"');
        ++i;
      } else if (ch == '"') {
        in_quotes = false;
      } else {
        field->push_back(ch);
      }
    } else if (ch == '"') {
      in_quotes = quoted = true;
      if (!field) field.emplace();
    } else if (ch == ',') {
      end_field();
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_field();
      rows.emplace_back();
    } else {
      if (!field) field.emplace();
      field->push_back(ch);
    }
  }
  if (field || quoted) end_field();
  while (!rows.empty() && rows.back().empty()) rows.pop_back();
  return rows;
}

TEST(ParquetTestingConformanceTest, EveryFileReadsOrFailsCleanly) {
  if (const std::string missing = lakeindex::testing::ParquetTestingMissing(); !missing.empty()) {
    if (lakeindex::testing::ParquetTestingRequired()) GTEST_FAIL() << missing;
    GTEST_SKIP() << missing;
  }
  const std::string dir = lakeindex::testing::ParquetTestingDir();
  auto store_r = OpenLocalStore(dir);
  ASSERT_TRUE(store_r.ok()) << store_r.status().ToString();
  ObjectStore* store = store_r->get();

  // Files in our subset that must read without error.
  const std::set<std::string> must_read = {
      "data/binary.parquet", "data/binary_truncated_min_max.parquet",
      "data/byte_stream_split.zstd.parquet", "data/column_chunk_key_value_metadata.parquet",
      "data/data_index_bloom_encoding_stats.parquet", "data/data_index_bloom_encoding_with_length.parquet",
      "data/datapage_v1-snappy-compressed-checksum.parquet", "data/datapage_v1-uncompressed-checksum.parquet",
      "data/datapage_v2_empty_datapage.snappy.parquet", "data/delta_binary_packed.parquet",
      "data/delta_byte_array.parquet", "data/delta_encoding_optional_column.parquet",
      "data/delta_encoding_required_column.parquet", "data/delta_length_byte_array.parquet",
      "data/dict-page-offset-zero.parquet", "data/hadoop_lz4_compressed.parquet",
      "data/hadoop_lz4_compressed_larger.parquet", "data/int32_with_null_pages.parquet",
      "data/lz4_raw_compressed.parquet", "data/lz4_raw_compressed_larger.parquet",
      "data/nan_in_stats.parquet", "data/non_hadoop_lz4_compressed.parquet",
      "data/overflow_i16_page_cnt.parquet", "data/page_v2_empty_compressed.parquet",
      "data/plain-dict-uncompressed-checksum.parquet", "data/rle-dict-snappy-checksum.parquet",
      "data/rle_boolean_encoding.parquet", "data/single_nan.parquet", "data/sort_columns.parquet",
      "data/unknown-logical-type.parquet",
  };
  int files = 0, read_ok = 0;
  for (const char* sub : {"data", "bad_data"}) {
    for (const auto& entry : fs::recursive_directory_iterator(dir + "/" + sub)) {
      if (!entry.is_regular_file()) continue;
      std::string ext = entry.path().extension().string();
      if (ext == ".md" || ext == ".csv" || ext == ".json" || ext == ".txt") continue;
      std::string rel = fs::relative(entry.path(), dir).string();
      ++files;
      Batch all;
      Status st = Exercise(store, rel, &all);
      SCOPED_TRACE(rel + ": " + st.ToString());
      EXPECT_TRUE(st.ok() || st.IsCorruption() || st.IsNotSupported());
      if (!st.ok()) {
        EXPECT_NE(st.message().find(rel), std::string::npos) << "error does not name the file";
      }
      if (must_read.count(rel)) {
        EXPECT_TRUE(st.ok());
      }
      if (rel.find("corrupt-checksum") != std::string::npos) {
        EXPECT_TRUE(st.IsCorruption());
        EXPECT_NE(st.message().find("CRC"), std::string::npos);
      }
      if (!st.ok()) continue;
      ++read_ok;
      std::string expect = entry.path().string();
      expect = expect.substr(0, expect.size() - std::string(".parquet").size()) + "_expect.csv";
      if (!fs::exists(expect)) continue;
      auto csv = ReadCsv(expect);
      ASSERT_FALSE(csv.empty());
      ASSERT_EQ(csv.size() - 1, all.num_rows());
      ASSERT_EQ(csv[0].size(), all.num_columns());
      for (size_t r = 0; r < all.num_rows(); ++r) {
        ASSERT_EQ(csv[r + 1].size(), all.num_columns()) << "csv row " << r;
        for (size_t c = 0; c < all.num_columns(); ++c) {
          const auto& want = csv[r + 1][c];
          Value got = all.column(c).GetValue(r);
          if (!want) {
            EXPECT_TRUE(got.is_null()) << "row " << r << " col " << c;
          } else {
            EXPECT_EQ(got.is_null() ? "NULL" : got.ToString(), *want) << "row " << r << " col " << c;
          }
        }
      }
    }
  }
  EXPECT_GT(files, 50);
  EXPECT_GE(read_ok, int(must_read.size()));
}

}  // namespace
}  // namespace lakeindex::parquet
