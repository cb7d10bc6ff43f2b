#include "query/binder.h"

#include <gtest/gtest.h>

#include "query/parser.h"

namespace lakeindex::query {
namespace {

Schema TestSchema() {
  return Schema::Parse("i:int64,j:int32,f:float,x:double,s:string,d:date,t:timestamp,b:bool,Mixed:int64").value();
}

Result<ExprPtr> ParseAndBind(const std::string& text) {
  ASSIGN_OR_RETURN(ExprPtr e, ParseExpression(text));
  return Bind(*e, TestSchema());
}

std::string Bound(const std::string& text) {
  auto e = ParseAndBind(text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.status().ToString();
  return e.ok() ? (*e)->ToString() : "";
}

std::string ErrorOf(const std::string& text) {
  auto e = ParseAndBind(text);
  EXPECT_FALSE(e.ok()) << text;
  if (e.ok()) return "";
  EXPECT_TRUE(e.status().IsInvalidArgument());
  return e.status().message();
}

TEST(BinderTest, ResolvesColumns) {
  auto e = ParseAndBind("j < 3 AND mixed = 1");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const Expr& j = *(*e)->children[0]->children[0];
  EXPECT_EQ(j.column_index, 1);
  EXPECT_EQ(j.type, TypeId::kInt32);
  const Expr& mixed = *(*e)->children[1]->children[0];
  EXPECT_EQ(mixed.column_index, 8);  // case-insensitive fallback
  EXPECT_EQ(mixed.name, "Mixed");
}

TEST(BinderTest, AcceptsComparableTypes) {
  EXPECT_EQ(Bound("i = 1.5 AND x > 3 AND j < f AND i <> x"), "i = 1.5 AND x > 3 AND j < f AND i <> x");
  EXPECT_EQ(Bound("d = t AND b = TRUE AND s >= 'a' AND i IN (1, 2.5, NULL)"),
            "d = t AND b = TRUE AND s >= 'a' AND i IN (1, 2.5, NULL)");
  EXPECT_EQ(Bound("b"), "b");
  EXPECT_EQ(Bound("NOT b OR NULL"), "NOT b OR NULL");
  EXPECT_EQ(Bound("i = NULL AND s LIKE 'x%' AND NULL LIKE 'a'"), "i = NULL AND s LIKE 'x%' AND NULL LIKE 'a'");
}

TEST(BinderTest, StringAndDateLiteralsNextToTemporalColumns) {
  EXPECT_EQ(Bound("d = '2024-01-31'"), "d = DATE '2024-01-31'");
  EXPECT_EQ(Bound("d < '2024-01-31 10:00:00'"), "d < DATE '2024-01-31'");  // DuckDB drops the time too
  EXPECT_EQ(Bound("d < '1969-12-31 10:00:00'"), "d < DATE '1969-12-31'");
  EXPECT_EQ(Bound("t >= '2024-01-31'"), "t >= TIMESTAMP '2024-01-31 00:00:00'");
  EXPECT_EQ(Bound("t >= DATE '2024-01-31'"), "t >= TIMESTAMP '2024-01-31 00:00:00'");
  EXPECT_EQ(Bound("d BETWEEN '2024-01-01' AND '2024-02-01'"), "d BETWEEN DATE '2024-01-01' AND DATE '2024-02-01'");
  EXPECT_EQ(Bound("d IN ('2024-01-01', NULL)"), "d IN (DATE '2024-01-01', NULL)");
  EXPECT_EQ(Bound("'2024-01-01' IN ('2024-01-01', DATE '2024-01-02')"),
            "DATE '2024-01-01' IN (DATE '2024-01-01', DATE '2024-01-02')");
  EXPECT_NE(ErrorOf("d = '2024-13-01'").find("at position 5: cannot read '2024-13-01' as a date"), std::string::npos);
  EXPECT_NE(ErrorOf("t IN ('yesterday')").find("at position 7: cannot read 'yesterday' as a timestamp"),
            std::string::npos);
}

TEST(BinderTest, UnknownColumnsNameTheNearestOnes) {
  const Schema schema = Schema::Parse("origin:string,dest:string,dep_delay:int64,arr_delay:int64").value();
  auto destt = FindColumnFolded(schema, "destt");
  EXPECT_EQ(destt.status().message(), "unknown column 'destt'; did you mean 'dest'?");
  EXPECT_EQ(FindColumnFolded(schema, "DEP_DLAY").status().message(),
            "unknown column 'DEP_DLAY'; did you mean 'dep_delay'?");
  EXPECT_EQ(FindColumnFolded(schema, "weather").status().message(), "unknown column 'weather'");
  auto e = ParseExpression("dest = 'LAX' AND orign = 'JFK'");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(Bind(**e, schema).status().message(), "at position 18: unknown column 'orign'; did you mean 'origin'?");
}

TEST(BinderTest, ErrorsNameThePosition) {
  EXPECT_EQ(ErrorOf("i = 1 AND foo = 2"), "at position 11: unknown column 'foo'");
  EXPECT_EQ(ErrorOf("s = 1"), "at position 5: cannot compare column s (string) with literal 1 (int64)");
  EXPECT_EQ(ErrorOf("1 < s"), "at position 5: cannot compare literal 1 (int64) with column s (string)");
  EXPECT_EQ(ErrorOf("i = '1'"), "at position 5: cannot compare column i (int64) with literal '1' (string)");
  EXPECT_EQ(ErrorOf("b = 1"), "at position 5: cannot compare column b (bool) with literal 1 (int64)");
  EXPECT_EQ(ErrorOf("d = i"), "at position 5: cannot compare column d (date) with column i (int64)");
  EXPECT_EQ(ErrorOf("i BETWEEN 1 AND 'z'"), "at position 17: cannot compare column i (int64) with literal 'z' (string)");
  EXPECT_EQ(ErrorOf("i IN (1, 'a')"), "at position 10: cannot compare column i (int64) with literal 'a' (string)");
  EXPECT_EQ(ErrorOf("i LIKE 'a%'"), "at position 1: LIKE needs a string operand, found column i (int64)");
  EXPECT_EQ(ErrorOf("i AND b"), "at position 1: column i (int64) is not a boolean predicate; compare it with a value");
  EXPECT_EQ(ErrorOf("NOT s"), "at position 5: column s (string) is not a boolean predicate; compare it with a value");
}

TEST(BinderTest, AmbiguousCaseInsensitiveName) {
  Schema schema = Schema::Parse("ab:int64,AB:int64").value();
  auto exact = Bind(*ParseExpression("AB = 1").value(), schema);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ((*exact)->children[0]->column_index, 1);
  auto ambiguous = Bind(*ParseExpression("Ab = 1").value(), schema);
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.status().message().find("ambiguous"), std::string::npos);
}

}  // namespace
}  // namespace lakeindex::query
