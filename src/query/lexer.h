// Tokens of the SQL a query's options take (--where's filter, and the column lists, order keys
// and aggregates of select_list.h), so that every option reads names, quotes and keywords alike
// and points at the same positions.
//
// Identifiers: [A-Za-z_][A-Za-z0-9_$]* (bytes >= 0x80 allowed too) or "double quoted" with "" for
// a quote. Strings: 'text' with '' for a quote. Numbers: digits[.digits][e[+-]digits]. Positions
// are 1-based characters (code points); the end of input is its length + 1. Characters of SQL
// beyond the subset (* + / % || . :) are tokens of their own, so that a parser can name what is
// not supported instead of stopping at an unexpected character.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/status.h"
#include "query/expr.h"

namespace lakeindex::query {

enum class Tok : uint8_t {
  kEnd,
  kIdent,        // unquoted identifier or keyword
  kQuotedIdent,  // "..."
  kString,       // '...'
  kNumber,       // digits[.digits][e[+-]digits]
  kCompare,      // = != <> < <= > >=
  kLParen,
  kRParen,
  kComma,
  kMinus,
  kStar,
  kOperator,     // + / % || . : :: — SQL the subset does not take
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;       // decoded text (quotes removed, doubled quotes collapsed)
  uint32_t position = 0;  // 1-based code point position
  uint32_t end = 0;       // the position just after the token
  CompareOp op = CompareOp::kEq;
};

// The tokens of `text`, ending with one kEnd. InvalidArgument "at position N: ..." for an
// unterminated quote, a malformed number or a character no token starts with.
Result<std::vector<Token>> Tokenize(std::string_view text);

// InvalidArgument "at position N: message".
Status ErrorAt(uint32_t position, const std::string& message);

// NotSupported "at position N: <what> is not supported<note>": SQL beyond the subset (a function
// call, arithmetic, HAVING, a subquery, a join). Front ends add where such SQL runs after it
// (IsBeyondSubset).
Status BeyondSubset(uint32_t position, const std::string& what, const std::string& note = "");
// What SQL beyond the subset an operator token (kStar, kMinus, kOperator) starts after an
// operand: "arithmetic ('+')", "a cast ('::')", ...
std::string BeyondOperator(const Token& t);
// When the operator tokens[i] sits between two words with no space ("dep-delay", "t.a"), a note
// for BeyondSubset: a column named so is written "quoted"; empty otherwise.
std::string QuoteHint(const std::vector<Token>& tokens, size_t i);
// Whether `status` is a BeyondSubset refusal.
bool IsBeyondSubset(const Status& status);

// Whether `t` is the unquoted keyword `keyword` (given upper case), ignoring case.
bool KeywordIs(const Token& t, std::string_view keyword);

// Short quotable rendering of a token for messages: 'x', "Quoted", string 'text', end of ...
std::string Describe(const Token& t);

}  // namespace lakeindex::query
