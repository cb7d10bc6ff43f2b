#include "format/csv/csv_tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lakeindex::csv {
namespace {

// Splits all of `text`; each record as its field texts, quoted fields marked with a leading '#'.
Result<std::vector<std::vector<std::string>>> Split(std::string_view text, char delimiter = ',') {
  CsvTokenizer tok(reinterpret_cast<const uint8_t*>(text.data()), text.size(), delimiter, "t.csv");
  std::vector<std::vector<std::string>> out;
  CsvRecord record;
  while (true) {
    ASSIGN_OR_RETURN(bool more, tok.Next(&record));
    if (!more) break;
    std::vector<std::string> fields;
    for (size_t i = 0; i < record.size(); ++i) {
      fields.push_back((record[i].quoted ? "#" : "") + std::string(record[i].text));
    }
    out.push_back(fields);
  }
  return out;
}

using Rows = std::vector<std::vector<std::string>>;

TEST(CsvTokenizer, SplitsLfAndCrlfWithOrWithoutFinalNewline) {
  Rows want = {{"a", "b"}, {"1", "2"}};
  EXPECT_EQ(*Split("a,b\n1,2\n"), want);
  EXPECT_EQ(*Split("a,b\n1,2"), want);
  EXPECT_EQ(*Split("a,b\r\n1,2\r\n"), want);
  EXPECT_EQ(*Split("a,b\r\n1,2\r"), want);
  EXPECT_EQ(*Split(""), Rows{});
}

// Input with CR line ends only (no LF anywhere), as classic Mac tools write it and DuckDB reads it.
TEST(CsvTokenizer, CrOnlyLineEnds) {
  Rows want = {{"a", "b"}, {"1", "2"}};
  EXPECT_EQ(*Split("a,b\r1,2\r"), want);
  EXPECT_EQ(*Split("a,b\r1,2"), want);
  EXPECT_EQ(*Split("\"x\ry\",z\r1,\"2\"\r"), (Rows{{"#x\ry", "z"}, {"1", "#2"}}));
  const std::string text = "a\r\"q\rq\"\rb\r";
  CsvTokenizer tok(reinterpret_cast<const uint8_t*>(text.data()), text.size(), ',', "t.csv");
  CsvRecord record;
  std::vector<size_t> lines;
  while (*tok.Next(&record)) lines.push_back(record.line());
  EXPECT_EQ(lines, (std::vector<size_t>{1, 2, 4}));  // the quoted CR is a physical line too
}

TEST(CsvTokenizer, EmptyFieldsAndBlankLines) {
  EXPECT_EQ(*Split(",\n,x,\n\n"), (Rows{{"", ""}, {"", "x", ""}, {""}}));
}

TEST(CsvTokenizer, QuotedFieldsKeepDelimitersNewlinesAndEscapedQuotes) {
  EXPECT_EQ(*Split("\"a,b\",\"x\ny\r\nz\",\"say \"\"hi\"\"\",\"\"\n"),
            (Rows{{"#a,b", "#x\ny\r\nz", "#say \"hi\"", "#"}}));
  EXPECT_EQ(*Split("\"\"\"\"\r\n\"a\"\r"), (Rows{{"#\""}, {"#a"}}));
}

TEST(CsvTokenizer, QuoteInsideUnquotedFieldIsData) {
  EXPECT_EQ(*Split("ab\"c,d\n"), (Rows{{"ab\"c", "d"}}));
}

TEST(CsvTokenizer, CrOutsideALineEndIsData) {
  EXPECT_EQ(*Split("a\rb,c\r,d\n"), (Rows{{"a\rb", "c\r", "d"}}));
}

TEST(CsvTokenizer, OtherDelimiters) {
  EXPECT_EQ(*Split("a;b,c\n\"x;y\";z\n", ';'), (Rows{{"a", "b,c"}, {"#x;y", "z"}}));
  EXPECT_EQ(*Split("a\tb\n", '\t'), (Rows{{"a", "b"}}));
}

TEST(CsvTokenizer, CountsPhysicalLinesAcrossQuotedNewlines) {
  std::string text = "h\n\"a\nb\nc\",\"d\ne\"\nx\n";
  CsvTokenizer tok(reinterpret_cast<const uint8_t*>(text.data()), text.size(), ',', "t.csv");
  CsvRecord r;
  ASSERT_TRUE(*tok.Next(&r));
  EXPECT_EQ(r.line(), 1u);
  ASSERT_TRUE(*tok.Next(&r));
  EXPECT_EQ(r.line(), 2u);
  EXPECT_EQ(r[0].line, 2u);
  EXPECT_EQ(r[1].line, 4u);
  ASSERT_TRUE(*tok.Next(&r));
  EXPECT_EQ(r.line(), 6u);
  EXPECT_FALSE(*tok.Next(&r));
}

TEST(CsvTokenizer, TellAndSeekReplayRecords) {
  std::string text = "h\n1\n2\n";
  CsvTokenizer tok(reinterpret_cast<const uint8_t*>(text.data()), text.size(), ',', "t.csv");
  CsvRecord r;
  ASSERT_TRUE(*tok.Next(&r));
  CsvTokenizer::Position after_header = tok.Tell();
  ASSERT_TRUE(*tok.Next(&r));
  ASSERT_TRUE(*tok.Next(&r));
  tok.Seek(after_header);
  ASSERT_TRUE(*tok.Next(&r));
  EXPECT_EQ(r[0].text, "1");
  EXPECT_EQ(r.line(), 2u);
}

TEST(CsvTokenizer, UnterminatedQuoteNamesTheLineWhereItOpened) {
  auto r = Split("a\nb\n\"open\n\nnever closed\n");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_EQ(r.status().message(),
            "t.csv: line 3: unterminated quoted field (the quote opened here is never closed)");
}

TEST(CsvTokenizer, CharacterAfterClosingQuoteIsAnError) {
  auto r = Split("a\n\"x\"y,z\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "t.csv: line 2: unexpected character after the closing quote of field 1"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace lakeindex::csv
