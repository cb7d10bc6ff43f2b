#include "common/text.h"

#include <gtest/gtest.h>

namespace lakeindex {
namespace {

TEST(Utf8Test, WellFormedSequencesAndTheRest) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii\n"));
  EXPECT_TRUE(IsValidUtf8("ü€😀 ключ"));
  EXPECT_FALSE(IsValidUtf8("\xFF"));
  EXPECT_FALSE(IsValidUtf8("ab\xC3"));            // cut short
  EXPECT_FALSE(IsValidUtf8("\xE2\x82x"));         // a continuation byte missing
  EXPECT_FALSE(IsValidUtf8("\x80 continuation"));  // no lead byte
}

TEST(Utf8Test, EscapesOnlyWhatIsNotText) {
  EXPECT_EQ(EscapeBytes("ü€😀 ok", true), "ü€😀 ok");
  EXPECT_EQ(EscapeBytes(std::string("\xFF\0ab", 4), true), "\\xFF\\x00ab");  // as DuckDB prints the BLOB
  EXPECT_EQ(EscapeBytes(std::string("\xFF\0ab", 4), false), std::string("\\xFF\0ab", 7));
  EXPECT_EQ(EscapeBytes("tab\tand\nlines\r", true), "tab\tand\nlines\r");
  EXPECT_EQ(EscapeBytes("ab\xC3", false), "ab\\xC3");
  EXPECT_TRUE(IsValidUtf8(EscapeBytes("\x80\xFE\xC3(", false)));
}

TEST(TextTest, XmlEscapeWritesTheFiveEntities) {
  EXPECT_EQ(XmlEscape("a<b & \"c\" > 'd'"), "a&lt;b &amp; &quot;c&quot; &gt; &apos;d&apos;");
  EXPECT_EQ(XmlEscape("plain é"), "plain é");
}

TEST(TextTest, NearestNamesAreTyposOfTheWord) {
  EXPECT_EQ(EditDistance("destt", "dest"), 1u);
  EXPECT_EQ(EditDistance("DEST", "dest"), 0u);  // case is not a typo
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("nmae", "name"), 1u);  // a swap is one typo
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  const std::vector<std::string> columns = {"origin", "dest", "dep_delay", "arr_delay", "id"};
  EXPECT_EQ(NearestNames("destt", columns), std::vector<std::string>{"dest"});
  EXPECT_EQ(NearestNames("dep_dleay", columns), std::vector<std::string>{"dep_delay"});
  EXPECT_EQ(NearestNames("desx", {"origin", "dest", "desk"}), (std::vector<std::string>{"dest", "desk"}));
  EXPECT_TRUE(NearestNames("x", columns).empty());  // one letter is no name to correct
  EXPECT_TRUE(NearestNames("foo", {"f", "id"}).empty());
  EXPECT_TRUE(NearestNames("weather", columns).empty());
  EXPECT_EQ(DidYouMean({"dest"}), "; did you mean 'dest'?");
  EXPECT_EQ(DidYouMean({"a", "b", "c"}, ""), "; did you mean a, b or c?");
  EXPECT_EQ(DidYouMean({}), "");
}

}  // namespace
}  // namespace lakeindex
