#include "lakeindex/column_stats.h"

#include <cmath>
#include <string_view>
#include <type_traits>

namespace lakeindex {

namespace {
// One pass over rows [offset, offset+count): NULLs and NaNs counted, min/max of the rest.
// `get(i)` reads row i as V; `make(v)` turns a bound into a Value.
template <typename V, typename Get, typename MakeValue>
void MinMaxStats(const Column& c, size_t offset, size_t count, Get get, MakeValue make, ColumnStats* s) {
  bool any = false;
  V lo{}, hi{};
  for (size_t i = offset; i < offset + count; ++i) {
    if (c.IsNull(i)) {
      ++s->null_count;
      continue;
    }
    V v = get(i);
    if constexpr (std::is_floating_point_v<V>) {
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
  if constexpr (std::is_floating_point_v<V>) {
    // -0.0 == 0.0: widen so that both zeros are inside [min, max] whatever their order.
    if (any && lo == 0) lo = -V(0);
    if (any && hi == 0) hi = V(0);
  }
  if (any) {
    s->min = make(lo);
    s->max = make(hi);
  }
}

template <typename T, typename MakeValue>
void FixedStats(const Column& c, size_t offset, size_t count, MakeValue make, ColumnStats* s) {
  const T* data = c.data<T>();
  MinMaxStats<T>(c, offset, count, [data](size_t i) { return data[i]; }, make, s);
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
  if (IsDecimal(c.type())) {
    const TypeId type = c.type();
    FixedStats<int64_t>(c, offset, count, [type](int64_t v) { return Value::Decimal(type, v); }, &s);
    return s;
  }
  switch (c.type()) {
    case TypeId::kBool: FixedStats<uint8_t>(c, offset, count, [](uint8_t v) { return Value::Bool(v != 0); }, &s); break;
    case TypeId::kInt32: FixedStats<int32_t>(c, offset, count, Value::Int32, &s); break;
    case TypeId::kDate: FixedStats<int32_t>(c, offset, count, Value::Date, &s); break;
    case TypeId::kInt64: FixedStats<int64_t>(c, offset, count, Value::Int64, &s); break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: {
      const TypeId type = c.type();
      FixedStats<int64_t>(c, offset, count, [type](int64_t v) { return Value::Int(type, v); }, &s);
      break;
    }
    case TypeId::kFloat: FixedStats<float>(c, offset, count, Value::Float, &s); break;
    case TypeId::kDouble: FixedStats<double>(c, offset, count, Value::Double, &s); break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: {
      const TypeId type = c.type();
      MinMaxStats<std::string_view>(
          c, offset, count, [&c](size_t i) { return c.GetString(i); },
          [type](std::string_view v) { return Value::Bytes(type, std::string(v)); }, &s);
      break;
    }
  }
  return s;
}

}  // namespace lakeindex
