#include "query/index_planner.h"

#include <optional>

#include <cmath>
#include <memory>

#include "query/pruning.h"

namespace lakeindex::query {

namespace {

using index::Exactness;
using index::ScalarQuery;
using index::SearchResult;

// An index-served subtree: a leaf query on one index, or a combination.
struct Node {
  enum class Kind { kLeaf, kAnd, kOr, kNot } kind = Kind::kLeaf;
  const IndexHandle* index = nullptr;
  ScalarQuery query;
  std::vector<std::unique_ptr<Node>> children;
  bool exact = true;
  std::string text;
};

// The literal as a value of the column's type when that is exact, else nullopt (the predicate
// then stays in the residual): indexes compare values of one type only.
std::optional<Value> ConvertLiteral(const Expr& lit, TypeId column_type) {
  if (lit.kind != ExprKind::kLiteral || lit.value.is_null()) return std::nullopt;
  const Value& v = lit.value;
  TypeId t = v.type();
  if (t == column_type) return v;
  if (IsDecimal(column_type) && (IsInteger(t) || IsDecimal(t))) {
    auto unscaled = ToDecimal(v, column_type);
    if (!unscaled.ok() || CompareValues(Value::Decimal(column_type, *unscaled), v) != 0) return std::nullopt;
    return Value::Decimal(column_type, *unscaled);
  }
  constexpr double kExactIntLimit = 9007199254740992.0;  // 2^53
  if (IsInteger(t) && IsFloating(column_type)) {
    double d = double(v.int_value());
    if (std::abs(d) > kExactIntLimit) return std::nullopt;
    if (column_type == TypeId::kFloat) {
      if (double(float(d)) != d) return std::nullopt;
      return Value::Float(float(d));
    }
    return Value::Double(d);
  }
  if (IsInteger(t) && IsInteger(column_type)) {
    int64_t x = v.int_value();
    if (column_type == TypeId::kInt32 && (x < INT32_MIN || x > INT32_MAX)) return std::nullopt;
    return Value::Int(column_type, x);
  }
  if (IsFloating(t) && IsInteger(column_type)) {
    double d = v.double_value();
    if (!(std::trunc(d) == d) || std::abs(d) > kExactIntLimit) return std::nullopt;
    int64_t x = int64_t(d);
    if (column_type == TypeId::kInt32 && (x < INT32_MIN || x > INT32_MAX)) return std::nullopt;
    return Value::Int(column_type, x);
  }
  if (t == TypeId::kFloat && column_type == TypeId::kDouble) return Value::Double(v.double_value());
  if (t == TypeId::kDouble && column_type == TypeId::kFloat) {
    double d = v.double_value();
    if (!(double(float(d)) == d) && !std::isnan(d)) return std::nullopt;
    return Value::Float(float(d));
  }
  return std::nullopt;
}

const IndexHandle* FindIndex(const Expr& e, const std::vector<IndexHandle>& indexes) {
  if (!e.is_bound_column()) return nullptr;
  for (const IndexHandle& h : indexes) {
    if (h.column == e.name) return &h;
  }
  return nullptr;
}

std::unique_ptr<Node> Leaf(const IndexHandle* index, ScalarQuery q, const Expr& e) {
  auto n = std::make_unique<Node>();
  n->index = index;
  n->query = std::move(q);
  n->exact = index->exact;
  n->text = e.ToString();
  return n;
}

std::unique_ptr<Node> Negate(std::unique_ptr<Node> child, const Expr& e) {
  if (!child || !child->exact) return nullptr;
  auto n = std::make_unique<Node>();
  n->kind = Node::Kind::kNot;
  n->text = e.ToString();
  n->children.push_back(std::move(child));
  return n;
}

// The literal part of a LIKE pattern that is exactly 'prefix%' (no other wildcard), or nullopt.
std::optional<std::string> PurePrefix(const Expr& e) {
  if (!e.escape.empty() || e.pattern.empty() || e.pattern.back() != '%') return std::nullopt;
  std::string prefix = e.pattern.substr(0, e.pattern.size() - 1);
  if (prefix.find_first_of("%_") != std::string::npos) return std::nullopt;
  return prefix;
}

std::unique_ptr<Node> Convert(const Expr& e, const std::vector<IndexHandle>& indexes) {
  switch (e.kind) {
    case ExprKind::kCompare: {
      const Expr* col = e.children[0].get();
      const Expr* lit = e.children[1].get();
      CompareOp op = e.op;
      if (!FindIndex(*col, indexes)) {
        std::swap(col, lit);
        op = FlipCompareOp(op);
      }
      const IndexHandle* index = FindIndex(*col, indexes);
      if (!index) return nullptr;
      std::optional<Value> converted = ConvertLiteral(*lit, col->type);
      if (!converted) return nullptr;
      const Value& v = *converted;
      switch (op) {
        case CompareOp::kEq: return Leaf(index, ScalarQuery::Equals(v), e);
        case CompareOp::kNe: return Negate(Leaf(index, ScalarQuery::Equals(v), e), e);
        case CompareOp::kLt: return Leaf(index, ScalarQuery::Range(std::nullopt, true, v, false), e);
        case CompareOp::kLe: return Leaf(index, ScalarQuery::Range(std::nullopt, true, v, true), e);
        case CompareOp::kGt: return Leaf(index, ScalarQuery::Range(v, false, std::nullopt, true), e);
        case CompareOp::kGe: return Leaf(index, ScalarQuery::Range(v, true, std::nullopt, true), e);
      }
      return nullptr;
    }
    case ExprKind::kBetween: {
      const IndexHandle* index = FindIndex(*e.children[0], indexes);
      if (!index) return nullptr;
      TypeId t = e.children[0]->type;
      auto lo = ConvertLiteral(*e.children[1], t), hi = ConvertLiteral(*e.children[2], t);
      if (!lo || !hi) return nullptr;
      auto leaf = Leaf(index, ScalarQuery::Range(*lo, true, *hi, true), e);
      return e.negated ? Negate(std::move(leaf), e) : std::move(leaf);
    }
    case ExprKind::kIn: {
      const IndexHandle* index = FindIndex(*e.children[0], indexes);
      if (!index) return nullptr;
      std::vector<Value> values;
      for (size_t i = 1; i < e.children.size(); ++i) {
        auto v = ConvertLiteral(*e.children[i], e.children[0]->type);
        if (!v) return nullptr;  // NULL items, inexact conversions: residual
        values.push_back(std::move(*v));
      }
      auto leaf = Leaf(index, ScalarQuery::In(std::move(values)), e);
      return e.negated ? Negate(std::move(leaf), e) : std::move(leaf);
    }
    case ExprKind::kIsNull: {
      const IndexHandle* index = FindIndex(*e.children[0], indexes);
      if (!index) return nullptr;
      auto leaf = Leaf(index, ScalarQuery::IsNull(), e);
      return e.negated ? Negate(std::move(leaf), e) : std::move(leaf);
    }
    case ExprKind::kLike: {
      const IndexHandle* index = FindIndex(*e.children[0], indexes);
      auto prefix = PurePrefix(e);
      if (!index || !prefix) return nullptr;
      auto leaf = Leaf(index, ScalarQuery::Prefix(*prefix), e);
      return e.negated ? Negate(std::move(leaf), e) : std::move(leaf);
    }
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      auto n = std::make_unique<Node>();
      n->kind = e.kind == ExprKind::kAnd ? Node::Kind::kAnd : Node::Kind::kOr;
      n->text = e.ToString();
      for (const auto& c : e.children) {
        auto child = Convert(*c, indexes);
        if (!child) return nullptr;
        n->exact = n->exact && child->exact;
        n->children.push_back(std::move(child));
      }
      return n;
    }
    case ExprKind::kNot: return Negate(Convert(*e.children[0], indexes), e);
    default: return nullptr;
  }
}

void CollectIndexes(const Node& n, std::set<const IndexHandle*>* out) {
  if (n.index) out->insert(n.index);
  for (const auto& c : n.children) CollectIndexes(*c, out);
}

// All rows of the covered fragments, built only when needed: for NOT, and to restrict a leaf's
// answer when it may hold rows of fragments outside `covered` (several indexes, or segments over
// fragments this version lacks). A point lookup needs neither, and building it costs more than
// the search (a run container per 64Ki rows of every covered fragment).
class Universe {
 public:
  Universe(const std::set<uint32_t>& covered, const std::map<uint32_t, uint64_t>& rows, bool restrict_leaves)
      : covered_(covered), rows_(rows), restrict_leaves_(restrict_leaves) {}
  bool restrict_leaves() const { return restrict_leaves_; }
  const RowSet& Get() {
    if (!set_) {
      set_.emplace();
      for (uint32_t f : covered_) set_->AddRange(MakeRowAddress(f, 0), MakeRowAddress(f, 0) + rows_.at(f));
    }
    return *set_;
  }

