#include "index/btree/btree_page_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace lakeindex::index::btree {
namespace {

PageCache::PagePtr MakePage(size_t rows) {
  auto p = std::make_shared<LeafPage>();
  p->keys = KeyArray(kFixedKeyWidth);
  for (size_t i = 0; i < rows; ++i) p->keys.Append(std::string(8, char(i)));
  p->addresses.assign(rows, 7);
  return p;
}

TEST(PageCache, ConcurrentMissesLoadOnce) {
  PageCache cache(1 << 20);
  std::atomic<int> loads{0}, ran{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      bool loaded = false;
      auto r = cache.GetOrLoad(1, 5, [&]() -> Result<PageCache::PagePtr> {
        loads.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return MakePage(10);
      }, &loaded);
      EXPECT_TRUE(r.ok());
      EXPECT_EQ((*r)->addresses.size(), 10u);
      ran.fetch_add(loaded ? 1 : 0);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(loads.load(), 1);
  EXPECT_EQ(ran.load(), 1);
}

TEST(PageCache, EvictsLeastRecentlyUsedByBytes) {
  const size_t page_bytes = MakePage(100)->MemoryBytes();
  PageCache cache(page_bytes * 3);
  for (uint32_t p = 0; p < 3; ++p) ASSERT_TRUE(cache.GetOrLoad(1, p, [] { return Result<PageCache::PagePtr>(MakePage(100)); }).ok());
  ASSERT_NE(cache.Lookup(1, 0), nullptr);  // touch page 0: page 1 becomes the oldest
  ASSERT_TRUE(cache.GetOrLoad(1, 3, [] { return Result<PageCache::PagePtr>(MakePage(100)); }).ok());
  EXPECT_EQ(cache.Lookup(1, 1), nullptr);
  EXPECT_NE(cache.Lookup(1, 0), nullptr);
  EXPECT_NE(cache.Lookup(1, 3), nullptr);
  EXPECT_LE(cache.size_bytes(), cache.capacity_bytes());
  EXPECT_EQ(cache.Lookup(2, 0), nullptr);  // other segment id
}

TEST(PageCache, FailedLoadIsNotCached) {
  PageCache cache(1 << 20);
  auto r = cache.GetOrLoad(1, 0, [] { return Result<PageCache::PagePtr>(Status::IOError("boom")); });
  EXPECT_TRUE(r.status().IsIOError());
  bool loaded = false;
  auto again = cache.GetOrLoad(1, 0, [] { return Result<PageCache::PagePtr>(MakePage(1)); }, &loaded);
  EXPECT_TRUE(again.ok());
  EXPECT_TRUE(loaded);
}

TEST(PageCache, OversizedPageIsReturnedNotKept) {
  PageCache cache(16);
  auto r = cache.GetOrLoad(1, 0, [] { return Result<PageCache::PagePtr>(MakePage(100)); });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(cache.num_pages(), 0u);
}

}  // namespace
}  // namespace lakeindex::index::btree
