#include "query/expr.h"

#include <charconv>
#include <cmath>

namespace lakeindex::query {

namespace {

constexpr const char* kReservedWords[] = {"AND",  "OR",   "NOT",    "BETWEEN", "IN",   "IS",
                                          "NULL", "LIKE", "ESCAPE", "TRUE",    "FALSE"};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = char(x - 32);
    if (y >= 'a' && y <= 'z') y = char(y - 32);
    if (x != y) return false;
  }
  return true;
}

std::shared_ptr<Expr> NewNode(ExprKind kind, uint32_t position) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->position = position;
  return e;
}

std::string SqlString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

std::string LiteralToSql(const Value& v) {
  if (v.is_null()) return "NULL";
  if (IsDecimal(v.type())) return v.ToString();  // 1.50: a decimal literal, in DuckDB too
  switch (v.type()) {
    case TypeId::kBool: return v.bool_value() ? "TRUE" : "FALSE";
    case TypeId::kInt32:
    case TypeId::kInt64: return std::to_string(v.int_value());
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d = v.double_value();
      if (std::isnan(d)) return "CAST('nan' AS DOUBLE)";
      if (std::isinf(d)) return d > 0 ? "1e999" : "-1e999";
      std::string s = FormatDouble(d);
      // Keep it a double when read back: "5" would become an integer literal.
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return s;
    }
    case TypeId::kString: return SqlString(v.string_value());
    case TypeId::kDate: return "DATE " + SqlString(v.ToString());
    case TypeId::kTimestamp: return "TIMESTAMP " + SqlString(v.ToString());
    case TypeId::kTimestampTz: return "TIMESTAMPTZ " + SqlString(v.ToString());
    case TypeId::kTimestampNs: return "TIMESTAMP_NS " + SqlString(v.ToString());
    case TypeId::kBinary: return "BLOB " + SqlString(v.ToString());
    case TypeId::kUuid: return "UUID " + SqlString(v.ToString());
  }
  return "NULL";
}

void AppendSql(const Expr& e, std::string* out);

// Children of AND/OR/NOT that are themselves AND/OR get parentheses; everything else binds
// tighter than NOT in the grammar.
void AppendOperand(const Expr& e, std::string* out) {
  bool paren = e.kind == ExprKind::kAnd || e.kind == ExprKind::kOr;
  if (paren) *out += '(';
  AppendSql(e, out);
  if (paren) *out += ')';
}

void AppendSql(const Expr& e, std::string* out) {
  switch (e.kind) {
    case ExprKind::kLiteral: *out += LiteralToSql(e.value); return;
    case ExprKind::kColumn: *out += QuoteIdentifierIfNeeded(e.name); return;
    case ExprKind::kCompare:
      AppendSql(*e.children[0], out);
      *out += ' ';
      *out += CompareOpSymbol(e.op);
      *out += ' ';
      AppendSql(*e.children[1], out);
      return;
    case ExprKind::kAnd:
    case ExprKind::kOr:
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i) *out += e.kind == ExprKind::kAnd ? " AND " : " OR ";
        AppendOperand(*e.children[i], out);
      }
      return;
    case ExprKind::kNot:
      *out += "NOT ";
      AppendOperand(*e.children[0], out);
      return;
    case ExprKind::kBetween:
      AppendSql(*e.children[0], out);
      *out += e.negated ? " NOT BETWEEN " : " BETWEEN ";
      AppendSql(*e.children[1], out);
      *out += " AND ";
      AppendSql(*e.children[2], out);
      return;
    case ExprKind::kIn:
      AppendSql(*e.children[0], out);
      *out += e.negated ? " NOT IN (" : " IN (";
      for (size_t i = 1; i < e.children.size(); ++i) {
        if (i > 1) *out += ", ";
        AppendSql(*e.children[i], out);
      }
      *out += ')';
      return;
    case ExprKind::kIsNull:
      AppendSql(*e.children[0], out);
      *out += e.negated ? " IS NOT NULL" : " IS NULL";
      return;
    case ExprKind::kLike:
      AppendSql(*e.children[0], out);
      *out += e.negated ? " NOT LIKE " : " LIKE ";
      *out += SqlString(e.pattern);
      if (!e.escape.empty()) *out += " ESCAPE " + SqlString(e.escape);
      return;
  }
}

}  // namespace

const char* CompareOpSymbol(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return "=";
    case CompareOp::kNe: return "<>";
    case CompareOp::kLt: return "<";
    case CompareOp::kLe: return "<=";
    case CompareOp::kGt: return ">";
    case CompareOp::kGe: return ">=";
  }
  return "?";
}

CompareOp FlipCompareOp(CompareOp op) {
  switch (op) {
    case CompareOp::kLt: return CompareOp::kGt;
    case CompareOp::kLe: return CompareOp::kGe;
    case CompareOp::kGt: return CompareOp::kLt;
    case CompareOp::kGe: return CompareOp::kLe;
    default: return op;
  }
}

