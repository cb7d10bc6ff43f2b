#include "query/lexer.h"

namespace lakeindex::query {

namespace {

bool IsIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsIdentChar(unsigned char c) { return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '$'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Status Run(std::vector<Token>* out) {
    while (true) {
      while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
      Token t;
      t.position = PositionOf(i_);
      if (i_ >= s_.size()) {
        t.kind = Tok::kEnd;
        out->push_back(std::move(t));
        return Status::OK();
      }
      char c = s_[i_];
      if (IsIdentStart(static_cast<unsigned char>(c))) {
        size_t start = i_;
        while (i_ < s_.size() && IsIdentChar(static_cast<unsigned char>(s_[i_]))) ++i_;
        t.kind = Tok::kIdent;
        t.text = std::string(s_.substr(start, i_ - start));
      } else if (c == '\'' || c == '"') {
        t.kind = c == '\'' ? Tok::kString : Tok::kQuotedIdent;
        if (!ReadQuoted(c, &t.text)) {
          return ErrorAt(t.position, c == '\'' ? "unterminated string literal" : "unterminated quoted identifier");
        }
        if (t.kind == Tok::kQuotedIdent && t.text.empty()) return ErrorAt(t.position, "empty quoted identifier");
      } else if (IsDigit(c) || (c == '.' && i_ + 1 < s_.size() && IsDigit(s_[i_ + 1]))) {
        t.kind = Tok::kNumber;
        RETURN_IF_ERROR(ReadNumber(t.position, &t.text));
      } else if (c == '(' || c == ')' || c == ',' || c == '-') {
        t.kind = c == '(' ? Tok::kLParen : c == ')' ? Tok::kRParen : c == ',' ? Tok::kComma : Tok::kMinus;
        t.text = std::string(1, c);
        ++i_;
      } else if (c == '=' || c == '<' || c == '>' || c == '!') {
        RETURN_IF_ERROR(ReadCompare(t.position, &t));
      } else if (c == '*') {
        t.kind = Tok::kStar;
        t.text = "*";
        ++i_;
      } else if (c == '+' || c == '/' || c == '%' || c == '|' || c == '.' || c == ':') {
        // SQL beyond the subset: its own token, so that the parser names it.
        const size_t len = (c == '|' || c == ':') && i_ + 1 < s_.size() && s_[i_ + 1] == c ? 2 : 1;
        t.kind = Tok::kOperator;
        t.text = std::string(s_.substr(i_, len));
        i_ += len;
      } else {
        size_t len = 1;
        while (i_ + len < s_.size() && (static_cast<unsigned char>(s_[i_ + len]) & 0xC0) == 0x80 && len < 4) ++len;
        return ErrorAt(t.position, "unexpected character '" + std::string(s_.substr(i_, len)) + "'");
      }
      t.end = PositionOf(i_);
      out->push_back(std::move(t));
    }
  }

 private:
  // Code point position (1-based) of byte offset `offset`; offsets are requested in increasing
  // order, so this is linear over the whole input.
  uint32_t PositionOf(size_t offset) {
    while (counted_ < offset) {
      if ((static_cast<unsigned char>(s_[counted_]) & 0xC0) != 0x80) ++chars_;
      ++counted_;
    }
    return uint32_t(chars_ + 1);
  }

  bool ReadQuoted(char quote, std::string* out) {
    ++i_;
    while (i_ < s_.size()) {
      if (s_[i_] == quote) {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == quote) {
          out->push_back(quote);
          i_ += 2;
          continue;
        }
        ++i_;
        return true;
      }
      out->push_back(s_[i_++]);
    }
    return false;
  }

