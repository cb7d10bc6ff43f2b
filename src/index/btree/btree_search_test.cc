// Conformance: every query kind on every type against a brute-force scan, over random data with
// NULLs, hostile values, duplicates spanning page boundaries and tiny pages.
#include <gtest/gtest.h>

#include "common/thread_pool.h"
#include "index/btree/btree_test_util.h"

namespace lakeindex::index::btree {
namespace {

using testutil::BruteForce;

struct Case {
  TypeId type;
  uint32_t page_rows;
  size_t rows;
  size_t distinct;  // 0: unrestricted
  double null_fraction;
};

std::string CaseName(const Case& c) {
  return std::string(TypeName(c.type)) + "_p" + std::to_string(c.page_rows) + "_n" + std::to_string(c.rows) + "_d" +
         std::to_string(c.distinct) + "_null" + std::to_string(int(c.null_fraction * 100));
}

class BTreeSearchTest : public ::testing::TestWithParam<Case> {};

TEST_P(BTreeSearchTest, MatchesBruteForce) {
  const Case c = GetParam();
  auto store = NewMemoryStore();
  const uint64_t seed = std::hash<std::string>{}(CaseName(c));
  const Column values = testutil::RandomColumn(c.type, c.rows, seed, c.null_fraction, c.distinct);
  const std::vector<uint64_t> addresses = testutil::RandomAddresses(c.rows, seed + 1);
  BTreeBuildOptions options;
  options.page_rows = c.page_rows;
  PageCache cache(size_t(1) << 20);
  BTreeSegmentOptions open_options;
  open_options.cache = &cache;
  auto seg = testutil::BuildAndOpen(store.get(), values, addresses, options, open_options);
  ASSERT_NE(seg, nullptr);
  EXPECT_EQ(seg->info().num_rows + seg->info().null_count, c.rows);
  size_t hits = 0;  // queries with TRUE rows: the random queries must not all miss
  for (const ScalarQuery& q : testutil::RandomQueries(values, seed + 2, 150)) {
    SearchCounters counters;
    auto got = seg->Search(q, &counters);
    ASSERT_TRUE(got.ok()) << q.ToString("c") << ": " << got.status().ToString();
    EXPECT_EQ(got->exactness, Exactness::kExact);
    const NullableRowSet want = BruteForce(values, addresses, q);
    EXPECT_EQ(got->rows.true_rows.ToVector(), want.true_rows.ToVector()) << q.ToString("c");
    EXPECT_EQ(got->rows.null_rows.ToVector(), want.null_rows.ToVector()) << q.ToString("c");
    hits += want.true_rows.IsEmpty() ? 0 : 1;
    EXPECT_LE(counters.pages_all_match, counters.pages_selected);
    EXPECT_LE(counters.pages_read, counters.pages_selected);
    EXPECT_EQ(counters.pages_total, seg->info().num_pages);
    // Count: the same number from the directory, reading only pages an interval cuts (a range
    // cuts at most two).
    SearchCounters count_counters;
    auto count = seg->Count(q, &count_counters);
    ASSERT_TRUE(count.ok()) << q.ToString("c") << ": " << count.status().ToString();
    EXPECT_EQ(*count, want.true_rows.Cardinality()) << q.ToString("c");
    const uint64_t cut = count_counters.pages_selected - count_counters.pages_all_match;  // pages looked into
    EXPECT_LE(count_counters.pages_read, cut) << q.ToString("c");
    if (q.kind == ScalarQuery::Kind::kRange || q.kind == ScalarQuery::Kind::kEquals) {
      EXPECT_LE(cut, 2u) << q.ToString("c");
    }
  }
  if (c.rows >= 100 && c.null_fraction < 1) {
    EXPECT_GT(hits, 50u);
  }
}

std::vector<Case> Cases() {
  std::vector<Case> out;
  const TypeId types[] = {TypeId::kBool,   TypeId::kInt32, TypeId::kInt64, TypeId::kFloat,
                          TypeId::kDouble, TypeId::kString, TypeId::kDate, TypeId::kTimestamp};
  for (TypeId t : types) {
    out.push_back({t, 64, 2000, 0, 0.1});
    out.push_back({t, 3, 300, 7, 0.1});   // many duplicates across tiny pages
  }
  for (uint32_t p : {1u, 2u, 3u, 256u}) out.push_back({TypeId::kInt64, p, 700, 40, 0.1});
  for (uint32_t p : {1u, 2u, 5u}) out.push_back({TypeId::kString, p, 400, 30, 0.1});
  out.push_back({TypeId::kDouble, 4096, 9000, 0, 0.1});
  out.push_back({TypeId::kInt64, 16, 500, 0, 1.0});   // all NULL: no pages
  out.push_back({TypeId::kInt64, 16, 500, 0, 0.0});   // no NULL
  out.push_back({TypeId::kString, 16, 500, 3, 0.7});  // NULL-heavy
  out.push_back({TypeId::kInt64, 4, 0, 0, 0.1});      // empty segment
  out.push_back({TypeId::kDouble, 4, 1, 0, 0.0});     // one row
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, BTreeSearchTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return CaseName(info.param); });

TEST(BTreeSearch, SerialAndParallelAgree) {
  auto store = NewMemoryStore();
  const Column values = testutil::RandomColumn(TypeId::kInt64, 3000, 5, 0.1, 100);
  const auto addresses = testutil::RandomAddresses(3000, 6);
  BTreeBuildOptions options;
  options.page_rows = 16;
  ThreadPool pool(4);
  PageCache cache_a(1 << 20), cache_b(1 << 20);
  auto parallel = testutil::BuildAndOpen(store.get(), values, addresses, options, {&cache_a, &pool, true});
  auto serial = BTreeSegment::Open(store.get(), parallel->info().uuid, {&cache_b, &pool, false});
  ASSERT_TRUE(serial.ok());
  for (const ScalarQuery& q : testutil::RandomQueries(values, 7, 50)) {
    auto a = parallel->Search(q);
    auto b = (*serial)->Search(q);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->rows, b->rows) << q.ToString("c");
  }
}

TEST(BTreeSearch, WrongLiteralTypeIsInvalidArgument) {
  auto store = NewMemoryStore();
  Column values(TypeId::kInt64);
  values.Append<int64_t>(1);
  auto seg = testutil::BuildAndOpen(store.get(), values, {1}, {});
  EXPECT_TRUE(seg->Search(ScalarQuery::Equals(Value::String("x"))).status().IsInvalidArgument());
  EXPECT_TRUE(seg->Search(ScalarQuery::Prefix("x")).status().IsInvalidArgument());
  EXPECT_TRUE(seg->Search(ScalarQuery::Equals(Value::Double(1.5))).status().IsInvalidArgument());
}

}  // namespace
}  // namespace lakeindex::index::btree
