// Order-preserving key encoding shared by index kinds (BTree pages, bitmap dictionaries): every
// value of an indexed column becomes a byte string such that bytewise comparison (memcmp, then
// length) gives CompareValues() order. One comparator then serves every type in sorting, page
// directories, leaf searches and dictionaries.
//
// Encoding (all big-endian, 8 bytes for every non-string type):
//   bool, int32, int64, date, timestamp: uint64(x) ^ 0x8000000000000000 (sign bit flipped)
//   float, double (as double): -0.0 becomes +0.0 and every NaN the one key 0xFF..FF (above
//     +inf); then positive -> bits | sign bit, negative -> ~bits.
//   string: the bytes themselves.
// So CompareValues(a, b) == sign(EncodeKey(a).compare(EncodeKey(b))), with NaN == NaN and
// -0.0 == 0.0 as CompareValues has them. Decoding returns the canonical value (+0.0, quiet NaN).
// Thread safety: free functions are pure; KeyArray is a value (const access is thread-safe).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/status.h"
#include "index/scalar_index.h"
#include "lakeindex/types.h"

namespace lakeindex::index {

inline constexpr size_t kFixedKeyWidth = 8;

// Width of every key of `type`, or 0 for variable-width (strings).
inline size_t KeyWidth(TypeId type) { return IsBytes(type) ? 0 : kFixedKeyWidth; }

// Fixed-width keys as integers: the 8 key bytes read big-endian, so that unsigned integer order
// is key order (the sorter radix-sorts these).
inline constexpr uint64_t kKeySignBit = uint64_t(1) << 63;
inline uint64_t IntKey(int64_t x) { return uint64_t(x) ^ kKeySignBit; }
uint64_t DoubleKey(double x);
uint64_t LoadFixedKey(std::string_view key);  // REQUIRES: key.size() == kFixedKeyWidth
void StoreFixedKey(uint64_t key, char* out);   // writes kFixedKeyWidth bytes
// The first kFixedKeyWidth bytes of any key (zero-padded) read big-endian: when two keys'
// prefixes differ, they order as the keys do; when equal, keys of at most kFixedKeyWidth bytes
// order by length.
uint64_t KeyPrefix(std::string_view key);

// Appends the key of row `row` of `column` to `out`. REQUIRES: column.IsValid(row).
void AppendKey(const Column& column, size_t row, std::string* out);

// The key of a query literal for a column of `column_type`. Integers, dates, timestamps and
// bools need a literal of an integer-like or bool type; float/double columns also accept
// integers (converted exactly when |x| <= 2^53); strings need strings. InvalidArgument otherwise
// (the planner converts literals to the column type first), and for NULL.
Result<std::string> EncodeQueryKey(TypeId column_type, const Value& value);

// Appends the value of `key` to `out` (whose type says how to decode). Corruption when the key
// has the wrong width or the value does not fit the type (e.g. an int32 out of range).
Status AppendDecodedKey(std::string_view key, Column* out);
Result<Value> DecodeKey(TypeId type, std::string_view key);

// The smallest string greater than every string starting with `prefix`, or nullopt when none
// exists (empty prefix, or prefix of only 0xFF bytes): LIKE 'p%' == [p, successor).
std::optional<std::string> PrefixSuccessor(std::string_view prefix);

// Keys of one type stored contiguously: fixed width (no offsets) or offsets into one buffer.
class KeyArray {
 public:
  explicit KeyArray(size_t fixed_width = 0) : width_(fixed_width) {}

  void Append(std::string_view key);
  std::string_view operator[](size_t i) const {
    if (width_ != 0) return std::string_view(bytes_.data() + i * width_, width_);
    return std::string_view(bytes_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  size_t size() const { return width_ != 0 ? bytes_.size() / width_ : offsets_.size() - 1; }
  bool empty() const { return size() == 0; }
  size_t width() const { return width_; }
  // Heap bytes held (for cache and memory-budget accounting).
  size_t MemoryBytes() const { return bytes_.capacity() + offsets_.capacity() * sizeof(uint64_t); }
  void Clear();
  // Room for `keys` keys of `bytes` bytes in all (a fixed width's keys need no `bytes`), and the
  // spare capacity of a finished array given back: a cached leaf page is charged its capacity,
  // and appends alone leave up to half of it unused.
  void Reserve(size_t keys, size_t bytes);
  void ShrinkToFit();

  // First index in [lo, hi) whose key is >= key (or > key when `strict`), by binary search.
  // REQUIRES: keys in [lo, hi) sorted.
  size_t LowerBound(std::string_view key, bool strict, size_t lo, size_t hi) const;

 private:
  size_t width_;
  std::string bytes_;
  std::vector<uint64_t> offsets_{0};
};

// A query as key intervals: = v -> [v, v]; range -> one interval (open, inclusive or exclusive
// ends); IN -> one point per value (re-sorted by key order); LIKE 'p%' -> [p, PrefixSuccessor(p))
// or [p, +inf); IS NULL -> none (kinds answer it from their NULL rows). Empty intervals (lower >
// upper, or equal with an exclusive end) are dropped; the result is sorted and disjoint.
struct KeyInterval {
  std::optional<std::string> lower, upper;  // absent: unbounded
  bool lower_inclusive = true, upper_inclusive = true;

  bool AboveLower(std::string_view key) const;  // key satisfies the lower bound
  bool BelowUpper(std::string_view key) const;  // key satisfies the upper bound
};

// InvalidArgument for a literal of the wrong type or a prefix query on a non-string column.
Result<std::vector<KeyInterval>> QueryIntervals(TypeId type, const ScalarQuery& query);

// Positions [begin, end) of `keys` (sorted) inside `interval`.
std::pair<size_t, size_t> KeysInInterval(const KeyArray& keys, const KeyInterval& interval);

}  // namespace lakeindex::index
