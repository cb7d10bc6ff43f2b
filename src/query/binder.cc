#include "query/binder.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/text.h"

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

enum class Family { kNull, kBool, kNumeric, kTemporal, kString, kBinary, kUuid };

Family FamilyOf(const Expr& e) {
  if (e.is_null_literal()) return Family::kNull;
  TypeId t = e.kind == ExprKind::kColumn ? e.type : e.value.type();
  if (t == TypeId::kBool) return Family::kBool;
  if (IsNumeric(t)) return Family::kNumeric;
  if (IsTemporal(t)) return Family::kTemporal;
  if (t == TypeId::kBinary) return Family::kBinary;
  if (t == TypeId::kUuid) return Family::kUuid;
  return Family::kString;
}

// The order in which temporal operands decide a predicate's type: the finest unit wins, and a
// timestamptz over a timestamp (as DuckDB's implicit casts go).
int TemporalRank(TypeId t) {
  switch (t) {
    case TypeId::kDate: return 0;
    case TypeId::kTimestamp: return 1;
    case TypeId::kTimestampTz: return 2;
    case TypeId::kTimestampNs: return 3;
    default: return -1;
  }
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
    if (e.kind == ExprKind::kLiteral) return MakeNumberLiteral(e.value, e.number_text, e.position);
    return ErrorAt(e.position, "expected a column or literal operand, found " + e.ToString());
  }

  Result<ExprPtr> BindColumn(const Expr& e) {
    Result<int> index = FindColumnFolded(schema_, e.name);
    if (!index.ok()) return ErrorAt(e.position, index.status().message());
    const Field& f = schema_.field(size_t(*index));
    return MakeBoundColumn(f.name, *index, f.type, e.position);
  }

  // Gives all operands of one predicate a common domain and checks that they are comparable.
  // As in DuckDB, the predicate has one type: the finest temporal type among the operands
  // (timestamp_ns, timestamptz, timestamp, date), or binary or uuid when an operand is one;
  // string literals are read as (and date literals promoted to) that type. Errors point at the
  // first operand that does not fit the first non-NULL one.
  Status UnifyAll(std::vector<ExprPtr>* ops) {
    std::optional<TypeId> temporal;
    for (const auto& op : *ops) {
      if (op->is_null_literal() || FamilyOf(*op) != Family::kTemporal) continue;
      if (!temporal || TemporalRank(TypeOf(*op)) > TemporalRank(*temporal)) temporal = TypeOf(*op);
    }
    for (const auto& op : *ops) {
      const Family f = op->is_null_literal() ? Family::kNull : FamilyOf(*op);
      if (f != Family::kBinary && f != Family::kUuid) continue;
      for (auto& other : *ops) RETURN_IF_ERROR(CoerceBytesLiteral(TypeOf(*op), *op, &other));
      break;
    }
    // Decimals: exact unless a double takes part (then, as in DuckDB, all compare as doubles).
    const bool any_double = std::any_of(ops->begin(), ops->end(), [](const ExprPtr& op) { return IsDoubleOperand(*op); });
    for (const auto& op : *ops) {
      if (any_double || op->kind != ExprKind::kColumn || !IsDecimal(op->type)) continue;
      for (auto& other : *ops) CoerceDecimalLiteral(op->type, &other);
      break;
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

  // Rewrites a string or date literal *lit into the `target` temporal type (a timestamp literal
  // into a timestamp of another unit when it fits; the comparison kernels order the rest).
  Status CoerceTemporalLiteral(TypeId target, const Expr& witness, ExprPtr* lit) {
    const Expr& l = **lit;
    if (l.kind != ExprKind::kLiteral || l.value.is_null()) return Status::OK();
    if (l.value.type() == TypeId::kString) {
      const std::string& text = l.value.string_value();
      auto value = target == TypeId::kTimestampNs ? ParseTimestampNs(text) : ParseTimestamp(text);
      if (!value.ok()) {
        return ErrorAt(l.position, "cannot read '" + text + "' as a " + TypeName(target) + " to compare with " +
                                       Describe(witness) + ": " + value.status().message());
      }
      if (target == TypeId::kDate) {
        // Like DuckDB's cast of a string to DATE: a time of day is dropped.
        int64_t days = *value / kMicrosPerDay - (*value % kMicrosPerDay < 0 ? 1 : 0);
        *lit = MakeLiteral(Value::Date(int32_t(days)), l.position);
      } else {
        *lit = MakeLiteral(Value::Int(target, *value), l.position);
      }
      return Status::OK();
    }
    const TypeId from = l.value.type();
    if (!IsTemporal(from) || from == target || target == TypeId::kDate) return Status::OK();
    const __int128 product = __int128(l.value.int_value()) * TemporalUnitsPerDay(target);
    const __int128 scaled = product / TemporalUnitsPerDay(from);
    const bool exact = product % TemporalUnitsPerDay(from) == 0;
    const bool infinite = IsTimestamp(from) && (l.value.int_value() == std::numeric_limits<int64_t>::max() ||
                                                l.value.int_value() == -std::numeric_limits<int64_t>::max());
    if (infinite) {
      *lit = MakeLiteral(Value::Int(target, l.value.int_value()), l.position);
    } else if (exact && scaled < std::numeric_limits<int64_t>::max() && scaled > -std::numeric_limits<int64_t>::max()) {
      *lit = MakeLiteral(Value::Int(target, int64_t(scaled)), l.position);
    }
    return Status::OK();
  }

  // Next to a decimal column a number literal is read exactly from its text (0.1 is the decimal
  // 0.1, as in DuckDB; 1e-1, like DuckDB's, stays a double and compares as one) and becomes a
  // value of the column's type `target` when it is one exactly (indexes and pruning then see one
  // type); otherwise the comparison kernels order the two scales exactly.
  void CoerceDecimalLiteral(TypeId target, ExprPtr* lit) {
    const Expr& l = **lit;
    if (l.kind != ExprKind::kLiteral || l.value.is_null() || !IsNumeric(l.value.type())) return;
    Value v = l.value;
    if (IsFloating(v.type())) {
      std::optional<Value> exact = DecimalOfText(l.number_text, DecimalScale(target));
      if (!exact) return;
      v = std::move(*exact);
    }
    if (v.type() != target) {
      auto in_target = ToDecimal(v, target);
      if (in_target.ok() && CompareValues(Value::Decimal(target, *in_target), v) == 0) {
        v = Value::Decimal(target, *in_target);
      }
    }
    *lit = MakeLiteral(std::move(v), l.position);
  }

  // Whether `e` makes a predicate's type DOUBLE in DuckDB: a float or double column, or a number
  // literal written with an exponent (1e-3).
  static bool IsDoubleOperand(const Expr& e) {
    if (e.kind == ExprKind::kColumn) return IsFloating(e.type);
    if (e.kind != ExprKind::kLiteral || e.value.is_null() || !IsFloating(e.value.type())) return false;
    return e.number_text.empty() || e.number_text.find_first_of("eE") != std::string::npos;
  }

  // A number written "[-]digits.digits" as a decimal (DuckDB's type for it: 0.10 is
  // decimal(2,2)), or nullopt for other text. One of more than 18 digits (DuckDB holds 38) is read
  // as what orders the same against every value of scale `scale`: itself when it has no more
  // digits than the scale, else a value strictly between its two neighbours at that scale
  // (2.4999999999999999999 is 2.495 next to a decimal(10,2)); nullopt when its whole part alone
  // is too long (no decimal column of 18 digits reaches it, and doubles order it rightly).
  static std::optional<Value> DecimalOfText(std::string_view text, int scale) {
    const bool negative = !text.empty() && text[0] == '-';
    if (negative) text.remove_prefix(1);
    const size_t point = text.find('.');
    if (point == std::string_view::npos || text.find_first_not_of("0123456789.") != std::string_view::npos) {
      return std::nullopt;
    }
    std::string_view whole = text.substr(0, point), fraction = text.substr(point + 1);
    while (!whole.empty() && whole.front() == '0') whole.remove_prefix(1);
    if (int(whole.size() + fraction.size()) <= kMaxDecimalPrecision) {
      const TypeId own = DecimalType(std::max(int(whole.size() + fraction.size()), 1), int(fraction.size()));
      auto unscaled = ParseDecimal(text, own);
      if (!unscaled.ok()) return std::nullopt;
      return Value::Decimal(own, negative ? -*unscaled : *unscaled);
    }
    if (int(whole.size()) + scale + 1 > kMaxDecimalPrecision) return std::nullopt;
    const size_t kept = std::min(fraction.size(), size_t(scale));
    int64_t truncated = 0;  // the digits through `scale` after the point
    for (char c : whole) truncated = truncated * 10 + (c - '0');
    for (size_t i = 0; i < size_t(scale); ++i) truncated = truncated * 10 + (i < kept ? fraction[i] - '0' : 0);
    const bool exact = fraction.find_first_not_of('0', kept) == std::string_view::npos;
    if (exact) return Value::Decimal(DecimalType(kMaxDecimalPrecision, scale), negative ? -truncated : truncated);
    const int64_t between = truncated * 10 + 5;  // |text| lies between truncated and the next unit
    return Value::Decimal(DecimalType(kMaxDecimalPrecision, scale + 1), negative ? -between : between);
  }

  // Rewrites a string literal *lit into `target`, binary (\xHH escapes read) or uuid.
  Status CoerceBytesLiteral(TypeId target, const Expr& witness, ExprPtr* lit) {
    const Expr& l = **lit;
    if (l.kind != ExprKind::kLiteral || l.value.is_null() || l.value.type() != TypeId::kString) return Status::OK();
    auto bytes = target == TypeId::kUuid ? ParseUuid(l.value.string_value()) : ParseBinary(l.value.string_value());
    if (!bytes.ok()) {
      return ErrorAt(l.position, "cannot read " + l.ToString() + " as a " + TypeName(target) + " to compare with " +
                                     Describe(witness) + ": " + bytes.status().message());
    }
    *lit = MakeLiteral(Value::Bytes(target, std::move(*bytes)), l.position);
    return Status::OK();
  }

  const Schema& schema_;
};

}  // namespace

Status UnknownColumn(const Schema& schema, std::string_view name) {
  std::vector<std::string> names;
  for (size_t i = 0; i < schema.num_fields(); ++i) names.push_back(schema.field(i).name);
  return Status::InvalidArgument("unknown column '" + std::string(name) + "'" + DidYouMean(NearestNames(name, names)));
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
  if (index < 0) return UnknownColumn(schema, name);
  return index;
}

Result<ExprPtr> Bind(const Expr& expr, const Schema& schema) {
  Result<ExprPtr> bound = Binder(schema).BindPredicate(expr);
  if (!bound.ok()) return bound.status().About("where");
  return bound;
}

}  // namespace lakeindex::query
