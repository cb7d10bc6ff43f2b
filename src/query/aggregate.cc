#include "query/aggregate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "query/binder.h"
#include "query/scanner.h"

namespace lakeindex::query {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; }

Status ErrorAt(size_t position, const std::string& message) {
  return Status::InvalidArgument("--agg at position " + std::to_string(position) + ": " + message);
}

// The bytes of a value that groups and distinct values are told apart by: equal values, and only
// those, give equal keys (NULL one key, every NaN one key, -0.0 the key of 0.0).
void AppendKey(const Column& c, size_t row, std::string* key) {
  if (c.IsNull(row)) {
    key->push_back('\0');
    return;
  }
  key->push_back('\1');
  auto put = [key](const void* p, size_t n) { key->append(static_cast<const char*>(p), n); };
  switch (c.type()) {
    case TypeId::kBool: key->push_back(char(c.Get<uint8_t>(row))); break;
    case TypeId::kInt32:
    case TypeId::kDate: {
      const int32_t v = c.Get<int32_t>(row);
      put(&v, sizeof(v));
      break;
    }
    case TypeId::kInt64:
    case TypeId::kTimestamp: {
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
    case TypeId::kString: {
      const std::string_view s = c.GetString(row);
      const uint32_t n = uint32_t(s.size());
      put(&n, sizeof(n));
      key->append(s);
      break;
    }
  }
}

double AsDouble(const Column& c, size_t row) {
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
  __int128 isum = 0;           // integers
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
};

}  // namespace

Result<std::vector<AggregateSpec>> ParseAggregates(std::string_view text) {
  static const std::pair<const char*, AggKind> kFunctions[] = {
      {"count", AggKind::kCount}, {"sum", AggKind::kSum}, {"avg", AggKind::kAvg}, {"min", AggKind::kMin},
      {"max", AggKind::kMax},     {"count_distinct", AggKind::kCountDistinct}};
  std::vector<AggregateSpec> out;
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && IsSpace(text[i])) ++i;
  };
  skip();
  if (i == text.size()) return ErrorAt(0, "no aggregate (e.g. \"count(*), avg(score)\")");
  while (true) {
    skip();
    const size_t start = i;
    std::string fn;
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) fn.push_back(Lower(text[i++]));
    skip();
    if (fn.empty() || i >= text.size() || text[i] != '(') {
      return ErrorAt(start, "expected an aggregate such as count(*) or sum(column)");
    }
    AggregateSpec spec;
    bool known = false;
    for (const auto& [name, kind] : kFunctions) {
      if (fn == name) {
        spec.kind = kind;
        known = true;
      }
    }
    if (!known) {
      return ErrorAt(start, "unknown aggregate '" + fn + "' (count, sum, avg, min, max, count_distinct)");
    }
    ++i;  // (
    skip();
    const size_t arg_at = i;
    std::string arg;
    if (i < text.size() && text[i] == '"') {  // a quoted column name, "" for a quote
      ++i;
      while (true) {
        if (i >= text.size()) return ErrorAt(arg_at, "unterminated quoted column name");
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            arg.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        arg.push_back(text[i++]);
      }
    } else {
      while (i < text.size() && text[i] != ')' && text[i] != ',' && !IsSpace(text[i])) arg.push_back(text[i++]);
    }
    skip();
    if (i >= text.size() || text[i] != ')') return ErrorAt(i, "expected ')' after the argument of " + fn);
    ++i;
    if (arg == "*") {
      if (spec.kind != AggKind::kCount) return ErrorAt(arg_at, fn + "(*) is not an aggregate; only count(*)");
      spec.kind = AggKind::kCountStar;
      spec.name = "count(*)";
    } else {
      if (arg.empty()) return ErrorAt(arg_at, fn + "() needs a column");
      spec.column = arg;
      spec.name = fn + "(" + arg + ")";
    }
    out.push_back(std::move(spec));
    skip();
    if (i == text.size()) break;
    if (text[i] != ',') return ErrorAt(i, "expected ',' between aggregates");
    ++i;
  }
  return out;
}

