#include "query/pruning.h"

#include <cmath>
#include <limits>

#include "query/compare_kernels.h"
#include "query/like_matcher.h"

namespace lakeindex::query {

namespace {

// The outcomes an expression may produce on some row.
struct Outcomes {
  bool t = false, f = false, n = false;
};
constexpr Outcomes kAnything{true, true, true};

Outcomes Const(bool value) { return value ? Outcomes{true, false, false} : Outcomes{false, true, false}; }

Outcomes Not(Outcomes a) { return {a.f, a.t, a.n}; }

Outcomes And(Outcomes a, Outcomes b) {
  return {a.t && b.t, a.f || b.f, (a.n && (b.t || b.n)) || (b.n && (a.t || a.n))};
}

Outcomes Or(Outcomes a, Outcomes b) {
  return {a.t || b.t, a.f && b.f, (a.n && (b.f || b.n)) || (b.n && (a.f || a.n))};
}

// What the statistics say about the values of one column.
struct ColumnFacts {
  bool may_null = true;
  bool may_value = true;  // some non-NULL value
  bool ranged = false;    // non-NULL non-NaN values lie in [min, max]
  bool may_other = true;  // some non-NULL non-NaN value possibly outside [min, max] (unknown)
  bool may_nan = false;
  Value min, max;
};

ColumnFacts FactsOf(const Expr& col, const StatsProvider& provider) {
  ColumnFacts facts;
  facts.may_nan = IsFloating(col.type);
  const ColumnStats* s = provider.Stats(col.column_index);
  if (s == nullptr || s->null_count > s->row_count) return facts;
  uint64_t non_null = s->row_count - s->null_count;
  facts.may_null = s->null_count > 0;
  facts.may_value = non_null > 0;
  bool nan_known = provider.NanCountKnown(col.column_index) && s->nan_count <= non_null;
  if (IsFloating(col.type) && nan_known) facts.may_nan = s->nan_count > 0;
  bool typed = s->min && s->max && !s->min->is_null() && !s->max->is_null() &&
               internal::Comparable(s->min->type(), col.type) && internal::Comparable(s->max->type(), col.type);
  if (typed) {
    facts.ranged = true;
    facts.may_other = false;
    facts.min = *s->min;
    facts.max = *s->max;
  } else if (IsFloating(col.type) && nan_known && non_null == s->nan_count) {
    facts.may_other = false;  // every non-NULL value is NaN
  }
  if (!facts.may_value) facts.may_other = facts.may_nan = facts.ranged = false;
  return facts;
}

const Value& NanValue() {
  static const Value kNan = Value::Double(std::numeric_limits<double>::quiet_NaN());
  return kNan;
}

// Outcomes of `v op lit` over the column's non-NULL values.
Outcomes CompareFacts(const ColumnFacts& c, CompareOp op, const Value& lit) {
  Outcomes o;
  o.n = c.may_null;
  if (c.may_other) o.t = o.f = true;
  if (c.ranged) {
    int ca = CompareLiteralValues(c.min, lit), cb = CompareLiteralValues(c.max, lit);
    bool point = ca == 0 && cb == 0;
    bool spans = ca <= 0 && cb >= 0;
    switch (op) {
      case CompareOp::kEq: o.t |= spans; o.f |= !point; break;
      case CompareOp::kNe: o.t |= !point; o.f |= spans; break;
      case CompareOp::kLt: o.t |= ca < 0; o.f |= cb >= 0; break;
      case CompareOp::kLe: o.t |= ca <= 0; o.f |= cb > 0; break;
      case CompareOp::kGt: o.t |= cb > 0; o.f |= ca <= 0; break;
      case CompareOp::kGe: o.t |= cb >= 0; o.f |= ca < 0; break;
    }
  }
  if (c.may_nan) {
    bool r = CompareResultMatches(op, CompareLiteralValues(NanValue(), lit));
    (r ? o.t : o.f) = true;
  }
  return o;
}

class Pruner {
 public:
  explicit Pruner(const StatsProvider& stats) : stats_(stats) {}

