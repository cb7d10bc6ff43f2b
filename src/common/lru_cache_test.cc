#include "common/lru_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace lakeindex {
namespace {

LruCache::Loader Bytes(size_t n, std::atomic<int>* calls = nullptr) {
  return [n, calls]() -> Result<LruCache::Loaded> {
    if (calls) ++*calls;
    return LruCache::Loaded{std::make_shared<const std::string>(n, 'x'), n};
  };
}

TEST(LruCache, EvictsLeastRecentlyUsedByCharge) {
  LruCache cache(300);
  for (uint64_t k = 0; k < 3; ++k) ASSERT_TRUE(cache.GetOrLoad({1, k}, Bytes(100)).ok());
  ASSERT_NE(cache.Lookup({1, 0}), nullptr);  // 0 is now the most recent: 1 goes next
  ASSERT_TRUE(cache.GetOrLoad({1, 3}, Bytes(100)).ok());
  EXPECT_EQ(cache.Lookup({1, 1}), nullptr);
  EXPECT_NE(cache.Lookup({1, 0}), nullptr);
  EXPECT_NE(cache.Lookup({1, 3}), nullptr);
  EXPECT_EQ(cache.size_bytes(), 300u);
  cache.SetCapacity(150);
  EXPECT_LE(cache.size_bytes(), 150u);
  EXPECT_EQ(cache.num_entries(), 1u);
}

TEST(LruCache, OversizedEntryIsReturnedNotKept) {
  LruCache cache(64);
  auto v = cache.GetOrLoadAs<std::string>({1, 1}, []() -> Result<std::pair<std::shared_ptr<const std::string>, size_t>> {
    return std::make_pair(std::make_shared<const std::string>("big"), size_t(65));
  });
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(**v, "big");
  EXPECT_EQ(cache.num_entries(), 0u);
}

TEST(LruCache, FailedLoadIsNotCachedAndOwnersAreSeparate) {
  LruCache cache(1 << 20);
  auto r = cache.GetOrLoad({1, 0}, []() -> Result<LruCache::Loaded> { return Status::IOError("boom"); });
  EXPECT_FALSE(r.ok());
  bool loaded = false;
  ASSERT_TRUE(cache.GetOrLoad({1, 0}, Bytes(4), &loaded).ok());
  EXPECT_TRUE(loaded);
  ASSERT_TRUE(cache.GetOrLoad({2, 0}, Bytes(4), &loaded).ok());
  EXPECT_TRUE(loaded);  // another owner's item 0 is another entry
  EXPECT_NE(LruCache::NewOwnerId(), LruCache::NewOwnerId());
}

// Many threads loading overlapping keys: each key is loaded once while it stays cached, and the
// bytes held never pass the budget (checked by a watcher while the loads run).
TEST(LruCache, HonoursItsBudgetUnderConcurrentLoads) {
  constexpr size_t kCapacity = 64 << 10;
  LruCache cache(kCapacity, 8);
  std::atomic<bool> stop{false};
  std::atomic<size_t> worst{0};
  std::thread watcher([&] {
    while (!stop.load()) {
      worst.store(std::max(worst.load(), cache.size_bytes()));
      std::this_thread::yield();
    }
  });
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng{uint64_t(t)};
      for (int i = 0; i < 4000; ++i) {
        const uint64_t k = rng() % 200;
        auto v = cache.GetOrLoad({7, k}, Bytes(200 + size_t(k) * 10, &calls));
        ASSERT_TRUE(v.ok());
        ASSERT_EQ(std::static_pointer_cast<const std::string>(*v)->size(), 200 + size_t(k) * 10);
      }
    });
  }
  for (auto& th : threads) th.join();
  stop = true;
  watcher.join();
  EXPECT_LE(worst.load(), kCapacity);
  EXPECT_LE(cache.size_bytes(), kCapacity);
  EXPECT_GT(cache.hits(), 0u);
  EXPECT_EQ(cache.misses(), uint64_t(calls.load()));
}

TEST(LruCache, ConcurrentMissesOnOneKeyLoadOnce) {
  LruCache cache(1 << 20, 4);
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      auto v = cache.GetOrLoad({3, 9}, [&]() -> Result<LruCache::Loaded> {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return LruCache::Loaded{std::make_shared<const int>(42), sizeof(int)};
      });
      ASSERT_TRUE(v.ok());
      EXPECT_EQ(*std::static_pointer_cast<const int>(*v), 42);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace lakeindex
