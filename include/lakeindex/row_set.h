// Row-address sets. A row address is `fragment_id << 32 | row_offset`.
//
// RowSet wraps a 64-bit roaring bitmap. NullableRowSet is the result of evaluating a predicate
// over a universe of rows under SQL three-valued logic: `true_rows` where it is TRUE, `null_rows`
// where it is UNKNOWN (disjoint from true_rows when exact; an inexact index answer may overlap
// them, see index/scalar_index.h); every other row of the universe is FALSE.
// Thread safety: none for mutation; concurrent const access is safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <roaring/roaring64map.hh>

#include "lakeindex/status.h"

// CRoaring >= 0.3 declares its C++ classes in namespace roaring; Debian's libroaring-dev 0.2.x
// declares them globally. Unqualified lookup in the helper namespace finds either, and the
// aliases make `roaring::Roaring64Map` valid with both (re-aliasing a type to itself is legal).
namespace roaring {}
namespace lakeindex_roaring_compat {
using namespace ::roaring;
using RoaringT = Roaring;
using Roaring64MapT = Roaring64Map;
}  // namespace lakeindex_roaring_compat
namespace roaring {
using Roaring = ::lakeindex_roaring_compat::RoaringT;
using Roaring64Map = ::lakeindex_roaring_compat::Roaring64MapT;
}  // namespace roaring

namespace lakeindex {

inline uint64_t MakeRowAddress(uint32_t fragment_id, uint32_t row_offset) {
  return (uint64_t(fragment_id) << 32) | row_offset;
}
inline uint32_t RowAddressFragment(uint64_t address) { return uint32_t(address >> 32); }
inline uint32_t RowAddressOffset(uint64_t address) { return uint32_t(address); }

class RowSet {
 public:
  RowSet() = default;
  explicit RowSet(roaring::Roaring64Map bitmap) { bits_.swap(bitmap); }
  RowSet(const RowSet&) = default;
  RowSet& operator=(const RowSet&) = default;
  // Moves swap the bitmaps: CRoaring 0.2's Roaring64Map declares a copy assignment and so has no
  // move of its own; moving it would copy every container (a query moves its candidates often).
  // The moved-from set is left empty.
  RowSet(RowSet&& o) noexcept { bits_.swap(o.bits_); }
  RowSet& operator=(RowSet&& o) noexcept {
    if (this != &o) {
      roaring::Roaring64Map old;
      old.swap(bits_);
      bits_.swap(o.bits_);
    }
    return *this;
  }
  // All offsets [begin, end) of one fragment.
  static RowSet Range(uint32_t fragment_id, uint32_t begin, uint32_t end);
  static RowSet Of(const std::vector<uint64_t>& addresses);

  void Add(uint64_t address) { bits_.add(address); }
  // Adds [begin, end). Out of line: Roaring64Map in CRoaring 0.2.x has no addRange.
  void AddRange(uint64_t begin, uint64_t end);
  bool Contains(uint64_t address) const { return bits_.contains(address); }
  uint64_t Cardinality() const { return bits_.cardinality(); }
  bool IsEmpty() const { return bits_.isEmpty(); }
  std::vector<uint64_t> ToVector() const;
  // Offsets of one fragment, ascending.
  std::vector<uint32_t> OffsetsIn(uint32_t fragment_id) const;
  // How many of one fragment's offsets the set holds.
  uint64_t CardinalityIn(uint32_t fragment_id) const;

  RowSet& operator|=(const RowSet& o) { bits_ |= o.bits_; return *this; }
  RowSet& operator&=(const RowSet& o) { bits_ &= o.bits_; return *this; }
  RowSet& operator-=(const RowSet& o) { bits_ -= o.bits_; return *this; }
  friend RowSet operator|(RowSet a, const RowSet& b) { a |= b; return a; }
  friend RowSet operator&(RowSet a, const RowSet& b) { a &= b; return a; }
  friend RowSet operator-(RowSet a, const RowSet& b) { a -= b; return a; }
  // Out of line: Roaring64Map::operator== in CRoaring 0.2.x misbehaves on empty buckets.
  bool operator==(const RowSet& o) const;

  // Portable roaring serialization (used by deletion vectors and index files).
  std::string Serialize() const;
  // Parses Serialize() output; Corruption on malformed bytes (never reads out of bounds).
  static Result<RowSet> Deserialize(const uint8_t* data, size_t size);
  // Checks that `data` is exactly one 32-bit roaring bitmap in the canonical portable form
  // CRoaring writes (keys/values ascending, cardinalities matching), so that CRoaring 0.2, which
  // trusts container headers, may read it. Corruption naming the byte offset otherwise.
  static Status ValidatePortableBitmap32(const uint8_t* data, size_t size);

  const roaring::Roaring64Map& bitmap() const { return bits_; }
  roaring::Roaring64Map& mutable_bitmap() { return bits_; }

 private:
  roaring::Roaring64Map bits_;
};

// Kleene logic over row sets. NOT needs the universe of rows being evaluated.
struct NullableRowSet {
  RowSet true_rows;
  RowSet null_rows;

  static NullableRowSet And(const NullableRowSet& a, const NullableRowSet& b);
  static NullableRowSet Or(const NullableRowSet& a, const NullableRowSet& b);
  static NullableRowSet Not(const NullableRowSet& a, const RowSet& universe);
  bool operator==(const NullableRowSet& o) const = default;
};

}  // namespace lakeindex
