// Merge and remap produce the same segment as a rebuild from the resulting rows.
#include "index/btree/btree_merge.h"

#include <gtest/gtest.h>

#include "index/btree/btree_test_util.h"

namespace lakeindex::index::btree {
namespace {

Column Concat(const Column& a, const Column& b) {
  Column c(a.type());
  c.AppendSlice(a, 0, a.length());
  c.AppendSlice(b, 0, b.length());
  return c;
}

TEST(BTreeMerge, MergeWithNewDataEqualsRebuild) {
  lakeindex::testing::TempDir dir;
  for (TypeId type : {TypeId::kInt64, TypeId::kString, TypeId::kDouble}) {
    auto store = NewMemoryStore();
    const Column old_values = testutil::RandomColumn(type, 1500, 1, 0.1, 100);
    const Column new_values = testutil::RandomColumn(type, 700, 2, 0.1, 100);
    std::vector<uint64_t> old_addr, new_addr;
    for (uint32_t i = 0; i < 1500; ++i) old_addr.push_back(MakeRowAddress(0, i));
    for (uint32_t i = 0; i < 700; ++i) new_addr.push_back(MakeRowAddress(1, i));
    BTreeBuildOptions options;
    options.page_rows = 50;
    auto old_seg = testutil::BuildAndOpen(store.get(), old_values, old_addr, options);
    BTreeBuildOptions small = options;
    small.memory_budget_bytes = 2048;  // the new data goes through spilled runs too
    small.spill_dir = dir.path();
    auto merged_info = MergeSegment(store.get(), old_seg, new_values, new_addr, small);
    ASSERT_TRUE(merged_info.ok()) << merged_info.status().ToString();
    auto merged = BTreeSegment::Open(store.get(), merged_info->uuid);
    ASSERT_TRUE(merged.ok());
    std::vector<uint64_t> all_addr = old_addr;
    all_addr.insert(all_addr.end(), new_addr.begin(), new_addr.end());
    const Column all_values = Concat(old_values, new_values);
    auto rebuilt = testutil::BuildAndOpen(store.get(), all_values, all_addr, options);
    EXPECT_EQ(testutil::DumpSegment(**merged), testutil::DumpSegment(*rebuilt));
    EXPECT_EQ((*merged)->directory().checksum, rebuilt->directory().checksum);
    // And the old segment is untouched.
    EXPECT_EQ(old_seg->info().num_rows + old_seg->info().null_count, 1500u);
    for (const ScalarQuery& q : testutil::RandomQueries(all_values, 3, 30)) {
      auto got = (*merged)->Search(q);
      ASSERT_TRUE(got.ok());
      EXPECT_EQ(got->rows, testutil::BruteForce(all_values, all_addr, q)) << q.ToString("c");
    }
  }
}

TEST(BTreeMerge, MergeSegmentsEqualsRebuild) {
  auto store = NewMemoryStore();
  const Column a = testutil::RandomColumn(TypeId::kInt32, 400, 4, 0.1, 30);
  const Column b = testutil::RandomColumn(TypeId::kInt32, 300, 5, 0.3, 30);
  std::vector<uint64_t> aa = testutil::RandomAddresses(400, 6), ba;
  for (uint32_t i = 0; i < 300; ++i) ba.push_back(MakeRowAddress(7, i));
  BTreeBuildOptions options;
  options.page_rows = 7;
  auto sa = testutil::BuildAndOpen(store.get(), a, aa, options);
  auto sb = testutil::BuildAndOpen(store.get(), b, ba, options);
  auto info = MergeSegments(store.get(), {sa, sb}, options);
  ASSERT_TRUE(info.ok());
  auto merged = BTreeSegment::Open(store.get(), info->uuid);
  std::vector<uint64_t> all = aa;
  all.insert(all.end(), ba.begin(), ba.end());
  auto rebuilt = testutil::BuildAndOpen(store.get(), Concat(a, b), all, options);
  EXPECT_EQ(testutil::DumpSegment(**merged), testutil::DumpSegment(*rebuilt));
  // Different value types do not merge.
  auto sc = testutil::BuildAndOpen(store.get(), testutil::RandomColumn(TypeId::kString, 10, 8, 0, 0),
                                   testutil::RandomAddresses(10, 9), options);
  EXPECT_TRUE(MergeSegments(store.get(), {sa, sc}, options).status().IsInvalidArgument());
}

TEST(BTreeMerge, RemapEqualsRebuild) {
  auto store = NewMemoryStore();
  const size_t n = 1000;
  const Column values = testutil::RandomColumn(TypeId::kString, n, 10, 0.15, 60);
  std::vector<uint64_t> addr;
  for (uint32_t i = 0; i < n; ++i) addr.push_back(MakeRowAddress(i % 4, i / 4));
  BTreeBuildOptions options;
  options.page_rows = 13;
  auto seg = testutil::BuildAndOpen(store.get(), values, addr, options);
  // Compaction: fragments 0..3 become fragment 9, rows in order; every 5th row was deleted.
  std::map<uint64_t, uint64_t> mapping;
  Column kept(TypeId::kString);
  std::vector<uint64_t> kept_addr;
  uint32_t next = 0;
  for (uint32_t frag = 0; frag < 4; ++frag) {
    for (size_t i = frag; i < n; i += 4) {
      if (i % 5 == 0) continue;
      mapping[addr[i]] = MakeRowAddress(9, next);
      kept.AppendSlice(values, i, 1);
      kept_addr.push_back(MakeRowAddress(9, next));
      ++next;
    }
  }
  auto info = Remap(store.get(), *seg, [&](uint64_t a) -> std::optional<uint64_t> {
    auto it = mapping.find(a);
    if (it == mapping.end()) return std::nullopt;
    return it->second;
  }, options);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  auto remapped = BTreeSegment::Open(store.get(), info->uuid);
  auto rebuilt = testutil::BuildAndOpen(store.get(), kept, kept_addr, options);
  EXPECT_EQ(testutil::DumpSegment(**remapped), testutil::DumpSegment(*rebuilt));
  EXPECT_EQ((*remapped)->info().num_rows + (*remapped)->info().null_count, kept_addr.size());
}

}  // namespace
}  // namespace lakeindex::index::btree
