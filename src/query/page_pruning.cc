#include "query/page_pruning.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "query/pruning.h"

namespace lakeindex::query {

namespace {

// The statistics of one page of one column, as MayMatch reads them.
class PageStats : public StatsProvider {
 public:
  PageStats(int column, bool nan_known) : column_(column), nan_known_(nan_known) {}
  const ColumnStats* Stats(int column_index) const override { return column_index == column_ && known_ ? &stats_ : nullptr; }
  bool NanCountKnown(int column_index) const override { return column_index == column_ && nan_known_; }
  // known() is false when the page has no statistics (its null count is unknown).
  void Set(const parquet::PageIndexEntry& page, const parquet::PageStatistics& stats) {
    known_ = stats.null_count.has_value();
    if (!known_) return;
    stats_.min = stats.null_page ? std::nullopt : stats.min;
    stats_.max = stats.null_page ? std::nullopt : stats.max;
    stats_.null_count = uint64_t(*stats.null_count);
    stats_.row_count = uint64_t(page.num_rows);
  }

 private:
  int column_;
  bool nan_known_, known_ = false;
  ColumnStats stats_;
};

bool OnlyColumn(const Expr& e, int column) {
  if (e.kind == ExprKind::kColumn) return e.column_index == column;
  for (const ExprPtr& c : e.children) {
    if (!OnlyColumn(*c, column)) return false;
  }
  return true;
}

bool MentionsColumn(const Expr& e, int column) {
  if (e.kind == ExprKind::kColumn) return e.column_index == column;
  for (const ExprPtr& c : e.children) {
    if (MentionsColumn(*c, column)) return true;
  }
  return false;
}

enum class Domain { kNone, kDouble, kInt };

Domain DomainOf(TypeId type) {
  switch (type) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      return Domain::kDouble;
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
      return Domain::kInt;
    default:
      return Domain::kNone;
  }
}

// [lo, hi] of one column's values, each end open or closed, or absent (unbounded).
template <typename T>
struct Interval {
  std::optional<T> lo, hi;
  bool lo_open = false, hi_open = false;