 private:
  const std::set<uint32_t>& covered_;
  const std::map<uint32_t, uint64_t>& rows_;
  const bool restrict_leaves_;
  std::optional<RowSet> set_;
};

// Evaluates the node over the universe (all rows of the covered fragments).
Result<SearchResult> Evaluate(const Node& n, Universe& universe, IndexPlan* plan) {
  SearchResult out;
  switch (n.kind) {
    case Node::Kind::kLeaf: {
      ASSIGN_OR_RETURN(out, n.index->search(n.query, &plan->counters));
      if (universe.restrict_leaves()) {
        out.rows.true_rows &= universe.Get();
        out.rows.null_rows &= universe.Get();
      }
      plan->explain.push_back("index " + n.index->name + " (" + n.index->type + ") serves " + n.text + ": " +
                              std::to_string(out.rows.true_rows.Cardinality()) + " candidate rows" +
                              (out.exactness == Exactness::kExact ? " (exact)" : " (to recheck)"));
      return out;
    }
    case Node::Kind::kNot: {
      ASSIGN_OR_RETURN(SearchResult child, Evaluate(*n.children[0], universe, plan));
      out.rows = NullableRowSet::Not(child.rows, universe.Get());
      return out;
    }
    case Node::Kind::kAnd:
    case Node::Kind::kOr: {
      bool first = true;
      for (const auto& c : n.children) {
        ASSIGN_OR_RETURN(SearchResult child, Evaluate(*c, universe, plan));
        if (first) {
          out = std::move(child);
          first = false;
          continue;
        }
        out.rows = n.kind == Node::Kind::kAnd ? NullableRowSet::And(out.rows, child.rows)
                                              : NullableRowSet::Or(out.rows, child.rows);
        if (child.exactness != Exactness::kExact) out.exactness = Exactness::kAtMost;
      }
      return out;
    }
  }
  return out;
}

// Tightens q's lower (is_lower) or upper bound with `v` / `inclusive`.
void Tighten(ScalarQuery* q, bool is_lower, const Value& v, bool inclusive) {
  std::optional<Value>& bound = is_lower ? q->lower : q->upper;
  bool& bound_inclusive = is_lower ? q->lower_inclusive : q->upper_inclusive;
  if (!bound) {
    bound = v;
    bound_inclusive = inclusive;
    return;
  }
  int c = CompareValues(v, *bound);
  if ((is_lower && c > 0) || (!is_lower && c < 0)) {
    bound = v;
    bound_inclusive = inclusive;
  } else if (c == 0) {
    bound_inclusive = bound_inclusive && inclusive;
  }
}

// Conjunct leaves that are ranges on one index become one range (`ts >= a AND ts < b` is one
// search that selects the pages between a and b, not two half-table answers to intersect).
void MergeRanges(std::vector<std::unique_ptr<Node>>* served) {
  for (size_t i = 0; i < served->size(); ++i) {
    Node* a = (*served)[i].get();
    if (a->kind != Node::Kind::kLeaf || a->query.kind != ScalarQuery::Kind::kRange) continue;
    for (size_t j = i + 1; j < served->size();) {
      Node* b = (*served)[j].get();
      if (b->kind == Node::Kind::kLeaf && b->index == a->index && b->query.kind == ScalarQuery::Kind::kRange) {
        if (b->query.lower) Tighten(&a->query, true, *b->query.lower, b->query.lower_inclusive);
        if (b->query.upper) Tighten(&a->query, false, *b->query.upper, b->query.upper_inclusive);
        a->text += " AND " + b->text;
        served->erase(served->begin() + long(j));
      } else {
        ++j;
      }
    }
  }
}

}  // namespace

