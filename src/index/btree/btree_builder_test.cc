// Builder and external sort: a tiny memory budget (spilled runs, multi-pass merge) gives the
// same segment as an in-memory build; bad input is refused; scratch files are removed.
#include <gtest/gtest.h>

#include <filesystem>

#include "index/btree/btree_test_util.h"

namespace lakeindex::index::btree {
namespace {

using Entries = std::vector<std::pair<std::string, uint64_t>>;

// Finishes `sorter` and returns every entry of its stream, in order.
Entries Drain(ExternalSorter* sorter) {
  Entries out;
  auto stream = sorter->Finish();
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  if (!stream.ok()) return out;
  SortedEntry e;
  for (;;) {
    auto more = (*stream)->Next(&e);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) return out;
    out.emplace_back(std::string(e.key), e.address);
  }
}

TEST(ExternalSorter, SpillsAndMergesInOrder) {
  lakeindex::testing::TempDir dir;
  lakeindex::testing::Rng rng(1);
  Entries want;
  {
    ExternalSorter sorter(0, 2000, dir.path());
    for (uint64_t i = 0; i < 20000; ++i) {
      // Keys longer and shorter than 8 bytes, NULs among them: the merge orders heads by their
      // first 8 bytes, then by length or by the whole key.
      std::string key(rng.Uniform(13), "\0ab"[rng.Uniform(3)]);
      if (rng.Uniform(4) == 0) key += char('a' + rng.Uniform(3));
      ASSERT_TRUE(sorter.Add(key, i).ok());
      want.emplace_back(key, i);
    }
    EXPECT_GT(sorter.runs_spilled(), ExternalSorter::kMaxFanIn);  // exercises the multi-pass merge
    std::sort(want.begin(), want.end());
    EXPECT_EQ(Drain(&sorter), want);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));  // run files deleted
}

// Fixed-width keys spill in their compact run format (key steps and addresses as varints):
// extreme keys, long runs of one key with addresses far apart and close together, the multi-pass
// merge and the buffer sized up front all come back in (key, address) order.
TEST(ExternalSorter, FixedKeysSpillCompactlyAndMergeInOrder) {
  lakeindex::testing::TempDir dir;
  lakeindex::testing::Rng rng(2);
  std::vector<std::pair<uint64_t, uint64_t>> want;
  for (uint64_t expected : {uint64_t(0), uint64_t(30000)}) {
    want.clear();
    ExternalSorter sorter(kFixedKeyWidth, 2000, dir.path(), expected);
    for (uint64_t i = 0; i < 30000; ++i) {
      uint64_t key;
      switch (rng.Uniform(4)) {
        case 0: key = 0; break;
        case 1: key = ~uint64_t(0) - rng.Uniform(2); break;
        case 2: key = uint64_t(1) << 40; break;
        default: key = (uint64_t(rng.Uniform(1000)) << 32) | rng.Uniform(1000);
      }
      const uint64_t address = rng.Uniform(2) ? rng.Uniform(100) : (uint64_t(rng.Uniform(1000)) << 32) + i;
      ASSERT_TRUE(sorter.AddFixed(key, address).ok());
      want.emplace_back(key, address);
    }
    EXPECT_GT(sorter.runs_spilled(), ExternalSorter::kMaxFanIn);
    std::sort(want.begin(), want.end());
    Entries want_keys;
    for (const auto& [key, address] : want) {
      char bytes[kFixedKeyWidth];
      StoreFixedKey(key, bytes);
      want_keys.emplace_back(std::string(bytes, kFixedKeyWidth), address);
    }
    EXPECT_EQ(Drain(&sorter), want_keys);
  }
}