  void Lower(T v, bool open) {
    if (!lo || v > *lo || (v == *lo && open)) {
      lo = v;
      lo_open = open;
    }
  }
  void Upper(T v, bool open) {
    if (!hi || v < *hi || (v == *hi && open)) {
      hi = v;
      hi_open = open;
    }
  }
  bool Empty() const { return lo && hi && (*lo > *hi || (*lo == *hi && (lo_open || hi_open))); }
  // Whether values in [min, max] may meet the interval.
  bool Meets(T min, T max) const {
    if (lo && (lo_open ? max <= *lo : max < *lo)) return false;
    if (hi && (hi_open ? min >= *hi : min > *hi)) return false;
    return true;
  }
};

template <typename T>
T Get(const Value& v) {
  if constexpr (std::is_same_v<T, double>) {
    return v.double_value();
  } else {
    return v.int_value();
  }
}

// `conjuncts` (each on `column` only) as one interval of the column's values, when every one is
// a comparison of the column with a non-NULL literal of the column's own type.
template <typename T>
std::optional<Interval<T>> AsInterval(const std::vector<ExprPtr>& conjuncts, TypeId type) {
  Interval<T> out;
  auto literal = [&](const Expr& e) -> std::optional<T> {
    if (e.kind != ExprKind::kLiteral || e.value.is_null() || e.value.type() != type) return std::nullopt;
    const T v = Get<T>(e.value);
    if constexpr (std::is_same_v<T, double>) {
      if (std::isnan(v)) return std::nullopt;  // NaN's order is the general evaluator's business
    }
    return v;
  };
  for (const ExprPtr& c : conjuncts) {
    if (c->kind == ExprKind::kCompare) {
      const Expr* col = c->children[0].get();
      const Expr* lit = c->children[1].get();
      CompareOp op = c->op;
      if (col->kind != ExprKind::kColumn) {
        std::swap(col, lit);
        op = FlipCompareOp(op);
      }
      if (col->kind != ExprKind::kColumn) return std::nullopt;
      const std::optional<T> v = literal(*lit);
      if (!v) return std::nullopt;
      switch (op) {
        case CompareOp::kEq: out.Lower(*v, false); out.Upper(*v, false); break;
        case CompareOp::kLt: out.Upper(*v, true); break;
        case CompareOp::kLe: out.Upper(*v, false); break;
        case CompareOp::kGt: out.Lower(*v, true); break;
        case CompareOp::kGe: out.Lower(*v, false); break;
        case CompareOp::kNe: return std::nullopt;
      }
    } else if (c->kind == ExprKind::kBetween && !c->negated && c->children[0]->kind == ExprKind::kColumn) {
      const std::optional<T> lo = literal(*c->children[1]), hi = literal(*c->children[2]);
      if (!lo || !hi) return std::nullopt;
      out.Lower(*lo, false);
      out.Upper(*hi, false);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

void Keep(const parquet::PageIndexEntry& page, Ranges* keep) {
  const uint64_t b = uint64_t(page.first_row_index), e = b + uint64_t(page.num_rows);
  if (!keep->empty() && keep->back().second == b) {
    keep->back().second = e;
  } else {
    keep->emplace_back(b, e);
  }
}

// The pages meeting `iv`: NULLs never make a comparison TRUE; NaN (above every number, as in
// DuckDB) does when the interval has no upper end, and may hide in a page unless `nan_known`.
// The type of the pages' min/max Values (FillPageBounds made bounds only when it is one type).
std::optional<TypeId> StatsType(const parquet::PageIndex& index) {
  for (const parquet::PageStatistics& s : index.stats) {
    if (s.min && !s.min->is_null()) return s.min->type();
  }
  return std::nullopt;
}

// Calls test(p) once for each page p that meets `within`, in order; returns how many.
template <typename Test>
uint64_t ForPagesMeeting(const parquet::PageIndex& index, const Ranges& within, Test&& test) {
  const auto& pages = index.pages;
  auto end_of = [&](size_t p) { return uint64_t(pages[p].first_row_index + pages[p].num_rows); };
  size_t p = 0, untested = 0;  // pages before `untested` were tested
  uint64_t n = 0;
  for (const auto& [b, e] : within) {
    // The first page ending after b (pages ascend by rows).
    p = size_t(std::partition_point(pages.begin() + std::ptrdiff_t(p), pages.end(),
                                    [b = b](const parquet::PageIndexEntry& pg) {
                                      return uint64_t(pg.first_row_index + pg.num_rows) <= b;
                                    }) -
               pages.begin());
    for (; p < pages.size() && uint64_t(pages[p].first_row_index) < e; ++p) {
      if (p >= untested) {
        test(p);
        ++n;
        untested = p + 1;
      }
      if (end_of(p) > e) break;  // the next range may meet this page too
    }
  }
  return n;
}

template <typename T>
Ranges Typed(const Interval<T>& iv, const parquet::PageIndex& index, bool nan_known, const Ranges& within,
             uint64_t* tested) {
  const bool nan_may_match = std::is_same_v<T, double> && !nan_known && !iv.hi;
  Ranges keep;
  if (iv.Empty()) return keep;
  const uint64_t n = ForPagesMeeting(index, within, [&](size_t p) {
    const parquet::PageIndex::Bound& b = index.bounds[p];
    bool may = true;  // kUnknown: no statistics, or no min/max
    if (b.state == parquet::PageIndex::Bound::kNullPage) {
      may = false;
    } else if (b.state == parquet::PageIndex::Bound::kBounded) {
      if constexpr (std::is_same_v<T, double>) {
        may = iv.Meets(b.min_d, b.max_d) || nan_may_match;
      } else {
        may = iv.Meets(b.min_i, b.max_i);
      }
    }
    if (may) Keep(index.pages[p], &keep);
  });
  if (tested) *tested += n;
  return keep;
}

}  // namespace

Ranges PagesMayMatch(const Expr& filter, int column, const parquet::PageIndex& index, bool nan_known) {
  return PagesMayMatch(filter, column, index, nan_known, {{0, std::numeric_limits<uint64_t>::max()}});
}

Ranges PagesMayMatch(const Expr& filter, int column, const parquet::PageIndex& index, bool nan_known,
                     const Ranges& within, uint64_t* tested) {
  std::vector<ExprPtr> mine;
  bool others = false;  // conjuncts on this column and others together (an OR across columns, say)
  for (ExprPtr& c : SplitConjuncts(filter)) {
    if (!MentionsColumn(*c, column)) continue;
    if (OnlyColumn(*c, column)) {
      mine.push_back(std::move(c));
    } else {
      others = true;
    }
  }
  if (!others && !mine.empty() && index.has_statistics) {
    const TypeId type = [&] {
      for (const ExprPtr& c : mine) {
        for (const ExprPtr& k : c->children) {
          if (k->kind == ExprKind::kColumn) return k->type;
        }
      }
      return TypeId::kBool;
    }();
    // The pages' bounds are numbers of the column's own type (FillPageBounds): the statistics'
    // Values carry the column's type, as the literals bound to it do.
    const bool bounds = index.bounds.size() == index.pages.size() && !index.bounds.empty() &&
                        StatsType(index) == type;
    if (bounds && DomainOf(type) == Domain::kDouble) {
      if (auto iv = AsInterval<double>(mine, type)) return Intersect(Typed(*iv, index, nan_known, within, tested), within);
    } else if (bounds && DomainOf(type) == Domain::kInt) {
      if (auto iv = AsInterval<int64_t>(mine, type)) return Intersect(Typed(*iv, index, nan_known, within, tested), within);
    }
  }
  // The general evaluator, on the whole filter as before (its other columns' statistics unknown).
  Ranges keep;
  PageStats stats(column, nan_known);
  const uint64_t n = ForPagesMeeting(index, within, [&](size_t p) {
    if (!index.has_statistics) {
      Keep(index.pages[p], &keep);
      return;
    }
    stats.Set(index.pages[p], index.stats[p]);
    if (MayMatch(filter, stats)) Keep(index.pages[p], &keep);
  });
  if (tested) *tested += n;
  return Intersect(keep, within);
}

}  // namespace lakeindex::query
