// BTreeSegment: the seed article's running example, page counters, the lazy page_data reader,
// the page cache under concurrent searches, and one ranged read per leaf page.
#include <gtest/gtest.h>

#include <thread>

#include "common/thread_pool.h"
#include "index/btree/btree_test_util.h"

namespace lakeindex::index::btree {
namespace {

// The seed article's example: 16 rows r0..r15, pages of 4 rows.
//   P0: 10 12 14 18 | P1: 20 22 24 28 | P2: 30 32 35 40 | P3: 45 50 52 55
TEST(BTreeReader, SeedExample) {
  auto store = NewMemoryStore();
  const int64_t scores[16] = {24, 12, 32, 18, 20, 40, 14, 10, 28, 35, 30, 22, 45, 50, 52, 55};
  Column values(TypeId::kInt64);
  std::vector<uint64_t> addresses;
  for (int i = 0; i < 16; ++i) {
    values.Append<int64_t>(scores[i]);
    addresses.push_back(uint64_t(i));
  }
  BTreeBuildOptions options;
  options.page_rows = 4;
  PageCache cache(1 << 20);
  auto seg = testutil::BuildAndOpen(store.get(), values, addresses, options, {&cache, nullptr, true});
  ASSERT_EQ(seg->info().num_pages, 4u);
  EXPECT_EQ(seg->info().min->int_value(), 10);
  EXPECT_EQ(seg->info().max->int_value(), 55);
  SearchCounters counters;
  auto r = seg->Search(ScalarQuery::Range(Value::Int64(17), true, Value::Int64(33), false), &counters);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.true_rows.ToVector(), (std::vector<uint64_t>{0, 2, 3, 4, 8, 10, 11}));
  EXPECT_TRUE(r->rows.null_rows.IsEmpty());
  EXPECT_EQ(counters.pages_total, 4u);
  EXPECT_EQ(counters.pages_selected, 3u);   // P0, P1, P2; P3 excluded by its min
  EXPECT_EQ(counters.pages_all_match, 1u);  // P1
  EXPECT_EQ(counters.pages_read, 3u);
}

TEST(BTreeReader, KleeneInputsFromNullRows) {
  // x in [1, 5, NULL]: x < 2 is TRUE for 1, UNKNOWN for NULL, so NOT(x < 2) is [5] only.
  auto store = NewMemoryStore();
  Column values(TypeId::kInt64);
  values.Append<int64_t>(1);
  values.Append<int64_t>(5);
  values.AppendNull();
  auto seg = testutil::BuildAndOpen(store.get(), values, {0, 1, 2}, {});
  auto r = seg->Search(ScalarQuery::Range(std::nullopt, true, Value::Int64(2), false));
  ASSERT_TRUE(r.ok());
  const NullableRowSet negated = NullableRowSet::Not(r->rows, RowSet::Of({0, 1, 2}));
  EXPECT_EQ(negated.true_rows.ToVector(), std::vector<uint64_t>{1});
  EXPECT_EQ(negated.null_rows.ToVector(), std::vector<uint64_t>{2});
  auto is_null = seg->Search(ScalarQuery::IsNull());
  EXPECT_EQ(is_null->rows.true_rows.ToVector(), std::vector<uint64_t>{2});
  EXPECT_TRUE(is_null->rows.null_rows.IsEmpty());
}

struct Counted {
  std::shared_ptr<InstrumentedStore> store = std::make_shared<InstrumentedStore>(std::shared_ptr<ObjectStore>(NewMemoryStore()));
};

TEST(BTreeReader, ColdEqualityReadsOnePageAndNoNullPage) {
  Counted c;
  const size_t n = 20000;
  Column values(TypeId::kInt64);
  std::vector<uint64_t> addresses;
  lakeindex::testing::Rng rng(3);
  for (size_t i = 0; i < n; ++i) {
    if (rng.Chance(0.3)) {
      values.AppendNull();
    } else {
      values.Append<int64_t>(int64_t(i));
    }
    addresses.push_back(i);
  }
  BTreeBuildOptions options;
  options.page_rows = 256;
  PageCache cache(64 << 20);
  auto seg = testutil::BuildAndOpen(c.store.get(), values, addresses, options, {&cache, nullptr, true});
  c.store->counters().Reset();
  // Cold: page_data's size checked once, then one ranged read of the page (its footer unread).
  int64_t probe = 10001;
  while (values.IsNull(size_t(probe))) ++probe;
  SearchCounters counters;
  auto r = seg->Search(ScalarQuery::Equals(Value::Int64(probe)), &counters);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.true_rows.ToVector(), std::vector<uint64_t>{uint64_t(probe)});
  EXPECT_EQ(r->rows.null_rows.Cardinality(), seg->info().null_count);
  EXPECT_EQ(counters.pages_read, 1u);
  EXPECT_EQ(c.store->counters().read_requests.load(), 2u);
  EXPECT_GT(counters.bytes_read, 0u);
  // Hot: no request at all.
  c.store->counters().Reset();
  counters = {};
  ASSERT_TRUE(seg->Search(ScalarQuery::Equals(Value::Int64(probe)), &counters).ok());
  EXPECT_EQ(counters.pages_read, 0u);
  EXPECT_EQ(c.store->counters().read_requests.load(), 0u);
  // IS NULL reads no page at all.
  counters = {};
  auto nulls = seg->Search(ScalarQuery::IsNull(), &counters);
  EXPECT_EQ(nulls->rows.true_rows.Cardinality(), seg->info().null_count);
  EXPECT_EQ(counters.pages_read + counters.pages_selected, 0u);
}

