#include "query/like_matcher.h"

#include <gtest/gtest.h>

#include <string>

namespace lakeindex::query {
namespace {

bool Like(const std::string& text, const std::string& pattern, const std::string& escape = "") {
  return LikeMatcher::Compile(pattern, escape).Matches(text);
}

// Reference: plain recursive definition over code points (exponential, tiny inputs only).
bool RefLike(const std::string& t, size_t i, const std::string& p, size_t j) {
  if (j == p.size()) return i == t.size();
  auto next = [&](size_t k) {
    unsigned char c = static_cast<unsigned char>(t[k]);
    size_t extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    return std::min(t.size(), k + 1 + extra);
  };
  if (p[j] == '%') {
    for (size_t k = i;; k = next(k)) {
      if (RefLike(t, k, p, j + 1)) return true;
      if (k >= t.size()) return false;
    }
  }
  if (i >= t.size()) return false;
  if (p[j] == '_') return RefLike(t, next(i), p, j + 1);
  return t[i] == p[j] && RefLike(t, i + 1, p, j + 1);
}

TEST(LikeMatcherTest, FastPathsAreChosen) {
  EXPECT_EQ(LikeMatcher::Compile("abc", "").mode(), LikeMatcher::Mode::kExact);
  EXPECT_EQ(LikeMatcher::Compile("abc%", "").mode(), LikeMatcher::Mode::kPrefix);
  EXPECT_EQ(LikeMatcher::Compile("%abc", "").mode(), LikeMatcher::Mode::kSuffix);
  EXPECT_EQ(LikeMatcher::Compile("%abc%", "").mode(), LikeMatcher::Mode::kContains);
  EXPECT_EQ(LikeMatcher::Compile("%%", "").mode(), LikeMatcher::Mode::kAll);
  EXPECT_EQ(LikeMatcher::Compile("a\\%%", "\\").mode(), LikeMatcher::Mode::kPrefix);
  EXPECT_EQ(LikeMatcher::Compile("a\\%%", "\\").literal(), "a%");
  EXPECT_EQ(LikeMatcher::Compile("a_%", "").mode(), LikeMatcher::Mode::kGeneral);
  EXPECT_EQ(LikeMatcher::Compile("a%b", "").mode(), LikeMatcher::Mode::kGeneral);
  EXPECT_EQ(LikeMatcher::Compile("ab\\", "\\").mode(), LikeMatcher::Mode::kNever);
}

TEST(LikeMatcherTest, Semantics) {
  EXPECT_TRUE(Like("abc", "a%c"));
  EXPECT_TRUE(Like("ac", "a%c"));
  EXPECT_FALSE(Like("acb", "a%c"));
  EXPECT_TRUE(Like("abcbc", "%bc"));
  EXPECT_TRUE(Like("xabcabd", "%ab_"));
  EXPECT_TRUE(Like("€x", "_x"));       // one code point, three bytes
  EXPECT_TRUE(Like("😀", "_"));
  EXPECT_FALSE(Like("😀", "__"));
  EXPECT_TRUE(Like("a_b", "a\\_b", "\\"));
  EXPECT_FALSE(Like("axb", "a\\_b", "\\"));
  EXPECT_TRUE(Like("ab", "a\\b", "\\"));  // escape before an ordinary character
  EXPECT_TRUE(Like("a%", "a%%", "%"));    // '%' as its own escape
  EXPECT_FALSE(Like("a%x", "a%%", "%"));
  EXPECT_FALSE(Like("ABC", "abc"));
  EXPECT_TRUE(Like("", "%"));
  EXPECT_FALSE(Like("", "_"));
}

TEST(LikeMatcherTest, AgreesWithReferenceOnSmallAlphabet) {
  const std::string alphabet[] = {"a", "b", "é", "%", "_"};
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text, pattern;
    for (uint64_t k = next() % 7; k > 0; --k) text += alphabet[next() % 3];
    for (uint64_t k = next() % 6; k > 0; --k) pattern += alphabet[next() % 5];
    ASSERT_EQ(Like(text, pattern), RefLike(text, 0, pattern, 0)) << "'" << text << "' LIKE '" << pattern << "'";
  }
}

TEST(LikeMatcherTest, NoExponentialBacktracking) {
  std::string text(20000, 'a');
  std::string pattern;
  for (int i = 0; i < 30; ++i) pattern += "%a";
  pattern += "%b";
  EXPECT_FALSE(Like(text, pattern));
  EXPECT_FALSE(Like(text, "%a_a_a_a_a_a_a_b%"));
}

}  // namespace
}  // namespace lakeindex::query
