#include "query/evaluator.h"

#include <algorithm>
#include <string>

#include "query/compare_kernels.h"
#include "query/like_matcher.h"

namespace lakeindex::query {

namespace {

Status ErrorAt(const Expr& e, const std::string& message) {
  return Status::InvalidArgument("at position " + std::to_string(e.position) + ": " + message);
}

uint8_t FromBool(bool b) { return b ? kTriTrue : kTriFalse; }

void Fill(uint8_t value, size_t n, uint8_t* out) { std::fill(out, out + n, value); }

void Negate(size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = uint8_t(kTriTrue - out[i]);
}

// Rows where `col` is NULL become NULL.
void ApplyNulls(const Column& col, size_t n, uint8_t* out) {
  if (col.null_count() == 0) return;
  for (size_t i = 0; i < n; ++i) {
    if (!col.IsValid(i)) out[i] = kTriNull;
  }
}

class Evaluator {
 public:
  explicit Evaluator(const Batch& batch) : batch_(batch), n_(batch.num_rows()) {}

  Status Eval(const Expr& e, uint8_t* out) {
    switch (e.kind) {
      case ExprKind::kLiteral:
        if (e.value.is_null()) {
          Fill(kTriNull, n_, out);
        } else if (e.value.type() == TypeId::kBool) {
          Fill(FromBool(e.value.bool_value()), n_, out);
        } else {
          return ErrorAt(e, "literal " + e.ToString() + " is not a predicate");
        }
        return Status::OK();
      case ExprKind::kColumn: {
        ASSIGN_OR_RETURN(const Column* col, GetColumn(e));
        if (col->type() != TypeId::kBool) return ErrorAt(e, "column '" + e.name + "' is not boolean");
        const uint8_t* data = col->data<uint8_t>();
        for (size_t i = 0; i < n_; ++i) out[i] = FromBool(data[i] != 0);
        ApplyNulls(*col, n_, out);
        return Status::OK();
      }
      case ExprKind::kAnd:
      case ExprKind::kOr: return EvalJunction(e, out);
      case ExprKind::kNot:
        RETURN_IF_ERROR(Eval(*e.children[0], out));
        Negate(n_, out);
        return Status::OK();
      case ExprKind::kCompare: return EvalCompare(e.op, *e.children[0], *e.children[1], out);
      case ExprKind::kBetween: return EvalBetween(e, out);
      case ExprKind::kIn: return EvalIn(e, out);
      case ExprKind::kIsNull: return EvalIsNull(e, out);
      case ExprKind::kLike: return EvalLike(e, out);
    }
    return ErrorAt(e, "unsupported expression");
  }

 private:
  Result<const Column*> GetColumn(const Expr& e) {
    if (e.column_index < 0 || size_t(e.column_index) >= batch_.num_columns()) {
      return ErrorAt(e, "column '" + e.name + "' is not bound to a column of the batch");
    }
    const Column& col = batch_.column(size_t(e.column_index));
    if (col.type() != e.type) {
      return ErrorAt(e, "column '" + e.name + "' was bound as " + TypeName(e.type) + " but the batch holds " +
                            TypeName(col.type()));
    }
    if (col.length() < n_) return ErrorAt(e, "column '" + e.name + "' is shorter than the batch");
    return &col;
  }

  Status EvalJunction(const Expr& e, uint8_t* out) {
    bool is_and = e.kind == ExprKind::kAnd;
    // The value that decides the junction on its own (FALSE for AND, TRUE for OR).
    const uint8_t decided = is_and ? kTriFalse : kTriTrue;
    std::vector<uint8_t> tmp(n_);
    for (size_t c = 0; c < e.children.size(); ++c) {
      if (c == 0) {
        RETURN_IF_ERROR(Eval(*e.children[0], out));
      } else {
        if (std::all_of(out, out + n_, [&](uint8_t v) { return v == decided; })) break;
        RETURN_IF_ERROR(Eval(*e.children[c], tmp.data()));
        if (is_and) {
          for (size_t i = 0; i < n_; ++i) out[i] = std::min(out[i], tmp[i]);
        } else {
          for (size_t i = 0; i < n_; ++i) out[i] = std::max(out[i], tmp[i]);
        }
      }
    }
    return Status::OK();
  }

  Status EvalCompare(CompareOp op, const Expr& left, const Expr& right, uint8_t* out) {
    const Expr* l = &left;
    const Expr* r = &right;
    if (l->is_null_literal() || r->is_null_literal()) {
      Fill(kTriNull, n_, out);
      return Status::OK();
    }
    if (l->kind == ExprKind::kLiteral && r->kind == ExprKind::kLiteral) {
      if (!internal::Comparable(l->value.type(), r->value.type())) {
        return ErrorAt(*r, "cannot compare " + l->ToString() + " with " + r->ToString());
      }
      Fill(FromBool(CompareResultMatches(op, CompareLiteralValues(l->value, r->value))), n_, out);
      return Status::OK();
    }
    if (l->kind == ExprKind::kLiteral) {
      std::swap(l, r);
      op = FlipCompareOp(op);
    }
    ASSIGN_OR_RETURN(const Column* a, GetColumn(*l));
    if (r->kind == ExprKind::kLiteral) {
      Status st = internal::CompareColumnLiteral(*a, op, r->value, n_, out);
      if (!st.ok()) return ErrorAt(*r, st.message());
      ApplyNulls(*a, n_, out);
      return Status::OK();
    }
    if (r->kind != ExprKind::kColumn) return ErrorAt(*r, "comparison operands must be columns or literals");
    ASSIGN_OR_RETURN(const Column* b, GetColumn(*r));
    Status st = internal::CompareColumns(*a, op, *b, n_, out);
    if (!st.ok()) return ErrorAt(*r, st.message());
    ApplyNulls(*a, n_, out);
    ApplyNulls(*b, n_, out);
    return Status::OK();
  }