TEST(BTreeReader, RangeOfKRowsReadsAtMostCeilKOverPagePlusOne) {
  auto store = NewMemoryStore();
  const size_t n = 10000;
  const Column values = testutil::RandomColumn(TypeId::kInt64, n, 11, 0.0, 0);
  const auto addresses = testutil::RandomAddresses(n, 12);
  BTreeBuildOptions options;
  options.page_rows = 100;
  lakeindex::testing::Rng rng(13);
  PageCache cache(64 << 20);
  auto seg = testutil::BuildAndOpen(store.get(), values, addresses, options, {&cache, nullptr, true});
  for (int trial = 0; trial < 50; ++trial) {
    Value a = values.GetValue(rng.Uniform(n)), b = values.GetValue(rng.Uniform(n));
    if (CompareValues(a, b) > 0) std::swap(a, b);
    SearchCounters counters;
    auto r = seg->Search(ScalarQuery::Range(a, true, b, true), &counters);
    ASSERT_TRUE(r.ok());
    const uint64_t k = r->rows.true_rows.Cardinality();
    EXPECT_LE(counters.pages_selected, (k + 99) / 100 + 1) << a.ToString() << ".." << b.ToString();
  }
}

TEST(BTreeReader, PageDataNotOpenedWhenAllPagesCached) {
  Counted c;
  const Column values = testutil::RandomColumn(TypeId::kString, 500, 21, 0.1, 50);
  const auto addresses = testutil::RandomAddresses(500, 22);
  BTreeBuildOptions options;
  options.page_rows = 32;
  PageCache cache(64 << 20);
  auto seg = testutil::BuildAndOpen(c.store.get(), values, addresses, options, {&cache, nullptr, true});
  c.store->counters().Reset();
  // A query whose candidate set is empty never touches the store.
  ASSERT_TRUE(seg->Search(ScalarQuery::Equals(Value::String("\xff\xff no such value"))).ok());
  ASSERT_TRUE(seg->Search(ScalarQuery::IsNull()).ok());
  EXPECT_EQ(c.store->counters().read_requests.load(), 0u);
  // Warm every page, then re-open: the new segment instance has its own cache keys, so it opens
  // page_data again on its first miss; the warmed one never does.
  ASSERT_TRUE(seg->Search(ScalarQuery::Range(std::nullopt, true, std::nullopt, true)).ok());
  c.store->counters().Reset();
  ASSERT_TRUE(seg->Search(ScalarQuery::Range(std::nullopt, true, std::nullopt, true)).ok());
  EXPECT_EQ(c.store->counters().read_requests.load(), 0u);
}