// A run file cut short after it was written (at a record boundary or inside one) is an error when
// the merge reaches its end, never fewer entries — for string and fixed-width keys.
TEST(ExternalSorter, TruncatedRunIsAnError) {
  for (size_t width : {size_t(0), kFixedKeyWidth}) {
    for (bool mid_record : {false, true}) {
      lakeindex::testing::TempDir dir;
      ExternalSorter sorter(width, 2000, dir.path());
      for (uint64_t i = 0; i < 3000; ++i) {
        ASSERT_TRUE(sorter.Add(std::string(8, char('a' + i % 7)), 1000 * i).ok());
      }
      ASSERT_GT(sorter.runs_spilled(), 1u);
      std::filesystem::path first;
      for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
        if (first.empty() || f.path() < first) first = f.path();
      }
      const auto size = std::filesystem::file_size(first);
      // Records of a run of strings are 20 bytes; compact records here are 1 + 2 or 1 + 3 bytes.
      std::filesystem::resize_file(first, width == 0 ? (mid_record ? size - 7 : size - 20) : (mid_record ? size - 1 : size / 2));
      auto stream = sorter.Finish();
      Status status = stream.status();
      SortedEntry e;
      while (status.ok()) {
        auto more = (*stream)->Next(&e);
        if (!more.ok()) status = more.status();
        else if (!*more) break;
      }
      EXPECT_FALSE(status.ok()) << "width " << width << (mid_record ? " mid-record" : " at a record");
      EXPECT_NE(status.ToString().find("truncated"), std::string::npos) << status.ToString();
    }
  }
}

TEST(BTreeBuilder, SmallBudgetEqualsInMemoryBuild) {
  lakeindex::testing::TempDir dir;
  for (TypeId type : {TypeId::kInt64, TypeId::kString, TypeId::kDouble}) {
    auto store = NewMemoryStore();
    const Column values = testutil::RandomColumn(type, 5000, 2, 0.1, 200);
    const auto addresses = testutil::RandomAddresses(5000, 3);
    BTreeBuildOptions big, small;
    big.page_rows = small.page_rows = 37;
    small.memory_budget_bytes = 4096;
    small.spill_dir = dir.path();
    auto builder = BTreeBuilder::Make(store.get(), type, small);
    ASSERT_TRUE(builder.ok());
    // Fed in several batches.
    for (size_t off = 0; off < 5000; off += 1000) {
      Column part(type);
      part.AppendSlice(values, off, 1000);
      std::vector<uint64_t> part_addr(addresses.begin() + long(off), addresses.begin() + long(off + 1000));
      ASSERT_TRUE((*builder)->Add(part, part_addr).ok());
    }
    auto info = (*builder)->Finish();
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    EXPECT_GT((*builder)->runs_spilled(), 1u);
    auto spilled = BTreeSegment::Open(store.get(), info->uuid);
    auto in_memory = testutil::BuildAndOpen(store.get(), values, addresses, big);
    ASSERT_TRUE(spilled.ok());
    EXPECT_EQ(testutil::DumpSegment(**spilled), testutil::DumpSegment(*in_memory));
    EXPECT_EQ((*spilled)->directory().checksum, in_memory->directory().checksum)
        << (*spilled)->info().data_bytes << " vs " << in_memory->info().data_bytes;
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  }
}

TEST(BTreeBuilder, PagesAreFullAndSorted) {
  auto store = NewMemoryStore();
  const Column values = testutil::RandomColumn(TypeId::kInt32, 1000, 4, 0.2, 10);
  const auto addresses = testutil::RandomAddresses(1000, 5);
  BTreeBuildOptions options;
  options.page_rows = 64;
  auto seg = testutil::BuildAndOpen(store.get(), values, addresses, options);
  const auto dump = testutil::DumpSegment(*seg);
  for (size_t p = 0; p + 1 < dump.page_rows.size(); ++p) EXPECT_EQ(dump.page_rows[p], 64u);
  EXPECT_TRUE(std::is_sorted(dump.entries.begin(), dump.entries.end()));
  EXPECT_EQ(dump.entries.size() + dump.nulls.size(), 1000u);
  EXPECT_EQ(seg->info().null_count, dump.nulls.size());
}

TEST(BTreeBuilder, RefusesBadInput) {
  auto store = NewMemoryStore();
  BTreeBuildOptions options;
  options.page_rows = 0;
  EXPECT_TRUE(BTreeBuilder::Make(store.get(), TypeId::kInt64, options).status().IsInvalidArgument());
  auto b = BTreeBuilder::Make(store.get(), TypeId::kInt64);
  ASSERT_TRUE(b.ok());
  Column wrong(TypeId::kString);
  ASSERT_TRUE(wrong.AppendString("x").ok());
  EXPECT_TRUE((*b)->Add(wrong, {1}).IsInvalidArgument());
  Column ints(TypeId::kInt64);
  ints.Append<int64_t>(1);
  EXPECT_TRUE((*b)->Add(ints, std::vector<uint64_t>{1, 2}).IsInvalidArgument());
}

}  // namespace
}  // namespace lakeindex::index::btree
