#include "query/parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace lakeindex::query {
namespace {

std::string Roundtrip(const std::string& text) {
  auto e = ParseExpression(text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.status().ToString();
  return e.ok() ? (*e)->ToString() : "";
}

std::string ErrorOf(const std::string& text) {
  auto e = ParseExpression(text);
  EXPECT_FALSE(e.ok()) << text << " parsed as " << (e.ok() ? (*e)->ToString() : "");
  if (e.ok()) return "";
  EXPECT_TRUE(e.status().IsInvalidArgument()) << e.status().ToString();
  return e.status().message();
}

TEST(ParserTest, EveryGrammarForm) {
  EXPECT_EQ(Roundtrip("a = 1"), "a = 1");
  EXPECT_EQ(Roundtrip("a != 1"), "a <> 1");
  EXPECT_EQ(Roundtrip("a<>1"), "a <> 1");
  EXPECT_EQ(Roundtrip("a<1 AND a<=2 AND a>3 AND a>=4"), "a < 1 AND a <= 2 AND a > 3 AND a >= 4");
  EXPECT_EQ(Roundtrip("x BETWEEN 1 AND 2"), "x BETWEEN 1 AND 2");
  EXPECT_EQ(Roundtrip("x not between -1.5 and 2e3"), "x NOT BETWEEN -1.5 AND 2000.0");
  EXPECT_EQ(Roundtrip("x IN (1, 2.5, NULL, 'a')"), "x IN (1, 2.5, NULL, 'a')");
  EXPECT_EQ(Roundtrip("x NOT IN (1)"), "x NOT IN (1)");
  EXPECT_EQ(Roundtrip("x IS NULL OR y is not null"), "x IS NULL OR y IS NOT NULL");
  EXPECT_EQ(Roundtrip("s LIKE 'a%'"), "s LIKE 'a%'");
  EXPECT_EQ(Roundtrip("s NOT LIKE 'a\\%' ESCAPE '\\'"), "s NOT LIKE 'a\\%' ESCAPE '\\'");
  EXPECT_EQ(Roundtrip("TRUE"), "TRUE");
  EXPECT_EQ(Roundtrip("false OR flag"), "FALSE OR flag");
  EXPECT_EQ(Roundtrip("NULL"), "NULL");
  EXPECT_EQ(Roundtrip("d >= DATE '2024-02-29'"), "d >= DATE '2024-02-29'");
  EXPECT_EQ(Roundtrip("t < TIMESTAMP '2024-01-01 10:20:30.5'"), "t < TIMESTAMP '2024-01-01 10:20:30.5'");
  EXPECT_EQ(Roundtrip("1 = a"), "1 = a");
  EXPECT_EQ(Roundtrip("a = b"), "a = b");
  EXPECT_EQ(Roundtrip("(x) = 1"), "x = 1");
}

TEST(ParserTest, KeywordsAreCaseInsensitiveAndDateIsAColumnName) {
  EXPECT_EQ(Roundtrip("a Is NoT nUlL aNd b bEtWeEn 1 AnD 2"), "a IS NOT NULL AND b BETWEEN 1 AND 2");
  EXPECT_EQ(Roundtrip("date > DATE '2020-01-01'"), "\"date\" > DATE '2020-01-01'");
  EXPECT_EQ(Roundtrip("timestamp IS NULL"), "\"timestamp\" IS NULL");
}

// SQL beyond the subset is NotSupported, named where it starts (front ends add the route).
TEST(ParserTest, SqlBeyondTheSubsetIsNamedWhereItStarts) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"a + 1 > 2", "at position 3: arithmetic ('+') is not supported"},
           {"a > b * 2", "at position 7: arithmetic ('*') is not supported"},
           {"a - 1 > 0", "at position 3: arithmetic ('-') is not supported"},
           {"s || 'x' = 'ax'", "at position 3: string concatenation ('||') is not supported"},
           {"x::int = 1", "at position 2: a cast ('::') is not supported"},
           {"t.a = 1", "at position 2: a qualified name ('.'; one table, no joins) is not supported; a column named so "
                       "is written quoted: \"t.a\""},
           {"km/h > 1", "at position 3: arithmetic ('/') is not supported; a column named so is written quoted: \"km/h\""},
           {"lower(s) = 'a'", "at position 1: the function call lower(...) is not supported"},
           {"count(*) > 1", "at position 1: the function call count(...) is not supported"},
           {"a IN (SELECT b FROM t)", "at position 7: a subquery (SELECT) is not supported"},
           {"EXISTS (SELECT 1)", "at position 1: a subquery (EXISTS) is not supported"},
           {"a = 1 HAVING b", "at position 7: HAVING is not supported"},
           {"a IN (SELECT 'x')", "at position 7: a subquery (SELECT) is not supported"},
           {"t > (SELECT avg(t) FROM w)", "at position 5: a subquery (SELECT) is not supported"},
           {"o ILIKE 'e%'", "at position 3: ILIKE is not supported"},
           {"o SIMILAR TO 'e.*'", "at position 3: SIMILAR is not supported"},
           {"CASE WHEN a THEN 1 END = 1", "at position 1: CASE is not supported"},
       }) {
    auto e = ParseExpression(c.text);
    ASSERT_FALSE(e.ok()) << c.text;
    EXPECT_TRUE(e.status().IsNotSupported()) << c.text << ": " << e.status().ToString();
    EXPECT_EQ(e.status().message(), c.message) << c.text;
  }
  // Clauses after WHERE are options of their own; a column may still be called select.
  EXPECT_EQ(ErrorOf("a = 1 ORDER BY a"), "at position 7: unexpected 'ORDER': the filter ends before ORDER, which is an option of its own");
  EXPECT_EQ(Roundtrip("select = 1"), "select = 1");
}