// A decoded leaf page is charged to the cache what it holds: its keys and addresses with no spare
// capacity (appending alone left up to half the key buffer unused; a prewarmed table's indexes
// were charged 4.7x their files).
TEST(BTreeReader, LeafPageChargedItsKeysAndAddresses) {
  for (TypeId type : {TypeId::kInt64, TypeId::kString}) {
    auto store = NewMemoryStore();
    const size_t n = 3000;
    const Column values = testutil::RandomColumn(type, n, 31, 0.0, 40);
    const auto addresses = testutil::RandomAddresses(n, 32);
    BTreeBuildOptions options;
    options.page_rows = 1000;
    PageCache cache(64 << 20);
    auto seg = testutil::BuildAndOpen(store.get(), values, addresses, options, {&cache, nullptr, true});
    ASSERT_EQ(seg->info().num_pages, 3u);
    for (uint32_t p = 0; p < 3; ++p) {
      auto page = seg->ReadPage(p);
      ASSERT_TRUE(page.ok()) << page.status().ToString();
      const LeafPage& leaf = **page;
      size_t key_bytes = 0;
      for (size_t i = 0; i < leaf.keys.size(); ++i) key_bytes += leaf.keys[i].size();
      const size_t offsets = type == TypeId::kString ? (leaf.keys.size() + 1) * sizeof(uint64_t) : sizeof(uint64_t);
      const size_t exact = sizeof(LeafPage) + key_bytes + offsets + leaf.addresses.size() * 8;
      EXPECT_LE(leaf.MemoryBytes(), exact + 64) << TypeName(type) << " page " << p;  // allocator rounding aside
    }
  }
}

TEST(BTreeReader, ConcurrentSearchesLoadEachMissOnce) {
  Counted c;
  const size_t n = 4000;
  const Column values = testutil::RandomColumn(TypeId::kInt64, n, 31, 0.1, 300);
  const auto addresses = testutil::RandomAddresses(n, 32);
  BTreeBuildOptions options;
  options.page_rows = 64;
  ThreadPool pool(4);
  auto seg0 = testutil::BuildAndOpen(c.store.get(), values, addresses, options);
  const auto queries = testutil::RandomQueries(values, 33, 40);
  std::vector<NullableRowSet> want;
  for (const auto& q : queries) want.push_back(testutil::BruteForce(values, addresses, q));

  for (size_t capacity : {size_t(1) << 30, size_t(20000)}) {  // everything fits / a few pages fit
    PageCache cache(capacity);
    auto seg = BTreeSegment::Open(c.store.get(), seg0->info().uuid, {&cache, &pool, true});
    ASSERT_TRUE(seg.ok());
    ASSERT_TRUE((*seg)->Search(ScalarQuery::Equals(Value::Int64(0))).ok());  // opens page_data
    c.store->counters().Reset();
    std::atomic<uint64_t> loads{0};
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 3; ++round) {
          for (size_t i = 0; i < queries.size(); ++i) {
            const size_t qi = (i + size_t(t) * 5) % queries.size();
            SearchCounters counters;
            auto r = (*seg)->Search(queries[qi], &counters);
            if (!r.ok() || !(r->rows == want[qi])) mismatches.fetch_add(1);
            loads.fetch_add(counters.pages_read);
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(mismatches.load(), 0);
    // Every page load is exactly one ranged read, and counted once however many threads waited.
    EXPECT_EQ(c.store->counters().read_requests.load(), loads.load());
    if (capacity > (size_t(1) << 20)) {
      EXPECT_LE(loads.load(), (*seg)->info().num_pages);
    }
    EXPECT_LE(cache.size_bytes(), capacity);
  }
}

}  // namespace
}  // namespace lakeindex::index::btree
