#include "query/evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "query/binder.h"
#include "query/parser.h"

namespace lakeindex::query {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// One column per entry of `columns`, all of the same length.
Batch MakeBatch(const Schema& schema, const std::vector<std::vector<Value>>& columns) {
  Batch batch(schema);
  for (size_t c = 0; c < columns.size(); ++c) {
    for (const Value& v : columns[c]) EXPECT_TRUE(batch.mutable_column(c).AppendValue(v).ok());
  }
  EXPECT_TRUE(batch.Seal().ok());
  return batch;
}

// Per row 'T', 'F' or 'N'.
std::string Eval(const std::string& text, const Batch& batch) {
  auto parsed = ParseExpression(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
  if (!parsed.ok()) return "parse error";
  auto bound = Bind(**parsed, batch.schema());
  EXPECT_TRUE(bound.ok()) << text << ": " << bound.status().ToString();
  if (!bound.ok()) return "bind error";
  TriVector tri;
  Status st = Evaluate(**bound, batch, &tri);
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::string out;
  for (uint8_t v : tri.v) out += v == kTriTrue ? 'T' : v == kTriFalse ? 'F' : 'N';
  return out;
}

TEST(EvaluatorTest, KleeneTruthTables) {
  // a and b take every pair of TRUE/FALSE/NULL.
  Schema schema = Schema::Parse("a:bool,b:bool").value();
  Value t = Value::Bool(true), f = Value::Bool(false), n = Value::Null(TypeId::kBool);
  Batch batch = MakeBatch(schema, {{t, t, t, f, f, f, n, n, n}, {t, f, n, t, f, n, t, f, n}});
  EXPECT_EQ(Eval("a AND b", batch), "TFNFFFNFN");
  EXPECT_EQ(Eval("a OR b", batch), "TTTTFNTNN");
  EXPECT_EQ(Eval("NOT a", batch), "FFFTTTNNN");
  EXPECT_EQ(Eval("a = b", batch), "TFNFTNNNN");
  EXPECT_EQ(Eval("a IS NULL", batch), "FFFFFFTTT");
  EXPECT_EQ(Eval("a IS NOT NULL", batch), "TTTTTTFFF");
  EXPECT_EQ(Eval("a AND NULL", batch), "NNNFFFNNN");
  EXPECT_EQ(Eval("a OR NULL", batch), "TTTNNNNNN");
  EXPECT_EQ(Eval("TRUE", batch), "TTTTTTTTT");
  EXPECT_EQ(Eval("a > b", batch), "FTNFFNNNN");
}

TEST(EvaluatorTest, InAndBetweenWithNulls) {
  Schema schema = Schema::Parse("x:int64").value();
  Batch batch = MakeBatch(schema, {{Value::Int64(1), Value::Int64(2), Value::Null(TypeId::kInt64)}});
  EXPECT_EQ(Eval("x IN (1, 3)", batch), "TFN");
  EXPECT_EQ(Eval("x IN (1, NULL)", batch), "TNN");
  EXPECT_EQ(Eval("x NOT IN (1, NULL)", batch), "FNN");
  EXPECT_EQ(Eval("x NOT IN (3)", batch), "TTN");
  EXPECT_EQ(Eval("x BETWEEN 1 AND 1", batch), "TFN");
  EXPECT_EQ(Eval("x BETWEEN NULL AND 1", batch), "NFN");
  EXPECT_EQ(Eval("x NOT BETWEEN NULL AND 1", batch), "NTN");
  EXPECT_EQ(Eval("x BETWEEN 2 AND 1", batch), "FFN");
  EXPECT_EQ(Eval("x = NULL", batch), "NNN");
  EXPECT_EQ(Eval("NULL IS NULL", batch), "TTT");
  EXPECT_EQ(Eval("1 IN (1, NULL)", batch), "TTT");
  EXPECT_EQ(Eval("2 IN (1, NULL)", batch), "NNN");
}

TEST(EvaluatorTest, NanInfAndNegativeZero) {
  Schema schema = Schema::Parse("x:double").value();
  Batch batch = MakeBatch(schema, {{Value::Double(kNan), Value::Double(kInf), Value::Double(-kInf),
                                    Value::Double(-0.0), Value::Double(0.0), Value::Double(1.5)}});
  EXPECT_EQ(Eval("x = 0", batch), "FFFTTF");
  EXPECT_EQ(Eval("x = -0.0", batch), "FFFTTF");
  EXPECT_EQ(Eval("x > 1e999", batch), "TFFFFF");   // NaN sorts above +inf
  EXPECT_EQ(Eval("x >= 1e999", batch), "TTFFFF");
  EXPECT_EQ(Eval("x < 1e999", batch), "FFTTTT");
  EXPECT_EQ(Eval("x <> 1.5", batch), "TTTTTF");
  EXPECT_EQ(Eval("x BETWEEN -1e999 AND 1e999", batch), "FTTTTT");
  EXPECT_EQ(Eval("x NOT BETWEEN 0 AND 1e999", batch), "TFTFFF");
  EXPECT_EQ(Eval("x IN (0, 1e999)", batch), "FTFTTF");
  EXPECT_EQ(Eval("x = x", batch), "TTTTTT");   // NaN equals NaN
  EXPECT_EQ(Eval("x < x", batch), "FFFFFF");
  Schema two = Schema::Parse("x:double,y:double").value();
  Batch pairs = MakeBatch(two, {{Value::Double(kNan), Value::Double(kInf), Value::Double(-0.0)},
                                {Value::Double(kInf), Value::Double(kNan), Value::Double(0.0)}});
  EXPECT_EQ(Eval("x > y", pairs), "TFF");
  EXPECT_EQ(Eval("x <= y", pairs), "FTT");
  EXPECT_EQ(Eval("x = y", pairs), "FFT");
}

TEST(EvaluatorTest, Int64ExtremesAgainstDoublesAreExact) {
  Schema schema = Schema::Parse("i:int64,d:double").value();
  const int64_t big = (int64_t{1} << 53) + 1;  // not a double
  Batch batch = MakeBatch(schema, {{Value::Int64(big), Value::Int64(INT64_MAX), Value::Int64(INT64_MIN), Value::Int64(3)},
                                   {Value::Double(9007199254740992.0), Value::Double(9223372036854775808.0),
                                    Value::Double(-9223372036854775808.0), Value::Double(kNan)}});
  EXPECT_EQ(Eval("i = 9007199254740992.0", batch), "FFFF");
  EXPECT_EQ(Eval("i > 9007199254740992.0", batch), "TTFF");
  EXPECT_EQ(Eval("i < 9223372036854775808", batch), "TTTT");  // 2^63 is a double literal
  EXPECT_EQ(Eval("i >= -9223372036854775808.0", batch), "TTTT");
  EXPECT_EQ(Eval("i = -9223372036854775808.0", batch), "FFTF");
  EXPECT_EQ(Eval("i < 2.5 AND i > -1e300", batch), "FFTF");
  EXPECT_EQ(Eval("i <= 3.0 AND i >= 3", batch), "FFFT");
  EXPECT_EQ(Eval("i = 3.5 OR i <> 3.5", batch), "TTTT");
  EXPECT_EQ(Eval("i > d", batch), "TFFF");  // 2^53+1 > 2^53; INT64_MAX < 2^63; 3 < NaN
  EXPECT_EQ(Eval("i = d", batch), "FFTF");
  EXPECT_EQ(Eval("d < i", batch), "TFFF");
  EXPECT_EQ(Eval("i IN (9007199254740992.0, 3.0)", batch), "FFFT");
  EXPECT_EQ(Eval("d = 9007199254740993", batch), "FFFF");
  EXPECT_EQ(Eval("d < 9007199254740993", batch), "TFTF");
  EXPECT_EQ(Eval("i BETWEEN 2.5 AND 3.5", batch), "FFFT");
}

TEST(EvaluatorTest, Int32ColumnAgainstWideLiterals) {
  Schema schema = Schema::Parse("j:int32").value();
  Batch batch = MakeBatch(schema, {{Value::Int32(INT32_MIN), Value::Int32(-1), Value::Int32(INT32_MAX)}});
  EXPECT_EQ(Eval("j < 3000000000", batch), "TTT");
  EXPECT_EQ(Eval("j > -3000000000", batch), "TTT");
  EXPECT_EQ(Eval("j = 3000000000", batch), "FFF");
  EXPECT_EQ(Eval("j <> 3000000000", batch), "TTT");
  EXPECT_EQ(Eval("j >= 2147483647", batch), "FFT");
  EXPECT_EQ(Eval("j <= -2147483648", batch), "TFF");
  EXPECT_EQ(Eval("j < -0.5", batch), "TTF");
}

TEST(EvaluatorTest, DatesAndTimestamps) {
  Schema schema = Schema::Parse("d:date,t:timestamp").value();
  int32_t day = ParseDate("2024-01-31").value();
  int64_t noon = ParseTimestamp("2024-01-31 12:00:00").value();
  int64_t midnight = ParseTimestamp("2024-01-31").value();
  Batch batch = MakeBatch(schema, {{Value::Date(day), Value::Date(day + 1), Value::Null(TypeId::kDate)},
                                   {Value::Timestamp(noon), Value::Timestamp(midnight + 86400000000),
                                    Value::Timestamp(midnight)}});
  EXPECT_EQ(Eval("d = '2024-01-31'", batch), "TFN");
  EXPECT_EQ(Eval("d = TIMESTAMP '2024-01-31 12:00:00'", batch), "FFN");
  EXPECT_EQ(Eval("d < TIMESTAMP '2024-01-31 12:00:00'", batch), "TFN");
  EXPECT_EQ(Eval("d > '2024-01-31 12:00:00'", batch), "FTN");
  EXPECT_EQ(Eval("d = t", batch), "FTN");
  EXPECT_EQ(Eval("d < t", batch), "TFN");
  EXPECT_EQ(Eval("t >= DATE '2024-02-01'", batch), "FTF");
  EXPECT_EQ(Eval("t BETWEEN '2024-01-31' AND '2024-01-31 12:00:00'", batch), "TFT");
  EXPECT_EQ(Eval("d IN ('2024-02-01')", batch), "FTN");
}

TEST(EvaluatorTest, StringsCompareBytewise) {
  Schema schema = Schema::Parse("s:string").value();
  Batch batch = MakeBatch(schema, {{Value::String(""), Value::String("B"), Value::String("a"), Value::String("é"),
                                    Value::String("a ")}});
  EXPECT_EQ(Eval("s < 'a'", batch), "TTFFF");
  EXPECT_EQ(Eval("s > 'z'", batch), "FFFTF");
  EXPECT_EQ(Eval("s = ''", batch), "TFFFF");
  EXPECT_EQ(Eval("s BETWEEN 'a' AND 'b'", batch), "FFTFT");
  EXPECT_EQ(Eval("s IN ('a', 'é')", batch), "FFTTF");
}

TEST(EvaluatorTest, LikeFollowsDuckDB) {
  Schema schema = Schema::Parse("s:string").value();
  Batch batch = MakeBatch(schema, {{Value::String("abc"), Value::String("a%c"), Value::String("aéc"),
                                    Value::String("ABC"), Value::String(""), Value::Null(TypeId::kString)}});
  EXPECT_EQ(Eval("s LIKE 'a_c'", batch), "TTTFFN");  // '_' is one code point
  EXPECT_EQ(Eval("s LIKE 'a__c'", batch), "FFFFFN");
  EXPECT_EQ(Eval("s LIKE 'a%'", batch), "TTTFFN");
  EXPECT_EQ(Eval("s LIKE '%c'", batch), "TTTFFN");
  EXPECT_EQ(Eval("s LIKE '%'", batch), "TTTTTN");
  EXPECT_EQ(Eval("s LIKE ''", batch), "FFFFTN");
  EXPECT_EQ(Eval("s LIKE 'abc'", batch), "TFFFFN");
  EXPECT_EQ(Eval("s LIKE 'a\\%c' ESCAPE '\\'", batch), "FTFFFN");
  EXPECT_EQ(Eval("s LIKE 'a\\%c'", batch), "FFFFFN");  // no ESCAPE: backslash is literal
  EXPECT_EQ(Eval("s NOT LIKE '%b%'", batch), "FTTTTN");
  EXPECT_EQ(Eval("s LIKE '%é%'", batch), "FFTFFN");
}

TEST(EvaluatorTest, FilterReturnsTrueRowsOnly) {
  Schema schema = Schema::Parse("x:int64").value();
  Batch batch = MakeBatch(schema, {{Value::Int64(5), Value::Null(TypeId::kInt64), Value::Int64(7), Value::Int64(1)}});
  auto bound = Bind(*ParseExpression("x > 2 OR x IS NULL AND FALSE").value(), schema).value();
  std::vector<uint32_t> rows{99};
  ASSERT_TRUE(Filter(*bound, batch, &rows).ok());
  EXPECT_EQ(rows, (std::vector<uint32_t>{0, 2}));
}

TEST(EvaluatorTest, MismatchedBatchIsAnError) {
  Schema schema = Schema::Parse("x:int64").value();
  auto bound = Bind(*ParseExpression("x > 2").value(), schema).value();
  Batch other = MakeBatch(Schema::Parse("x:string").value(), {{Value::String("a")}});
  TriVector tri;
  Status st = Evaluate(*bound, other, &tri);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("bound as int64 but the batch holds string"), std::string::npos);
  Batch empty;
  EXPECT_TRUE(Evaluate(*bound, empty, &tri).IsInvalidArgument());
}

}  // namespace
}  // namespace lakeindex::query
