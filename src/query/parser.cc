#include "query/parser.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "query/lexer.h"

namespace lakeindex::query {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool EndsOperand(const Token& t) { return t.kind == Tok::kStar || t.kind == Tok::kOperator || t.kind == Tok::kMinus; }

// Value of a number token, negated when `negative`.
Result<Value> NumberValue(const Token& t, bool negative) {
  const std::string& s = t.text;
  if (s.find_first_of(".eE") == std::string::npos) {
    uint64_t magnitude = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), magnitude);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size()) {
      if (!negative && magnitude <= uint64_t(std::numeric_limits<int64_t>::max())) {
        return Value::Int64(int64_t(magnitude));
      }
      if (negative && magnitude <= uint64_t(std::numeric_limits<int64_t>::max()) + 1) {
        return Value::Int64(int64_t(0 - magnitude));  // two's complement: covers INT64_MIN
      }
    }
    // Too large for int64: a double, like other engines' fallback to an inexact type.
  }
  double d = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  if (r.ec == std::errc::result_out_of_range) {
    // Overflow -> inf, underflow -> 0 (DuckDB does the same). The decimal exponent of the first
    // significant digit tells which one happened.
    int64_t exp10 = 0;
    size_t i = 0;
    int64_t int_digits = 0;
    bool seen_nonzero = false;
    int64_t leading_frac_zeros = 0;
    while (i < s.size() && IsDigit(s[i])) {
      if (s[i] != '0' || seen_nonzero) { seen_nonzero = true; ++int_digits; }
      ++i;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && IsDigit(s[i])) {
        if (!seen_nonzero) {
          if (s[i] == '0') ++leading_frac_zeros; else seen_nonzero = true;
        }
        ++i;
      }
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      bool neg = i < s.size() && s[i] == '-';
      if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
      while (i < s.size() && IsDigit(s[i])) {
        if (exp10 < 1000000000) exp10 = exp10 * 10 + (s[i] - '0');
        ++i;
      }
      if (neg) exp10 = -exp10;
    }
    int64_t magnitude = (int_digits > 0 ? int_digits : -leading_frac_zeros) + exp10;
    d = magnitude > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  } else if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
    return ErrorAt(t.position, "malformed number '" + s + "'");
  }
  return Value::Double(negative ? -d : d);
}

// True when the pattern's last character is an unescaped escape character.
bool EndsWithEscape(std::string_view pattern, char escape) {
  bool escaped = false;
  for (char c : pattern) escaped = !escaped && c == escape;
  return escaped;
}

