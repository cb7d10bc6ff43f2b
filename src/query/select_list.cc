#include "query/select_list.h"

#include <algorithm>
#include <utility>

#include "query/expr.h"
#include "query/lexer.h"

namespace lakeindex::query {
namespace {

std::string Lowered(std::string s) {
  for (char& c : s) c = c >= 'A' && c <= 'Z' ? char(c + 32) : c;
  return s;
}

// A keyword that starts a clause of a SELECT statement (never an alias without AS).
bool StartsClause(const Token& t) {
  for (const char* k : {"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "JOIN", "LEFT", "RIGHT",
                        "INNER", "CROSS", "FULL", "NATURAL"}) {
    if (KeywordIs(t, k)) return true;
  }
  return false;
}

// Reads one option's list, token by token; every error about `parameter`.
class ListReader {
 public:
  ListReader(std::vector<Token> tokens, std::string parameter)
      : toks_(std::move(tokens)), parameter_(std::move(parameter)) {}

  const Token& Peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const Token& Next() {
    const Token& t = Peek();
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool AtEnd() const { return Peek().kind == Tok::kEnd; }
  Status Error(uint32_t position, const std::string& message) const {
    return ErrorAt(position, message).About(parameter_);
  }
  Status Beyond(uint32_t position, const std::string& what, const std::string& note = "") const {
    return BeyondSubset(position, what, note).About(parameter_);
  }

  // A plain or quoted name (a keyword too, unless it starts SQL beyond the list). `what` says
  // what the list wanted, for the error when there is none.
  Result<std::string> ReadName(const char* what) {
    const Token& t = Peek();
    if (t.kind == Tok::kQuotedIdent) return Next().text;
    if (t.kind == Tok::kIdent) {
      if (KeywordIs(t, "SELECT") && (Peek(1).kind == Tok::kStar || Peek(1).kind == Tok::kIdent)) {
        return Beyond(t.position, "a subquery (SELECT)");
      }
      if (Peek(1).kind == Tok::kLParen) return Beyond(t.position, "the function call " + t.text + "(...)");
      return Next().text;
    }
    if (t.kind == Tok::kNumber) {
      return Error(t.position, "column positions such as " + t.text + " are not supported; name the column");
    }
    if (t.kind == Tok::kLParen) return Beyond(t.position, "a parenthesized expression or subquery");
    return Error(t.position, std::string("expected ") + what + ", found " + Describe(t));
  }

  // fn([DISTINCT] * | column): an aggregate call, named as written (function lower case). An
  // unknown function is refused as SQL beyond the subset: in an aggregate list
  // (`unknown_is_aggregate`) as an aggregate lakeindex lacks, elsewhere as a function call.
  Result<AggregateSpec> ReadAggregateCall(bool unknown_is_aggregate) {
    static const std::pair<const char*, AggKind> kFunctions[] = {
        {"count", AggKind::kCount}, {"sum", AggKind::kSum}, {"avg", AggKind::kAvg}, {"min", AggKind::kMin},
        {"max", AggKind::kMax},     {"count_distinct", AggKind::kCountDistinct}};
    const Token& f = Peek();
    const uint32_t at = f.position;
    if (f.kind != Tok::kIdent || Peek(1).kind != Tok::kLParen) {
      if (f.kind == Tok::kIdent || f.kind == Tok::kQuotedIdent) {
        return Error(at, "a column (" + Describe(f) + ") among the aggregates: group by it instead (the groups' " +
                             "columns come first in the result)");
      }
      return Error(at, "expected an aggregate such as count(*) or sum(column), found " + Describe(f));
    }
    const std::string fn = Lowered(f.text);
    AggregateSpec spec;
    bool known = false;
    for (const auto& [name, kind] : kFunctions) {
      if (fn == name) {
        spec.kind = kind;
        known = true;
      }
    }
    if (!known && !unknown_is_aggregate) return Beyond(at, "the function call " + f.text + "(...)");
    if (!known) {
      return Status::NotSupported("at position " + std::to_string(at) + ": unknown aggregate '" + fn +
                                  "' (lakeindex has count, sum, avg, min, max, count_distinct)")
          .About(parameter_);
    }
    Next();
    Next();  // (
    std::string prefix;
    if (KeywordIs(Peek(), "DISTINCT")) {
      if (spec.kind != AggKind::kCount) return Beyond(Peek().position, fn + "(DISTINCT ...)");
      spec.kind = AggKind::kCountDistinct;
      prefix = "DISTINCT ";
      Next();
    }
    const uint32_t arg_at = Peek().position;
    if (Peek().kind == Tok::kStar) {
      Next();
      if (spec.kind != AggKind::kCount) return Error(arg_at, fn + "(" + prefix + "*) is not an aggregate; only count(*)");
      spec.kind = AggKind::kCountStar;
      spec.name = "count(*)";
    } else {
      if (Peek().kind == Tok::kRParen) return Error(arg_at, fn + "() needs a column");
      ASSIGN_OR_RETURN(spec.column, ReadName("a column name"));
      spec.name = fn + "(" + prefix + spec.column + ")";
    }
    const Token& close = Peek();
    if (close.kind == Tok::kStar || close.kind == Tok::kMinus || close.kind == Tok::kOperator) {
      return Beyond(close.position, BeyondOperator(close), QuoteHint(toks_, pos_));
    }
    if (close.kind != Tok::kRParen) {
      return Error(close.position, "expected ')' after the argument of " + fn + ", found " + Describe(close));
    }
    Next();
    return spec;
  }

  // After an item: the end or a comma (consumed; false at the end). Anything else is an error
  // that names SQL beyond the list where it starts.
  Result<bool> NextItem(const char* between) {
    const Token& t = Peek();
    if (t.kind == Tok::kEnd) return false;
    if (t.kind == Tok::kComma) {
      Next();
      if (AtEnd()) return Error(Peek().position, std::string("expected ") + between + " after ','");
      return true;
    }
    if (t.kind == Tok::kStar || t.kind == Tok::kMinus || t.kind == Tok::kOperator) {
      return Beyond(t.position, BeyondOperator(t), QuoteHint(toks_, pos_));
    }
    if (t.kind == Tok::kLParen) return Beyond(t.position, "a function call");
    if (KeywordIs(t, "HAVING")) return Beyond(t.position, "HAVING");
    if (KeywordIs(t, "FROM")) return Beyond(t.position, "FROM (the table is the command's TABLE)");
    for (const char* join : {"JOIN", "LEFT", "RIGHT", "INNER", "CROSS", "FULL", "NATURAL"}) {
      if (KeywordIs(t, join)) return Beyond(t.position, "a join");
    }
    for (const char* clause : {"WHERE", "GROUP", "ORDER", "LIMIT", "OFFSET"}) {
      if (KeywordIs(t, clause)) {
        return Error(t.position, "unexpected " + Describe(t) + ": each clause is an option of its own");
      }
    }
    if (t.kind == Tok::kCompare || KeywordIs(t, "AND") || KeywordIs(t, "OR")) {
      return Beyond(t.position, "a condition here (" + Describe(t) + "; conditions go in the filter)");
    }
    return Error(t.position, std::string("expected ',' between ") + between + ", found " + Describe(t));
  }

 private:
  std::vector<Token> toks_;
  size_t pos_ = 0;
  std::string parameter_;
};

Result<ListReader> Reader(std::string_view text, const std::string& parameter, const char* example) {
  Result<std::vector<Token>> tokens = Tokenize(text);
  if (!tokens.ok()) return tokens.status().About(parameter);
  ListReader r(std::move(*tokens), parameter);
  if (r.AtEnd()) return r.Error(r.Peek().position, std::string("empty (e.g. ") + example + ")");
  return r;
}

}  // namespace

Result<std::vector<ColumnItem>> ParseColumnList(std::string_view text, const std::string& parameter, bool star) {
  ASSIGN_OR_RETURN(ListReader r, Reader(text, parameter, "\"a, \\\"Dep Delay\\\"\""));
  std::vector<ColumnItem> items;
  do {
    ColumnItem item;
    item.position = r.Peek().position;
    if (r.Peek().kind == Tok::kStar) {
      if (!star) return r.Error(item.position, "'*' is not a column here; name the columns");
      r.Next();
      item.star = true;
    } else {
      ASSIGN_OR_RETURN(item.name, r.ReadName("a column name"));
      if (KeywordIs(r.Peek(), "AS")) return r.Beyond(r.Peek().position, "renaming a column (AS)");
    }
    items.push_back(std::move(item));
    ASSIGN_OR_RETURN(bool more, r.NextItem("columns"));
    if (!more) break;
  } while (true);
  return items;
}

Result<std::vector<OrderKey>> ParseOrderBy(std::string_view text) {
  ASSIGN_OR_RETURN(ListReader r, Reader(text, "order_by", "\"score desc, id\""));
  std::vector<OrderKey> keys;
  do {
    OrderKey key;
    if (r.Peek().kind == Tok::kIdent && r.Peek(1).kind == Tok::kLParen) {
      // An aggregate's result column, named as the aggregates name it: "count(*)", "avg(score)".
      ASSIGN_OR_RETURN(AggregateSpec call, r.ReadAggregateCall(false));
      key.column = std::move(call.name);
    } else {
      ASSIGN_OR_RETURN(key.column, r.ReadName("a column name"));
    }
    if (KeywordIs(r.Peek(), "DESC") || KeywordIs(r.Peek(), "ASC")) key.descending = KeywordIs(r.Next(), "DESC");
    if (KeywordIs(r.Peek(), "NULLS")) {
      const uint32_t at = r.Next().position;
      if (KeywordIs(r.Peek(), "FIRST")) return r.Beyond(at, "NULLS FIRST (NULLs come last)");
      if (!KeywordIs(r.Peek(), "LAST")) return r.Error(r.Peek().position, "expected LAST after NULLS, found " + Describe(r.Peek()));
      r.Next();
    }
    keys.push_back(std::move(key));
    ASSIGN_OR_RETURN(bool more, r.NextItem("order keys (asc or desc after a key)"));
    if (!more) break;
  } while (true);
  return keys;
}

Result<std::vector<AggregateSpec>> ParseAggregates(std::string_view text) {
  ASSIGN_OR_RETURN(ListReader r, Reader(text, "aggregates", "\"count(*), avg(score)\""));
  std::vector<AggregateSpec> specs;
  do {
    ASSIGN_OR_RETURN(AggregateSpec spec, r.ReadAggregateCall(true));
    // An alias names the result column, with or without AS (DuckDB's rule).
    const bool as = KeywordIs(r.Peek(), "AS");
    if (as) r.Next();
    const Token& t = r.Peek();
    const bool alias = t.kind == Tok::kQuotedIdent || (t.kind == Tok::kIdent && !IsReservedWord(t.text) &&
                                                       !StartsClause(t) && r.Peek(1).kind != Tok::kLParen);
    if (alias) {
      spec.name = r.Next().text;
    } else if (as) {
      return r.Error(t.position, "expected a name after AS, found " + Describe(t));
    }
    specs.push_back(std::move(spec));
    ASSIGN_OR_RETURN(bool more, r.NextItem("aggregates"));
    if (!more) break;
  } while (true);
  return specs;
}

}  // namespace lakeindex::query
