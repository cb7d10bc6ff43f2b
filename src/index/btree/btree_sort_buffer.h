// SortBuffer: the in-memory part of the BTree build sort (btree_sorter.h). It holds (key, row
// address) entries up to a byte bound and sorts them by (key bytewise, address) without
// comparing key bytes through memcmp:
//
//  * fixed-width keys (every type but string) are held as (uint64 key, uint64 address) pairs,
//    the key being the big-endian value of its 8 key bytes (index/index_key.h), so integer order is key
//    order; they are sorted by an LSD radix sort over the bytes of (key, address) that are not
//    the same in every entry. When entries arrived in address order (the usual case: fragments
//    read front to back) the address bytes are skipped, the stable key passes keeping address
//    order among equal keys. Already sorted input is detected and not moved.
//  * strings are held as (first 8 bytes as a big-endian uint64, address, index into one byte
//    buffer) and sorted by std::sort on the prefix, comparing the whole strings only on a
//    prefix tie.
//
// Memory: fixed entries take 16 bytes, plus a 16-byte scratch entry during the sort; the
// capacity grows by doubling up to `budget / 32` entries (or is reserved at once when the number
// of entries is known), so buffer and scratch together stay within the budget. Spilling sorts in
// place and keeps both arrays for the next run: an external sort allocates (and the kernel maps
// and zeroes) them once, not once per run. Strings count their bytes + 32 bytes per entry and report full at half the
// budget (vector growth may double the held memory).
// Thread safety: none.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "common/radix_sort.h"
#include "index/index_key.h"
#include "index/btree/btree_sorter.h"

namespace lakeindex::index::btree {

// (key, address) pairs, radix-sorted by RadixSortEntries (common/radix_sort.h).
using FixedEntry = SortEntry64;

class SortBuffer {
 public:
  // key_width: KeyWidth() of the column type (0 = strings).
  SortBuffer(size_t key_width, uint64_t budget_bytes);

  bool fixed() const { return key_width_ != 0; }
  size_t size() const { return fixed() ? fixed_.size() : strings_.size(); }
  bool empty() const { return size() == 0; }
  // True when the buffer should be sorted and emptied before the next Add.
  bool full() const;

  // REQUIRES: fixed(), !full().
  void AddFixed(uint64_t key, uint64_t address) {
    if (fixed_.size() == fixed_.capacity()) Grow();
    address_ordered_ &= address >= last_address_;
    last_address_ = address;
    fixed_.push_back(FixedEntry{key, address});
  }
  // Any width (fixed keys must have kFixedKeyWidth bytes). REQUIRES: !full().
  void Add(std::string_view key, uint64_t address);

  // Sizes the fixed buffer for `entries` at once (at most what the budget holds), instead of
  // growing it by doubling. No-op for strings.
  void Reserve(uint64_t entries);

  // Sorts the entries and moves them into the returned stream; the buffer is empty afterwards.
  std::unique_ptr<SortedStream> TakeSorted();
  // REQUIRES: fixed(). Sorts the entries where they are (or into the kept scratch array) and
  // returns them in order, valid until the next call that changes the buffer; Clear() then
  // empties the buffer keeping its memory.
  std::span<const FixedEntry> SortFixed();
  void Clear();

 private:
  void Grow();

  struct StringEntry {
    uint64_t prefix = 0;
    uint64_t address = 0;
    uint32_t index = 0;
  };

  size_t key_width_;
  uint64_t budget_;
  size_t max_fixed_;  // fixed entries that fit with their scratch
  std::vector<FixedEntry> fixed_;
  std::unique_ptr<FixedEntry[]> scratch_;  // the radix sort's second array, kept between runs
  size_t scratch_size_ = 0;
  bool address_ordered_ = true;
  uint64_t last_address_ = 0;
  std::vector<StringEntry> strings_;
  KeyArray string_keys_{0};
  uint64_t string_key_bytes_ = 0;
};

}  // namespace lakeindex::index::btree