TEST(ParserTest, Precedence) {
  auto e = ParseExpression("a OR b AND NOT c = 1");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->kind, ExprKind::kOr);
  EXPECT_EQ((*e)->children[1]->kind, ExprKind::kAnd);
  EXPECT_EQ((*e)->children[1]->children[1]->kind, ExprKind::kNot);
  EXPECT_EQ((*e)->children[1]->children[1]->children[0]->kind, ExprKind::kCompare);
  EXPECT_EQ(Roundtrip("(a OR b) AND c"), "(a OR b) AND c");
  EXPECT_EQ(Roundtrip("NOT (a OR b)"), "NOT (a OR b)");
  EXPECT_EQ(Roundtrip("a AND b AND c OR d"), "(a AND b AND c) OR d");
  // BETWEEN's AND binds to the BETWEEN, the next one is a conjunction.
  auto b = ParseExpression("x BETWEEN 1 AND 2 AND y");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->kind, ExprKind::kAnd);
  EXPECT_EQ((*b)->children[0]->kind, ExprKind::kBetween);
}

TEST(ParserTest, Literals) {
  auto lit = [](const std::string& text) {
    auto e = ParseExpression("x = " + text);
    EXPECT_TRUE(e.ok()) << text << ": " << e.status().ToString();
    return e.ok() ? (*e)->children[1]->value : Value();
  };
  EXPECT_EQ(lit("42"), Value::Int64(42));
  EXPECT_EQ(lit("-9223372036854775808"), Value::Int64(INT64_MIN));
  EXPECT_EQ(lit("9223372036854775807"), Value::Int64(INT64_MAX));
  EXPECT_EQ(lit("9223372036854775808"), Value::Double(9223372036854775808.0));
  EXPECT_EQ(lit("-1.5e3"), Value::Double(-1500));
  EXPECT_EQ(lit(".5"), Value::Double(0.5));
  EXPECT_EQ(lit("5."), Value::Double(5));
  EXPECT_EQ(lit("1e400"), Value::Double(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(lit("-1e400"), Value::Double(-std::numeric_limits<double>::infinity()));
  EXPECT_EQ(lit("1e-400"), Value::Double(0));
  EXPECT_EQ(lit("- 7"), Value::Int64(-7));
  EXPECT_EQ(lit("'it''s'"), Value::String("it's"));
  EXPECT_EQ(lit("''"), Value::String(""));
  EXPECT_EQ(lit("'é€😀'"), Value::String("é€😀"));
  EXPECT_EQ(lit("DATE '-0044-03-15'"), Value::Date(ParseDate("-0044-03-15").value()));
  EXPECT_EQ(lit("true"), Value::Bool(true));
  EXPECT_TRUE(lit("null").is_null());
  // -0.0 stays a negative zero double; -0 is the integer 0.
  Value nz = lit("-0.0");
  EXPECT_TRUE(std::signbit(nz.double_value()));
  EXPECT_EQ(lit("-0"), Value::Int64(0));
}

TEST(ParserTest, QuotedIdentifiers) {
  auto e = ParseExpression("\"my \"\"odd\"\" col\" = 1 AND \"AND\" = 2");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->children[0]->children[0]->name, "my \"odd\" col");
  EXPECT_EQ((*e)->children[1]->children[0]->name, "AND");
  EXPECT_EQ((*e)->ToString(), "\"my \"\"odd\"\" col\" = 1 AND \"AND\" = 2");
}

TEST(ParserTest, ToStringRoundTrips) {
  for (const char* text : {"a = 1 OR NOT (b < 2.5 AND c IS NULL)", "s LIKE '50\\%' ESCAPE '\\' AND s <> 'x''y'",
                           "x NOT IN (1, -2, NULL) OR y NOT BETWEEN DATE '2020-01-01' AND TIMESTAMP '2021-01-01 00:00:01'",
                           "NOT NOT flag", "x = 1e999", "x = 1e+300", "\"select\" = 'x'"}) {
    std::string once = Roundtrip(text);
    EXPECT_EQ(Roundtrip(once), once) << text;
  }
}

TEST(ParserTest, PositionsAreOneBasedCharacters) {
  auto e = ParseExpression("a = 1 AND   bb > 2");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->children[1]->position, 13u);
  EXPECT_EQ((*e)->children[1]->children[1]->position, 18u);
  // Multibyte characters count once.
  EXPECT_EQ(ErrorOf("s = 'ééé' #"), "at position 11: unexpected character '#'");
}

