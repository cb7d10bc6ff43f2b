// SortBuffer and the radix sort against std::sort on random entries: address-ordered and
// shuffled input, few and many distinct keys, sorted input, strings with shared prefixes, short
// strings that differ only in trailing NUL bytes, and 0xFF bytes.
#include "index/btree/btree_sort_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace lakeindex::index::btree {
namespace {

std::vector<std::pair<std::string, uint64_t>> Drain(SortedStream* stream) {
  std::vector<std::pair<std::string, uint64_t>> out;
  SortedEntry e;
  for (;;) {
    auto more = stream->Next(&e);
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !*more) return out;
    out.emplace_back(std::string(e.key), e.address);
  }
}

std::string KeyBytes(uint64_t key) {
  std::string s(kFixedKeyWidth, '\0');
  StoreFixedKey(key, s.data());
  return s;
}

TEST(RadixSortEntries, EqualsStdSort) {
  std::mt19937_64 rng(7);
  for (size_t n : {0, 1, 2, 255, 256, 1000, 100000}) {
    for (uint64_t key_range : {uint64_t(3), uint64_t(1) << 20, ~uint64_t(0)}) {
      for (bool address_ordered : {true, false}) {
        std::vector<FixedEntry> entries(n);
        for (size_t i = 0; i < n; ++i) {
          const uint64_t k = rng();
          entries[i].key = key_range == ~uint64_t(0) ? k : k % key_range;
          entries[i].address = address_ordered ? (uint64_t(i / 7) << 32 | (i % 7)) : rng() % (n + 1);
        }
        std::vector<FixedEntry> want = entries;
        std::sort(want.begin(), want.end(), [](const FixedEntry& a, const FixedEntry& b) {
          return a.key < b.key || (a.key == b.key && a.address < b.address);
        });
        std::vector<FixedEntry> scratch(n);
        const FixedEntry* got = RadixSortEntries(entries.data(), scratch.data(), n, address_ordered);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(got[i].key, want[i].key) << "n " << n << " i " << i;
          ASSERT_EQ(got[i].address, want[i].address) << "n " << n << " i " << i;
        }
      }
    }
  }
}

TEST(RadixSortEntries, SortedInputStaysInPlace) {
  std::vector<FixedEntry> entries(1000), scratch(1000);
  for (size_t i = 0; i < entries.size(); ++i) entries[i] = {i / 3, 1000 - i};
  EXPECT_EQ(RadixSortEntries(entries.data(), scratch.data(), entries.size(), false), entries.data());
}

TEST(SortBuffer, FixedKeysInKeyByteOrder) {
  std::mt19937_64 rng(3);
  SortBuffer buffer(kFixedKeyWidth, uint64_t(1) << 30);
  std::vector<std::pair<std::string, uint64_t>> want;
  for (uint64_t i = 0; i < 50000; ++i) {
    const uint64_t key = IntKey(int64_t(rng() % 2001) - 1000);
    const uint64_t address = rng() % 100000;  // not in address order
    if (i % 2 == 0) {
      buffer.AddFixed(key, address);
    } else {
      buffer.Add(KeyBytes(key), address);
    }
    want.emplace_back(KeyBytes(key), address);
  }
  std::sort(want.begin(), want.end());
  auto stream = buffer.TakeSorted();
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(Drain(stream.get()), want);
}

TEST(SortBuffer, StringsWithSharedPrefixesNulAndFF) {
  std::mt19937_64 rng(5);
  const std::string alphabet("\x00\x01" "a\xff", 4);
  SortBuffer buffer(0, uint64_t(1) << 30);
  std::vector<std::pair<std::string, uint64_t>> want;
  for (uint64_t i = 0; i < 30000; ++i) {
    std::string key = (i % 3 == 0) ? "sharedprefix" : "";
    const size_t len = rng() % 12;
    for (size_t j = 0; j < len; ++j) key.push_back(alphabet[rng() % alphabet.size()]);
    const uint64_t address = rng() % 1000;
    buffer.Add(key, address);
    want.emplace_back(key, address);
  }
  std::sort(want.begin(), want.end());
  auto stream = buffer.TakeSorted();
  EXPECT_EQ(Drain(stream.get()), want);
}

TEST(SortBuffer, FixedCapacityBoundedByBudget) {
  // 32 bytes per entry (entry + radix scratch): a 32,000-byte budget holds 1,000 entries.
  SortBuffer buffer(kFixedKeyWidth, 32000);
  size_t added = 0;
  while (!buffer.full()) {
    buffer.AddFixed(added, added);
    ++added;
  }
  EXPECT_EQ(added, 1000u);
}

}  // namespace
}  // namespace lakeindex::index::btree