  Outcomes Eval(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kLiteral:
        if (e.value.is_null()) return {false, false, true};
        return e.value.type() == TypeId::kBool ? Const(e.value.bool_value()) : kAnything;
      case ExprKind::kColumn: {
        if (!e.is_bound_column()) return kAnything;
        ColumnFacts c = FactsOf(e, stats_);
        return CompareFacts(c, CompareOp::kEq, Value::Bool(true));
      }
      case ExprKind::kAnd:
      case ExprKind::kOr: {
        Outcomes acc = Eval(*e.children[0]);
        for (size_t i = 1; i < e.children.size(); ++i) {
          Outcomes next = Eval(*e.children[i]);
          acc = e.kind == ExprKind::kAnd ? And(acc, next) : Or(acc, next);
        }
        return acc;
      }
      case ExprKind::kNot: return Not(Eval(*e.children[0]));
      case ExprKind::kCompare: return Compare(e.op, *e.children[0], *e.children[1]);
      case ExprKind::kBetween: return Between(e);
      case ExprKind::kIn: return In(e);
      case ExprKind::kIsNull: {
        const Expr& x = *e.children[0];
        if (x.kind == ExprKind::kLiteral) return Const(x.value.is_null() != e.negated);
        if (!x.is_bound_column()) return kAnything;
        ColumnFacts c = FactsOf(x, stats_);
        Outcomes o{c.may_null, c.may_value, false};
        return e.negated ? Not(o) : o;
      }
      case ExprKind::kLike: return Like(e);
    }
    return kAnything;
  }

 private:
  Outcomes Compare(CompareOp op, const Expr& left, const Expr& right) {
    const Expr* l = &left;
    const Expr* r = &right;
    if (l->kind == ExprKind::kLiteral && r->kind == ExprKind::kLiteral) {
      if (l->value.is_null() || r->value.is_null()) return {false, false, true};
      if (!internal::Comparable(l->value.type(), r->value.type())) return kAnything;
      return Const(CompareResultMatches(op, CompareLiteralValues(l->value, r->value)));
    }
    if (l->kind == ExprKind::kLiteral) {
      std::swap(l, r);
      op = FlipCompareOp(op);
    }
    if (!l->is_bound_column()) return kAnything;
    ColumnFacts c = FactsOf(*l, stats_);
    if (r->kind == ExprKind::kLiteral) {
      if (r->value.is_null()) return {false, false, c.may_null || c.may_value};
      if (!internal::Comparable(l->type, r->value.type())) return kAnything;
      return CompareFacts(c, op, r->value);
    }
    if (!r->is_bound_column()) return kAnything;
    ColumnFacts d = FactsOf(*r, stats_);
    bool both = c.may_value && d.may_value;
    return {both, both, c.may_null || d.may_null};
  }

  Outcomes Between(const Expr& e) {
    const Expr& x = *e.children[0];
    const Expr& lo = *e.children[1];
    const Expr& hi = *e.children[2];
    if (!x.is_bound_column() || lo.kind != ExprKind::kLiteral || hi.kind != ExprKind::kLiteral ||
        lo.value.is_null() || hi.value.is_null() || !internal::Comparable(x.type, lo.value.type()) ||
        !internal::Comparable(x.type, hi.value.type())) {
      Outcomes o = And(Compare(CompareOp::kGe, x, lo), Compare(CompareOp::kLe, x, hi));
      return e.negated ? Not(o) : o;
    }
    ColumnFacts c = FactsOf(x, stats_);
    Outcomes o;
    o.n = c.may_null;
    if (c.may_other) o.t = o.f = true;
    bool empty = CompareLiteralValues(lo.value, hi.value) > 0;
    if (c.ranged) {
      o.t |= !empty && CompareLiteralValues(c.max, lo.value) >= 0 && CompareLiteralValues(c.min, hi.value) <= 0;
      o.f |= empty || CompareLiteralValues(c.min, lo.value) < 0 || CompareLiteralValues(c.max, hi.value) > 0;
    }
    if (c.may_nan) {
      bool in = CompareLiteralValues(NanValue(), lo.value) >= 0 && CompareLiteralValues(NanValue(), hi.value) <= 0;
      (in ? o.t : o.f) = true;
    }
    return e.negated ? Not(o) : o;
  }

