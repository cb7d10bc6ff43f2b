#include "lakeindex/column_stats.h"

#include <cmath>

namespace lakeindex {

namespace {
template <typename T, typename MakeValue>
void FixedStats(const Column& c, size_t offset, size_t count, MakeValue make, ColumnStats* s) {
  bool any = false;
  T lo{}, hi{};
  const T* data = c.data<T>();
  for (size_t i = offset; i < offset + count; ++i) {
    if (c.IsNull(i)) {
      ++s->null_count;
      continue;
    }
    T v = data[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) {
        ++s->nan_count;
        continue;
      }
    }
    if (!any) {
      lo = hi = v;
      any = true;
    } else {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    // -0.0 == 0.0: widen so that both zeros are inside [min, max] whatever their order.
    if (any && lo == 0) lo = -T(0);
    if (any && hi == 0) hi = T(0);
  }
  if (any) {
    s->min = make(lo);
    s->max = make(hi);
  }
}
}  // namespace

void ColumnStats::Merge(const ColumnStats& other) {
  null_count += other.null_count;
  nan_count += other.nan_count;
  row_count += other.row_count;
  if (other.min && (!min || CompareValues(*other.min, *min) < 0)) min = other.min;
  if (other.max && (!max || CompareValues(*other.max, *max) > 0)) max = other.max;
}

ColumnStats ComputeColumnStats(const Column& c, size_t offset, size_t count) {
  ColumnStats s;
  s.row_count = count;
  switch (c.type()) {
    case TypeId::kBool: FixedStats<uint8_t>(c, offset, count, [](uint8_t v) { return Value::Bool(v != 0); }, &s); break;
    case TypeId::kInt32: FixedStats<int32_t>(c, offset, count, Value::Int32, &s); break;
    case TypeId::kDate: FixedStats<int32_t>(c, offset, count, Value::Date, &s); break;
    case TypeId::kInt64: FixedStats<int64_t>(c, offset, count, Value::Int64, &s); break;
    case TypeId::kTimestamp: FixedStats<int64_t>(c, offset, count, Value::Timestamp, &s); break;
    case TypeId::kFloat: FixedStats<float>(c, offset, count, Value::Float, &s); break;
    case TypeId::kDouble: FixedStats<double>(c, offset, count, Value::Double, &s); break;
    case TypeId::kString: {
      bool any = false;
      std::string_view lo, hi;
      for (size_t i = offset; i < offset + count; ++i) {
        if (c.IsNull(i)) {
          ++s.null_count;
          continue;
        }
        std::string_view v = c.GetString(i);
        if (!any) {
          lo = hi = v;
          any = true;
        } else {
          if (v < lo) lo = v;
          if (v > hi) hi = v;
        }
      }
      if (any) {
        s.min = Value::String(std::string(lo));
        s.max = Value::String(std::string(hi));
      }
      break;
    }
  }
  return s;
}

}  // namespace lakeindex
