#include "format/csv/csv_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace lakeindex::csv {
namespace {

TEST(CsvValue, BoolIsCaseInsensitiveAsDuckDBsCast) {
  bool b = false;
  EXPECT_TRUE(ParseBool("TRUE", &b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(ParseBool(" False ", &b));
  EXPECT_FALSE(b);
  for (const char* yes : {"t", "Yes", "Y", "1"}) {
    b = false;
    EXPECT_TRUE(ParseBool(yes, &b)) << yes;
    EXPECT_TRUE(b) << yes;
  }
  for (const char* no : {"F", "no", "n", "0"}) {
    b = true;
    EXPECT_TRUE(ParseBool(no, &b)) << no;
    EXPECT_FALSE(b) << no;
  }
  EXPECT_FALSE(ParseBool("on", &b));
  EXPECT_FALSE(ParseBool("2", &b));
  EXPECT_FALSE(ParseBool("1.0", &b));
  EXPECT_FALSE(ParseBool("", &b));
}

TEST(CsvValue, Int64AcceptsFullRangeAndRejectsOverflow) {
  int64_t v = 0;
  EXPECT_TRUE(ParseInt64("9223372036854775807", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(ParseInt64("-9223372036854775808", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(ParseInt64("+42", &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(ParseInt64("\t-7 ", &v));
  EXPECT_EQ(v, -7);
  EXPECT_FALSE(ParseInt64("9223372036854775808", &v));
  EXPECT_FALSE(ParseInt64("-9223372036854775809", &v));
  EXPECT_FALSE(ParseInt64("1.0", &v));
  EXPECT_FALSE(ParseInt64("1e3", &v));
  EXPECT_FALSE(ParseInt64("+-1", &v));
  EXPECT_FALSE(ParseInt64("12a", &v));
  EXPECT_FALSE(ParseInt64("", &v));
  EXPECT_FALSE(ParseInt64("+", &v));
}

TEST(CsvValue, Int32IsRangeChecked) {
  int32_t v = 0;
  EXPECT_TRUE(ParseInt32("-2147483648", &v));
  EXPECT_EQ(v, std::numeric_limits<int32_t>::min());
  EXPECT_FALSE(ParseInt32("2147483648", &v));
}

TEST(CsvValue, DoubleIsExactAndKnowsSpecialValues) {
  double d = 0;
  EXPECT_TRUE(ParseDouble("0.1", &d));
  EXPECT_EQ(d, 0.1);
  EXPECT_TRUE(ParseDouble("-1.5e3", &d));
  EXPECT_EQ(d, -1500.0);
  EXPECT_TRUE(ParseDouble("2.2250738585072014e-308", &d));
  EXPECT_EQ(d, std::numeric_limits<double>::min());
  EXPECT_TRUE(ParseDouble("NaN", &d));
  EXPECT_TRUE(std::isnan(d));
  EXPECT_TRUE(ParseDouble("Inf", &d));
  EXPECT_EQ(d, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(ParseDouble("-INF", &d));
  EXPECT_EQ(d, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(ParseDouble("+.5", &d));
  EXPECT_EQ(d, 0.5);
  EXPECT_FALSE(ParseDouble("0x10", &d));
  EXPECT_FALSE(ParseDouble("1.5.2", &d));
  // Past the range: infinities, as DuckDB and the filter language read them; below it: 0.
  EXPECT_TRUE(ParseDouble("1e400", &d));
  EXPECT_EQ(d, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(ParseDouble("-1e400", &d));
  EXPECT_EQ(d, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(ParseDouble("1e-400", &d));
  EXPECT_EQ(d, 0.0);
  EXPECT_FALSE(ParseDouble("1e400x", &d));
  EXPECT_FALSE(ParseDouble("", &d));
  float f = 0;
  EXPECT_TRUE(ParseFloat("0.1", &f));
  EXPECT_EQ(f, 0.1f);
  EXPECT_TRUE(ParseFloat("1e39", &f));
  EXPECT_EQ(f, std::numeric_limits<float>::infinity());
}

TypeId Infer(std::vector<std::string_view> values) {
  TypeInference inference;
  for (auto v : values) inference.Observe(v);
  return inference.Type();
}

TEST(CsvValue, InferencePicksTheNarrowestTypeThatHoldsEveryValue) {
  EXPECT_EQ(Infer({}), TypeId::kString);
  EXPECT_EQ(Infer({"true", "FALSE"}), TypeId::kBool);
  EXPECT_EQ(Infer({"1", "-2"}), TypeId::kInt64);
  EXPECT_EQ(Infer({"1", "99999999999999999999"}), TypeId::kDouble);  // int64 overflow
  EXPECT_EQ(Infer({"1", "2.5", "nan", "-inf"}), TypeId::kDouble);
  EXPECT_EQ(Infer({"2024-01-31"}), TypeId::kDate);
  EXPECT_EQ(Infer({"2024-01-31", "2024-02-01 10:00:00.5"}), TypeId::kTimestamp);
  EXPECT_EQ(Infer({"1", "2024-01-31"}), TypeId::kString);
  EXPECT_EQ(Infer({"true", "1"}), TypeId::kString);
  EXPECT_EQ(Infer({"2024-02-30"}), TypeId::kString);
  EXPECT_EQ(Infer({"abc"}), TypeId::kString);
}

TEST(CsvValue, AppendParsedRejectsWithoutAppending) {
  Column c(TypeId::kDate);
  EXPECT_TRUE(AppendParsed("2024-03-01", &c));
  EXPECT_FALSE(AppendParsed("2024-13-01", &c));
  ASSERT_EQ(c.length(), 1u);
  EXPECT_EQ(c.Get<int32_t>(0), *ParseDate("2024-03-01"));
}

std::string Format(Column& c) {
  std::string out;
  AppendFormatted(c, c.length() - 1, &out);
  return out;
}

TEST(CsvValue, FormatsShortestRoundTripAndSpecials) {
  Column d(TypeId::kDouble);
  d.Append<double>(0.1);
  EXPECT_EQ(Format(d), "0.1");
  d.Append<double>(-std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(Format(d), "nan");
  d.Append<double>(-std::numeric_limits<double>::infinity());
  EXPECT_EQ(Format(d), "-inf");
  d.Append<double>(1e300);
  EXPECT_EQ(Format(d), "1e+300");
  // Whole numbers keep ".0" (DuckDB's COPY and pandas), so a file read back is a double column.
  d.Append<double>(2004);
  EXPECT_EQ(Format(d), "2004.0");
  d.Append<double>(-0.0);
  EXPECT_EQ(Format(d), "-0.0");
  Column f(TypeId::kFloat);
  f.Append<float>(0.1f);
  EXPECT_EQ(Format(f), "0.1");
  f.Append<float>(-3);
  EXPECT_EQ(Format(f), "-3.0");
  Column b(TypeId::kBool);
  b.Append<uint8_t>(1);
  EXPECT_EQ(Format(b), "true");
  Column ts(TypeId::kTimestamp);
  ts.Append<int64_t>(*ParseTimestamp("2024-01-31 12:00:00.5"));
  EXPECT_EQ(Format(ts), "2024-01-31 12:00:00.5");
}

}  // namespace
}  // namespace lakeindex::csv
