#include "ops/prewarm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

#include "common/lru_cache.h"
#include "lakeindex/events.h"
#include "ops/operations.h"
#include "ops/read.h"
#include "query/index_manager.h"

namespace lakeindex::ops {
namespace {

struct Fixture {
  std::shared_ptr<InstrumentedStore> store = std::make_shared<InstrumentedStore>(NewMemoryStore());
  std::unique_ptr<table::Table> table;

  explicit Fixture(uint64_t rows) {
    EventsGenerator gen(rows, 7);
    std::vector<Batch> batches;
    Batch b;
    while (gen.Next(4096, &b)) batches.push_back(std::move(b));
    auto src = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
    table::WriteConfig config;
    config.rows_per_file = 5000;
    auto created = table::Table::Create(store, src.get(), config);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    query::IndexOptions options;
    options.column = "score";
    options.type = "btree";
    EXPECT_TRUE(ops::CreateIndex(created->get(), options).ok());
    // A new table object over the same files: nothing of it is in the cache yet.
    auto opened = table::Table::Open(store);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    table = std::move(*opened);
    store->counters().Reset();
  }

  // Whole rows of score = k: the scores, and the store's bytes read for them.
  std::pair<std::vector<int64_t>, uint64_t> Lookup(int64_t k) {
    store->counters().Reset();
    auto rows = Read(*table, ReadRequest{"score = " + std::to_string(k)});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<int64_t> scores;
    Batch b;
    while (rows.ok() && *(*rows)->Next(&b)) {
      const int c = b.schema().FindField("score");
      for (size_t r = 0; r < b.num_rows(); ++r) scores.push_back(b.column(size_t(c)).Get<int64_t>(r));
    }
    return {scores, store->counters().bytes_read.load()};
  }
};

// After a prewarm of the whole table, lookups of keys never looked up read nothing from the
// store, and return what the same lookups return cold.
TEST(PrewarmTest, AfterAPrewarmNewKeysReadNothingFromTheStore) {
  Fixture cold(20000);
  std::mt19937_64 rng(52);
  std::vector<int64_t> keys;
  for (int i = 0; i < 20; ++i) keys.push_back(int64_t(rng() % 20000));
  std::vector<std::vector<int64_t>> expected;
  for (int64_t k : keys) expected.push_back(cold.Lookup(k).first);

  Fixture warm(20000);
  auto report = Prewarm(*warm.table, PrewarmRequest{});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->complete);
  EXPECT_GT(report->data_bytes, 0u);
  EXPECT_GT(report->index_bytes, 0u);
  EXPECT_GT(report->index_pages, 0u);
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [scores, bytes] = warm.Lookup(keys[i]);
    EXPECT_EQ(scores, expected[i]) << "score = " << keys[i];
    EXPECT_EQ(bytes, 0u) << "score = " << keys[i] << " read from the store after the prewarm";
  }
  // A second prewarm finds everything held: it reads nothing.
  warm.store->counters().Reset();
  auto again = Prewarm(*warm.table, PrewarmRequest{});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->data_bytes + again->index_bytes, 0u);
  EXPECT_EQ(warm.store->counters().bytes_read.load(), 0u);
}

