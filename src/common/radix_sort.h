// An LSD radix sort of (uint64 key, uint64 address) pairs by (key, address), passing only over
// the bytes that are not the same in every entry. Used by the BTree build sort
// (index/btree/btree_sort_buffer.h: keys are big-endian key bytes, addresses row addresses) and
// by the layout writer (layout/otree/curve.cc: Hilbert keys of a slice's rows, addresses the rows).
// Thread safety: functions over caller-owned arrays.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lakeindex {

struct SortEntry64 {
  uint64_t key = 0;
  uint64_t address = 0;
};

// Below this many entries std::sort is as fast.
inline constexpr size_t kRadixMinEntries = 256;

// Sorts entries[0, n) by (key, address); `scratch` holds n entries (may be null when
// n < kRadixMinEntries). Returns the array that holds the result (entries or scratch); already
// sorted input is not moved. `address_ordered`: the entries are in non-decreasing address order,
// so only key bytes are sorted (the passes are stable).
SortEntry64* RadixSortEntries(SortEntry64* entries, SortEntry64* scratch, size_t n, bool address_ordered);

}  // namespace lakeindex
