#include "lakeindex/types.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace lakeindex {
namespace {

TEST(SchemaTest, ParsesAndPrints) {
  auto s = Schema::Parse("id:int64!,name:string, ts:timestamp,d:date,f:float,b:bool,x:double,i:int32");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->num_fields(), 8u);
  EXPECT_FALSE(s->field(0).nullable);
  EXPECT_EQ(s->field(2).name, "ts");
  EXPECT_EQ(s->field(2).type, TypeId::kTimestamp);
  EXPECT_EQ(s->ToString(), "id:int64!,name:string,ts:timestamp,d:date,f:float,b:bool,x:double,i:int32");
  EXPECT_EQ(s->FindField("d"), 3);
  EXPECT_EQ(s->FindField("nope"), -1);
}

TEST(SchemaTest, RejectsBadText) {
  EXPECT_TRUE(Schema::Parse("id:int65").status().IsInvalidArgument());
  EXPECT_NE(Schema::Parse("id:int65").status().message().find("int65"), std::string::npos);
  EXPECT_TRUE(Schema::Parse("id").status().IsInvalidArgument());
  EXPECT_TRUE(Schema::Parse("a:int64,a:string").status().IsInvalidArgument());
  EXPECT_TRUE(Schema::Parse("").status().IsInvalidArgument());
}

TEST(DateTest, CivilRoundTripsOverCenturies) {
  for (int64_t days = -800000; days <= 800000; days += 37) {
    int64_t y;
    unsigned m, d;
    CivilFromDays(days, &y, &m, &d);
    ASSERT_EQ(DaysFromCivil(y, m, d), days);
    if (y > 0) {
      auto parsed = ParseDate(FormatDate(int32_t(days)));
      ASSERT_TRUE(parsed.ok()) << FormatDate(int32_t(days));
      ASSERT_EQ(*parsed, days);
    }
  }
  EXPECT_EQ(*ParseDate("1970-01-01"), 0);
  EXPECT_EQ(*ParseDate("1969-12-31"), -1);
  EXPECT_EQ(*ParseDate("2024-02-29"), 19782);
  EXPECT_EQ(FormatDate(19782), "2024-02-29");
}

TEST(DateTest, RejectsInvalidDates) {
  for (const char* bad : {"2023-02-29", "2024-13-01", "2024-00-10", "2024-1-01", "20240101", "2024-01-01x", ""}) {
    EXPECT_TRUE(ParseDate(bad).status().IsInvalidArgument()) << bad;
  }
}

TEST(TimestampTest, ParsesAndFormats) {
  EXPECT_EQ(*ParseTimestamp("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(*ParseTimestamp("1970-01-01"), 0);
  EXPECT_EQ(*ParseTimestamp("1970-01-01 00:00:01.5"), 1500000);
  EXPECT_EQ(*ParseTimestamp("1969-12-31 23:59:59.999999"), -1);
  EXPECT_EQ(FormatTimestamp(-1), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(FormatTimestamp(1500000), "1970-01-01 00:00:01.5");
  EXPECT_EQ(FormatTimestamp(0), "1970-01-01 00:00:00");
  int64_t t = *ParseTimestamp("2024-02-29 12:34:56.789012");
  EXPECT_EQ(FormatTimestamp(t), "2024-02-29 12:34:56.789012");
  for (const char* bad : {"2024-01-01 24:00:00", "2024-01-01 12:60:00", "2024-01-01 12:00:00.1234567",
                          "2024-01-01 12:00:00.", "2024-01-01 1:00:00"}) {
    EXPECT_TRUE(ParseTimestamp(bad).status().IsInvalidArgument()) << bad;
  }
}

TEST(ValueTest, CompareMixedNumericExactly) {
  // 2^53 + 1 is not representable as a double: the comparison must not round it.
  int64_t big = (int64_t(1) << 53) + 1;
  EXPECT_EQ(CompareValues(Value::Int64(big), Value::Double(double(int64_t(1) << 53))), 1);
  EXPECT_EQ(CompareValues(Value::Double(double(int64_t(1) << 53)), Value::Int64(big)), -1);
  EXPECT_EQ(CompareValues(Value::Int64(3), Value::Double(3.0)), 0);
  EXPECT_EQ(CompareValues(Value::Int64(3), Value::Double(3.5)), -1);
  EXPECT_EQ(CompareValues(Value::Int64(-3), Value::Double(-3.5)), 1);
  EXPECT_EQ(CompareValues(Value::Int64(std::numeric_limits<int64_t>::max()), Value::Double(9.3e18)), -1);
  EXPECT_EQ(CompareValues(Value::Int64(std::numeric_limits<int64_t>::min()), Value::Double(-9.3e18)), 1);
}

TEST(ValueTest, NanSortsAboveEverythingAndEqualsItself) {
  double nan = std::nan("");
  EXPECT_EQ(CompareValues(Value::Double(nan), Value::Double(nan)), 0);
  EXPECT_EQ(CompareValues(Value::Double(nan), Value::Double(INFINITY)), 1);
  EXPECT_EQ(CompareValues(Value::Double(-INFINITY), Value::Double(nan)), -1);
  EXPECT_EQ(CompareValues(Value::Int64(std::numeric_limits<int64_t>::max()), Value::Double(nan)), -1);
}

TEST(ValueTest, StringsCompareBytewise) {
  EXPECT_LT(CompareValues(Value::String("Z"), Value::String("a")), 0);
  EXPECT_LT(CompareValues(Value::String("z"), Value::String("\xc3\xa9")), 0);  // é is above ASCII
  EXPECT_LT(CompareValues(Value::String(""), Value::String(std::string("\0", 1))), 0);
}

TEST(ValueTest, ToString) {
  EXPECT_EQ(Value::Double(0.1).ToString(), "0.1");
  EXPECT_EQ(Value::Double(-INFINITY).ToString(), "-inf");
  EXPECT_EQ(Value::Float(0.1f).ToString(), "0.1");
  EXPECT_EQ(Value::Null(TypeId::kString).ToString(), "NULL");
  EXPECT_EQ(Value::Date(0).ToString(), "1970-01-01");
  EXPECT_EQ(Value::Bool(true).ToString(), "true");
}

}  // namespace
}  // namespace lakeindex
