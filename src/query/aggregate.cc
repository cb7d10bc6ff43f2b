#include "query/aggregate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "format/parquet/dictionary_builder.h"
#include "query/binder.h"
#include "query/order.h"
#include "query/parser.h"
#include "query/pruning.h"
#include "query/scanner.h"

namespace lakeindex::query {
namespace {

// The bytes of a value that groups and distinct values are told apart by: equal values, and only
// those, give equal keys (NULL one key, every NaN one key, -0.0 the key of 0.0).
void AppendKey(const Column& c, size_t row, std::string* key) {
  if (c.IsNull(row)) {
    key->push_back('\0');
    return;
  }
  key->push_back('\1');
  auto put = [key](const void* p, size_t n) { key->append(static_cast<const char*>(p), n); };
  if (IsDecimal(c.type())) {
    const int64_t v = c.Get<int64_t>(row);
    put(&v, sizeof(v));
    return;
  }
  switch (c.type()) {
    case TypeId::kBool: key->push_back(char(c.Get<uint8_t>(row))); break;
    case TypeId::kInt32:
    case TypeId::kDate: {
      const int32_t v = c.Get<int32_t>(row);
      put(&v, sizeof(v));
      break;
    }
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: {
      const int64_t v = c.Get<int64_t>(row);
      put(&v, sizeof(v));
      break;
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double v = c.type() == TypeId::kFloat ? double(c.Get<float>(row)) : c.Get<double>(row);
      if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
      if (v == 0) v = 0;
      put(&v, sizeof(v));
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: {
      const std::string_view s = c.GetString(row);
      const uint32_t n = uint32_t(s.size());
      put(&n, sizeof(n));
      key->append(s);
      break;
    }
  }
}

double AsDouble(const Column& c, size_t row) {
  if (IsDecimal(c.type())) return DecimalToDouble(c.Get<int64_t>(row), DecimalScale(c.type()));
  switch (c.type()) {
    case TypeId::kInt32: return double(c.Get<int32_t>(row));
    case TypeId::kInt64: return double(c.Get<int64_t>(row));
    case TypeId::kFloat: return double(c.Get<float>(row));
    default: return c.Get<double>(row);
  }
}

// One aggregate's running state for one group.
struct Acc {
  uint64_t count = 0;
  __int128 isum = 0;           // integers; decimals unscaled
  double sum = 0, comp = 0;    // floating: Neumaier's sum and compensation
  double plain = 0;            // plain sum, the answer once a value is not finite
  bool non_finite = false;
  std::optional<Value> min, max;
  std::unordered_set<std::string> distinct;

  void AddDouble(double v) {
    plain += v;
    if (!std::isfinite(v)) non_finite = true;
    if (non_finite) return;
    const double t = sum + v;
    comp += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  double DoubleSum() const { return non_finite || !std::isfinite(sum + comp) ? plain : sum + comp; }

  // Estimates only: the values' first two moments about a shift (the first value), so that
  // Σ(y-ȳ)² does not cancel catastrophically when the mean is large beside the spread.
  bool shifted = false;
  double shift = 0, s1 = 0, s2 = 0;
  void AddMoments(double v) {
    if (!shifted) {
      shift = v;
      shifted = true;
    }
    const double d = v - shift;
    s1 += d;
    s2 += d * d;
  }
  double SumOfSquares() const { return s2 + 2 * shift * s1 + double(count) * shift * shift; }
  double SquaredDeviations() const { return count == 0 ? 0 : std::max(0.0, s2 - s1 * s1 / double(count)); }
  double Sum(TypeId type) const {
    if (IsDecimal(type)) return double(isum) / double(Pow10(DecimalScale(type)));
    return IsInteger(type) ? double(isum) : DoubleSum();
  }
};

// One aggregate's estimate from a Bernoulli(f) sample and its interval's half-width (z standard
// errors); no value when nothing was sampled (avg) and no half-width for min / max / distinct.
struct Estimate {
  std::optional<double> value, half_width;
};
Estimate EstimateOf(AggKind kind, TypeId type, const Acc& acc, double f, double z) {
  const double n = double(acc.count), keep = 1 - f;
  Estimate e;
  switch (kind) {
    case AggKind::kCountStar:
    case AggKind::kCount:
      e.value = n / f;
      e.half_width = z * std::sqrt(n * keep) / f;
      break;
    case AggKind::kSum:
      e.value = acc.Sum(type) / f;
      e.half_width = z * std::sqrt(keep * acc.SumOfSquares()) / f;
      break;
    case AggKind::kAvg:
      if (acc.count == 0) break;
      e.value = acc.Sum(type) / n;
      // One value says nothing of the spread: no interval (rather than one 0 wide).
      if (acc.count >= 2 || keep == 0) e.half_width = z * std::sqrt(keep * acc.SquaredDeviations()) / n;
      break;
    default: break;
  }
  return e;
}

// The rows of `rows` after the first `offset`, at most `limit` of them (SQL's OFFSET and LIMIT).
Batch Window(const Batch& rows, uint64_t offset, std::optional<uint64_t> limit) {
  const uint64_t n = rows.num_rows();
  if (offset == 0 && (!limit || *limit >= n)) return rows;
  const uint64_t from = std::min(offset, n);
  const uint64_t count = std::min(n - from, limit.value_or(UINT64_MAX));
  return rows.Slice(size_t(from), size_t(count));
}

bool HasInterval(AggKind kind) {
  return kind == AggKind::kCountStar || kind == AggKind::kCount || kind == AggKind::kSum || kind == AggKind::kAvg;
}

}  // namespace

struct Aggregation::Impl {
  static constexpr uint32_t kNoGroup = ~0u;
  std::vector<int> group_columns;  // indexes into the input batches
  std::vector<AggregateSpec> specs;
  std::vector<int> agg_columns;    // per spec: index into the input (-1 for count(*))
  std::vector<TypeId> agg_types;
  // Group lookup: one string column or one integer-like column by the Parquet writer's
  // dictionary (dense ids in first-seen order, open addressing; dictionary id -> group, as the
  // NULL group takes an id of its own), or anything by AppendKey's bytes.
  parquet::DictionaryBuilder<std::string_view> string_groups;
  parquet::DictionaryBuilder<int64_t> int_groups;
  std::vector<uint32_t> group_of_id;
  uint32_t null_group = kNoGroup;
  std::unordered_map<std::string, uint32_t> group_of;
  std::vector<std::vector<Value>> group_values;      // per group: its group-by values
  std::vector<std::vector<Acc>> accs;                // per group, per spec
  std::vector<uint32_t> ids;                         // scratch: each row's group
  std::string key;                                   // scratch

  // The group of every row of `batch` into `ids`, creating groups first seen.
  void GroupIds(const Batch& batch);
  uint32_t NewGroup(const Batch& batch, size_t row);
};

Aggregation::~Aggregation() = default;

Result<std::unique_ptr<Aggregation>> Aggregation::Make(const Schema& input, std::vector<std::string> group_by,
                                                       std::vector<AggregateSpec> aggregates) {
  std::unique_ptr<Aggregation> a(new Aggregation());
  a->impl_ = std::make_unique<Impl>();
  Impl& impl = *a->impl_;
  std::vector<Field> out;
  for (const std::string& name : group_by) {
    Result<int> c = FindColumnFolded(input, name);
    if (!c.ok()) return Status::InvalidArgument(c.status().message()).About("group_by");
    impl.group_columns.push_back(*c);
    out.push_back(input.field(size_t(*c)));
    out.back().nullable = true;
  }
  for (AggregateSpec& spec : aggregates) {
    int c = -1;
    TypeId type = TypeId::kInt64;
    if (spec.kind != AggKind::kCountStar) {
      Result<int> found = FindColumnFolded(input, spec.column);
      if (!found.ok()) return Status::InvalidArgument(spec.name + ": " + found.status().message()).About("aggregates");
      c = *found;
      type = input.field(size_t(c)).type;
      spec.column = input.field(size_t(c)).name;  // as resolved (the output keeps the name as written)
    }
    if ((spec.kind == AggKind::kSum || spec.kind == AggKind::kAvg) && !IsNumeric(type)) {
      return Status::InvalidArgument(spec.name + ": " + std::string(TypeName(type)) +
                                     " column has no sum or average (numbers only)")
          .About("aggregates");
    }
    TypeId result = type;
    switch (spec.kind) {
      case AggKind::kCountStar:
      case AggKind::kCount:
      case AggKind::kCountDistinct: result = TypeId::kInt64; break;
      case AggKind::kSum:  // a decimal's sum keeps its scale (DuckDB's is decimal(38, s))
        result = IsInteger(type) ? TypeId::kInt64 : IsDecimal(type) ? DecimalType(18, DecimalScale(type)) : TypeId::kDouble;
        break;
      case AggKind::kAvg: result = TypeId::kDouble; break;
      case AggKind::kMin:
      case AggKind::kMax: break;
    }
    impl.agg_columns.push_back(c);
    impl.agg_types.push_back(type);
    out.push_back(Field{spec.name, result, true});
  }
  impl.specs = std::move(aggregates);
  for (int c : impl.group_columns) a->input_columns_.push_back(input.field(size_t(c)).name);
  for (int c : impl.agg_columns) {
    if (c >= 0) a->input_columns_.push_back(input.field(size_t(c)).name);
  }
  a->output_ = Schema(std::move(out));
  if (impl.group_columns.empty()) {  // one group, even over no rows
    impl.group_values.emplace_back();
    impl.accs.emplace_back(impl.specs.size());
  }
  return a;
}

uint32_t Aggregation::Impl::NewGroup(const Batch& batch, size_t row) {
  std::vector<Value> values;
  values.reserve(group_columns.size());
  for (int c : group_columns) values.push_back(batch.column(size_t(c)).GetValue(row));
  group_values.push_back(std::move(values));
  accs.emplace_back(specs.size());
  return uint32_t(group_values.size() - 1);
}

void Aggregation::Impl::GroupIds(const Batch& batch) {
  const size_t n = batch.num_rows();
  ids.resize(n);
  const Column& first = batch.column(size_t(group_columns[0]));
  const TypeId type = first.type();
  if (group_columns.size() == 1 && IsBytes(type)) {
    // One string column (the common GROUP BY category): looked up by view, no key built.
    for (size_t r = 0; r < n; ++r) {
      if (first.IsNull(r)) {
        ids[r] = null_group != kNoGroup ? null_group : (null_group = NewGroup(batch, r));
        continue;
      }
      const uint32_t id = string_groups.Insert(first.GetString(r));
      if (id == group_of_id.size()) group_of_id.push_back(NewGroup(batch, r));
      ids[r] = group_of_id[id];
    }
    return;
  }
  if (group_columns.size() == 1 && (type == TypeId::kInt64 || IsTimestamp(type) || type == TypeId::kInt32 ||
                                    type == TypeId::kDate || type == TypeId::kBool)) {
    for (size_t r = 0; r < n; ++r) {
      if (first.IsNull(r)) {
        ids[r] = null_group != kNoGroup ? null_group : (null_group = NewGroup(batch, r));
        continue;
      }
      const int64_t v = type == TypeId::kInt64 || IsTimestamp(type) ? first.Get<int64_t>(r)
                        : type == TypeId::kBool                               ? int64_t(first.Get<uint8_t>(r))
                                                                              : int64_t(first.Get<int32_t>(r));
      const uint32_t id = int_groups.Insert(v);
      if (id == group_of_id.size()) group_of_id.push_back(NewGroup(batch, r));
      ids[r] = group_of_id[id];
    }
    return;
  }
  for (size_t r = 0; r < n; ++r) {
    key.clear();
    for (int c : group_columns) AppendKey(batch.column(size_t(c)), r, &key);
    auto it = group_of.find(key);
    ids[r] = it != group_of.end() ? it->second : group_of.emplace(key, NewGroup(batch, r)).first->second;
  }
}

Status Aggregation::Add(const Batch& batch) {
  Impl& impl = *impl_;
  const size_t n = batch.num_rows();
  const bool grouped = !impl.group_columns.empty();
  if (grouped) impl.GroupIds(batch);
  const uint32_t* ids = impl.ids.data();
  for (size_t s = 0; s < impl.specs.size(); ++s) {
    const AggKind kind = impl.specs[s].kind;
    if (kind == AggKind::kCountStar) {
      if (!grouped) {
        impl.accs[0][s].count += n;
      } else {
        for (size_t r = 0; r < n; ++r) ++impl.accs[ids[r]][s].count;
      }
      continue;
    }
    const Column& col = batch.column(size_t(impl.agg_columns[s]));
    const TypeId type = impl.agg_types[s];
    const bool nulls = col.has_validity() && col.null_count() > 0;
    auto acc_of = [&](size_t r) -> Acc& { return impl.accs[grouped ? ids[r] : 0][s]; };
    if (kind == AggKind::kCount) {
      if (!grouped) {
        impl.accs[0][s].count += n - (nulls ? col.null_count() : 0);
      } else {
        for (size_t r = 0; r < n; ++r) impl.accs[ids[r]][s].count += col.IsValid(r) ? 1 : 0;
      }
      continue;
    }
    if ((kind == AggKind::kSum || kind == AggKind::kAvg) && (type == TypeId::kInt64 || type == TypeId::kDouble)) {
      // The hot loops: one type, no per-value dispatch.
      if (type == TypeId::kInt64 && track_variances_) {
        const int64_t* v = col.data<int64_t>();
        for (size_t r = 0; r < n; ++r) {
          if (nulls && col.IsNull(r)) continue;
          Acc& acc = acc_of(r);
          ++acc.count;
          acc.isum += v[r];
          acc.AddMoments(double(v[r]));
        }
      } else if (type == TypeId::kInt64) {
        const int64_t* v = col.data<int64_t>();
        if (!grouped && !nulls) {
          __int128 sum = 0;
          for (size_t r = 0; r < n; ++r) sum += v[r];
          impl.accs[0][s].isum += sum;
          impl.accs[0][s].count += n;
        } else {
          for (size_t r = 0; r < n; ++r) {
            if (nulls && col.IsNull(r)) continue;
            Acc& acc = acc_of(r);
            ++acc.count;
            acc.isum += v[r];
          }
        }
      } else {
        const double* v = col.data<double>();
        for (size_t r = 0; r < n; ++r) {
          if (nulls && col.IsNull(r)) continue;
          Acc& acc = acc_of(r);
          ++acc.count;
          acc.AddDouble(v[r]);
          if (track_variances_) acc.AddMoments(v[r]);
        }
      }
      continue;
    }
    for (size_t r = 0; r < n; ++r) {
      if (nulls && col.IsNull(r)) continue;
      Acc& acc = acc_of(r);
      ++acc.count;
      switch (kind) {
        case AggKind::kSum:
        case AggKind::kAvg:
          if (type == TypeId::kInt64 || IsDecimal(type)) acc.isum += col.Get<int64_t>(r);
          else if (type == TypeId::kInt32) acc.isum += col.Get<int32_t>(r);
          else acc.AddDouble(AsDouble(col, r));
          if (track_variances_) acc.AddMoments(AsDouble(col, r));
          break;
        case AggKind::kMin:
        case AggKind::kMax: {
          Value v = col.GetValue(r);
          std::optional<Value>& best = kind == AggKind::kMin ? acc.min : acc.max;
          const int cmp = best ? CompareValues(v, *best) : 0;
          if (!best || (kind == AggKind::kMin ? cmp < 0 : cmp > 0)) best = std::move(v);
          break;
        }
        case AggKind::kCountDistinct:
          impl.key.clear();
          AppendKey(col, r, &impl.key);
          acc.distinct.insert(impl.key);
          break;
        default: break;
      }
    }
  }
  return Status::OK();
}

Status Aggregation::AddCount(uint64_t rows) {
  Impl& impl = *impl_;
  if (!impl.group_columns.empty()) return Status::InvalidArgument("AddCount: the aggregation has groups");
  for (size_t s = 0; s < impl.specs.size(); ++s) {
    if (impl.specs[s].kind != AggKind::kCountStar) return Status::InvalidArgument("AddCount: not count(*) alone");
    impl.accs[0][s].count += rows;
  }
  return Status::OK();
}

bool Aggregation::AddStatistics(uint64_t rows, const std::map<std::string, ColumnStats>& stats) {
  Impl& impl = *impl_;
  if (!impl.group_columns.empty()) return false;
  // All or nothing: checked first, folded after.
  std::vector<const ColumnStats*> of(impl.specs.size(), nullptr);
  for (size_t s = 0; s < impl.specs.size(); ++s) {
    const AggKind kind = impl.specs[s].kind;
    if (kind == AggKind::kCountStar) continue;
    if (kind != AggKind::kCount && kind != AggKind::kMin && kind != AggKind::kMax) return false;
    auto it = stats.find(impl.specs[s].column);
    if (it == stats.end()) return false;
    const ColumnStats& c = it->second;
    if (c.row_count != rows || c.null_count > rows || c.nan_count > rows - c.null_count) return false;
    const bool numbers = rows - c.null_count > c.nan_count;  // some value besides NULL and NaN
    if (kind != AggKind::kCount && numbers) {
      const TypeId type = impl.agg_types[s];
      if (!c.min || !c.max || c.min->type() != type || c.max->type() != type || c.min->is_null() || c.max->is_null()) return false;
    }
    of[s] = &c;
  }
  for (size_t s = 0; s < impl.specs.size(); ++s) {
    Acc& acc = impl.accs[0][s];
    const AggKind kind = impl.specs[s].kind;
    if (kind == AggKind::kCountStar) {
      acc.count += rows;
      continue;
    }
    const ColumnStats& c = *of[s];
    acc.count += rows - c.null_count;
    if (kind == AggKind::kCount || rows == c.null_count) continue;
    // NaN orders above every number (as Add's CompareValues): the max when any, the min when only.
    const bool numbers = rows - c.null_count > c.nan_count;
    const Value nan = impl.agg_types[s] == TypeId::kFloat ? Value::Float(std::numeric_limits<float>::quiet_NaN())
                                                          : Value::Double(std::numeric_limits<double>::quiet_NaN());
    Value v = kind == AggKind::kMin ? (numbers ? *c.min : nan) : (c.nan_count > 0 ? nan : *c.max);
    std::optional<Value>& best = kind == AggKind::kMin ? acc.min : acc.max;
    const int cmp = best ? CompareValues(v, *best) : 0;
    if (!best || (kind == AggKind::kMin ? cmp < 0 : cmp > 0)) best = std::move(v);
  }
  return true;
}

Result<Batch> Aggregation::Finish() const {
  const Impl& impl = *impl_;
  Batch out(output_);
  const size_t groups = impl.group_values.size();
  const size_t g_cols = impl.group_columns.size();
  for (size_t g = 0; g < groups; ++g) {
    for (size_t c = 0; c < g_cols; ++c) RETURN_IF_ERROR(out.mutable_column(c).AppendValue(impl.group_values[g][c]));
    for (size_t s = 0; s < impl.specs.size(); ++s) {
      const Acc& acc = impl.accs[g][s];
      const TypeId type = impl.agg_types[s];
      const AggregateSpec& spec = impl.specs[s];
      Column& col = out.mutable_column(g_cols + s);
      Value v = Value::Null(output_.field(g_cols + s).type);
      switch (spec.kind) {
        case AggKind::kCountStar:
        case AggKind::kCount: v = Value::Int64(int64_t(acc.count)); break;
        case AggKind::kCountDistinct: v = Value::Int64(int64_t(acc.distinct.size())); break;
        case AggKind::kSum:
          if (acc.count == 0) break;
          if (IsInteger(type)) {
            if (acc.isum > std::numeric_limits<int64_t>::max() || acc.isum < std::numeric_limits<int64_t>::min()) {
              return Status::InvalidArgument(spec.name + " overflows int64 (|sum| >= 2^63); sum a narrower selection");
            }
            v = Value::Int64(int64_t(acc.isum));
          } else if (IsDecimal(type)) {
            const TypeId sum_type = output_.field(g_cols + s).type;
            if (acc.isum >= Pow10(18) || acc.isum <= -Pow10(18)) {
              return Status::InvalidArgument(spec.name + " overflows " + TypeName(sum_type) +
                                             " (lakeindex decimals hold 18 digits); sum a narrower selection");
            }
            v = Value::Decimal(sum_type, int64_t(acc.isum));
          } else {
            v = Value::Double(acc.DoubleSum());
          }
          break;
        case AggKind::kAvg:
          if (acc.count == 0) break;
          if (IsDecimal(type)) {  // as DuckDB's: the sum over count * 10^scale
            v = Value::Double(double(acc.isum) / (double(acc.count) * double(Pow10(DecimalScale(type)))));
          } else if (IsInteger(type)) {
            // The quotient and remainder separately: exact for any sum of int64s.
            const __int128 q = acc.isum / __int128(acc.count), rem = acc.isum % __int128(acc.count);
            v = Value::Double(double(q) + double(rem) / double(acc.count));
          } else {
            v = Value::Double(acc.DoubleSum() / double(acc.count));
          }
          break;
        case AggKind::kMin:
          if (acc.min) v = *acc.min;
          break;
        case AggKind::kMax:
          if (acc.max) v = *acc.max;
          break;
      }
      RETURN_IF_ERROR(col.AppendValue(v));
    }
  }
  RETURN_IF_ERROR(out.Seal());
  return out;
}

Result<Batch> Aggregation::FinishEstimate(double fraction, double confidence) const {
  const Impl& impl = *impl_;
  if (!track_variances_) return Status::InvalidArgument("FinishEstimate: TrackVariances was not called before Add");
  const double z = NormalQuantile(confidence);
  const size_t g_cols = impl.group_columns.size();
  std::vector<Field> fields(output_.fields().begin(), output_.fields().begin() + std::ptrdiff_t(g_cols));
  for (size_t s = 0; s < impl.specs.size(); ++s) {
    Field f = output_.field(g_cols + s);
    if (HasInterval(impl.specs[s].kind)) {
      f.type = TypeId::kDouble;
      fields.push_back(f);
      fields.push_back(Field{f.name + " ±", TypeId::kDouble, true});
    } else {
      fields.push_back(f);
    }
  }
  Batch out{Schema(std::move(fields))};
  ASSIGN_OR_RETURN(Batch values, Finish());  // min, max, distinct as they are
  for (size_t g = 0; g < impl.group_values.size(); ++g) {
    size_t c = 0;
    for (; c < g_cols; ++c) RETURN_IF_ERROR(out.mutable_column(c).AppendValue(impl.group_values[g][c]));
    for (size_t s = 0; s < impl.specs.size(); ++s) {
      const AggKind kind = impl.specs[s].kind;
      if (!HasInterval(kind)) {
        RETURN_IF_ERROR(out.mutable_column(c++).AppendValue(values.column(g_cols + s).GetValue(g)));
        continue;
      }
      const Estimate e = EstimateOf(kind, impl.agg_types[s], impl.accs[g][s], fraction, z);
      for (const std::optional<double>& v : {e.value, e.half_width}) {
        RETURN_IF_ERROR(out.mutable_column(c++).AppendValue(v ? Value::Double(*v) : Value::Null(TypeId::kDouble)));
      }
    }
  }
  RETURN_IF_ERROR(out.Seal());
  return out;
}

Result<Aggregation::Precision> Aggregation::EstimatePrecision(double fraction, double confidence) const {
  const Impl& impl = *impl_;
  const double z = NormalQuantile(confidence);
  Precision p;
  bool any = false;
  for (size_t g = 0; g < impl.group_values.size(); ++g) {
    for (size_t s = 0; s < impl.specs.size(); ++s) {
      const AggKind kind = impl.specs[s].kind;
      if (!HasInterval(kind)) continue;
      const Acc& acc = impl.accs[g][s];
      const Estimate e = EstimateOf(kind, impl.agg_types[s], acc, fraction, z);
      double relative = std::numeric_limits<double>::infinity();
      if (e.value && e.half_width && (*e.half_width == 0 || *e.value != 0)) {
        relative = *e.half_width == 0 ? 0 : *e.half_width / std::fabs(*e.value);
      }
      if (std::isnan(relative)) relative = std::numeric_limits<double>::infinity();
      p.max_relative_half_width = std::max(p.max_relative_half_width, relative);
      p.min_sampled = any ? std::min(p.min_sampled, acc.count) : acc.count;
      any = true;
    }
  }
  if (!any) {
    return Status::InvalidArgument("needs an aggregate with an interval: count(*), count(c), sum(c) or avg(c)").About("error");
  }
  return p;
}

double NormalQuantile(double confidence) {
  // Φ(z) = (1 + confidence) / 2, by bisection on erfc (monotone; 200 halvings reach a double's
  // precision on [0, 40]).
  const double tail = (1 - confidence) / 2;  // 1 - Φ(z) = erfc(z / √2) / 2
  double lo = 0, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = (lo + hi) / 2;
    (std::erfc(mid / std::sqrt(2.0)) / 2 > tail ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

namespace {

// One pass of the filtered rows (of the sample weights in [from, to) when `to` is set) into
// `aggregation`; returns the rows decoded.
Result<uint64_t> ScanInto(const table::Table& table, const AggregateRequest& request, const std::vector<std::string>& columns,
                          std::optional<double> to, double from, Aggregation* aggregation, uint64_t* aggregated,
                          std::vector<std::string>* plan) {
  ScanRequest scan;
  scan.where = request.where;
  scan.indexes = request.indexes;
  scan.select = columns;
  scan.sample = to;
  scan.sample_from = from;
  scan.cache_pages = request.cache_pages;
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(&table, scan));
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    RETURN_IF_ERROR(aggregation->Add(batch));
    *aggregated += batch.num_rows();
    if (request.progress) request.progress(*aggregated);
  }
  std::string read;
  for (const std::string& c : scan.select) read += (read.empty() ? "" : ", ") + c;
  plan->push_back("scan of " + read + (to ? " for weights in [" + FormatDouble(from) + ", " + FormatDouble(*to) + ")" : "") +
                  ": " + std::to_string(scanner->counters().rows_read) + " rows read");
  for (const std::string& line : scanner->plan()) plan->push_back("  " + line);
  return scanner->counters().rows_read;
}

// The fraction at which every interval should be within `target`, from the widest relative
// half-width `now` at fraction f: a half-width shrinks as sqrt((1-f)/f), so the odds f/(1-f)
// grow by (now/target)²; 10% over it, since `now` is itself estimated. Samples too small to
// estimate a spread from (under 100 values behind an interval) grow tenfold at most.
double NextFraction(double f, const Aggregation::Precision& p, double target) {
  double next = 1;
  if (std::isfinite(p.max_relative_half_width) && p.min_sampled >= 100) {
    const double ratio = p.max_relative_half_width / target;
    const double odds = f / (1 - f) * ratio * ratio * 1.1;
    next = odds / (1 + odds);
  } else {
    next = f * (p.min_sampled == 0 ? 10.0 : std::min(10.0, 110.0 / double(p.min_sampled)));
  }
  next = std::max(next, f * 1.1);
  // Up to three significant digits, so that the fraction reads as a user would write it.
  const double scale = std::pow(10.0, 2 - std::floor(std::log10(next)));
  return std::min(1.0, std::ceil(next * scale) / scale);
}

// The aggregates from the manifest's statistics alone, when they tell exactly: no groups; only
// count(*), count(c), min(c), max(c); every fragment either ruled out by the filter's statistics
// or wholly matched by them (or no filter), with no deleted row. Null when they do not tell.
Result<std::optional<Batch>> FromStatistics(const table::Table& table, const AggregateRequest& request,
                                            const std::vector<AggregateSpec>& specs) {
  if (!request.group_by.empty()) return std::optional<Batch>();
  ASSIGN_OR_RETURN(auto aggregation, Aggregation::Make(table.schema(), {}, specs));
  ExprPtr bound;
  if (!request.where.empty()) {
    ASSIGN_OR_RETURN(ExprPtr parsed, ParseExpression(request.where));
    ASSIGN_OR_RETURN(bound, Bind(*parsed, table.schema()));
  }
  for (const table::FragmentMeta& frag : table.manifest().fragments) {
    if (bound) {
      const NamedStatsProvider stats(&table.schema(), &frag.stats);
      if (!MayMatch(*bound, stats)) continue;
      if (!MustMatch(*bound, stats)) return std::optional<Batch>();
    }
    if (frag.deletion || !aggregation->AddStatistics(frag.rows, frag.stats)) return std::optional<Batch>();
  }
  ASSIGN_OR_RETURN(Batch rows, aggregation->Finish());
  // The statistics keep a bound of 0 as -0.0 (so that both zeros are inside it), which is no
  // value of the rows: a min or max of 0 from them is 0, not -0.
  for (size_t c = 0; c < rows.num_columns(); ++c) {
    Column& column = rows.mutable_column(c);
    auto positive = [&](auto* values) {
      for (size_t r = 0; r < rows.num_rows(); ++r) values[r] += 0;  // -0 + 0 is +0
    };
    if (column.type() == TypeId::kDouble) positive(column.mutable_data<double>());
    if (column.type() == TypeId::kFloat) positive(column.mutable_data<float>());
  }
  return std::optional<Batch>(std::move(rows));
}

}  // namespace

// The result's rows in `order_by`'s order (its keys bound to the result's columns, so an unknown
// one is refused whichever way the rows were found), then OFFSET and LIMIT.
static Status OrderAndWindow(const AggregateRequest& request, Batch* rows) {
  if (!request.order_by.empty()) {
    ASSIGN_OR_RETURN(std::vector<OrderKey> keys, ParseOrderBy(request.order_by));
    std::optional<uint64_t> kept = request.limit;
    if (kept) kept = *kept > UINT64_MAX - request.offset ? UINT64_MAX : *kept + request.offset;
    ASSIGN_OR_RETURN(*rows, SortBatch(*rows, keys, kept));
  }
  *rows = Window(*rows, request.offset, request.limit);
  return Status::OK();
}

Result<AggregateResult> AggregateTable(const table::Table& table, const AggregateRequest& request) {
  ASSIGN_OR_RETURN(std::vector<AggregateSpec> specs, ParseAggregates(request.aggregates));
  // Checked against the table, then made again over the columns the scan returns.
  ASSIGN_OR_RETURN(auto checked, Aggregation::Make(table.schema(), request.group_by, specs));
  AggregateResult result;
  const bool estimate = request.sample || request.error;
  if (estimate) {
    if (!(request.confidence > 0 && request.confidence < 1)) {
      return Status::InvalidArgument("must be in (0, 1), got " + FormatDouble(request.confidence)).About("confidence");
    }
    if (request.error && !(*request.error > 0 && *request.error < 1)) {
      return Status::InvalidArgument("must be a relative half-width in (0, 1) (0.01 = ±1%), got " +
                                     FormatDouble(*request.error))
          .About("error");
    }
    if (request.error && std::none_of(specs.begin(), specs.end(), [](const AggregateSpec& a) { return HasInterval(a.kind); })) {
      return Status::InvalidArgument("needs an aggregate with an interval: count(*), count(c), sum(c) or avg(c)").About("error");
    }
  } else if (request.group_by.empty() && checked->input_columns().empty()) {
    // count(*) alone: counted as Table.count counts (from an exact index and the deletion
    // vectors, or reading only the filter's columns), no column read for its own sake.
    ASSIGN_OR_RETURN(uint64_t n, CountWhere(table, request.where, request.indexes, &result.plan));
    RETURN_IF_ERROR(checked->AddCount(n));
    ASSIGN_OR_RETURN(result.rows, checked->Finish());
    result.rows_aggregated = n;
    RETURN_IF_ERROR(OrderAndWindow(request, &result.rows));
    return result;
  }
  // The columns the scan returns, each once (the first column when count(*) needs none), and
  // their schema, which the aggregation is made over.
  std::vector<std::string> columns;
  for (const std::string& c : checked->input_columns()) {
    if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
  }
  if (columns.empty()) columns.push_back(table.schema().field(0).name);
  std::vector<Field> fields;
  for (const std::string& c : columns) fields.push_back(table.schema().field(size_t(table.schema().FindField(c))));
  const Schema scan_schema(std::move(fields));
  std::optional<Batch> from_statistics;
  if (!estimate) {
    ASSIGN_OR_RETURN(from_statistics, FromStatistics(table, request, specs));
  }
  ASSIGN_OR_RETURN(auto aggregation, Aggregation::Make(scan_schema, request.group_by, std::move(specs)));
  if (from_statistics) {
    result.plan.push_back("answered from the manifest's per-file statistics: no data file read");
    result.rows = std::move(*from_statistics);
  } else if (!estimate) {
    ASSIGN_OR_RETURN(result.rows_read, ScanInto(table, request, columns, std::nullopt, 0, aggregation.get(), &result.rows_aggregated, &result.plan));
    ASSIGN_OR_RETURN(result.rows, aggregation->Finish());
  } else {
    aggregation->TrackVariances();
    result.estimated = true;
    result.confidence = request.confidence;
    double f = 0;
    if (request.sample) {
      f = *request.sample;
    } else {  // the fraction that samples about 1,000 of the table's rows
      f = std::min(1.0, std::max(1e-4, 1000.0 / double(std::max<uint64_t>(1, table.manifest().total_rows()))));
    }
    double from = 0;
    while (true) {
      Result<uint64_t> scanned = ScanInto(table, request, columns, f, from, aggregation.get(), &result.rows_aggregated, &result.plan);
      if (!scanned.ok() && !request.sample && scanned.status().parameter() == "sample") {
        // The sample is --error's: the refusal is about it, not about a --sample not given.
        return Status::InvalidArgument("estimates read a sample, which needs an OTree layout: lay the table out as an "
                                       "OTree first, or leave it out for exact aggregates")
            .About("error");
      }
      ASSIGN_OR_RETURN(uint64_t read, std::move(scanned));
      result.rows_read += read;
      result.rounds.push_back(f);
      Result<Aggregation::Precision> p = aggregation->EstimatePrecision(f, request.confidence);
      if (!p.ok()) break;  // min / max / distinct only (refused above with `error`): nothing to aim at
      result.max_relative_half_width = p->max_relative_half_width;
      if (!request.error || f >= 1 || p->max_relative_half_width <= *request.error) break;
      from = f;
      f = NextFraction(f, *p, *request.error);
    }
    result.fraction = f;
    ASSIGN_OR_RETURN(result.rows, aggregation->FinishEstimate(f, request.confidence));
  }
  RETURN_IF_ERROR(OrderAndWindow(request, &result.rows));
  return result;
}

}  // namespace lakeindex::query