TEST(PrewarmTest, ColumnsAndTheBudgetLimitWhatIsRead) {
  Fixture f(20000);
  PrewarmRequest only_score;
  only_score.columns = {"SCORE"};  // resolved as filters resolve names
  only_score.indexes = false;
  auto one = Prewarm(*f.table, only_score);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->index_bytes, 0u);
  EXPECT_GT(one->data_bytes, 0u);
  EXPECT_LT(f.store->counters().bytes_read.load(), one->data_bytes * 3 / 2) << "read more than the score column";

  Fixture whole(20000);
  PrewarmRequest data_only;
  data_only.indexes = false;
  auto all = Prewarm(*whole.table, data_only);
  ASSERT_TRUE(all.ok());
  const uint64_t tails = whole.store->counters().bytes_read.load() - all->data_bytes;  // footers and page indexes

  Fixture g(20000);
  PrewarmRequest small = data_only;
  small.max_bytes = all->data_bytes / 2;
  auto part = Prewarm(*g.table, small);
  ASSERT_TRUE(part.ok());
  EXPECT_FALSE(part->complete);
  EXPECT_GT(part->data_bytes, 0u);
  EXPECT_LE(part->data_bytes, *small.max_bytes);
  EXPECT_LE(g.store->counters().bytes_read.load(), *small.max_bytes + tails);
  // An index page is read whole: a budget of one byte reads one.
  PrewarmRequest one_page;
  one_page.max_bytes = 1;
  one_page.data = false;
  auto index_part = Prewarm(*g.table, one_page);
  ASSERT_TRUE(index_part.ok());
  EXPECT_EQ(index_part->index_pages, 1u);
  EXPECT_FALSE(index_part->complete);

  PrewarmRequest bad;
  bad.columns = {"scroe"};
  auto err = Prewarm(*g.table, bad);
  ASSERT_FALSE(err.ok());
  EXPECT_TRUE(err.status().IsInvalidArgument());
  EXPECT_NE(err.status().ToString().find("scroe"), std::string::npos) << err.status().ToString();
  EXPECT_NE(err.status().ToString().find("score"), std::string::npos) << err.status().ToString();
}

// A table whose decoded pages pass 80% of the cache is held whole when the prewarm is given the
// room (cache_capacity): the process cache grows, and new keys then read nothing (at 10M rows
// the events table decodes to about 1.3 GB, above the default 1 GiB; here 20,000 rows against
// a cache shrunk to 256 KiB).
TEST(PrewarmTest, CacheCapacityHoldsATableLargerThanTheCache) {
  LruCache* cache = LruCache::Default();
  const size_t before = cache->capacity_bytes();
  cache->SetCapacity(256 << 10);
  Fixture cold(20000);
  std::mt19937_64 rng(53);
  std::vector<int64_t> keys;
  for (int i = 0; i < 20; ++i) keys.push_back(int64_t(rng() % 20000));
  std::vector<std::vector<int64_t>> expected;
  for (int64_t k : keys) expected.push_back(cold.Lookup(k).first);

  Fixture small(20000);
  auto stopped = Prewarm(*small.table, PrewarmRequest{});
  ASSERT_TRUE(stopped.ok()) << stopped.status().ToString();
  EXPECT_FALSE(stopped->complete);
  EXPECT_EQ(stopped->cache_capacity, 256u << 10);
  uint64_t read_after_stopped = 0;
  for (int64_t k : keys) read_after_stopped += small.Lookup(k).second;
  EXPECT_GT(read_after_stopped, 0u) << "a prewarm that stopped early held everything anyway";

  Fixture roomy(20000);
  PrewarmRequest request;
  request.cache_capacity = 256 << 20;
  auto held = Prewarm(*roomy.table, request);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_TRUE(held->complete);
  EXPECT_EQ(held->cache_capacity, 256u << 20);
  EXPECT_EQ(cache->capacity_bytes(), 256u << 20);
  EXPECT_GT(held->cache_bytes, 256u << 10);
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [scores, bytes] = roomy.Lookup(keys[i]);
    EXPECT_EQ(scores, expected[i]) << "score = " << keys[i];
    EXPECT_EQ(bytes, 0u) << "score = " << keys[i] << " read from the store after the prewarm";
  }
  // Never lowered: a smaller cache_capacity leaves the cache as it is.
  PrewarmRequest lower;
  lower.cache_capacity = 1 << 20;
  auto again = Prewarm(*roomy.table, lower);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(cache->capacity_bytes(), 256u << 20);
  EXPECT_EQ(again->data_bytes + again->index_bytes, 0u);
  cache->SetCapacity(before);
}

}  // namespace
}  // namespace lakeindex::ops
