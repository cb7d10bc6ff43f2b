// The DuckDB reference harness (tests/util/duckdb_ref.h): exact rendering of every type, errors,
// Parquet writing, and agreement of RenderLikeDuckDB with what DuckDB itself prints.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex::testing {
namespace {

class DuckDBHarnessTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(DuckDBAvailable()) << DuckDBMissingMessage(); }
};

std::optional<std::string> S(const char* s) { return std::string(s); }

TEST_F(DuckDBHarnessTest, RendersEveryTypeExactly) {
  auto r = RunDuckDB(
      "SELECT 9007199254740993::BIGINT AS big, 0.1::DOUBLE AS dbl, 0.1::FLOAT AS flt,"
      " 'nan'::DOUBLE AS nan, '-inf'::DOUBLE AS ninf, -0.0::DOUBLE AS nzero,"
      " 1e21::DOUBLE AS huge, 'ü😀'::VARCHAR AS str, DATE '1969-12-31' AS day,"
      " TIMESTAMP '2024-02-29 12:34:56.789012' AS ts, NULL AS nothing, 42 AS i, true AS b,"
      " (-32768)::SMALLINT AS si, 1.50::DECIMAL(10,2) AS dec");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->columns, (std::vector<std::string>{"big", "dbl", "flt", "nan", "ninf", "nzero",
                                                  "huge", "str", "day", "ts", "nothing", "i", "b",
                                                  "si", "dec"}));
  EXPECT_EQ(r->types, (std::vector<std::string>{"BIGINT", "DOUBLE", "FLOAT", "DOUBLE", "DOUBLE",
                                                "DOUBLE", "DOUBLE", "VARCHAR", "DATE",
                                                "TIMESTAMP", "INTEGER", "INTEGER", "BOOLEAN",
                                                "SMALLINT", "DECIMAL(10,2)"}));
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0], (DuckRow{S("9007199254740993"), S("0.1"), S("0.1"), S("nan"), S("-inf"),
                                 S("-0"), S("1e+21"), S("\xC3\xBC\xF0\x9F\x98\x80"),
                                 S("1969-12-31"), S("1709210096789012"), std::nullopt, S("42"),
                                 S("true"), S("-32768"), S("1.50")}));
}

TEST_F(DuckDBHarnessTest, LastStatementOfSeveralIsReturned) {
  auto r = RunDuckDB(
      "CREATE TABLE t(a BIGINT); INSERT INTO t VALUES (3), (-9223372036854775808), (NULL);"
      "SELECT a FROM t ORDER BY a NULLS FIRST");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, (std::vector<DuckRow>{{std::nullopt}, {S("-9223372036854775808")}, {S("3")}}));
}

TEST_F(DuckDBHarnessTest, SqlErrorIsInvalidArgumentWithDuckDBsMessage) {
  auto r = RunDuckDB("SELECT * FROM no_such_table");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("no_such_table"), std::string::npos);
}

TEST_F(DuckDBHarnessTest, SqlQuoteKeepsHostileStringsIntact) {
  std::string sql = "SELECT * FROM (VALUES ";
  std::vector<DuckRow> expected;
  std::vector<Value> strings = HostileValues(TypeId::kString);
  for (size_t i = 0; i < strings.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += "(" + std::to_string(i) + ", " + SqlQuote(strings[i].string_value()) + ")";
    expected.push_back({std::to_string(i), strings[i].string_value()});
  }
  sql += ") t(i, s) ORDER BY i";
  auto r = RunDuckDB(sql);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, expected);
}

TEST_F(DuckDBHarnessTest, CopyToParquetWritesAReadableFile) {
  TempDir dir;
  std::string path = dir.Join("x.parquet");
  auto w = RunDuckDB("COPY (SELECT range AS id, 'v' || range AS s FROM range(1000)) TO " +
                     SqlQuote(path) + " (FORMAT parquet)");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
  EXPECT_GT(st.st_size, 0);
  auto r = RunDuckDB("SELECT count(*), sum(id), max(s) FROM read_parquet(" + SqlQuote(path) + ")");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, (std::vector<DuckRow>{{S("1000"), S("499500"), S("v999")}}));
}

