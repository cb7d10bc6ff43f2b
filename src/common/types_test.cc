#include "lakeindex/types.h"

#include "lakeindex/batch.h"

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

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

TEST(DateTest, EveryDateAndTheInfinitiesRoundTripThroughText) {
  // Any int32 of days and any int64 of microseconds: formatted, then read back (years past 9999 and
  // before -9999 included); the types' extremes are DuckDB's and PostgreSQL's infinities.
  EXPECT_EQ(FormatDate(std::numeric_limits<int32_t>::max()), "infinity");
  EXPECT_EQ(FormatDate(-std::numeric_limits<int32_t>::max()), "-infinity");
  EXPECT_EQ(*ParseDate("Infinity"), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(*ParseDate("+infinity"), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(*ParseDate("-INFINITY"), -std::numeric_limits<int32_t>::max());
  EXPECT_EQ(FormatTimestamp(std::numeric_limits<int64_t>::max()), "infinity");
  EXPECT_EQ(FormatTimestamp(-std::numeric_limits<int64_t>::max()), "-infinity");
  EXPECT_EQ(*ParseTimestamp("infinity"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(*ParseTimestamp("-infinity"), -std::numeric_limits<int64_t>::max());
  EXPECT_EQ(*ParseDate("20000-01-01"), *ParseDate("2000-01-01") + 6574365);
  uint64_t state = 42;
  auto next = [&] {
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  std::vector<int32_t> days = {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max() - 1, -1, 0};
  std::vector<int64_t> micros = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max() - 1, -1, 0};
  for (int i = 0; i < 20000; ++i) {
    days.push_back(int32_t(uint32_t(next())));
    micros.push_back(int64_t(next()));
  }
  for (int32_t d : days) {
    auto back = ParseDate(FormatDate(d));
    ASSERT_TRUE(back.ok()) << FormatDate(d) << ": " << back.status().ToString();
    ASSERT_EQ(*back, d) << FormatDate(d);
  }
  for (int64_t us : micros) {
    auto back = ParseTimestamp(FormatTimestamp(us));
    ASSERT_TRUE(back.ok()) << FormatTimestamp(us) << ": " << back.status().ToString();
    ASSERT_EQ(*back, us) << FormatTimestamp(us);
  }
  EXPECT_TRUE(ParseDate("99999999-01-01").status().IsInvalidArgument());
  EXPECT_TRUE(ParseDate("5881581-01-01").status().IsInvalidArgument()) << "past int32 days";
  EXPECT_TRUE(ParseTimestamp("294248-01-01 00:00:00").status().IsInvalidArgument()) << "past int64 microseconds";
}

TEST(TimestampTest, IsoOffsetsAndTheUtcDesignatorGiveUtc) {
  const int64_t utc = *ParseTimestamp("2024-01-01 08:00:00");
  EXPECT_EQ(*ParseTimestamp("2024-01-01T08:00:00Z"), utc);
  EXPECT_EQ(*ParseTimestamp("2024-01-01T08:00:00z"), utc);
  EXPECT_EQ(*ParseTimestamp("2024-01-01T10:00:00+02:00"), utc);
  EXPECT_EQ(*ParseTimestamp("2024-01-01 10:00:00+0200"), utc);
  EXPECT_EQ(*ParseTimestamp("2024-01-01 10:00+02"), utc);
  EXPECT_EQ(*ParseTimestamp("2024-01-01T06:30:00.000000-01:30"), utc);
  for (const char* bad : {"2024-01-01 10:00:00+2", "2024-01-01 10:00:00+02:6", "2024-01-01 10:00:00+19:00",
                          "2024-01-01 10:00:00+02:60", "2024-01-01 10:00:00ZZ", "2024-01-01Z"}) {
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


// DuckDB writes years before 1 with an era suffix: year N BC is the astronomical year 1 - N.
TEST(DateTest, DuckDBsBcSuffixReadsAsTheAstronomicalYear) {
  EXPECT_EQ(*ParseDate("0044-03-15 (BC)"), *ParseDate("-0043-03-15"));
  EXPECT_EQ(*ParseDate("0001-01-01 (BC)"), *ParseDate("0000-01-01"));
  EXPECT_EQ(*ParseTimestamp("0044-03-15 (BC) 12:00:00"), *ParseTimestamp("-0043-03-15 12:00:00"));
  EXPECT_EQ(*ParseTimestamp("0044-03-15 (BC) 12:00:00+00"), *ParseTimestamp("-0043-03-15 12:00:00"));
  for (const char* bad : {"-0044-03-15 (BC)", "0000-01-01 (BC)", "0044-03-15 (BC", "0044-03-15 BC"}) {
    EXPECT_FALSE(ParseDate(bad).ok()) << bad;
  }
}

// --schema takes the names SQL and DuckDB users write, in any case, mapped as DuckDB maps them.
TEST(TypesTest, SqlAndDuckDBTypeNamesInAnyCase) {
  const std::pair<const char*, TypeId> cases[] = {
      {"integer", TypeId::kInt32},   {"INT", TypeId::kInt32},          {"int4", TypeId::kInt32},
      {"SMALLINT", TypeId::kInt32},  {"bigint", TypeId::kInt64},       {"INT8", TypeId::kInt64},
      {"Int64", TypeId::kInt64},     {"real", TypeId::kFloat},         {"FLOAT", TypeId::kFloat},
      {"float4", TypeId::kFloat},    {"double precision", TypeId::kDouble}, {"DOUBLE  PRECISION", TypeId::kDouble},
      {"float8", TypeId::kDouble},   {"DOUBLE", TypeId::kDouble},      {"varchar", TypeId::kString},
      {"VARCHAR(20)", TypeId::kString}, {"text", TypeId::kString},     {"TEXT", TypeId::kString},
      {"boolean", TypeId::kBool},    {"BOOL", TypeId::kBool},          {"TIMESTAMP", TypeId::kTimestamp},
      {"datetime", TypeId::kTimestamp}, {"TIMESTAMPTZ", TypeId::kTimestampTz},
      {"timestamp with time zone", TypeId::kTimestampTz}, {"DATE", TypeId::kDate}, {"BLOB", TypeId::kBinary},
      {"UUID", TypeId::kUuid},       {"NUMERIC(10,2)", DecimalType(10, 2)}};
  for (const auto& [name, type] : cases) {
    auto parsed = ParseTypeName(name);
    ASSERT_TRUE(parsed.ok()) << name << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, type) << name;
  }
  auto schema = Schema::Parse("id:INTEGER,price:double precision!,name:VARCHAR");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_EQ(schema->ToString(), "id:int32,price:double!,name:string");
  EXPECT_FALSE(ParseTypeName("hugeint").ok());
  EXPECT_FALSE(ParseTypeName("varchar(x)").ok());
}

TEST(TypesTest, NewTypesHaveNamesAndAliases) {
  for (TypeId t : {TypeId::kTimestampTz, TypeId::kTimestampNs, TypeId::kBinary, TypeId::kUuid}) {
    auto back = ParseTypeName(TypeName(t));
    ASSERT_TRUE(back.ok()) << TypeName(t);
    EXPECT_EQ(*back, t);
  }
  EXPECT_EQ(*ParseTypeName("blob"), TypeId::kBinary);
  EXPECT_EQ(*ParseTypeName("timestamp with time zone"), TypeId::kTimestampTz);
  auto schema = Schema::Parse("a:timestamptz!,b:timestamp_ns,c:binary,d:uuid!");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_EQ(schema->ToString(), "a:timestamptz!,b:timestamp_ns,c:binary,d:uuid!");
  EXPECT_TRUE(IsBytes(TypeId::kUuid) && IsBytes(TypeId::kBinary) && !IsBytes(TypeId::kTimestampNs));
  EXPECT_EQ(FixedWidth(TypeId::kTimestampNs), 8);
  EXPECT_EQ(FixedWidth(TypeId::kUuid), 0);
}

TEST(TimestampTest, NanosecondsParseFormatAndKeepTheirRange) {
  EXPECT_EQ(*ParseTimestampNs("1970-01-01 00:00:00.000000001"), 1);
  EXPECT_EQ(*ParseTimestampNs("1969-12-31 23:59:59.999999999"), -1);
  EXPECT_EQ(*ParseTimestampNs("2024-01-01T10:00:00.123456789+02:00"), 1704096000123456789);
  EXPECT_EQ(FormatTimestampNs(1704096000123456789), "2024-01-01 08:00:00.123456789");
  EXPECT_EQ(FormatTimestampNs(1704096000500000000), "2024-01-01 08:00:00.5");
  EXPECT_EQ(*ParseTimestampNs("infinity"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(FormatTimestampNs(-std::numeric_limits<int64_t>::max()), "-infinity");
  EXPECT_FALSE(ParseTimestampNs("1677-09-21 00:00:00").ok());  // before the range
  EXPECT_FALSE(ParseTimestampNs("2262-04-12 00:00:00").ok());  // after it
  EXPECT_FALSE(ParseTimestampNs("2024-01-01 00:00:00.1234567891").ok());  // a tenth digit
  // Microsecond timestamps refuse a seventh digit, naming why.
  auto seven = ParseTimestamp("2024-01-01 00:00:00.1234567");
  ASSERT_FALSE(seven.ok());
  EXPECT_NE(seven.status().message().find("at most 6 fractional digits"), std::string::npos) << seven.status().ToString();
  // Every nanosecond value but the sentinels round-trips through text.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    int64_t v = int64_t(rng());
    if (v == std::numeric_limits<int64_t>::min() || v == std::numeric_limits<int64_t>::max() ||
        v == -std::numeric_limits<int64_t>::max()) {
      continue;
    }
    auto back = ParseTimestampNs(FormatTimestampNs(v));
    ASSERT_TRUE(back.ok()) << v << " " << FormatTimestampNs(v) << ": " << back.status().ToString();
    ASSERT_EQ(*back, v) << FormatTimestampNs(v);
  }
  EXPECT_EQ(*MicrosToNanos(1), 1000);
  EXPECT_FALSE(MicrosToNanos(int64_t{1} << 62).ok());
  EXPECT_EQ(*MicrosToNanos(std::numeric_limits<int64_t>::max()), std::numeric_limits<int64_t>::max());
}

TEST(ValueTest, TemporalValuesOfEveryUnitCompareExactly) {
  // One instant in three units; a date counts as its midnight.
  const int64_t day = 19723;  // 2024-01-01
  const int64_t us = day * 86400000000LL, ns = us * 1000;
  EXPECT_EQ(CompareValues(Value::Date(int32_t(day)), Value::TimestampNs(ns)), 0);
  EXPECT_EQ(CompareValues(Value::Timestamp(us), Value::TimestampNs(ns + 1)), -1);
  EXPECT_EQ(CompareValues(Value::TimestampNs(ns - 1), Value::TimestampTz(us)), -1);
  EXPECT_EQ(CompareValues(Value::TimestampTz(us), Value::Timestamp(us)), 0);
  // Infinite timestamps of every unit equal one another and pass every finite value.
  const int64_t inf = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(CompareValues(Value::Timestamp(inf), Value::TimestampNs(inf)), 0);
  EXPECT_EQ(CompareValues(Value::Timestamp(inf / 1000 * 999), Value::TimestampNs(inf)), -1);
  EXPECT_EQ(CompareValues(Value::TimestampNs(-inf), Value::Timestamp(-inf / 1000 * 999)), -1);
}

TEST(ValueTest, BinaryAndUuidTextRoundTripsAsDuckDBWritesThem) {
  const std::string bytes("\0ab\\\x7f\xff ~", 8);
  EXPECT_EQ(Value::Binary(bytes).ToString(), "\\x00ab\\x5C\\x7F\\xFF ~");
  EXPECT_EQ(*ParseBinary(Value::Binary(bytes).ToString()), bytes);
  EXPECT_EQ(*ParseBinary("\\xc3\\xA9"), "\xc3\xa9");
  EXPECT_FALSE(ParseBinary("a\\b").ok());
  EXPECT_FALSE(ParseBinary("a\\x4").ok());
  auto u = ParseUuid("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->size(), 16u);
  EXPECT_EQ(Value::Bytes(TypeId::kUuid, *u).ToString(), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  EXPECT_EQ(*ParseUuid("{a0eebc999c0b4ef8bb6d6bb9bd380a11}"), *u);
  for (const char* bad : {"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
                          "-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
                          "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", ""}) {
    EXPECT_FALSE(ParseUuid(bad).ok()) << bad;
  }
  // Bytewise order is the text's order.
  EXPECT_LT(CompareValues(Value::Bytes(TypeId::kUuid, *ParseUuid("7fffffff-ffff-ffff-ffff-ffffffffffff")),
                          Value::Bytes(TypeId::kUuid, *ParseUuid("80000000-0000-0000-0000-000000000000"))),
            0);
  EXPECT_EQ(Value::TimestampTz(1704103200000000).ToString(), "2024-01-01 10:00:00+00");
  EXPECT_EQ(*ParseTimestamp("2024-01-01 10:00:00+00"), 1704103200000000);
}


TEST(DecimalTest, EveryPrecisionAndScaleHasATypeAndANameThatReadsBack) {
  std::set<TypeId> seen;
  for (int p = 1; p <= kMaxDecimalPrecision; ++p) {
    for (int s = 0; s <= p; ++s) {
      const TypeId t = DecimalType(p, s);
      ASSERT_TRUE(IsDecimal(t));
      EXPECT_TRUE(IsNumeric(t));
      EXPECT_FALSE(IsInteger(t) || IsFloating(t) || IsBytes(t) || IsTemporal(t));
      EXPECT_EQ(DecimalPrecision(t), p);
      EXPECT_EQ(DecimalScale(t), s);
      EXPECT_EQ(FixedWidth(t), 8);
      EXPECT_TRUE(seen.insert(t).second) << TypeName(t);
      auto back = ParseTypeName(TypeName(t));
      ASSERT_TRUE(back.ok()) << TypeName(t);
      EXPECT_EQ(*back, t);
    }
  }
  for (int t = 0; t <= int(TypeId::kUuid); ++t) EXPECT_FALSE(IsDecimal(TypeId(t)));
  EXPECT_EQ(std::string(TypeName(DecimalType(10, 2))), "decimal(10,2)");
  // DuckDB's spellings: any case, spaces, NUMERIC, DECIMAL(p), bare DECIMAL = DECIMAL(18,3).
  EXPECT_EQ(*ParseTypeName("DECIMAL(10, 2)"), DecimalType(10, 2));
  EXPECT_EQ(*ParseTypeName("numeric(5,0)"), DecimalType(5, 0));
  EXPECT_EQ(*ParseTypeName("decimal(7)"), DecimalType(7, 0));
  EXPECT_EQ(*ParseTypeName("decimal"), DecimalType(18, 3));
  for (const char* bad : {"decimal(38,5)", "decimal(0,0)", "decimal(4,5)", "decimal(10,", "decimal(a,b)", "decimal(1,2,3)",
                          "decimal(10,2"}) {
    auto t = ParseTypeName(bad);
    EXPECT_FALSE(t.ok()) << bad;
  }
  EXPECT_NE(ParseTypeName("decimal(38,5)").status().message().find("precision 38 is above 18"), std::string::npos);
}

TEST(DecimalTest, SchemaTextKeepsTheCommaInsideTheType) {
  auto s = Schema::Parse("id:int64,amount:decimal(10,2)!,rate:decimal(4, 3),name:string");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->num_fields(), 4u);
  EXPECT_EQ(s->field(1).type, DecimalType(10, 2));
  EXPECT_FALSE(s->field(1).nullable);
  EXPECT_EQ(s->field(2).type, DecimalType(4, 3));
  EXPECT_EQ(s->ToString(), "id:int64,amount:decimal(10,2)!,rate:decimal(4,3),name:string");
  EXPECT_EQ(Schema::Parse(s->ToString())->ToString(), s->ToString());
  EXPECT_FALSE(Schema::Parse("amount:decimal(10,2),x").ok());
}

TEST(DecimalTest, TextReadsRoundedHalfAwayFromZeroAsDuckDBCasts) {
  const TypeId d102 = DecimalType(10, 2);
  struct Case {
    const char* text;
    int64_t unscaled;
  };
  // DuckDB: '1.005'::DECIMAL(10,2) = 1.01, '-1.005' = -1.01, '0.125' = 0.13.
  for (const Case& c : {Case{"1.005", 101}, Case{"-1.005", -101}, Case{"0.125", 13}, Case{"0.124", 12}, Case{"12", 1200},
                        Case{"+3.5", 350}, Case{".5", 50}, Case{"5.", 500}, Case{"-0.004", 0}, Case{"1e2", 10000},
                        Case{"1.5E-1", 15}, Case{"00012.340", 1234}, Case{"99999999.99", 9999999999},
                        Case{"99999999.994", 9999999999}}) {
    auto v = ParseDecimal(c.text, d102);
    ASSERT_TRUE(v.ok()) << c.text << ": " << v.status().ToString();
    EXPECT_EQ(*v, c.unscaled) << c.text;
  }
  for (const char* bad : {"", "-", "abc", "1.2.3", "1e", "nan", "inf", "100000000", "99999999.995", "1e9", "1,5", " 1"}) {
    EXPECT_FALSE(ParseDecimal(bad, d102).ok()) << bad;
  }
  EXPECT_EQ(FormatDecimal(150, 2), "1.50");
  EXPECT_EQ(FormatDecimal(-5, 2), "-0.05");
  EXPECT_EQ(FormatDecimal(0, 3), "0.000");
  EXPECT_EQ(FormatDecimal(-42, 0), "-42");
  EXPECT_EQ(FormatDecimal(-999999999999999999, 18), "-0.999999999999999999");
  EXPECT_EQ(Value::Decimal(d102, 150).ToString(), "1.50");
  // Every value of a few types reads back from its text.
  std::mt19937_64 rng(3);
  for (int p : {1, 9, 18}) {
    for (int s : {0, p / 2, p}) {
      const TypeId t = DecimalType(p, s);
      std::uniform_int_distribution<int64_t> values(-(Pow10(p) - 1), Pow10(p) - 1);
      for (int i = 0; i < 2000; ++i) {
        const int64_t x = values(rng);
        auto back = ParseDecimal(FormatDecimal(x, s), t);
        ASSERT_TRUE(back.ok() && *back == x) << TypeName(t) << " " << x;
      }
    }
  }
}

TEST(DecimalTest, ComparesExactlyWithIntegersAndDecimalsAndAsDoublesWithDoubles) {
  const Value a = Value::Decimal(DecimalType(10, 2), 150);   // 1.50
  const Value b = Value::Decimal(DecimalType(4, 1), 15);     // 1.5
  const Value c = Value::Decimal(DecimalType(18, 18), 1);    // 1e-18
  EXPECT_EQ(CompareValues(a, b), 0);
  EXPECT_EQ(CompareValues(a, Value::Int64(1)), 1);
  EXPECT_EQ(CompareValues(Value::Int64(2), a), 1);
  EXPECT_EQ(CompareValues(Value::Decimal(DecimalType(3, 0), 2), Value::Int32(2)), 0);
  EXPECT_EQ(CompareValues(c, Value::Int64(0)), 1);
  EXPECT_EQ(CompareValues(c, Value::Decimal(DecimalType(2, 1), 0)), 1);
  EXPECT_EQ(CompareValues(Value::Decimal(DecimalType(18, 0), 999999999999999999),
                          Value::Decimal(DecimalType(18, 18), 999999999999999999)), 1);
  // With a double: as doubles (DuckDB casts the decimal), NaN above every number.
  EXPECT_EQ(CompareValues(a, Value::Double(1.5)), 0);
  EXPECT_EQ(CompareValues(Value::Decimal(DecimalType(2, 1), 1), Value::Double(0.1)), 0);
  EXPECT_EQ(CompareValues(a, Value::Double(std::nan(""))), -1);
  EXPECT_EQ(CompareValues(Value::Float(2.0f), a), 1);
  EXPECT_EQ(DecimalToDouble(-5, 2), -0.05);
  EXPECT_EQ(DecimalToDouble(999999999999999999, 3), 999999999999999.999);
}

TEST(DecimalTest, NumbersConvertToADecimalRoundedOrRefused) {
  const TypeId d52 = DecimalType(5, 2);
  EXPECT_EQ(*ToDecimal(Value::Int64(7), d52), 700);
  EXPECT_EQ(*ToDecimal(Value::Decimal(DecimalType(6, 3), 1005), d52), 101);   // 1.005 -> 1.01
  EXPECT_EQ(*ToDecimal(Value::Decimal(DecimalType(6, 3), -1005), d52), -101);
  EXPECT_EQ(*ToDecimal(Value::Decimal(DecimalType(2, 1), 15), d52), 150);
  EXPECT_EQ(*ToDecimal(Value::Double(0.1), d52), 10);
  EXPECT_EQ(*ToDecimal(Value::Double(-2.675), d52), -268);  // the double's shortest text, 2.675
  EXPECT_FALSE(ToDecimal(Value::Int64(1000), d52).ok());
  EXPECT_FALSE(ToDecimal(Value::Double(INFINITY), d52).ok());
  EXPECT_FALSE(ToDecimal(Value::Double(std::nan("")), d52).ok());
  Column col(d52);
  ASSERT_TRUE(col.AppendValue(Value::Int32(3)).ok());
  ASSERT_TRUE(col.AppendValue(Value::Decimal(DecimalType(3, 1), -25)).ok());
  EXPECT_FALSE(col.AppendValue(Value::String("1")).ok());
  EXPECT_FALSE(col.AppendValue(Value::Int64(123456)).ok());
  EXPECT_EQ(col.length(), 2u);
  EXPECT_EQ(col.GetValue(0), Value::Decimal(d52, 300));
  EXPECT_EQ(col.GetValue(1).ToString(), "-2.50");
  Column ints(TypeId::kInt64);
  EXPECT_FALSE(ints.AppendValue(Value::Decimal(d52, 100)).ok()) << "a decimal is not stored in an integer column";
}

}  // namespace
}  // namespace lakeindex