TEST(ParserTest, MalformedInputNamesThePosition) {
  EXPECT_EQ(ErrorOf(""), "at position 1: empty expression");
  EXPECT_EQ(ErrorOf("   "), "at position 4: empty expression");
  EXPECT_EQ(ErrorOf("s = 'abc"), "at position 5: unterminated string literal");
  EXPECT_EQ(ErrorOf("\"abc = 1"), "at position 1: unterminated quoted identifier");
  EXPECT_EQ(ErrorOf("\"\" = 1"), "at position 1: empty quoted identifier");
  EXPECT_EQ(ErrorOf("a = 1 b"), "at position 7: unexpected 'b'");
  EXPECT_EQ(ErrorOf("a = 1)"), "at position 6: unexpected ')'");
  EXPECT_EQ(ErrorOf("(a = 1"), "at position 7: expected ')', found end of expression");
  EXPECT_EQ(ErrorOf("a ="), "at position 4: expected a column or literal, found end of expression");
  EXPECT_EQ(ErrorOf("a = = 1"), "at position 5: expected a column or literal, found '='");
  EXPECT_EQ(ErrorOf("a AND"), "at position 6: expected a column or literal, found end of expression");
  EXPECT_NE(ErrorOf("d = DATE '2024-02-30'").find("at position 10: invalid date '2024-02-30'"), std::string::npos);
  EXPECT_NE(ErrorOf("t = TIMESTAMP '2024-01-01 25:00'").find("at position 15: invalid timestamp"), std::string::npos);
  EXPECT_EQ(ErrorOf("a = 12abc"), "at position 5: malformed number '12a'");
  EXPECT_EQ(ErrorOf("a = 1e"), "at position 5: malformed number exponent");
  EXPECT_EQ(ErrorOf("a = 1.2.3"), "at position 5: malformed number '1.2.'");
  EXPECT_EQ(ErrorOf("a ! 1"), "at position 3: unexpected character '!' (did you mean '!='?)");
  EXPECT_EQ(ErrorOf("a = -b"), "at position 6: expected a number after '-', found 'b'");
  EXPECT_EQ(ErrorOf("a IS 1"), "at position 6: expected NULL after IS, found '1'");
  EXPECT_EQ(ErrorOf("a BETWEEN 1 OR 2"), "at position 13: expected AND in BETWEEN, found 'OR'");
  EXPECT_EQ(ErrorOf("a IN 1"), "at position 6: expected '(' after IN, found '1'");
  EXPECT_EQ(ErrorOf("a IN ()"), "at position 7: expected a column or literal, found ')'");
  EXPECT_EQ(ErrorOf("a IN (1,)"), "at position 9: expected a column or literal, found ')'");
  EXPECT_EQ(ErrorOf("a IN (1 2)"), "at position 9: expected ',' or ')' in IN list, found '2'");
  EXPECT_EQ(ErrorOf("a IN (b)"), "at position 7: IN list items must be literals");
  EXPECT_EQ(ErrorOf("a LIKE b"), "at position 8: expected a string pattern after LIKE, found 'b'");
  EXPECT_EQ(ErrorOf("a LIKE 'x' ESCAPE 'ab'"), "at position 19: ESCAPE must be empty or one ASCII character");
  EXPECT_EQ(ErrorOf("a LIKE 'x\\' ESCAPE '\\'"), "at position 8: LIKE pattern must not end with the escape character");
  EXPECT_EQ(ErrorOf("42"), "at position 1: expected a predicate, found the literal 42");
  EXPECT_EQ(ErrorOf("a = 1 AND 'x'"), "at position 11: expected a predicate, found the literal 'x'");
  EXPECT_EQ(ErrorOf("and = 1"), "at position 1: expected a column or literal, found keyword 'and' (quote it as \"and\" if it is a column)");
  EXPECT_EQ(ErrorOf("a = 1 -- comment"), "at position 7: unexpected '-'");
  EXPECT_EQ(ErrorOf("a = 1;"), "at position 6: unexpected character ';'");
}

TEST(ParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string ok = std::string(200, '(') + "a = 1" + std::string(200, ')');
  EXPECT_TRUE(ParseExpression(ok).ok());
  std::string deep = std::string(100000, '(') + "a = 1" + std::string(100000, ')');
  EXPECT_NE(ErrorOf(deep).find("at position 257: expression nested too deeply"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 100000; ++i) nots += "NOT ";
  EXPECT_NE(ErrorOf(nots + "a").find("nested too deeply"), std::string::npos);
}

TEST(ParserTest, LongChainsAndListsAreIterative) {
  std::string chain = "a = 0";
  for (int i = 1; i < 50000; ++i) chain += " OR a = " + std::to_string(i);
  auto e = ParseExpression(chain);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->children.size(), 50000u);

  std::string list = "a IN (0";
  for (size_t i = 1; i < kMaxInListItems; ++i) list += "," + std::to_string(i);
  EXPECT_TRUE(ParseExpression(list + ")").ok());
  EXPECT_NE(ErrorOf(list + ",1)").find("IN list has more than 100000 items"), std::string::npos);
}

}  // namespace
}  // namespace lakeindex::query