std::optional<SingleIndexQuery> AsSingleIndexQuery(const Expr& filter, const std::vector<IndexHandle>& indexes) {
  std::vector<std::unique_ptr<Node>> served;
  for (const ExprPtr& conjunct : SplitConjuncts(filter)) {
    auto node = Convert(*conjunct, indexes);
    if (!node) return std::nullopt;  // a residual
    served.push_back(std::move(node));
  }
  MergeRanges(&served);
  if (served.size() != 1 || served[0]->kind != Node::Kind::kLeaf) return std::nullopt;
  return SingleIndexQuery{served[0]->index, std::move(served[0]->query)};
}

Result<IndexPlan> PlanWithIndexes(const Expr& filter, const std::vector<IndexHandle>& indexes,
                                  const std::map<uint32_t, uint64_t>& fragment_rows) {
  IndexPlan plan;
  if (indexes.empty()) return plan;
  std::vector<std::unique_ptr<Node>> served;
  size_t total = 0;
  for (const ExprPtr& conjunct : SplitConjuncts(filter)) {
    ++total;
    if (auto node = Convert(*conjunct, indexes)) {
      served.push_back(std::move(node));
    } else {
      plan.explain.push_back("residual: " + conjunct->ToString());
    }
  }
  if (served.empty()) return plan;
  MergeRanges(&served);
  std::set<const IndexHandle*> used;
  for (const auto& n : served) CollectIndexes(*n, &used);
  // Only fragments that every used index covers can be answered from the indexes.
  bool first = true;
  for (const IndexHandle* h : used) {
    if (first) {
      plan.covered = *h->fragments;
      first = false;
    } else {
      std::set<uint32_t> both;
      for (uint32_t f : plan.covered) {
        if (h->fragments->count(f)) both.insert(f);
      }
      plan.covered = std::move(both);
    }
  }
  bool dropped = false;
  for (auto it = plan.covered.begin(); it != plan.covered.end();) {
    if (!fragment_rows.count(*it)) {
      it = plan.covered.erase(it);  // an index segment over a fragment this version no longer has
      dropped = true;
      continue;
    }
    ++it;
  }
  // One index whose covered fragments all exist answers only over those fragments.
  Universe universe(plan.covered, fragment_rows, used.size() > 1 || dropped);
  if (plan.covered.empty()) {
    plan.explain.push_back("indexes cover none of the fragments: full scan");
    return plan;
  }
  SearchResult combined;
  bool have = false;
  for (const auto& n : served) {
    ASSIGN_OR_RETURN(SearchResult r, Evaluate(*n, universe, &plan));
    if (!have) {
      combined = std::move(r);
      have = true;
    } else {
      combined.rows = NullableRowSet::And(combined.rows, r.rows);
      if (r.exactness != Exactness::kExact) combined.exactness = Exactness::kAtMost;
    }
  }
  plan.used = true;
  plan.exact = combined.exactness == Exactness::kExact;
  plan.residual = served.size() < total || !plan.exact;
  plan.candidates = std::move(combined.rows.true_rows);
  uint64_t candidates = 0;  // of covered fragments only (a leaf's answer may hold others: see Universe)
  for (uint32_t f : plan.covered) candidates += plan.candidates.CardinalityIn(f);
  plan.explain.push_back(std::to_string(candidates) + " candidate rows in " +
                         std::to_string(plan.covered.size()) + " covered fragments" +
                         (plan.residual ? ", rechecked with the full filter" : ", no recheck needed"));
  return plan;
}

}  // namespace lakeindex::query
