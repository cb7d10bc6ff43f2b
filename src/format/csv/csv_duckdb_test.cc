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
  if (v.type() == TypeId::kTimestamp || v.type() == TypeId::kTimestampTz) return v.int_value() < first_day * 86400000000LL;
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
  // The table as SQL rows; DuckDB writes years before 1 in its BC notation, which we read.
  Batch expected(schema);
  std::string values;
  size_t before_year_one = 0;
  for (size_t row = 0; row < source.num_rows(); ++row) {
    for (size_t c = 0; c < schema.num_fields(); ++c) before_year_one += BeforeYearOne(source.column(c).GetValue(row));
    values += values.empty() ? "(" : ", (";
    for (size_t c = 0; c < schema.num_fields(); ++c) {
      if (c) values += ", ";
      values += SqlLiteral(source.column(c).GetValue(row));
      ASSERT_TRUE(expected.mutable_column(c).AppendValue(source.column(c).GetValue(row)).ok());
    }
    values += ")";
  }
  ASSERT_TRUE(expected.Seal().ok());
  ASSERT_EQ(expected.num_rows(), source.num_rows());
  EXPECT_GT(before_year_one, 0u) << "the hostile values include years before 1";
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


// CSV dialects and sniffing, against DuckDB's read_csv on the same files: the same column names,
// types and values, with the options given the same way (or both left to sniff).
TEST_F(CsvDuckDBTest, DialectsAndSniffingReadAsDuckDBReadsThem) {
  struct Case {
    std::string name, text;
    Dialect dialect;
    std::string duck_options;  // after the path in read_csv(...)
  };
  auto with = [](auto change) {
    Dialect d;
    change(d);
    return d;
  };
  const std::vector<Case> cases = {
      {"semicolons and N/A", "a;b;c\n1;N/A;x\nN/A;2.5;\"q;r\"\n3;4;N/A\n", with([](Dialect& d) { d.null_string = "N/A"; }),
       ", nullstr = 'N/A'"},
      {"no header, sniffed", "1,2.5,x\n3,4.5,y\n5,,z\n", Dialect{}, ""},
      {"a header, sniffed", "name,v\nab,1\ncd,2\n", Dialect{}, ""},
      {"backslash escape", "a,b\n\"x\\\"y\",1\n\"p\\\\q\",2\n\"plain\",3\n", with([](Dialect& d) { d.escape = '\\'; }),
       ", escape = '\\'"},
      {"single quotes", "a,b\n'x,y',1\n'it''s',2\n", with([](Dialect& d) { d.quote = '\''; }), ", quote = ''''"},
      {"pipes, quote and escape", "k|v\n#a|b#|1\n#c%#d#|2\n",
       with([](Dialect& d) { d.delimiter = '|'; d.quote = '#'; d.escape = '%'; }), ", delim = '|', quote = '#', escape = '%'"},
      {"--no-header on strings", "x,y\nz,w\n", with([](Dialect& d) { d.header = false; }), ", header = false"},
      {"--header on numbers", "1,2\n3,4\n", with([](Dialect& d) { d.header = true; }), ", header = true"},
      {"overflowing decimals", "x\n1e400\n-1e400\n1.5\n1e-400\n", Dialect{}, ""},
      {"a blank line in one column", "a\n1\n\n3\n", Dialect{}, ""},
      {"ISO timestamps without offsets", "ts,n\n2024-01-01T10:00:00,1\n2024-02-29T23:59:59.25,2\n", Dialect{}, ""},
      {"pandas' to_csv: an unnamed index", ",a,b\n0,1.5,x\n1,2.5,y\n", Dialect{}, ""},
      {"unnamed columns and a taken name", "column1,,b,\n0,1,x,2\n", Dialect{}, ""},
      {"twelve columns without a header", "0,1,2,3,4,5,6,7,8,9,10,11\n1,1,2,3,4,5,6,7,8,9,10,11\n",
       with([](Dialect& d) { d.header = false; }), ", header = false"},
      {"booleans the sniffer infers", "a,b,c,d,e\ntrue,T,yes,1,y\nFalse,f,NO,0,n\n", Dialect{}, ""},
      {"US dates and thousands", "d,n,i\n12/31/2024,\"1,234.50\",\"1,000\"\n1/2/2024,7,2\n",
       with([](Dialect& d) { d.date_format = "%m/%d/%Y"; d.thousands = ','; }), ", dateformat = '%m/%d/%Y', thousands = ','"},
  };
  TempDir dir;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(c.name);
    const std::string path = dir.Join("d" + std::to_string(i) + ".csv");
    std::ofstream(path, std::ios::binary) << c.text;
    ReadOptions options;
    static_cast<Dialect&>(options) = c.dialect;
    Result<Batch> ours = ReadCsv(c.text, options);
    ASSERT_TRUE(ours.ok()) << ours.status().ToString();
    auto duck = RunDuckDB("SELECT * FROM read_csv(" + SqlQuote(path) + c.duck_options + ")");
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
    std::vector<std::string> names, types;
    for (const Field& f : ours->schema().fields()) {
      names.push_back(f.name);
      types.push_back(lakeindex::testing::DuckTypeName(f.type));
    }
    EXPECT_EQ(names, duck->columns);
    EXPECT_EQ(types, duck->types);
    EXPECT_EQ(RenderBatchLikeDuckDB(*ours), duck->rows);
  }
}

// Offsets and the UTC designator: DuckDB reads such a column as TIMESTAMP WITH TIME ZONE, and so
// do we (timestamptz, the UTC instant). The same type and microseconds since 1970 either way.
TEST_F(CsvDuckDBTest, IsoTimestampsWithOffsetsAreTheSameInstants) {
  TempDir dir;
  const std::string text =
      "ts\n2024-01-01T10:00:00Z\n2024-01-01 10:00:00+02:00\n2023-12-31T23:30:00.5-0130\n2024-06-01T00:00:00+05\n";
  const std::string path = dir.Join("tz.csv");
  std::ofstream(path, std::ios::binary) << text;
  Result<Batch> ours = ReadCsv(text, ReadOptions{});
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  ASSERT_EQ(ours->schema().field(0).type, TypeId::kTimestampTz);
  auto duck = RunDuckDB("SELECT epoch_us(ts)::VARCHAR FROM read_csv(" + SqlQuote(path) + ")");
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  auto duck_type = RunDuckDB("SELECT typeof(ts) FROM read_csv(" + SqlQuote(path) + ") LIMIT 1");
  ASSERT_TRUE(duck_type.ok()) << duck_type.status().ToString();
  EXPECT_EQ(duck_type->rows[0][0], "TIMESTAMP WITH TIME ZONE");
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  ASSERT_EQ(duck->rows.size(), ours->num_rows());
  for (size_t r = 0; r < ours->num_rows(); ++r) {
    EXPECT_EQ(duck->rows[r][0], std::to_string(ours->column(0).Get<int64_t>(r))) << "row " << r;
  }
}

}  // namespace
}  // namespace lakeindex::csv
