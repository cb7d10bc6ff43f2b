#include "query/select_list.h"

#include <gtest/gtest.h>

#include <string>

#include "query/lexer.h"

namespace lakeindex::query {
namespace {

TEST(SelectListTest, ColumnListsTakeQuotedNamesAndStar) {
  auto items = ParseColumnList(" a, \"Dep Delay\" ,*,\"say \"\"hi\"\"\", date", "select", true);
  ASSERT_TRUE(items.ok()) << items.status().ToString();
  ASSERT_EQ(items->size(), 5u);
  EXPECT_EQ((*items)[0].name, "a");
  EXPECT_EQ((*items)[0].position, 2u);
  EXPECT_EQ((*items)[1].name, "Dep Delay");
  EXPECT_TRUE((*items)[2].star);
  EXPECT_EQ((*items)[3].name, "say \"hi\"");
  EXPECT_EQ((*items)[4].name, "date");  // type keywords stay column names
  auto star = ParseColumnList("*", "group_by", false);
  ASSERT_FALSE(star.ok());
  EXPECT_EQ(star.status().parameter(), "group_by");
  EXPECT_EQ(star.status().message(), "at position 1: '*' is not a column here; name the columns");
}

// What the subset lacks is NotSupported where it starts; a malformed list InvalidArgument.
TEST(SelectListTest, RefusalsNameWhatAndWhere) {
  struct Case {
    const char* text;
    bool not_supported;
    const char* message;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"lower(c)", true, "at position 1: the function call lower(...) is not supported"},
           {"a, b + c", true, "at position 6: arithmetic ('+') is not supported"},
           {"a || b", true, "at position 3: string concatenation ('||') is not supported"},
           {"t.a", true, "at position 2: a qualified name ('.'; one table, no joins) is not supported; a column named "
                         "so is written quoted: \"t.a\""},
           {"id, dep-delay", true, "at position 8: arithmetic ('-') is not supported; a column named so is written "
                                   "quoted: \"dep-delay\""},
           {"a HAVING a > 1", true, "at position 3: HAVING is not supported"},
           {"a FROM t", true, "at position 3: FROM (the table is the command's TABLE) is not supported"},
           {"a JOIN b", true, "at position 3: a join is not supported"},
           {"a AS b", true, "at position 3: renaming a column (AS) is not supported"},
           {"(SELECT 1)", true, "at position 1: a parenthesized expression or subquery is not supported"},
           {"1", false, "at position 1: column positions such as 1 are not supported; name the column"},
           {"a,", false, "at position 3: expected columns after ','"},
           {"a b", false, "at position 3: expected ',' between columns, found 'b'"},
           {"", false, "at position 1: empty (e.g. \"a, \\\"Dep Delay\\\"\")"},
           {"\"open", false, "at position 1: unterminated quoted identifier"},
       }) {
    auto r = ParseColumnList(c.text, "select", true);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().IsNotSupported(), c.not_supported) << c.text << ": " << r.status().ToString();
    EXPECT_EQ(r.status().message(), c.message) << c.text;
    EXPECT_EQ(r.status().parameter(), "select") << c.text;
    EXPECT_EQ(IsBeyondSubset(r.status()), c.not_supported) << c.text;
  }
}

TEST(SelectListTest, OrderKeysTakeQuotedNamesAggregatesAndNullsLast) {
  auto keys = ParseOrderBy("\"Dep Delay\" DESC, dest, count(*) desc, AVG(\"Dep Delay\") nulls last, count(DISTINCT x)");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  ASSERT_EQ(keys->size(), 5u);
  EXPECT_EQ((*keys)[0].column, "Dep Delay");
  EXPECT_TRUE((*keys)[0].descending);
  EXPECT_EQ((*keys)[1].column, "dest");
  EXPECT_FALSE((*keys)[1].descending);
  EXPECT_EQ((*keys)[2].column, "count(*)");
  EXPECT_EQ((*keys)[3].column, "avg(Dep Delay)");
  EXPECT_EQ((*keys)[4].column, "count(DISTINCT x)");
  auto first = ParseOrderBy("a NULLS FIRST");
  ASSERT_FALSE(first.ok());
  EXPECT_TRUE(first.status().IsNotSupported());
  EXPECT_EQ(first.status().message(), "at position 3: NULLS FIRST (NULLs come last) is not supported");
  auto call = ParseOrderBy("a, lower(b)");
  EXPECT_EQ(call.status().message(), "at position 4: the function call lower(...) is not supported");
  EXPECT_EQ(call.status().parameter(), "order_by");
}

TEST(SelectListTest, AggregatesTakeAliasesAndCountDistinct) {
  auto specs = ParseAggregates("count(*) AS n, COUNT(DISTINCT dest) \"Dests\", sum(\"Dep Delay\") total, max(x)");
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  ASSERT_EQ(specs->size(), 4u);
  EXPECT_EQ((*specs)[0].kind, AggKind::kCountStar);
  EXPECT_EQ((*specs)[0].name, "n");
  EXPECT_EQ((*specs)[1].kind, AggKind::kCountDistinct);
  EXPECT_EQ((*specs)[1].column, "dest");
  EXPECT_EQ((*specs)[1].name, "Dests");
  EXPECT_EQ((*specs)[2].column, "Dep Delay");
  EXPECT_EQ((*specs)[2].name, "total");
  EXPECT_EQ((*specs)[3].name, "max(x)");
  auto unaliased = ParseAggregates("count(distinct dest)");
  ASSERT_TRUE(unaliased.ok());
  EXPECT_EQ((*unaliased)[0].name, "count(DISTINCT dest)");  // DuckDB's name for it
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"sum(DISTINCT x)", "at position 5: sum(DISTINCT ...) is not supported"},
           {"count(*) AS", "at position 12: expected a name after AS, found end of expression"},
           {"dest, count(*)", "at position 1: a column ('dest') among the aggregates: group by it instead (the "
                              "groups' columns come first in the result)"},
           {"count(*) HAVING count(*) > 1", "at position 10: HAVING is not supported"},
           {"avg(lower(x))", "at position 5: the function call lower(...) is not supported"},
           {"median(x)", "at position 1: unknown aggregate 'median' (lakeindex has count, sum, avg, min, max, "
                         "count_distinct)"},
       }) {
    auto r = ParseAggregates(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().message(), c.message) << c.text;
    EXPECT_EQ(r.status().parameter(), "aggregates") << c.text;
  }
}

}  // namespace
}  // namespace lakeindex::query
