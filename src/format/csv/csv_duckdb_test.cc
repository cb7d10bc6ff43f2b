// CSV conformance against DuckDB: DuckDB reads what WriteCsv writes, and CsvReader reads what
// DuckDB's COPY ... TO writes, both to the same values (tests/util/duckdb_ref.h compares exactly).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "format/csv/csv_reader.h"
#include "format/csv/csv_writer.h"
#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex::csv {
namespace {

using lakeindex::testing::DuckDBAvailable;
using lakeindex::testing::RandomBatch;
using lakeindex::testing::RandomSchema;
using lakeindex::testing::RenderBatchLikeDuckDB;
using lakeindex::testing::RunDuckDB;
using lakeindex::testing::SqlIdent;
using lakeindex::testing::SqlLiteral;
using lakeindex::testing::SqlQuote;
using lakeindex::testing::TempDir;

class CsvDuckDBTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(DuckDBAvailable()) << lakeindex::testing::DuckDBMissingMessage();
  }
};

// DuckDB prints BC dates as "0045-03-15 (BC)", which is not the YYYY-MM-DD of the CSV syntax;
// such values are kept out of the DuckDB-written direction.
bool BeforeYearOne(const Value& v) {
  if (v.is_null()) return false;
  int64_t first_day = DaysFromCivil(1, 1, 1);
  if (v.type() == TypeId::kDate) return v.int_value() < first_day;
  if (v.type() == TypeId::kTimestamp) return v.int_value() < first_day * 86400000000LL;
  return false;
}

std::string ColumnsClause(const Schema& schema) {
  std::string out = "{";
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    if (i) out += ", ";
    out += SqlQuote(schema.field(i).name) + ": " +
           SqlQuote(lakeindex::testing::DuckTypeName(schema.field(i).type));
  }
  return out + "}";
}

TEST_F(CsvDuckDBTest, DuckDBReadsWhatWriteCsvWrites) {
  TempDir dir;
  std::string sql;
  std::vector<Batch> batches;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Schema schema = RandomSchema(seed, 9);
    batches.push_back(RandomBatch(schema, 60, seed, 0.2));
    std::string text;
    WriteCsv(batches.back(), true, &text);
    std::string path = dir.Join("w" + std::to_string(seed) + ".csv");
    std::ofstream(path, std::ios::binary) << text;
  }
  for (size_t i = 0; i < batches.size(); ++i) {
    std::string path = dir.Join("w" + std::to_string(i + 1) + ".csv");
    auto r =
        RunDuckDB("SELECT * FROM read_csv(" + SqlQuote(path) +
                  ", header = true, auto_detect = false, delim = ',', quote = '\"', escape = '\"',"
                  " allow_quoted_nulls = false, columns = " +
                  ColumnsClause(batches[i].schema()) + ")");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->rows, RenderBatchLikeDuckDB(batches[i])) << "batch " << i;
  }
}

// A file with CR line ends only (written by classic Mac tools): DuckDB reads its rows, and so do
// we, to the same values (quoted fields keep their CRs).
TEST_F(CsvDuckDBTest, CrOnlyLineEndsReadAsDuckDBReadsThem) {
  TempDir dir;
  Schema schema = RandomSchema(11, 6);
  Batch batch = RandomBatch(schema, 50, 11, 0.2);
  std::string text;
  WriteCsv(batch, true, &text);
  for (char& c : text) {
    if (c == '\n') c = '\r';  // line ends and newlines inside quoted strings alike
  }
  const bool quoted_newline = text.find("\r\"") != std::string::npos;
  const std::string path = dir.Join("cr.csv");
  std::ofstream(path, std::ios::binary) << text;
  auto duck = RunDuckDB("SELECT * FROM read_csv(" + SqlQuote(path) +
                        ", header = true, auto_detect = false, delim = ',', quote = '\"', escape = '\"',"
                        " new_line = '\\r', allow_quoted_nulls = false, columns = " + ColumnsClause(schema) + ")");
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  ReadOptions options;
  options.schema = schema;
  Result<Batch> ours = ReadCsv(text, options);
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  EXPECT_EQ(ours->num_rows(), batch.num_rows());
  EXPECT_EQ(RenderBatchLikeDuckDB(*ours), duck->rows) << "quoted newlines: " << quoted_newline;
}

TEST_F(CsvDuckDBTest, CsvReaderReadsWhatDuckDBWrites) {
  TempDir dir;
  Schema schema = RandomSchema(7, 9);
  Batch source = RandomBatch(schema, 60, 7, 0.2);
  // The table as SQL rows, skipping rows DuckDB would print in its BC notation.
  Batch expected(schema);
  std::string values;
  for (size_t row = 0; row < source.num_rows(); ++row) {
    bool skip = false;
    for (size_t c = 0; c < schema.num_fields(); ++c)
      skip |= BeforeYearOne(source.column(c).GetValue(row));
    if (skip) continue;
    values += values.empty() ? "(" : ", (";
    for (size_t c = 0; c < schema.num_fields(); ++c) {
      if (c) values += ", ";
      values += SqlLiteral(source.column(c).GetValue(row));
      ASSERT_TRUE(expected.mutable_column(c).AppendValue(source.column(c).GetValue(row)).ok());
    }
    values += ")";
  }
  ASSERT_TRUE(expected.Seal().ok());
  ASSERT_GT(expected.num_rows(), 40u);
  std::string create = "CREATE TABLE t(";
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    if (c) create += ", ";
    create += SqlIdent(schema.field(c).name) + " " +
              lakeindex::testing::DuckTypeName(schema.field(c).type);
  }
  create += ")";
  std::string path = dir.Join("duck.csv");
  auto r = RunDuckDB(create + "; INSERT INTO t VALUES " + values + "; COPY t TO " + SqlQuote(path) +
                     " (HEADER, DELIMITER ','); SELECT 1");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::stringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  ReadOptions options;
  options.schema = schema;
  Result<Batch> back = ReadCsv(text.str(), options);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << text.str();
  EXPECT_EQ(RenderBatchLikeDuckDB(*back), RenderBatchLikeDuckDB(expected)) << text.str();
}

}  // namespace
}  // namespace lakeindex::csv
