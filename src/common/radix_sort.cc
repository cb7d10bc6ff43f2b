#include "common/radix_sort.h"

#include <algorithm>
#include <array>

namespace lakeindex {
namespace {

bool EntryLessFixed(const SortEntry64& a, const SortEntry64& b) {
  return a.key < b.key || (a.key == b.key && a.address < b.address);
}

// One stable counting pass on byte `shift / 8` of the key (`of_key`) or of the address.
void ScatterPass(const SortEntry64* src, SortEntry64* dst, size_t n, int shift, bool of_key) {
  std::array<size_t, 256> count{};
  if (of_key) {
    for (size_t i = 0; i < n; ++i) ++count[(src[i].key >> shift) & 0xFF];
  } else {
    for (size_t i = 0; i < n; ++i) ++count[(src[i].address >> shift) & 0xFF];
  }
  size_t sum = 0;
  for (size_t& c : count) {
    const size_t k = c;
    c = sum;
    sum += k;
  }
  if (of_key) {
    for (size_t i = 0; i < n; ++i) dst[count[(src[i].key >> shift) & 0xFF]++] = src[i];
  } else {
    for (size_t i = 0; i < n; ++i) dst[count[(src[i].address >> shift) & 0xFF]++] = src[i];
  }
}

}  // namespace

SortEntry64* RadixSortEntries(SortEntry64* entries, SortEntry64* scratch, size_t n, bool address_ordered) {
  if (std::is_sorted(entries, entries + n, EntryLessFixed)) return entries;
  if (n < kRadixMinEntries) {
    std::sort(entries, entries + n, EntryLessFixed);
    return entries;
  }
  // Bytes that differ between entries: the others need no pass.
  uint64_t key_and = ~uint64_t(0), key_or = 0, addr_and = ~uint64_t(0), addr_or = 0;
  for (size_t i = 0; i < n; ++i) {
    key_and &= entries[i].key;
    key_or |= entries[i].key;
    addr_and &= entries[i].address;
    addr_or |= entries[i].address;
  }
  const uint64_t key_varies = key_and ^ key_or;
  const uint64_t addr_varies = address_ordered ? 0 : (addr_and ^ addr_or);
  SortEntry64* src = entries;
  SortEntry64* dst = scratch;
  // Least significant first: address bytes (the tie-break), then key bytes.
  for (bool of_key : {false, true}) {
    const uint64_t varies = of_key ? key_varies : addr_varies;
    for (int shift = 0; shift < 64; shift += 8) {
      if (((varies >> shift) & 0xFF) == 0) continue;
      ScatterPass(src, dst, n, shift, of_key);
      std::swap(src, dst);
    }
  }
  return src;
}

}  // namespace lakeindex