  Outcomes In(const Expr& e) {
    const Expr& x = *e.children[0];
    if (!x.is_bound_column()) return kAnything;
    ColumnFacts c = FactsOf(x, stats_);
    bool has_null = false;
    Outcomes found;  // over items: may some value equal an item (t) / differ from all (f)?
    bool any_item = false;
    bool all_values_in_list = false;
    for (size_t i = 1; i < e.children.size(); ++i) {
      const Expr& item = *e.children[i];
      if (item.kind != ExprKind::kLiteral) return kAnything;
      if (item.value.is_null()) {
        has_null = true;
        continue;
      }
      if (!internal::Comparable(x.type, item.value.type())) return kAnything;
      any_item = true;
      Outcomes eq = CompareFacts(c, CompareOp::kEq, item.value);
      found.t |= eq.t;
      if (!eq.f) all_values_in_list = true;  // every value equals this item
    }
    Outcomes o;
    o.n = c.may_null;
    o.t = any_item && found.t;
    bool not_found = c.may_value && !all_values_in_list;
    if (not_found) (has_null ? o.n : o.f) = true;
    return e.negated ? Not(o) : o;
  }

  Outcomes Like(const Expr& e) {
    const Expr& x = *e.children[0];
    if (!x.is_bound_column()) return kAnything;
    ColumnFacts c = FactsOf(x, stats_);
    Outcomes o;
    o.n = c.may_null;
    if (c.may_value) o.t = o.f = true;
    LikeMatcher m = LikeMatcher::Compile(e.pattern, e.escape);
    if (m.mode() == LikeMatcher::Mode::kNever) {
      o.t = false;
    } else if (m.mode() == LikeMatcher::Mode::kAll) {
      o.f = false;
    } else if (m.mode() == LikeMatcher::Mode::kExact) {
      Outcomes eq = CompareFacts(c, CompareOp::kEq, Value::String(m.literal()));
      o.t = eq.t;
      o.f = eq.f;
    } else if (m.mode() == LikeMatcher::Mode::kPrefix && c.ranged && !c.may_other) {
      // Strings starting with p form the interval [p, successor(p)).
      const std::string& p = m.literal();
      const std::string& mn = c.min.string_value();
      const std::string& mx = c.max.string_value();
      bool below_end = true;  // min < successor(p)
      std::string succ = p;
      while (!succ.empty() && static_cast<unsigned char>(succ.back()) == 0xFF) succ.pop_back();
      if (!succ.empty()) {
        succ.back() = char(static_cast<unsigned char>(succ.back()) + 1);
        below_end = mn < succ;
      }
      o.t = mx >= p && below_end;
      bool all_prefixed = mn.compare(0, p.size(), p) == 0 && mx.compare(0, p.size(), p) == 0;
      o.f = !all_prefixed;
    }
    if (e.negated) o = Not(o);
    return o;
  }

  const StatsProvider& stats_;
};

void Collect(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kAnd) {
    for (const auto& c : e->children) Collect(c, out);
  } else {
    out->push_back(e);
  }
}

}  // namespace

const ColumnStats* VectorStatsProvider::Stats(int column_index) const {
  if (column_index < 0 || size_t(column_index) >= stats_->size()) return nullptr;
  return &(*stats_)[size_t(column_index)];
}

const ColumnStats* NamedStatsProvider::Stats(int column_index) const {
  if (column_index < 0 || size_t(column_index) >= schema_->num_fields()) return nullptr;
  auto it = stats_->find(schema_->field(size_t(column_index)).name);
  return it == stats_->end() ? nullptr : &it->second;
}

bool MayMatch(const Expr& bound, const StatsProvider& stats) { return Pruner(stats).Eval(bound).t; }

bool MustMatch(const Expr& bound, const StatsProvider& stats) {
  // Every flag of Outcomes is a "may" (NOT swaps TRUE and FALSE, so FALSE is kept as soundly
  // as TRUE): neither FALSE nor NULL possible means TRUE for every row.
  const Outcomes o = Pruner(stats).Eval(bound);
  return o.t && !o.f && !o.n;
}

std::vector<ExprPtr> SplitConjuncts(const Expr& expr) {
  std::vector<ExprPtr> out;
  if (expr.kind != ExprKind::kAnd) {
    out.push_back(std::make_shared<Expr>(expr));
    return out;
  }
  for (const auto& c : expr.children) Collect(c, &out);
  return out;
}

}  // namespace lakeindex::query