struct Aggregation::Impl {
  std::vector<int> group_columns;  // indexes into the input batches
  std::vector<AggregateSpec> specs;
  std::vector<int> agg_columns;    // per spec: index into the input (-1 for count(*))
  std::vector<TypeId> agg_types;
  std::unordered_map<std::string, size_t> group_of;  // key -> group
  std::vector<std::vector<Value>> group_values;      // per group: its group-by values
  std::vector<std::vector<Acc>> accs;                // per group, per spec
  std::string key;                                   // scratch
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
    if (!c.ok()) return Status::InvalidArgument("--group-by: " + c.status().message());
    impl.group_columns.push_back(*c);
    out.push_back(input.field(size_t(*c)));
    out.back().nullable = true;
  }
  for (AggregateSpec& spec : aggregates) {
    int c = -1;
    TypeId type = TypeId::kInt64;
    if (spec.kind != AggKind::kCountStar) {
      Result<int> found = FindColumnFolded(input, spec.column);
      if (!found.ok()) return Status::InvalidArgument("--agg " + spec.name + ": " + found.status().message());
      c = *found;
      type = input.field(size_t(c)).type;
    }
    if ((spec.kind == AggKind::kSum || spec.kind == AggKind::kAvg) && !IsNumeric(type)) {
      return Status::InvalidArgument("--agg " + spec.name + ": " + std::string(TypeName(type)) +
                                     " column has no sum or average (numbers only)");
    }
    TypeId result = type;
    switch (spec.kind) {
      case AggKind::kCountStar:
      case AggKind::kCount:
      case AggKind::kCountDistinct: result = TypeId::kInt64; break;
      case AggKind::kSum: result = IsInteger(type) ? TypeId::kInt64 : TypeId::kDouble; break;
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

Status Aggregation::Add(const Batch& batch) {
  Impl& impl = *impl_;
  const size_t n = batch.num_rows();
  std::vector<size_t> group(n, 0);
  if (!impl.group_columns.empty()) {
    for (size_t r = 0; r < n; ++r) {
      impl.key.clear();
      for (int c : impl.group_columns) AppendKey(batch.column(size_t(c)), r, &impl.key);
      auto [it, inserted] = impl.group_of.try_emplace(impl.key, impl.group_values.size());
      if (inserted) {
        std::vector<Value> values;
        for (int c : impl.group_columns) values.push_back(batch.column(size_t(c)).GetValue(r));
        impl.group_values.push_back(std::move(values));
        impl.accs.emplace_back(impl.specs.size());
      }
      group[r] = it->second;
    }
  }
  for (size_t s = 0; s < impl.specs.size(); ++s) {
    const AggKind kind = impl.specs[s].kind;
    if (kind == AggKind::kCountStar) {
      for (size_t r = 0; r < n; ++r) ++impl.accs[group[r]][s].count;
      continue;
    }
    const Column& col = batch.column(size_t(impl.agg_columns[s]));
    const TypeId type = impl.agg_types[s];
    for (size_t r = 0; r < n; ++r) {
      if (col.IsNull(r)) continue;
      Acc& acc = impl.accs[group[r]][s];
      ++acc.count;
      switch (kind) {
        case AggKind::kSum:
        case AggKind::kAvg:
          if (type == TypeId::kInt64) acc.isum += col.Get<int64_t>(r);
          else if (type == TypeId::kInt32) acc.isum += col.Get<int32_t>(r);
          else acc.AddDouble(AsDouble(col, r));
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

Result<Batch> Aggregation::Finish() {
  Impl& impl = *impl_;
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
          } else {
            v = Value::Double(acc.DoubleSum());
          }
          break;
        case AggKind::kAvg:
          if (acc.count == 0) break;
          if (IsInteger(type)) {
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

Result<Batch> AggregateTable(const table::Table& table, const AggregateRequest& request) {
  ASSIGN_OR_RETURN(std::vector<AggregateSpec> specs, ParseAggregates(request.aggregates));
  // Checked against the table, then made again over the columns the scan returns.
  ASSIGN_OR_RETURN(auto checked, Aggregation::Make(table.schema(), request.group_by, specs));
  if (request.group_by.empty() && checked->input_columns().empty()) {
    // count(*) alone: counted as Table.count counts (from an exact index and the deletion
    // vectors, or reading only the filter's columns), no column read for its own sake.
    ASSIGN_OR_RETURN(uint64_t n, CountWhere(table, request.where, request.indexes));
    RETURN_IF_ERROR(checked->AddCount(n));
    ASSIGN_OR_RETURN(Batch result, checked->Finish());
    if (request.limit && *request.limit == 0) result = result.Slice(0, 0);
    return result;
  }
  ScanRequest scan;
  scan.where = request.where;
  scan.indexes = request.indexes;
  for (const std::string& c : checked->input_columns()) {
    if (std::find(scan.select.begin(), scan.select.end(), c) == scan.select.end()) scan.select.push_back(c);
  }
  if (scan.select.empty()) scan.select.push_back(table.schema().field(0).name);  // count(*) alone
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(&table, scan));
  ASSIGN_OR_RETURN(auto aggregation, Aggregation::Make(scanner->schema(), request.group_by, std::move(specs)));
  Batch batch;
  uint64_t seen = 0;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    RETURN_IF_ERROR(aggregation->Add(batch));
    seen += batch.num_rows();
    if (request.progress) request.progress(seen);
  }
  ASSIGN_OR_RETURN(Batch result, aggregation->Finish());
  if (request.limit && *request.limit < result.num_rows()) result = result.Slice(0, size_t(*request.limit));
  return result;
}

}  // namespace lakeindex::query
