#include <gtest/gtest.h>

#include <chrono>

#include "io/store_conformance.h"
#include "lakeindex/object_store.h"

namespace lakeindex {
namespace {

INSTANTIATE_TEST_SUITE_P(Memory, ObjectStoreConformance,
                         ::testing::Values(StoreFactory{"memory",
                                                        [](const std::string&) {
                                                          return std::shared_ptr<ObjectStore>(
                                                              NewMemoryStore());
                                                        }}),
                         StoreFactoryName);

TEST(MemoryStoreTest, DescribeAndIndependentInstances) {
  auto a = NewMemoryStore();
  auto b = NewMemoryStore();
  EXPECT_EQ(a->Describe(), "memory://");
  ASSERT_TRUE(a->Write("k", "v").ok());
  EXPECT_TRUE(b->Read("k").status().IsNotFound());
}

TEST(MemoryStoreTest, ListReportsWriteTime) {
  auto store = NewMemoryStore();
  const int64_t before = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  ASSERT_TRUE(store->Write("k", "abc").ok());
  auto list = store->List("");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].size, 3u);
  EXPECT_GE((*list)[0].mtime_ms, before);
}

TEST(MemoryStoreTest, ReadReturnsACopyUnaffectedByLaterWrites) {
  auto store = NewMemoryStore();
  ASSERT_TRUE(store->Write("k", "old").ok());
  std::string got = store->Read("k").value();
  ASSERT_TRUE(store->Write("k", "new!").ok());
  EXPECT_EQ(got, "old");
}

}  // namespace
}  // namespace lakeindex