  Status ReadNumber(uint32_t position, std::string* out) {
    size_t start = i_;
    while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      size_t e = i_ + 1;
      if (e < s_.size() && (s_[e] == '+' || s_[e] == '-')) ++e;
      if (e >= s_.size() || !IsDigit(s_[e])) return ErrorAt(position, "malformed number exponent");
      i_ = e;
      while (i_ < s_.size() && IsDigit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (IsIdentChar(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) {
      return ErrorAt(position, "malformed number '" + std::string(s_.substr(start, i_ + 1 - start)) + "'");
    }
    *out = std::string(s_.substr(start, i_ - start));
    return Status::OK();
  }

  Status ReadCompare(uint32_t position, Token* t) {
    char c = s_[i_];
    char n = i_ + 1 < s_.size() ? s_[i_ + 1] : '\0';
    t->kind = Tok::kCompare;
    size_t len = 1;
    if (c == '=') {
      t->op = CompareOp::kEq;
    } else if (c == '!') {
      if (n != '=') return ErrorAt(position, "unexpected character '!' (did you mean '!='?)");
      t->op = CompareOp::kNe;
      len = 2;
    } else if (c == '<') {
      t->op = n == '=' ? CompareOp::kLe : n == '>' ? CompareOp::kNe : CompareOp::kLt;
      len = (n == '=' || n == '>') ? 2 : 1;
    } else {
      t->op = n == '=' ? CompareOp::kGe : CompareOp::kGt;
      len = n == '=' ? 2 : 1;
    }
    t->text = std::string(s_.substr(i_, len));
    i_ += len;
    return Status::OK();
  }

  std::string_view s_;
  size_t i_ = 0;
  size_t counted_ = 0;
  size_t chars_ = 0;
};

}  // namespace

Status ErrorAt(uint32_t position, const std::string& message) {
  return Status::InvalidArgument("at position " + std::to_string(position) + ": " + message);
}

Status BeyondSubset(uint32_t position, const std::string& what, const std::string& note) {
  return Status::NotSupported("at position " + std::to_string(position) + ": " + what + " is not supported" + note);
}

std::string BeyondOperator(const Token& t) {
  if (t.text == "||") return "string concatenation ('||')";
  if (t.text == "::" || t.text == ":") return "a cast ('" + t.text + "')";
  if (t.text == ".") return "a qualified name ('.'; one table, no joins)";
  return "arithmetic ('" + t.text + "')";
}

std::string QuoteHint(const std::vector<Token>& tokens, size_t i) {
  if (i == 0 || i + 1 >= tokens.size()) return "";
  const Token &before = tokens[i - 1], &op = tokens[i], &after = tokens[i + 1];
  const bool name_char = op.text == "-" || op.text == "." || op.text == "/" || op.text == "+";
  const bool glued = name_char && before.kind == Tok::kIdent && (after.kind == Tok::kIdent || after.kind == Tok::kNumber) &&
                     before.end == op.position && op.end == after.position;
  if (!glued) return "";
  return "; a column named so is written quoted: \"" + before.text + op.text + after.text + "\"";
}

bool IsBeyondSubset(const Status& status) {
  static constexpr std::string_view kQueryParameters[] = {"where", "select", "group_by", "order_by", "aggregates"};
  if (!status.IsNotSupported()) return false;
  for (std::string_view p : kQueryParameters) {
    if (status.parameter() == p) return true;
  }
  return false;
}

bool KeywordIs(const Token& t, std::string_view keyword) {
  if (t.kind != Tok::kIdent || t.text.size() != keyword.size()) return false;
  for (size_t i = 0; i < keyword.size(); ++i) {
    char c = t.text[i];
    if (c >= 'a' && c <= 'z') c = char(c - 32);
    if (c != keyword[i]) return false;
  }
  return true;
}

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd: return "end of expression";
    case Tok::kString: return "string '" + t.text.substr(0, 30) + "'";
    case Tok::kQuotedIdent: return "\"" + t.text.substr(0, 30) + "\"";
    default: return "'" + t.text.substr(0, 30) + "'";
  }
}

Result<std::vector<Token>> Tokenize(std::string_view text) {
  std::vector<Token> tokens;
  RETURN_IF_ERROR(Lexer(text).Run(&tokens));
  return tokens;
}

}  // namespace lakeindex::query
