#include "query/binder.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace lakeindex::query {

namespace {

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

Status ErrorAt(uint32_t position, const std::string& message) {
  return Status::InvalidArgument("at position " + std::to_string(position) + ": " + message);
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

enum class Family { kNull, kBool, kNumeric, kTemporal, kString };

Family FamilyOf(const Expr& e) {
  if (e.is_null_literal()) return Family::kNull;
  TypeId t = e.kind == ExprKind::kColumn ? e.type : e.value.type();
  if (t == TypeId::kBool) return Family::kBool;
  if (IsNumeric(t)) return Family::kNumeric;
  if (t == TypeId::kDate || t == TypeId::kTimestamp) return Family::kTemporal;
  return Family::kString;
}

TypeId TypeOf(const Expr& e) { return e.kind == ExprKind::kColumn ? e.type : e.value.type(); }

// "column x (int64)" / "literal 'abc' (string)" for messages.
std::string Describe(const Expr& e) {
  if (e.kind == ExprKind::kColumn) {
    return "column " + QuoteIdentifierIfNeeded(e.name) + " (" + TypeName(e.type) + ")";
  }
  if (e.is_null_literal()) return "NULL";
  return "literal " + e.ToString() + " (" + TypeName(e.value.type()) + ")";
}

class Binder {
 public:
  explicit Binder(const Schema& schema) : schema_(schema) {}

  // A node in a boolean position (root, AND/OR/NOT operand).
  Result<ExprPtr> BindPredicate(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kLiteral:
        if (!e.value.is_null() && e.value.type() != TypeId::kBool) {
          return ErrorAt(e.position, "expected a predicate, found " + Describe(e));
        }
        return MakeLiteral(e.value, e.position);
      case ExprKind::kColumn: {
        ASSIGN_OR_RETURN(ExprPtr col, BindColumn(e));
        if (col->type != TypeId::kBool) {
          return ErrorAt(e.position, Describe(*col) + " is not a boolean predicate; compare it with a value");
        }
        return col;
      }
      case ExprKind::kAnd:
      case ExprKind::kOr:
      case ExprKind::kNot: {
        std::vector<ExprPtr> children;
        for (const auto& c : e.children) {
          ASSIGN_OR_RETURN(ExprPtr b, BindPredicate(*c));
          children.push_back(std::move(b));
        }
        return CopyWithChildren(e, std::move(children));
      }
      case ExprKind::kCompare:
      case ExprKind::kBetween:
      case ExprKind::kIn: {
        // compare: [left, right]; BETWEEN: [x, low, high]; IN: [x, items...]
        std::vector<ExprPtr> ops;
        for (const auto& c : e.children) {
          ASSIGN_OR_RETURN(ExprPtr b, BindOperand(*c));
          ops.push_back(std::move(b));
        }
        RETURN_IF_ERROR(UnifyAll(&ops));
        return CopyWithChildren(e, std::move(ops));
      }
      case ExprKind::kIsNull: {
        ASSIGN_OR_RETURN(ExprPtr x, BindOperand(*e.children[0]));
        return CopyWithChildren(e, {std::move(x)});
      }
      case ExprKind::kLike: {
        ASSIGN_OR_RETURN(ExprPtr x, BindOperand(*e.children[0]));
        Family f = FamilyOf(*x);
        if (f != Family::kString && f != Family::kNull) {
          return ErrorAt(x->position, "LIKE needs a string operand, found " + Describe(*x));
        }
        if (e.escape.size() > 1) return ErrorAt(e.position, "ESCAPE must be empty or one character");
        return CopyWithChildren(e, {std::move(x)});
      }
    }
    return ErrorAt(e.position, "unsupported expression");
  }

 private:
  Result<ExprPtr> BindOperand(const Expr& e) {
    if (e.kind == ExprKind::kColumn) return BindColumn(e);
    if (e.kind == ExprKind::kLiteral) return MakeLiteral(e.value, e.position);
    return ErrorAt(e.position, "expected a column or literal operand, found " + e.ToString());
  }

  Result<ExprPtr> BindColumn(const Expr& e) {
    Result<int> index = FindColumnFolded(schema_, e.name);
    if (!index.ok()) return ErrorAt(e.position, index.status().message());
    const Field& f = schema_.field(size_t(*index));
    return MakeBoundColumn(f.name, *index, f.type, e.position);
  }

  // Gives all operands of one predicate a common domain and checks that they are comparable.
  // As in DuckDB, the predicate has one type: a timestamp if any operand is one, else a date if
  // any is; string literals are read as (and date literals promoted to) that type. Errors point
  // at the first operand that does not fit the first non-NULL one.
  Status UnifyAll(std::vector<ExprPtr>* ops) {
    std::optional<TypeId> temporal;
    for (const auto& op : *ops) {
      if (op->is_null_literal() || FamilyOf(*op) != Family::kTemporal) continue;
      if (TypeOf(*op) == TypeId::kTimestamp || !temporal) temporal = TypeOf(*op);
    }
    if (temporal) {
      const Expr* witness = nullptr;  // a temporal operand, for messages
      for (const auto& op : *ops) {
        if (!op->is_null_literal() && FamilyOf(*op) == Family::kTemporal) witness = op.get();
      }
      for (auto& op : *ops) RETURN_IF_ERROR(CoerceTemporalLiteral(*temporal, *witness, &op));
    }
    const Expr* first = nullptr;
    for (const auto& op : *ops) {
      if (op->is_null_literal()) continue;
      if (first == nullptr) {
        first = op.get();
      } else if (FamilyOf(*op) != FamilyOf(*first)) {
        return ErrorAt(op->position, "cannot compare " + Describe(*first) + " with " + Describe(*op));
      }
    }
    return Status::OK();
  }

  // Rewrites a string or date literal *lit into the `target` temporal type.
  Status CoerceTemporalLiteral(TypeId target, const Expr& witness, ExprPtr* lit) {
    const Expr& l = **lit;
    if (l.kind != ExprKind::kLiteral || l.value.is_null()) return Status::OK();
    if (l.value.type() == TypeId::kString) {
      const std::string& text = l.value.string_value();
      auto micros = ParseTimestamp(text);
      if (!micros.ok()) {
        return ErrorAt(l.position, "cannot read '" + text + "' as a " + TypeName(target) + " to compare with " +
                                       Describe(witness) + " (expected YYYY-MM-DD[ HH:MM:SS[.ffffff]])");
      }
      if (target == TypeId::kDate) {
        // Like DuckDB's cast of a string to DATE: a time of day is dropped.
        int64_t days = *micros / kMicrosPerDay - (*micros % kMicrosPerDay < 0 ? 1 : 0);
        *lit = MakeLiteral(Value::Date(int32_t(days)), l.position);
      } else {
        *lit = MakeLiteral(Value::Timestamp(*micros), l.position);
      }
      return Status::OK();
    }
    constexpr int64_t kMaxDays = std::numeric_limits<int64_t>::max() / kMicrosPerDay;
    if (l.value.type() == TypeId::kDate && target == TypeId::kTimestamp && l.value.int_value() <= kMaxDays &&
        l.value.int_value() >= -kMaxDays) {
      *lit = MakeLiteral(Value::Timestamp(l.value.int_value() * kMicrosPerDay), l.position);
    }
    return Status::OK();
  }

  const Schema& schema_;
};

}  // namespace

std::optional<std::string> ReadQuotedName(std::string_view text, size_t* i) {
  std::string name;
  for (size_t at = *i + 1; at < text.size(); ++at) {
    if (text[at] != '"') {
      name.push_back(text[at]);
    } else if (at + 1 < text.size() && text[at + 1] == '"') {
      name.push_back('"');
      ++at;
    } else {
      *i = at + 1;
      return name;
    }
  }
  return std::nullopt;
}

Result<int> FindColumnFolded(const Schema& schema, std::string_view name) {
  int index = schema.FindField(name);
  if (index >= 0) return index;
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    if (!EqualsIgnoreCase(schema.field(i).name, name)) continue;
    if (index >= 0) {
      return Status::InvalidArgument("column name '" + std::string(name) +
                                     "' is ambiguous (differs only in case); quote it exactly");
    }
    index = int(i);
  }
  if (index < 0) return Status::InvalidArgument("unknown column '" + std::string(name) + "'");
  return index;
}

Result<ExprPtr> Bind(const Expr& expr, const Schema& schema) {
  return Binder(schema).BindPredicate(expr);
}

}  // namespace lakeindex::query
