// ZoneMapSegment::Search against a brute-force scan: every query kind, every type, random and
// clustered data with NULL and NaN. Soundness (every TRUE row in true_rows, every UNKNOWN row in
// null_rows) always; tightness where the data is clustered.
#include "index/zonemap/zonemap_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "index/zonemap/zonemap_builder.h"
#include "util/test_util.h"

namespace lakeindex::index::zonemap {
namespace {

using lakeindex::testing::RandomBatch;
using lakeindex::testing::RandomValue;
using lakeindex::testing::Rng;

constexpr TypeId kAllTypes[] = {TypeId::kBool,   TypeId::kInt32,  TypeId::kInt64, TypeId::kFloat,
                                TypeId::kDouble, TypeId::kString, TypeId::kDate,  TypeId::kTimestamp};

using Fragments = std::map<uint32_t, Column>;

// Random values of `type` with NULLs; NaN shows up among the hostile float values, and more is
// mixed in so that zones of only NaN occur too.
Column RandomColumn(TypeId type, size_t rows, uint64_t seed, double null_fraction) {
  Batch b = RandomBatch(Schema({{"c", type, true}}), rows, seed, null_fraction);
  if (!IsFloating(type)) return b.column(0);
  Rng rng(seed ^ 0x9e37);
  Column c(type);
  for (size_t i = 0; i < rows; ++i) {
    Value v = b.column(0).GetValue(i);
    if (!v.is_null() && rng.Chance(0.05)) v = Value::Double(std::nan(""));
    EXPECT_TRUE(c.AppendValue(v).ok());
  }
  return c;
}

// The same values sorted: NULLs first, then by CompareValues (NaN last).
Column Sorted(const Column& in) {
  std::vector<Value> values;
  for (size_t i = 0; i < in.length(); ++i) values.push_back(in.GetValue(i));
  std::stable_sort(values.begin(), values.end(), [](const Value& a, const Value& b) {
    if (a.is_null() || b.is_null()) return a.is_null() && !b.is_null();
    return CompareValues(a, b) < 0;
  });
  Column out(in.type());
  for (const Value& v : values) EXPECT_TRUE(out.AppendValue(v).ok());
  return out;
}

std::unique_ptr<ZoneMapSegment> Build(TypeId type, const Fragments& fragments, uint32_t zone_rows) {
  auto store = NewMemoryStore();
  ZoneMapBuilder b(type, zone_rows);
  for (const auto& [id, col] : fragments) EXPECT_TRUE(b.AddFragment(id, col).ok());
  auto info = b.Finish(store.get(), "seg");
  EXPECT_TRUE(info.ok()) << info.status().ToString();
  auto seg = ZoneMapSegment::Open(store.get(), "seg");
  EXPECT_TRUE(seg.ok()) << seg.status().ToString();
  return seg.ok() ? std::move(*seg) : nullptr;
}

// A value of the column to query with: mostly an existing one, sometimes a random or NaN one.
Value PickValue(const Fragments& fragments, TypeId type, Rng& rng) {
  if (rng.Chance(0.7)) {
    for (int tries = 0; tries < 20; ++tries) {
      auto it = fragments.begin();
      std::advance(it, rng.Uniform(fragments.size()));
      if (it->second.length() == 0) continue;
      Value v = it->second.GetValue(rng.Uniform(it->second.length()));
      if (!v.is_null()) return v;
    }
  }
  if (IsFloating(type) && rng.Chance(0.2)) return Value::Double(std::nan(""));
  return RandomValue(type, rng);
}

ScalarQuery RandomQuery(const Fragments& fragments, TypeId type, Rng& rng) {
  switch (rng.Uniform(type == TypeId::kString ? 5 : 4)) {
    case 0: return ScalarQuery::Equals(PickValue(fragments, type, rng));
    case 1: {
      std::optional<Value> lo, hi;
      if (!rng.Chance(0.2)) lo = PickValue(fragments, type, rng);
      if (!rng.Chance(0.2)) hi = PickValue(fragments, type, rng);
      if (lo && hi && rng.Chance(0.8) && CompareValues(*lo, *hi) > 0) std::swap(lo, hi);
      return ScalarQuery::Range(lo, rng.Chance(0.5), hi, rng.Chance(0.5));
    }
    case 2: {
      std::vector<Value> values;
      for (uint64_t n = rng.Uniform(5); n > 0; --n) values.push_back(PickValue(fragments, type, rng));
      return ScalarQuery::In(values);
    }
    case 3: return ScalarQuery::IsNull();
    default: {
      std::string s = PickValue(fragments, type, rng).string_value();
      return ScalarQuery::Prefix(s.substr(0, rng.Uniform(std::min<size_t>(s.size(), 4) + 1)));
    }
  }
}

// Checks `r` against the rows themselves; returns the zones that hold a TRUE row.
void CheckSound(const ZoneMapSegment& seg, const Fragments& fragments, const ScalarQuery& q, const SearchResult& r,
                const std::string& what) {
  ASSERT_EQ(r.exactness, Exactness::kAtMost);
  for (const auto& [id, col] : fragments) {
    for (size_t i = 0; i < col.length(); ++i) {
      uint64_t addr = MakeRowAddress(id, uint32_t(i));
      Value v = col.GetValue(i);
      bool in_true = r.rows.true_rows.Contains(addr);
      if (q.kind == ScalarQuery::Kind::kIsNull) {
        if (v.is_null()) {
          ASSERT_TRUE(in_true) << what << " row " << addr;
        }
        ASSERT_FALSE(r.rows.null_rows.Contains(addr)) << what;
      } else if (v.is_null()) {
        ASSERT_TRUE(r.rows.null_rows.Contains(addr)) << what << " NULL row " << addr;
      } else if (q.Matches(v)) {
        ASSERT_TRUE(in_true) << what << " TRUE row " << addr << " value " << v.ToString();
      }
    }
  }
  // Whole zones only, and null_rows only from zones that have NULLs.
  for (const Zone& z : seg.zones()) {
    uint64_t first = MakeRowAddress(z.fragment_id, z.start);
    bool t = r.rows.true_rows.Contains(first), n = r.rows.null_rows.Contains(first);
    for (uint32_t k = 1; k < z.length; ++k) {
      ASSERT_EQ(r.rows.true_rows.Contains(first + k), t) << what;
      ASSERT_EQ(r.rows.null_rows.Contains(first + k), n) << what;
    }
    if (n) {
      EXPECT_GT(z.null_count, 0u) << what;
    }
  }
  uint64_t covered = 0;
  for (const auto& [id, col] : fragments) covered += col.length();
  EXPECT_LE((r.rows.true_rows | r.rows.null_rows).Cardinality(), covered);
}

void RunBruteForce(TypeId type, bool clustered, uint64_t seed) {
  Rng rng(seed);
  Fragments fragments;
  // Fragment sizes: not multiples of zone_rows, one empty, one smaller than a zone; ids sparse,
  // one at the top of the u32 range.
  const uint32_t ids[] = {0, 9, 10, 0xFFFFFFFFu};
  const size_t sizes[] = {700, 0, 45, 1030};
  for (int f = 0; f < 4; ++f) {
    Column c = RandomColumn(type, sizes[f], seed * 31 + f, f == 3 ? 0.3 : 0.08);
    fragments[ids[f]] = clustered ? Sorted(c) : c;
  }
  uint32_t zone_rows = uint32_t(1 + rng.Uniform(100));
  auto seg = Build(type, fragments, zone_rows);
  ASSERT_NE(seg, nullptr);
  for (int i = 0; i < 150; ++i) {
    ScalarQuery q = RandomQuery(fragments, type, rng);
    std::string what = std::string(TypeName(type)) + (clustered ? " clustered" : " random") + " zone_rows " +
                       std::to_string(zone_rows) + ": " + q.ToString("c");
    SearchCounters counters;
    auto r = seg->Search(q, &counters);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().ToString();
    ASSERT_NO_FATAL_FAILURE(CheckSound(*seg, fragments, q, *r, what));
    if (clustered) {
      // Sorted zones leave a false positive only where the query falls into a gap between two
      // values inside one zone: at most once per fragment and per IN value.
      size_t false_positives = 0;
      for (const Zone& z : seg->zones()) {
        if (!r->rows.true_rows.Contains(MakeRowAddress(z.fragment_id, z.start))) continue;
        const Column& col = fragments.at(z.fragment_id);
        bool any = false;
        for (uint32_t k = z.start; k < z.start + z.length && !any; ++k) {
          Value v = col.GetValue(k);
          any = v.is_null() ? q.kind == ScalarQuery::Kind::kIsNull : q.Matches(v);
        }
        false_positives += any ? 0 : 1;
      }
      size_t per_fragment = std::max<size_t>(1, q.values.size());
      EXPECT_LE(false_positives, seg->Fragments().size() * per_fragment) << what;
    }
    EXPECT_EQ(counters.pages_total, seg->ZonesTotal());
    EXPECT_LE(counters.pages_selected, counters.pages_total);
  }
}

TEST(ZoneMapSearch, SoundOnRandomDataOfEveryType) {
  for (TypeId t : kAllTypes) RunBruteForce(t, /*clustered=*/false, 11 + int(t));
}

TEST(ZoneMapSearch, SoundOnClusteredDataOfEveryType) {
  for (TypeId t : kAllTypes) RunBruteForce(t, /*clustered=*/true, 101 + int(t));
}

// The counter: data clustered by id, 1M rows, a 101-value range reads at most two zones.
TEST(ZoneMapSearch, ClusteredRangeSelectsAtMostTwoZones) {
  Fragments fragments;
  Column ids(TypeId::kInt64);
  for (int64_t i = 0; i < 1000000; ++i) ids.Append<int64_t>(i);
  fragments[0] = std::move(ids);
  auto seg = Build(TypeId::kInt64, fragments, kDefaultZoneRows);
  ASSERT_NE(seg, nullptr);
  EXPECT_EQ(seg->ZonesTotal(), (1000000 + kDefaultZoneRows - 1) / kDefaultZoneRows);
  SearchCounters counters;
  auto r = seg->Search(ScalarQuery::Range(Value::Int64(500000), true, Value::Int64(500100), true), &counters);
  ASSERT_TRUE(r.ok());
  EXPECT_LE(counters.pages_selected, 2u);
  EXPECT_GE(counters.pages_selected, 1u);
  EXPECT_LE(r->rows.true_rows.Cardinality(), 2u * kDefaultZoneRows);
  for (uint32_t i = 500000; i <= 500100; ++i) ASSERT_TRUE(r->rows.true_rows.Contains(i));
  EXPECT_TRUE(r->rows.null_rows.IsEmpty());
  // Equality and IN are as tight.
  ASSERT_EQ(seg->CandidateZones(ScalarQuery::Equals(Value::Int64(123456)))->size(), 1u);
  ASSERT_EQ(seg->CandidateZones(ScalarQuery::In({Value::Int64(5), Value::Int64(999999)}))->size(), 2u);
  ASSERT_EQ(seg->CandidateZones(ScalarQuery::Equals(Value::Int64(-1)))->size(), 0u);
}

// Hand-made zones: [1, 2] with a NaN, all-NaN, all-NULL, [3, 4] with a NULL.
std::unique_ptr<ZoneMapSegment> NaNSegment() {
  Column c(TypeId::kDouble);
  double nan = std::nan("");
  for (double v : {1.0, 2.0, nan, nan, nan, nan}) c.Append<double>(v);
  c.AppendNull(), c.AppendNull(), c.AppendNull();
  c.Append<double>(3.0), c.AppendNull(), c.Append<double>(4.0);
  Fragments f;
  f[1] = std::move(c);
  return Build(TypeId::kDouble, f, 3);
}

std::vector<size_t> Zones(const ZoneMapSegment& seg, const ScalarQuery& q) {
  auto r = seg.CandidateZones(q);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<size_t>{};
}

TEST(ZoneMapSearch, NaNEqualsNaNAndSortsAboveNumbers) {
  auto seg = NaNSegment();
  ASSERT_NE(seg, nullptr);
  ASSERT_EQ(seg->ZonesTotal(), 4u);
  EXPECT_FALSE(seg->zones()[1].min.has_value());  // all NaN: no bounds
  EXPECT_FALSE(seg->zones()[2].min.has_value());  // all NULL: no bounds
  double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  using V = std::vector<size_t>;
  EXPECT_EQ(Zones(*seg, ScalarQuery::Equals(Value::Double(nan))), (V{0, 1}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Range(Value::Double(3.5), true, std::nullopt, true)), (V{0, 1, 3}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Range(Value::Double(0), true, Value::Double(inf), true)), (V{0, 3}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Range(std::nullopt, true, Value::Double(nan), false)), (V{0, 3}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Range(std::nullopt, true, Value::Double(nan), true)), (V{0, 1, 3}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Range(Value::Double(nan), false, std::nullopt, true)), (V{}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::In({Value::Double(2.5), Value::Double(nan)})), (V{0, 1}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::In({Value::Double(2.5)})), (V{}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::IsNull()), (V{2, 3}));
  // An empty range selects nothing, even with NaN zones around.
  EXPECT_EQ(Zones(*seg, ScalarQuery::Range(Value::Double(4), true, Value::Double(4), false)), (V{}));
}

TEST(ZoneMapSearch, NullRowsAreAllZonesWithNulls) {
  auto seg = NaNSegment();
  ASSERT_NE(seg, nullptr);
  auto r = seg->Search(ScalarQuery::Equals(Value::Double(3.0)), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.true_rows, RowSet::Range(1, 9, 12));
  EXPECT_EQ(r->rows.null_rows, RowSet::Range(1, 6, 12));  // overlaps true_rows in zone 3
  auto is_null = seg->Search(ScalarQuery::IsNull(), nullptr);
  ASSERT_TRUE(is_null.ok());
  EXPECT_EQ(is_null->rows.true_rows, RowSet::Range(1, 6, 12));
  EXPECT_TRUE(is_null->rows.null_rows.IsEmpty());
}

TEST(ZoneMapSearch, PrefixUsesBytewiseBounds) {
  Column c(TypeId::kString);
  for (const char* s : {"apple", "apricot", "banana", "b", "c\xc3\xa9", "d"}) ASSERT_TRUE(c.AppendString(s).ok());
  Fragments f;
  f[0] = std::move(c);
  auto seg = Build(TypeId::kString, f, 2);
  ASSERT_NE(seg, nullptr);
  using V = std::vector<size_t>;
  EXPECT_EQ(Zones(*seg, ScalarQuery::Prefix("ap")), (V{0}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Prefix("b")), (V{1}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Prefix("c\xc3")), (V{2}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Prefix("")), (V{0, 1, 2}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Prefix("\xff")), (V{}));
  EXPECT_EQ(Zones(*seg, ScalarQuery::Prefix("az")), (V{}));
}

TEST(ZoneMapSearch, MismatchedQueriesAreInvalidArgument) {
  Fragments f;
  Column c(TypeId::kInt64);
  c.Append<int64_t>(1);
  f[0] = std::move(c);
  auto seg = Build(TypeId::kInt64, f, 4);
  ASSERT_NE(seg, nullptr);
  EXPECT_TRUE(seg->Search(ScalarQuery::Prefix("a"), nullptr).status().IsInvalidArgument());
  EXPECT_TRUE(seg->Search(ScalarQuery::Equals(Value::String("1")), nullptr).status().IsInvalidArgument());
  EXPECT_TRUE(seg->Search(ScalarQuery::Equals(Value::Null(TypeId::kInt64)), nullptr).status().IsInvalidArgument());
  EXPECT_TRUE(seg->Search(ScalarQuery::In({Value::Bool(true)}), nullptr).status().IsInvalidArgument());
  // Numbers of other widths compare numerically.
  auto r = seg->CandidateZones(ScalarQuery::Range(Value::Double(0.5), true, Value::Int32(1), true));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 1u);
}

TEST(ZoneMapSearch, FromContentsValidatesAndSearchesWithoutAFile) {
  ZoneMapContents c;
  c.type = TypeId::kInt32;
  c.zone_rows = 10;
  Zone z;
  z.fragment_id = 4;
  z.length = 10;
  z.min = Value::Int32(-3);
  z.max = Value::Int32(3);
  c.zones = {z};
  auto seg = ZoneMapSegment::FromContents(c, "mem");
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  auto r = (*seg)->Search(ScalarQuery::Range(Value::Int32(3), true, std::nullopt, true), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.true_rows, RowSet::Range(4, 0, 10));
  c.zones[0].start = 2;  // a fragment's first zone must start at 0
  EXPECT_TRUE(ZoneMapSegment::FromContents(c, "mem").status().IsCorruption());
}

}  // namespace
}  // namespace lakeindex::index::zonemap
