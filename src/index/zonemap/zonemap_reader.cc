#include "index/zonemap/zonemap_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "format/parquet/reader.h"

namespace lakeindex::index::zonemap {

namespace {

// Whether CompareValues may compare a query value with a bound of a `column` column.
bool Comparable(TypeId column, const Value& v) {
  if (v.is_null()) return false;
  if (IsBytes(column) || IsBytes(v.type())) return column == v.type();
  if (column == TypeId::kBool || v.type() == TypeId::kBool) return column == v.type();
  return true;  // numbers, dates and timestamps compare numerically
}

Value NaNOf(TypeId type) {
  return type == TypeId::kFloat ? Value::Float(std::numeric_limits<float>::quiet_NaN())
                                : Value::Double(std::numeric_limits<double>::quiet_NaN());
}

// Whether some value in [min, max] may satisfy the range (the range is non-empty).
bool IntervalMeetsRange(const Value& min, const Value& max, const ScalarQuery& q) {
  if (q.lower) {
    int c = CompareValues(max, *q.lower);
    if (c < 0 || (c == 0 && !q.lower_inclusive)) return false;
  }
  if (q.upper) {
    int c = CompareValues(min, *q.upper);
    if (c > 0 || (c == 0 && !q.upper_inclusive)) return false;
  }
  return true;
}

bool RangeIsEmpty(const ScalarQuery& q) {
  if (!q.lower || !q.upper) return false;
  int c = CompareValues(*q.lower, *q.upper);
  return c > 0 || (c == 0 && !(q.lower_inclusive && q.upper_inclusive));
}

}  // namespace

ZoneMapSegment::ZoneMapSegment(ZoneMapContents contents, std::string path, uint64_t file_size)
    : contents_(std::move(contents)), path_(std::move(path)), file_size_(file_size) {
  for (const Zone& z : contents_.zones) rows_ += z.length;
}

Result<std::unique_ptr<ZoneMapSegment>> ZoneMapSegment::Open(ObjectStore* store, const std::string& uuid) {
  return OpenPath(store, ZoneMapPath(uuid));
}

Result<std::unique_ptr<ZoneMapSegment>> ZoneMapSegment::OpenPath(ObjectStore* store, const std::string& path) {
  auto reader = parquet::ParquetReader::Open(store, path);
  if (!reader.ok()) {
    Status st = reader.status();
    // A file that is not Parquet at all is as corrupt as a zone map as a bad checksum is.
    if (!st.IsNotSupported()) return st;
    return Status::Corruption(path + ": zone map is not a readable Parquet file: " + st.ToString());
  }
  ASSIGN_OR_RETURN(Batch rows, (*reader)->ReadAll());
  ASSIGN_OR_RETURN(ZoneMapContents contents, DecodeZones(rows, (*reader)->key_value_metadata(), path));
  ASSIGN_OR_RETURN(uint64_t size, store->Size(path));
  return std::unique_ptr<ZoneMapSegment>(new ZoneMapSegment(std::move(contents), path, size));
}

Result<std::unique_ptr<ZoneMapSegment>> ZoneMapSegment::FromContents(ZoneMapContents contents, std::string source) {
  RETURN_IF_ERROR(ValidateZones(contents, source));
  return std::unique_ptr<ZoneMapSegment>(new ZoneMapSegment(std::move(contents), std::move(source), 0));
}

std::vector<uint32_t> ZoneMapSegment::Fragments() const {
  std::vector<uint32_t> out;
  for (const Zone& z : contents_.zones) {
    if (out.empty() || out.back() != z.fragment_id) out.push_back(z.fragment_id);
  }
  return out;
}

Status ZoneMapSegment::CheckQuery(const ScalarQuery& q) const {
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument("zone map " + path_ + " (" + TypeName(type()) + " column): " + what);
  };
  auto check = [&](const Value& v) -> Status {
    if (!Comparable(type(), v)) {
      return bad(v.is_null() ? std::string("NULL query value")
                             : std::string("cannot compare with a ") + TypeName(v.type()) + " value");
    }
    return Status::OK();
  };
  switch (q.kind) {
    case ScalarQuery::Kind::kEquals:
      if (q.values.size() != 1) return bad("equality needs exactly one value");
      return check(q.values[0]);
    case ScalarQuery::Kind::kIn:
      for (const Value& v : q.values) RETURN_IF_ERROR(check(v));
      return Status::OK();
    case ScalarQuery::Kind::kRange:
      if (q.lower) RETURN_IF_ERROR(check(*q.lower));
      if (q.upper) RETURN_IF_ERROR(check(*q.upper));
      return Status::OK();
    case ScalarQuery::Kind::kIsNull: return Status::OK();
    case ScalarQuery::Kind::kPrefix:
      if (type() != TypeId::kString) return bad("prefix search needs a string column");
      return Status::OK();
  }
  return bad("unknown query kind");
}

