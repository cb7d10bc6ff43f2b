// The conformance suite of index kinds: every kind the registry lists is built over random
// columns of every type (few distinct values, hostile ones among them, NULLs) and answers every
// query kind as a brute-force scan does — exactly for exact kinds, as a superset for pruning
// ones; counts, rows in key order, verify and rebuilds without a fragment too. A new kind is
// tested here by being registered.
#include "index/registry/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "table/table.h"
#include "util/test_util.h"

namespace lakeindex::index {
namespace {

using testing::Rng;

struct Column1 {
  std::unique_ptr<table::Table> table;
  std::map<uint64_t, Value> values;  // row address -> value (NULL rows included)
  std::vector<Value> pool;           // the distinct non-NULL values drawn from
};

// `rows` rows of one column "v" of `type` in fragments of 150 rows, values from a pool of at
// most 12 (hostile values first), 15% NULL.
Column1 MakeColumn(TypeId type, size_t rows, uint64_t seed) {
  Rng rng(seed);
  Column1 c;
  std::vector<Value> pool = testing::HostileValues(type);
  while (pool.size() < 12) pool.push_back(testing::RandomValue(type, rng));
  std::sort(pool.begin(), pool.end(), [](const Value& a, const Value& b) { return CompareValues(a, b) < 0; });
  pool.erase(std::unique(pool.begin(), pool.end(), [](const Value& a, const Value& b) { return CompareValues(a, b) == 0; }),
             pool.end());
  if (pool.size() > 12) {
    std::vector<Value> some;
    for (size_t i = 0; i < 12; ++i) some.push_back(pool[i * pool.size() / 12]);
    pool = some;
  }
  c.pool = pool;
  Schema schema;
  schema.AddField({"v", type, true});
  Batch b(schema);
  std::vector<Value> drawn;
  for (size_t i = 0; i < rows; ++i) {
    drawn.push_back(rng.Chance(0.15) ? Value::Null(type) : pool[rng.Uniform(pool.size())]);
    EXPECT_TRUE(b.mutable_column(0).AppendValue(drawn.back()).ok());
  }
  EXPECT_TRUE(b.Seal().ok());
  table::WriteConfig config;
  config.rows_per_file = 150;
  config.parquet.row_group_rows = 64;
  auto src = table::MemorySource(schema, {b});
  auto t = table::Table::Create(std::shared_ptr<ObjectStore>(NewMemoryStore()), src.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  c.table = std::move(*t);
  size_t row = 0;
  for (const auto& f : c.table->manifest().fragments) {
    for (uint32_t o = 0; o < f.rows; ++o) c.values[MakeRowAddress(f.id, o)] = drawn[row++];
  }
  return c;
}

ScalarQuery RandomQuery(TypeId type, const std::vector<Value>& pool, Rng& rng) {
  auto pick = [&] { return pool[rng.Uniform(pool.size())]; };
  switch (rng.Uniform(IsBytes(type) && type == TypeId::kString ? 5 : 4)) {
    case 0: return ScalarQuery::Equals(pick());
    case 1: {
      std::vector<Value> in;
      for (uint64_t i = 0, n = 1 + rng.Uniform(4); i < n; ++i) in.push_back(pick());
      return ScalarQuery::In(std::move(in));
    }
    case 2: {
      std::optional<Value> lo, hi;
      if (rng.Chance(0.8)) lo = pick();
      if (rng.Chance(0.8)) hi = pick();
      return ScalarQuery::Range(lo, rng.Chance(0.5), hi, rng.Chance(0.5));
    }
    case 3: return ScalarQuery::IsNull();
    default: {
      std::string s = pick().string_value();
      return ScalarQuery::Prefix(s.substr(0, rng.Uniform(s.size() + 1)));
    }
  }
}

// The brute-force answer over the rows of `fragments`.
NullableRowSet BruteForce(const Column1& c, const ScalarQuery& q, const std::set<uint32_t>& fragments) {
  NullableRowSet out;
  for (const auto& [address, v] : c.values) {
    if (!fragments.count(RowAddressFragment(address))) continue;
    if (v.is_null()) {
      (q.kind == ScalarQuery::Kind::kIsNull ? out.true_rows : out.null_rows).Add(address);
    } else if (q.kind != ScalarQuery::Kind::kIsNull && q.Matches(v)) {
      out.true_rows.Add(address);
    }
  }
  return out;
}

bool Contains(const RowSet& big, const RowSet& small) {
  RowSet outside = small;
  outside -= big;
  return outside.IsEmpty();
}

TEST(IndexKinds, TheRegistryFindsEachByName) {
  ASSERT_GE(IndexKinds().size(), 3u);
  for (const IndexKind* kind : IndexKinds()) {
    EXPECT_EQ(FindIndexKind(kind->name()), kind);
    EXPECT_FALSE(kind->summary().empty());
  }
  EXPECT_EQ(FindIndexKind("nope"), nullptr);
  Status st = IndexKindNamed("nope").status();
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_EQ(st.parameter(), "kind");
  EXPECT_NE(st.message().find(IndexKindNames()), std::string::npos) << st.ToString();
}

TEST(IndexKinds, ParametersAreCheckedByName) {
  const Field field{"v", TypeId::kInt64, true};
  for (const IndexKind* kind : IndexKinds()) {
    auto defaults = kind->Params(nlohmann::json::object(), field);
    ASSERT_TRUE(defaults.ok()) << kind->name() << ": " << defaults.status().ToString();
    EXPECT_TRUE(kind->Params(*defaults, field).ok()) << kind->name();  // its own defaults pass
    Status st = kind->Params(nlohmann::json{{"nope", 1}}, field).status();
    EXPECT_TRUE(st.IsInvalidArgument()) << kind->name();
    EXPECT_EQ(st.parameter(), "nope") << kind->name();
    for (const auto& [name, value] : defaults->items()) {
      for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(-1), nlohmann::json("3"), nlohmann::json(2.5)}) {
        Status wrong = kind->Params(nlohmann::json{{name, bad}}, field).status();
        EXPECT_TRUE(wrong.IsInvalidArgument()) << kind->name() << " " << name << "=" << bad.dump();
        EXPECT_EQ(wrong.parameter(), name);
      }
    }
  }
}

TEST(IndexKinds, EveryKindAnswersAsABruteForceScan) {
  const std::vector<TypeId> types = {TypeId::kInt64,  TypeId::kInt32, TypeId::kDouble,    TypeId::kFloat,
                                     TypeId::kString, TypeId::kBool,  TypeId::kDate,      TypeId::kTimestamp,
                                     TypeId::kBinary, TypeId::kUuid,  DecimalType(10, 2)};
  size_t checked = 0;
  for (size_t ti = 0; ti < types.size(); ++ti) {
    const TypeId type = types[ti];
    Column1 c = MakeColumn(type, 500, 0xb17a0000 + ti);
    ASSERT_NE(c.table, nullptr);
    const table::Table& t = *c.table;
    std::set<uint32_t> all_fragments;
    for (const auto& f : t.manifest().fragments) all_fragments.insert(f.id);
    for (const IndexKind* kind : IndexKinds()) {
      SCOPED_TRACE(std::string(kind->name()) + " on " + TypeName(type));
      IndexMeta meta;
      meta.name = "v_" + std::string(kind->name());
      meta.column = "v";
      meta.type = std::string(kind->name());
      auto params = kind->Params(nlohmann::json::object(), t.schema().field(0));
      ASSERT_TRUE(params.ok()) << params.status().ToString();
      meta.params = *params;
      SegmentBuild build{&t, &meta, t.manifest().fragments, {}, t.manifest().total_rows(), {}};
      auto uuid = kind->Build(build);
      ASSERT_TRUE(uuid.ok()) << uuid.status().ToString();
      auto segment = kind->Open(t.store(), *uuid);
      ASSERT_TRUE(segment.ok()) << segment.status().ToString();
      SegmentCoverage coverage;
      for (const auto& f : t.manifest().fragments) coverage.rows_of[f.id] = f.rows;
      auto verified = (*segment)->Verify(coverage, "segment");
      ASSERT_TRUE(verified.ok()) << verified.status().ToString();

      // A rebuild of the segment without its first fragment (as after optimize rewrote it).
      std::set<uint32_t> rest = all_fragments;
      rest.erase(rest.begin());
      SegmentMeta old;
      old.uuid = *uuid;
      old.fragments = all_fragments;
      SegmentBuild rebuild{&t, &meta, {}, {MergedSegment{old, rest}}, 0, {}};
      auto rebuilt_uuid = kind->Build(rebuild);
      ASSERT_TRUE(rebuilt_uuid.ok()) << rebuilt_uuid.status().ToString();
      auto rebuilt = kind->Open(t.store(), *rebuilt_uuid);
      ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();

      std::vector<std::pair<std::shared_ptr<const IndexSegment>, std::set<uint32_t>>> segments;
      segments.emplace_back(*segment, all_fragments);
      segments.emplace_back(*rebuilt, rest);
      Rng rng(0x9e3779b9 + ti);
      for (int i = 0; i < 60; ++i) {
        const ScalarQuery q = RandomQuery(type, c.pool, rng);
        SCOPED_TRACE(q.ToString("v"));
        for (const auto& [seg, fragments] : segments) {
          const NullableRowSet want = BruteForce(c, q, fragments);
          SearchCounters counters;
          auto got = seg->Search(q, &counters);
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          if (kind->exact()) {
            EXPECT_EQ(got->exactness, Exactness::kExact);
            EXPECT_EQ(got->rows.true_rows, want.true_rows);
            EXPECT_EQ(got->rows.null_rows, want.null_rows);
          } else {
            EXPECT_TRUE(Contains(got->rows.true_rows, want.true_rows));
            EXPECT_TRUE(Contains(got->rows.null_rows, want.null_rows) || q.kind == ScalarQuery::Kind::kIsNull);
          }
          if (kind->counts()) {
            auto n = seg->Count(q, nullptr);
            ASSERT_TRUE(n.ok()) << n.status().ToString();
            EXPECT_EQ(*n, want.true_rows.Cardinality());
          }
          ++checked;
        }
      }
      if (kind->ordered()) {
        // The first k rows in key order, NULLs never among them, ties by address.
        std::vector<std::pair<Value, uint64_t>> sorted;
        for (const auto& [address, v] : c.values) {
          if (!v.is_null()) sorted.emplace_back(v, address);
        }
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto& a, const auto& b) { return CompareValues(a.first, b.first) < 0; });
        auto first = (*segment)->FirstRows(false, 7, [](uint64_t) { return true; }, nullptr);
        ASSERT_TRUE(first.ok()) << first.status().ToString();
        std::vector<uint64_t> want;
        for (size_t i = 0; i < 7 && i < sorted.size(); ++i) want.push_back(sorted[i].second);
        std::vector<uint64_t> got = *first;
        got.resize(std::min(got.size(), size_t(7)));
        EXPECT_EQ(got, want);
      }
      // A query of another type is refused, not answered.
      const Value other = IsBytes(type) ? Value::Int64(1) : Value::String("x");
      EXPECT_TRUE((*segment)->Search(ScalarQuery::Equals(other), nullptr).status().IsInvalidArgument());
    }
  }
  EXPECT_GT(checked, 2000u);
}

}  // namespace
}  // namespace lakeindex::index
