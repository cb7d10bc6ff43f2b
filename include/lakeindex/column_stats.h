// Min/max/null/NaN statistics of a column or a range of rows: what manifests keep per fragment
// and what pruning decisions are made from.
// Thread safety: values.
#pragma once

#include <cstdint>
#include <optional>

#include "lakeindex/batch.h"
#include "lakeindex/types.h"

namespace lakeindex {

struct ColumnStats {
  std::optional<Value> min;  // over non-NULL, non-NaN values; absent when there are none
  std::optional<Value> max;
  uint64_t null_count = 0;
  uint64_t nan_count = 0;    // NaN values (float/double only); NaN is never min or max
  uint64_t row_count = 0;

  // Widens this to cover `other` too.
  void Merge(const ColumnStats& other);
  bool operator==(const ColumnStats&) const = default;
};

// Statistics of rows [offset, offset+count) of `column`.
ColumnStats ComputeColumnStats(const Column& column, size_t offset, size_t count);
inline ColumnStats ComputeColumnStats(const Column& column) {
  return ComputeColumnStats(column, 0, column.length());
}

}  // namespace lakeindex