CompareOp NegateCompareOp(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return CompareOp::kNe;
    case CompareOp::kNe: return CompareOp::kEq;
    case CompareOp::kLt: return CompareOp::kGe;
    case CompareOp::kLe: return CompareOp::kGt;
    case CompareOp::kGt: return CompareOp::kLe;
    case CompareOp::kGe: return CompareOp::kLt;
  }
  return op;
}

bool CompareResultMatches(CompareOp op, int cmp) {
  switch (op) {
    case CompareOp::kEq: return cmp == 0;
    case CompareOp::kNe: return cmp != 0;
    case CompareOp::kLt: return cmp < 0;
    case CompareOp::kLe: return cmp <= 0;
    case CompareOp::kGt: return cmp > 0;
    case CompareOp::kGe: return cmp >= 0;
  }
  return false;
}

std::string Expr::ToString() const {
  std::string out;
  AppendSql(*this, &out);
  return out;
}

ExprPtr MakeLiteral(Value value, uint32_t position) {
  auto e = NewNode(ExprKind::kLiteral, position);
  e->value = std::move(value);
  return e;
}

ExprPtr MakeNumberLiteral(Value value, std::string text, uint32_t position) {
  auto e = NewNode(ExprKind::kLiteral, position);
  e->value = std::move(value);
  e->number_text = std::move(text);
  return e;
}

ExprPtr MakeColumn(std::string name, uint32_t position) {
  auto e = NewNode(ExprKind::kColumn, position);
  e->name = std::move(name);
  return e;
}

ExprPtr MakeBoundColumn(std::string name, int column_index, TypeId type, uint32_t position) {
  auto e = NewNode(ExprKind::kColumn, position);
  e->name = std::move(name);
  e->column_index = column_index;
  e->type = type;
  return e;
}

ExprPtr MakeCompare(CompareOp op, ExprPtr left, ExprPtr right, uint32_t position) {
  auto e = NewNode(ExprKind::kCompare, position);
  e->op = op;
  e->children = {std::move(left), std::move(right)};
  return e;
}

ExprPtr MakeAnd(std::vector<ExprPtr> children, uint32_t position) {
  if (children.size() == 1) return children[0];
  auto e = NewNode(ExprKind::kAnd, position);
  e->children = std::move(children);
  return e;
}

ExprPtr MakeOr(std::vector<ExprPtr> children, uint32_t position) {
  if (children.size() == 1) return children[0];
  auto e = NewNode(ExprKind::kOr, position);
  e->children = std::move(children);
  return e;
}

ExprPtr MakeNot(ExprPtr operand, uint32_t position) {
  auto e = NewNode(ExprKind::kNot, position);
  e->children = {std::move(operand)};
  return e;
}

ExprPtr MakeBetween(ExprPtr operand, ExprPtr low, ExprPtr high, bool negated, uint32_t position) {
  auto e = NewNode(ExprKind::kBetween, position);
  e->negated = negated;
  e->children = {std::move(operand), std::move(low), std::move(high)};
  return e;
}

ExprPtr MakeIn(ExprPtr operand, std::vector<ExprPtr> items, bool negated, uint32_t position) {
  auto e = NewNode(ExprKind::kIn, position);
  e->negated = negated;
  e->children.reserve(items.size() + 1);
  e->children.push_back(std::move(operand));
  for (auto& item : items) e->children.push_back(std::move(item));
  return e;
}

ExprPtr MakeIsNull(ExprPtr operand, bool negated, uint32_t position) {
  auto e = NewNode(ExprKind::kIsNull, position);
  e->negated = negated;
  e->children = {std::move(operand)};
  return e;
}

ExprPtr MakeLike(ExprPtr operand, std::string pattern, std::string escape, bool negated,
                 uint32_t position) {
  auto e = NewNode(ExprKind::kLike, position);
  e->negated = negated;
  e->pattern = std::move(pattern);
  e->escape = std::move(escape);
  e->children = {std::move(operand)};
  return e;
}

ExprPtr CopyWithChildren(const Expr& e, std::vector<ExprPtr> children) {
  auto copy = std::make_shared<Expr>(e);
  copy->children = std::move(children);
  return copy;
}

bool IsReservedWord(std::string_view word) {
  for (const char* k : kReservedWords) {
    if (EqualsIgnoreCase(word, k)) return true;
  }
  return false;
}

std::string QuoteIdentifierIfNeeded(std::string_view name) {
  bool plain = !name.empty() && !(name[0] >= '0' && name[0] <= '9') && !IsReservedWord(name);
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) plain = false;
  }
  // A type's keyword followed by a string would read as a typed literal; quoting is never wrong.
  for (const char* keyword : {"DATE", "TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP_NS", "BLOB", "UUID"}) {
    if (EqualsIgnoreCase(name, keyword)) plain = false;
  }
  if (plain) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

int CompareLiteralValues(const Value& a, const Value& b) {
  // Temporal values of two units compare exactly in CompareValues (CompareTemporal).
  if (IsFloating(a.type()) && IsFloating(b.type())) {
    double x = a.double_value(), y = b.double_value();
    bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn || yn) return int(xn) - int(yn);
    return x < y ? -1 : (x > y ? 1 : 0);  // -0.0 == 0.0
  }
  return CompareValues(a, b);
}

}  // namespace lakeindex::query
