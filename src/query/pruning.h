// Conservative pruning from column statistics: can a bound expression be TRUE for some row of a
// row group / page / fragment / zone whose statistics are known?
//
// MayMatch returns false only when no row described by the statistics can make the expression
// TRUE; "true" means "maybe" and the rows must be read. Every node is evaluated into the set of
// outcomes {TRUE, FALSE, NULL} it may produce (NOT needs FALSE, AND/OR need NULL to stay sound).
// Statistics (lakeindex/column_stats.h): min/max over non-NULL, non-NaN values; null_count;
// row_count; nan_count. Parquet statistics do not count NaN: a provider for them answers
// NanCountKnown() == false, and NaN is then assumed possible in float/double columns.
// Thread safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lakeindex/column_stats.h"
#include "query/expr.h"

namespace lakeindex::query {

class StatsProvider {
 public:
  virtual ~StatsProvider() = default;
  // Statistics of the column with this index in the bound schema, or nullptr if unknown.
  virtual const ColumnStats* Stats(int column_index) const = 0;
  // False when nan_count was not recorded (Parquet): NaN may then be present.
  virtual bool NanCountKnown(int column_index) const { return true; }
};

// A provider over one ColumnStats per schema column (index i -> stats[i]); the vector must
// outlive the provider.
class VectorStatsProvider : public StatsProvider {
 public:
  explicit VectorStatsProvider(const std::vector<ColumnStats>* stats, bool nan_count_known = true)
      : stats_(stats), nan_count_known_(nan_count_known) {}
  const ColumnStats* Stats(int column_index) const override;
  bool NanCountKnown(int) const override { return nan_count_known_; }

 private:
  const std::vector<ColumnStats>* stats_;
  bool nan_count_known_;
};

// A provider over statistics by column name (a manifest fragment's), for expressions bound to
// `schema`; both must outlive it.
class NamedStatsProvider : public StatsProvider {
 public:
  NamedStatsProvider(const Schema* schema, const std::map<std::string, ColumnStats>* stats) : schema_(schema), stats_(stats) {}
  const ColumnStats* Stats(int column_index) const override;

 private:
  const Schema* schema_;
  const std::map<std::string, ColumnStats>* stats_;
};

// REQUIRES: `bound` came from Bind(). False only if no row can make it TRUE.
bool MayMatch(const Expr& bound, const StatsProvider& stats);
// REQUIRES: as MayMatch. True only if every row makes it TRUE (none FALSE or NULL): the rows can
// be counted without reading them.
bool MustMatch(const Expr& bound, const StatsProvider& stats);

// The conjuncts of a top-level AND (flattening nested ANDs); {expr} itself otherwise. The
// returned nodes share the subtrees of `expr` (only a non-AND root is copied).
std::vector<ExprPtr> SplitConjuncts(const Expr& expr);

}  // namespace lakeindex::query