// SqlLiteral -> DuckDB -> run.mjs must give back exactly RenderLikeDuckDB of the same values,
// for random and hostile values of every type (floats from random bit patterns included).
TEST_F(DuckDBHarnessTest, RenderLikeDuckDBMatchesDuckDBForEveryType) {
  Schema schema;
  for (int t = 0; t <= static_cast<int>(TypeId::kTimestamp); ++t) {
    schema.AddField(Field{"c" + std::to_string(t), TypeId(t), true});
  }
  Batch batch = RandomBatch(schema, 600, /*seed=*/7, /*null_fraction=*/0.05);
  std::string sql = "SELECT * EXCLUDE (i) FROM (VALUES ";
  for (size_t r = 0; r < batch.num_rows(); ++r) {
    sql += r > 0 ? ", (" : "(";
    sql += std::to_string(r);
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      sql += ", " + SqlLiteral(batch.column(c).GetValue(r));
    }
    sql += ")";
  }
  sql += ") t(i";
  for (const Field& f : schema.fields()) sql += ", " + f.name;
  sql += ") ORDER BY i";
  auto r = RunDuckDB(sql);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> types;
  for (const Field& f : schema.fields()) types.push_back(DuckTypeName(f.type));
  EXPECT_EQ(r->types, types);
  std::vector<DuckRow> expected = RenderBatchLikeDuckDB(batch);
  ASSERT_EQ(r->rows.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(r->rows[i], expected[i]) << "row " << i;
  }
}

// Exact decimal ties (x.x75 needs rounding to the even digit) and binade edges, where the
// shortest float text is easiest to get wrong.
TEST_F(DuckDBHarnessTest, FloatTiesAndPowersOfTwoRenderAlike) {
  std::vector<Value> values;
  for (float f : {-2909832.75f, 0.000244140625f, 0x1p-126f, 0x1p-149f, 0x1p24f, 0x1p127f,
                  16777217.0f, 3.4028235e38f, 1.1754942e-38f}) {
    values.push_back(Value::Float(f));
  }
  for (double d : {0x1p-1022, 0x1p-1074, 0x1p1023, 0.30000000000000004, 123456789012345680.0}) {
    values.push_back(Value::Double(d));
  }
  std::string sql = "SELECT ";
  DuckRow expected;
  for (size_t i = 0; i < values.size(); ++i) {
    sql += (i > 0 ? ", " : "") + SqlLiteral(values[i]);
    expected.push_back(RenderLikeDuckDB(values[i]));
  }
  auto r = RunDuckDB(sql);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0], expected);
  EXPECT_EQ(expected[0], "-2909832.8");
  EXPECT_EQ(expected[1], "0.00024414062");
}

TEST(DuckRenderTest, FloatingTextRoundTripsAndUsesJavaScriptLayout) {
  EXPECT_EQ(FormatDoubleLikeDuckDB(0.1), "0.1");
  EXPECT_EQ(FormatDoubleLikeDuckDB(1e21), "1e+21");
  EXPECT_EQ(FormatDoubleLikeDuckDB(1e20), "100000000000000000000");
  EXPECT_EQ(FormatDoubleLikeDuckDB(1e-7), "1e-7");
  EXPECT_EQ(FormatDoubleLikeDuckDB(1.5e-6), "0.0000015");
  EXPECT_EQ(FormatDoubleLikeDuckDB(-123.456), "-123.456");
  EXPECT_EQ(FormatDoubleLikeDuckDB(-0.0), "-0");
  EXPECT_EQ(FormatFloatLikeDuckDB(0.1f), "0.1");
  EXPECT_EQ(FormatFloatLikeDuckDB(16777217.0f), "16777216");
  for (const char* text : {"0.1", "1e+21", "-0", "nan", "inf", "-inf", "5e-324"}) {
    double x = 0;
    ASSERT_TRUE(ParseDuckDouble(text, &x)) << text;
    EXPECT_EQ(FormatDoubleLikeDuckDB(x), text);
  }
  double x = 0;
  EXPECT_FALSE(ParseDuckDouble("1.5x", &x));
  EXPECT_FALSE(ParseDuckDouble("", &x));
}

TEST(DuckRenderTest, SqlQuoteAndIdentDoubleTheirQuotes) {
  EXPECT_EQ(SqlQuote("it's"), "'it''s'");
  EXPECT_EQ(SqlIdent("a\"b"), "\"a\"\"b\"");
}

}  // namespace
}  // namespace lakeindex::testing