  Status EvalBetween(const Expr& e, uint8_t* out) {
    const Expr& x = *e.children[0];
    const Expr& lo = *e.children[1];
    const Expr& hi = *e.children[2];
    bool fast = x.kind == ExprKind::kColumn && lo.kind == ExprKind::kLiteral && hi.kind == ExprKind::kLiteral &&
                !lo.value.is_null() && !hi.value.is_null();
    if (fast) {
      ASSIGN_OR_RETURN(const Column* col, GetColumn(x));
      Status st = internal::BetweenColumnLiterals(*col, lo.value, hi.value, e.negated, n_, out);
      if (!st.ok()) return ErrorAt(e, st.message());
      ApplyNulls(*col, n_, out);
      return Status::OK();
    }
    // General form: x >= lo AND x <= hi (Kleene), negated for NOT BETWEEN.
    std::vector<uint8_t> tmp(n_);
    RETURN_IF_ERROR(EvalCompare(CompareOp::kGe, x, lo, out));
    RETURN_IF_ERROR(EvalCompare(CompareOp::kLe, x, hi, tmp.data()));
    for (size_t i = 0; i < n_; ++i) out[i] = std::min(out[i], tmp[i]);
    if (e.negated) Negate(n_, out);
    return Status::OK();
  }

  Status EvalIn(const Expr& e, uint8_t* out) {
    const Expr& x = *e.children[0];
    std::vector<const Value*> items;
    bool has_null = false;
    for (size_t i = 1; i < e.children.size(); ++i) {
      const Expr& item = *e.children[i];
      if (item.kind != ExprKind::kLiteral) return ErrorAt(item, "IN list items must be literals");
      if (item.value.is_null()) has_null = true; else items.push_back(&item.value);
    }
    const Column* col = nullptr;
    if (x.is_null_literal()) {
      Fill(kTriNull, n_, out);
      return Status::OK();
    }
    if (x.kind == ExprKind::kLiteral) {
      bool found = false;
      for (const Value* v : items) {
        if (!internal::Comparable(x.value.type(), v->type())) {
          return ErrorAt(e, "cannot compare " + x.ToString() + " with " + v->ToString());
        }
        found = found || CompareLiteralValues(x.value, *v) == 0;
      }
      Fill(found ? kTriTrue : kTriFalse, n_, out);
    } else {
      ASSIGN_OR_RETURN(col, GetColumn(x));
      Status st = internal::InColumnLiterals(*col, items, n_, out);
      if (!st.ok()) return ErrorAt(e, st.message());
    }
    if (has_null) {
      for (size_t i = 0; i < n_; ++i) out[i] = out[i] == kTriTrue ? kTriTrue : kTriNull;
    }
    if (e.negated) Negate(n_, out);
    if (col != nullptr) ApplyNulls(*col, n_, out);
    return Status::OK();
  }

  Status EvalIsNull(const Expr& e, uint8_t* out) {
    const Expr& x = *e.children[0];
    if (x.kind == ExprKind::kLiteral) {
      Fill(FromBool(x.value.is_null() != e.negated), n_, out);
      return Status::OK();
    }
    ASSIGN_OR_RETURN(const Column* col, GetColumn(x));
    for (size_t i = 0; i < n_; ++i) out[i] = FromBool(col->IsNull(i) != e.negated);
    return Status::OK();
  }

  Status EvalLike(const Expr& e, uint8_t* out) {
    const Expr& x = *e.children[0];
    if (e.escape.size() > 1) return ErrorAt(e, "ESCAPE must be empty or one character");
    LikeMatcher matcher = LikeMatcher::Compile(e.pattern, e.escape);
    if (x.kind == ExprKind::kLiteral) {
      if (x.value.is_null()) {
        Fill(kTriNull, n_, out);
        return Status::OK();
      }
      if (x.value.type() != TypeId::kString) return ErrorAt(x, "LIKE needs a string operand");
      Fill(FromBool(matcher.Matches(x.value.string_value()) != e.negated), n_, out);
      return Status::OK();
    }
    ASSIGN_OR_RETURN(const Column* col, GetColumn(x));
    if (col->type() != TypeId::kString) return ErrorAt(x, "LIKE needs a string operand");
    for (size_t i = 0; i < n_; ++i) out[i] = FromBool(matcher.Matches(col->GetString(i)) != e.negated);
    ApplyNulls(*col, n_, out);
    return Status::OK();
  }

  const Batch& batch_;
  size_t n_;
};

}  // namespace

Status Evaluate(const Expr& bound, const Batch& batch, TriVector* out) {
  out->v.assign(batch.num_rows(), kTriFalse);
  return Evaluator(batch).Eval(bound, out->v.data());
}

Status Filter(const Expr& bound, const Batch& batch, std::vector<uint32_t>* passing_rows) {
  TriVector tri;
  RETURN_IF_ERROR(Evaluate(bound, batch, &tri));
  passing_rows->resize(tri.size());
  size_t k = 0;
  uint32_t* rows = passing_rows->data();
  const uint8_t* v = tri.v.data();
  for (size_t i = 0; i < tri.size(); ++i) {
    rows[k] = uint32_t(i);  // branch-free compaction
    k += v[i] == kTriTrue;
  }
  passing_rows->resize(k);
  return Status::OK();
}

}  // namespace lakeindex::query