bool ZoneMapSegment::MayMatch(const Zone& z, const ScalarQuery& q, bool nan_matches) const {
  if (q.kind == ScalarQuery::Kind::kIsNull) return z.null_count > 0;
  if (z.nan_count > 0 && nan_matches) return true;
  if (!z.min) return false;  // only NULL/NaN rows, and NaN does not match
  const Value& min = *z.min;
  const Value& max = *z.max;
  switch (q.kind) {
    case ScalarQuery::Kind::kEquals:
      return CompareValues(min, q.values[0]) <= 0 && CompareValues(q.values[0], max) <= 0;
    case ScalarQuery::Kind::kIn: {
      // values are sorted (NaN last): the first value >= min decides.
      auto it = std::lower_bound(q.values.begin(), q.values.end(), min,
                                 [](const Value& v, const Value& m) { return CompareValues(v, m) < 0; });
      return it != q.values.end() && CompareValues(*it, max) <= 0;
    }
    case ScalarQuery::Kind::kRange: return IntervalMeetsRange(min, max, q);
    case ScalarQuery::Kind::kPrefix: {
      // A value v with prefix p has v >= p, so max >= p; and v >= min implies
      // v[:|p|] = p >= min[:|p|] (truncation keeps bytewise order).
      const std::string& p = q.prefix;
      return max.string_value() >= p && min.string_value().compare(0, p.size(), p) <= 0;
    }
    case ScalarQuery::Kind::kIsNull: break;
  }
  return true;
}

Result<std::vector<size_t>> ZoneMapSegment::CandidateZones(const ScalarQuery& q) const {
  RETURN_IF_ERROR(CheckQuery(q));
  std::vector<size_t> out;
  if (q.kind == ScalarQuery::Kind::kRange && RangeIsEmpty(q)) return out;
  // NaN is one value: decide once whether it satisfies the query.
  bool nan_matches = IsFloating(type()) && q.kind != ScalarQuery::Kind::kIsNull && q.Matches(NaNOf(type()));
  for (size_t i = 0; i < contents_.zones.size(); ++i) {
    if (MayMatch(contents_.zones[i], q, nan_matches)) out.push_back(i);
  }
  return out;
}

Result<SearchResult> ZoneMapSegment::Search(const ScalarQuery& q, SearchCounters* counters) const {
  ASSIGN_OR_RETURN(std::vector<size_t> candidates, CandidateZones(q));
  const std::vector<Zone>& zones = contents_.zones;
  std::vector<bool> selected(zones.size(), false);
  for (size_t i : candidates) selected[i] = true;
  bool is_null_query = q.kind == ScalarQuery::Kind::kIsNull;

  SearchResult result;
  result.exactness = Exactness::kAtMost;
  // Adjacent zones of one fragment going to the same set become one range (fewer bitmap ORs).
  auto add_runs = [&](RowSet* set, auto wanted) {
    size_t i = 0;
    while (i < zones.size()) {
      if (!wanted(i)) {
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < zones.size() && wanted(j) && zones[j].fragment_id == zones[i].fragment_id) ++j;
      const Zone& last = zones[j - 1];
      set->AddRange(MakeRowAddress(zones[i].fragment_id, zones[i].start),
                    MakeRowAddress(last.fragment_id, 0) + uint64_t(last.start) + last.length);
      i = j;
    }
  };
  add_runs(&result.rows.true_rows, [&](size_t i) { return bool(selected[i]); });
  if (!is_null_query) {
    add_runs(&result.rows.null_rows, [&](size_t i) { return zones[i].null_count > 0; });
  }
  if (counters != nullptr) {
    counters->pages_total += zones.size();
    counters->pages_selected += candidates.size();
  }
  return result;
}

}  // namespace lakeindex::index::zonemap

namespace lakeindex::index::zonemap {

Result<std::string> ZoneMapSegment::Verify(const SegmentCoverage& coverage, const std::string& where) const {
  if (coverage.complete && rows_ != coverage.Rows()) {
    return Status::Corruption(where + ": zones cover " + std::to_string(rows_) + " rows, its fragments hold " +
                              std::to_string(coverage.Rows()));
  }
  return "zonemap, " + std::to_string(ZonesTotal()) + " zones";
}

}  // namespace lakeindex::index::zonemap