// The value of a typed literal's text (see ParsePrimary).
Result<Value> TypedLiteral(TypeId type, const std::string& text) {
  switch (type) {
    case TypeId::kDate: {
      ASSIGN_OR_RETURN(int32_t days, ParseDate(text));
      return Value::Date(days);
    }
    case TypeId::kTimestampNs: {
      ASSIGN_OR_RETURN(int64_t nanos, ParseTimestampNs(text));
      return Value::TimestampNs(nanos);
    }
    case TypeId::kBinary: {
      ASSIGN_OR_RETURN(std::string bytes, ParseBinary(text));
      return Value::Binary(std::move(bytes));
    }
    case TypeId::kUuid: {
      ASSIGN_OR_RETURN(std::string bytes, ParseUuid(text));
      return Value::Bytes(TypeId::kUuid, std::move(bytes));
    }
    default: {  // timestamp, timestamptz
      ASSIGN_OR_RETURN(int64_t micros, ParseTimestamp(text));
      return Value::Int(type, micros);
    }
  }
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  Result<ExprPtr> ParseAll() {
    if (Peek().kind == Tok::kEnd) return ErrorAt(Peek().position, "empty expression");
    ASSIGN_OR_RETURN(ExprPtr e, ParseOr(0));
    const Token& t = Peek();
    if (t.kind == Tok::kEnd) return e;
    // "--" starts a comment in SQL, which a filter has no use for: only unexpected.
    if (EndsOperand(t) && !(t.kind == Tok::kMinus && Peek(1).kind == Tok::kMinus)) {
      return BeyondSubset(t.position, BeyondOperator(t), QuoteHint(toks_, pos_));
    }
    if (KeywordIs(t, "HAVING")) return BeyondSubset(t.position, "HAVING");
    // The clauses after WHERE are options of their own (group_by, order_by, limit, offset).
    for (const char* clause : {"GROUP", "ORDER", "LIMIT", "OFFSET"}) {
      if (KeywordIs(t, clause)) {
        return ErrorAt(t.position, "unexpected " + Describe(t) + ": the filter ends before " + clause +
                                       ", which is an option of its own");
      }
    }
    return ErrorAt(t.position, "unexpected " + Describe(t));
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  const Token& Next() {
    const Token& t = Peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    return t;
  }
  bool AcceptKeyword(std::string_view k) {
    if (!KeywordIs(Peek(), k)) return false;
    Next();
    return true;
  }
  Status Expect(Tok kind, const char* what) {
    if (Peek().kind != kind) return ErrorAt(Peek().position, std::string("expected ") + what + ", found " + Describe(Peek()));
    Next();
    return Status::OK();
  }
  Status CheckDepth(int depth, uint32_t position) {
    if (depth > kMaxNestingDepth) {
      return ErrorAt(position, "expression nested too deeply (more than " + std::to_string(kMaxNestingDepth) + " levels)");
    }
    return Status::OK();
  }

  Result<ExprPtr> ParseOr(int depth) {
    uint32_t position = Peek().position;
    std::vector<ExprPtr> terms;
    ASSIGN_OR_RETURN(ExprPtr first, ParseAnd(depth));
    terms.push_back(std::move(first));
    while (AcceptKeyword("OR")) {
      ASSIGN_OR_RETURN(ExprPtr next, ParseAnd(depth));
      terms.push_back(std::move(next));
    }
    return MakeOr(std::move(terms), position);
  }

  Result<ExprPtr> ParseAnd(int depth) {
    uint32_t position = Peek().position;
    std::vector<ExprPtr> terms;
    ASSIGN_OR_RETURN(ExprPtr first, ParseNot(depth));
    terms.push_back(std::move(first));
    while (AcceptKeyword("AND")) {
      ASSIGN_OR_RETURN(ExprPtr next, ParseNot(depth));
      terms.push_back(std::move(next));
    }
    return MakeAnd(std::move(terms), position);
  }

  Result<ExprPtr> ParseNot(int depth) {
    // NOT chains are iterative so that the depth check, not the stack, bounds them.
    std::vector<uint32_t> nots;
    while (KeywordIs(Peek(), "NOT")) {
      nots.push_back(Peek().position);
      RETURN_IF_ERROR(CheckDepth(depth + int(nots.size()), Peek().position));
      Next();
    }
    ASSIGN_OR_RETURN(ExprPtr e, ParsePredicate(depth + int(nots.size())));
    for (size_t i = nots.size(); i-- > 0;) e = MakeNot(std::move(e), nots[i]);
    return e;
  }

  bool AtPredicateTail() const {
    const Token& t = Peek();
    if (t.kind == Tok::kCompare) return true;
    if (KeywordIs(t, "BETWEEN") || KeywordIs(t, "IN") || KeywordIs(t, "IS") || KeywordIs(t, "LIKE")) return true;
    return KeywordIs(t, "NOT") &&
           (KeywordIs(Peek(1), "BETWEEN") || KeywordIs(Peek(1), "IN") || KeywordIs(Peek(1), "LIKE"));
  }

  Result<ExprPtr> ParsePredicate(int depth) {
    ExprPtr operand;
    if (Peek().kind == Tok::kLParen) {
      uint32_t position = Peek().position;
      RETURN_IF_ERROR(CheckDepth(depth + 1, position));
      Next();
      ASSIGN_OR_RETURN(ExprPtr inner, ParseOr(depth + 1));
      RETURN_IF_ERROR(Expect(Tok::kRParen, "')'"));
      bool is_operand = inner->kind == ExprKind::kColumn || inner->kind == ExprKind::kLiteral;
      if (!is_operand) return inner;
      operand = std::move(inner);
    } else {
      ASSIGN_OR_RETURN(operand, ParseOperand());
    }
    return ParseTail(std::move(operand));
  }

  Result<ExprPtr> ParseTail(ExprPtr operand) {
    uint32_t position = operand->position;
    const Token& t = Peek();
    if (EndsOperand(t)) return BeyondSubset(t.position, BeyondOperator(t), QuoteHint(toks_, pos_));
    for (const char* other : {"ILIKE", "SIMILAR", "GLOB", "REGEXP"}) {  // DuckDB's other matches
      if (KeywordIs(t, other)) return BeyondSubset(t.position, std::string(other));
    }
    if (t.kind == Tok::kCompare) {
      CompareOp op = Next().op;
      ASSIGN_OR_RETURN(ExprPtr right, ParseOperand());
      return MakeCompare(op, std::move(operand), std::move(right), position);
    }
    if (KeywordIs(t, "IS")) {
      Next();
      bool negated = AcceptKeyword("NOT");
      if (!AcceptKeyword("NULL")) return ErrorAt(Peek().position, "expected NULL after IS, found " + Describe(Peek()));
      return MakeIsNull(std::move(operand), negated, position);
    }
    bool negated = false;
    if (KeywordIs(t, "NOT") && AtPredicateTail()) {
      Next();
      negated = true;
    }
    if (AcceptKeyword("BETWEEN")) {
      ASSIGN_OR_RETURN(ExprPtr low, ParseOperand());
      if (!AcceptKeyword("AND")) return ErrorAt(Peek().position, "expected AND in BETWEEN, found " + Describe(Peek()));
      ASSIGN_OR_RETURN(ExprPtr high, ParseOperand());
      return MakeBetween(std::move(operand), std::move(low), std::move(high), negated, position);
    }
    if (AcceptKeyword("IN")) return ParseInList(std::move(operand), negated, position);
    if (AcceptKeyword("LIKE")) {
      if (Peek().kind != Tok::kString) {
        return ErrorAt(Peek().position, "expected a string pattern after LIKE, found " + Describe(Peek()));
      }
      const Token& pattern_token = Next();
      std::string pattern = pattern_token.text;
      std::string escape;
      if (KeywordIs(Peek(), "ESCAPE")) {
        Next();
        if (Peek().kind != Tok::kString) {
          return ErrorAt(Peek().position, "expected a string after ESCAPE, found " + Describe(Peek()));
        }
        const Token& esc = Next();
        if (esc.text.size() > 1 || (esc.text.size() == 1 && static_cast<unsigned char>(esc.text[0]) >= 0x80)) {
          return ErrorAt(esc.position, "ESCAPE must be empty or one ASCII character");
        }
        escape = esc.text;
      }
      if (!escape.empty() && EndsWithEscape(pattern, escape[0])) {
        return ErrorAt(pattern_token.position, "LIKE pattern must not end with the escape character");
      }
      return MakeLike(std::move(operand), std::move(pattern), std::move(escape), negated, position);
    }
    // A bare operand stands as a predicate only if it can be boolean; the binder checks columns.
    if (operand->kind == ExprKind::kLiteral && !operand->value.is_null() &&
        operand->value.type() != TypeId::kBool) {
      return ErrorAt(position, "expected a predicate, found the literal " + operand->ToString());
    }
    return operand;
  }

  Result<ExprPtr> ParseInList(ExprPtr operand, bool negated, uint32_t position) {
    RETURN_IF_ERROR(Expect(Tok::kLParen, "'(' after IN"));
    std::vector<ExprPtr> items;
    while (true) {
      if (items.size() >= kMaxInListItems) {
        return ErrorAt(Peek().position, "IN list has more than " + std::to_string(kMaxInListItems) + " items");
      }
      uint32_t item_position = Peek().position;
      ASSIGN_OR_RETURN(ExprPtr item, ParseOperand());
      if (item->kind != ExprKind::kLiteral) return ErrorAt(item_position, "IN list items must be literals");
      items.push_back(std::move(item));
      if (Peek().kind == Tok::kComma) {
        Next();
        continue;
      }
      RETURN_IF_ERROR(Expect(Tok::kRParen, "',' or ')' in IN list"));
      break;
    }
    return MakeIn(std::move(operand), std::move(items), negated, position);
  }

  Result<ExprPtr> ParseOperand() {
    const Token& t = Peek();
    uint32_t position = t.position;
    switch (t.kind) {
      case Tok::kQuotedIdent: return MakeColumn(Next().text, position);
      case Tok::kString: return MakeLiteral(Value::String(Next().text), position);
      case Tok::kNumber: {
        std::string text = Peek().text;
        ASSIGN_OR_RETURN(Value v, NumberValue(Next(), false));
        return MakeNumberLiteral(std::move(v), std::move(text), position);
      }
      case Tok::kMinus: {
        Next();
        if (Peek().kind != Tok::kNumber) {
          return ErrorAt(Peek().position, "expected a number after '-', found " + Describe(Peek()));
        }
        std::string text = "-" + Peek().text;
        ASSIGN_OR_RETURN(Value v, NumberValue(Next(), true));
        return MakeNumberLiteral(std::move(v), std::move(text), position);
      }
      case Tok::kIdent: break;
      case Tok::kLParen:
        // (SELECT ...) where a value stands: a scalar subquery, or IN (SELECT ...).
        if (Peek(1).kind == Tok::kIdent && KeywordIs(Peek(1), "SELECT")) {
          return BeyondSubset(position, "a subquery (SELECT)");
        }
        return ErrorAt(position, "expected a column or literal, found " + Describe(t));
      default: return ErrorAt(position, "expected a column or literal, found " + Describe(t));
    }
    if (KeywordIs(t, "CASE")) return BeyondSubset(position, "CASE");
    if (KeywordIs(t, "TRUE") || KeywordIs(t, "FALSE")) {
      bool b = KeywordIs(Next(), "TRUE");
      return MakeLiteral(Value::Bool(b), position);
    }
    if (KeywordIs(t, "NULL")) {
      Next();
      return MakeLiteral(Value(), position);
    }
    if (Peek(1).kind == Tok::kString) {
      // A typed literal, as DuckDB writes them: DATE '...', TIMESTAMP '...', TIMESTAMPTZ '...',
      // TIMESTAMP_NS '...', BLOB '\x..', UUID '...'.
      static constexpr std::pair<const char*, TypeId> kTyped[] = {
          {"DATE", TypeId::kDate},         {"TIMESTAMP", TypeId::kTimestamp}, {"TIMESTAMPTZ", TypeId::kTimestampTz},
          {"TIMESTAMP_NS", TypeId::kTimestampNs}, {"BLOB", TypeId::kBinary}, {"UUID", TypeId::kUuid}};
      for (const auto& [keyword, type] : kTyped) {
        if (!KeywordIs(t, keyword)) continue;
        Next();
        const Token& s = Next();
        Result<Value> v = TypedLiteral(type, s.text);
        if (!v.ok()) return ErrorAt(s.position, v.status().message());
        return MakeLiteral(std::move(*v), position);
      }
    }
    if (Peek(1).kind == Tok::kLParen) {
      if (KeywordIs(t, "EXISTS")) return BeyondSubset(position, "a subquery (EXISTS)");
      return BeyondSubset(position, "the function call " + t.text + "(...)");
    }
    if (KeywordIs(t, "SELECT") && (Peek(1).kind == Tok::kStar || Peek(1).kind == Tok::kIdent ||
                                   Peek(1).kind == Tok::kQuotedIdent || Peek(1).kind == Tok::kNumber ||
                                   Peek(1).kind == Tok::kString)) {
      return BeyondSubset(position, "a subquery (SELECT)");
    }
    if (IsReservedWord(t.text)) {
      return ErrorAt(position, "expected a column or literal, found keyword " + Describe(t) +
                                   " (quote it as \"" + t.text + "\" if it is a column)");
    }
    return MakeColumn(Next().text, position);
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
};

}  // namespace

Result<ExprPtr> ParseExpression(std::string_view text) {
  Result<std::vector<Token>> tokens = Tokenize(text);
  if (!tokens.ok()) return tokens.status().About("where");
  Result<ExprPtr> parsed = Parser(std::move(*tokens)).ParseAll();
  if (!parsed.ok()) return parsed.status().About("where");
  return parsed;
}

}  // namespace lakeindex::query
