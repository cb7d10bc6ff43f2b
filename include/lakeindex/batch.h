// Columnar batches: the in-memory form that readers produce and the expression evaluator,
// indexes and writers consume.
//
// A Column holds `length()` values of one logical type (see types.h for the physical form):
//  * fixed-width types: a contiguous buffer of values, readable as data<T>();
//  * strings: `offsets` (length()+1 entries, offsets[0] == 0) into one byte buffer;
//  * validity: a bitmap (bit i set = row i is valid) that is empty when no value is NULL.
// A NULL row still occupies a slot (zero or empty string) so that positions line up.
// Thread safety: none for mutation; concurrent const access is safe.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex {

namespace internal {
// std::allocator whose value-initialization is default-initialization, so resize() of a byte
// vector leaves the new bytes unwritten for the caller to fill (saving a memset over data
// that is overwritten right away).
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
}  // namespace internal

class Column {
 public:
  Column() = default;
  explicit Column(TypeId type) : type_(type) {
    if (IsBytes(type)) offsets_.push_back(0);  // other types keep no offsets (no allocation)
  }

  TypeId type() const { return type_; }
  size_t length() const { return length_; }
  size_t null_count() const { return null_count_; }
  bool has_validity() const { return !validity_.empty(); }
  bool IsValid(size_t i) const {
    return validity_.empty() || ((validity_[i >> 3] >> (i & 7)) & 1);
  }
  bool IsNull(size_t i) const { return !IsValid(i); }

  // REQUIRES: T is the physical type of type() (uint8_t for bool).
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(fixed_.data()); }
  template <typename T>
  T* mutable_data() { return reinterpret_cast<T*>(fixed_.data()); }
  template <typename T>
  T Get(size_t i) const { T v; std::memcpy(&v, fixed_.data() + i * sizeof(T), sizeof(T)); return v; }

  // REQUIRES: IsBytes(type()).
  std::string_view GetString(size_t i) const {
    return std::string_view(chars_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  const std::vector<uint32_t>& offsets() const { return offsets_; }
  const std::string& chars() const { return chars_; }
  // Asks the CPU to fetch row i's value (a string's offsets) and validity ahead of a read: a
  // caller visiting many pages issues these first so that their cache misses overlap.
  void Prefetch(size_t i) const {
    if (IsBytes(type_)) {
      if (i < offsets_.size()) __builtin_prefetch(offsets_.data() + i);
    } else if (i < length_) {
      __builtin_prefetch(fixed_.data() + i * size_t(FixedWidth(type_)));
    }
    if (!validity_.empty() && (i >> 3) < validity_.size()) __builtin_prefetch(validity_.data() + (i >> 3));
  }

  // Row i as a Value (NULL-aware).
  Value GetValue(size_t i) const;

  // --- building ---
  void Reserve(size_t n);
  template <typename T>
  void Append(T v) {
    size_t at = fixed_.size();
    fixed_.resize(at + sizeof(T));
    std::memcpy(fixed_.data() + at, &v, sizeof(T));
    MarkValid();
  }
  // Bulk form of Append: makes room for n valid values of physical type T and returns where to
  // write them (the memory stays valid until the next append).
  template <typename T>
  T* AppendValues(size_t n) {
    size_t at = fixed_.size();
    fixed_.resize(at + n * sizeof(T));
    MarkValidRange(n);
    return reinterpret_cast<T*>(fixed_.data() + at);
  }
  // Bulk form of Append + AppendNull: appends n rows of physical type T whose validity is the
  // bitmap `valid_bits` (LSB first, bit i set = row i valid; bits past n are ignored; nullptr
  // = all valid) and returns where to write the n values. With valid_bits every slot starts
  // zeroed, so NULL rows need not be written; without, the caller writes all n.
  template <typename T>
  T* AppendValues(size_t n, const uint8_t* valid_bits) {
    size_t at = fixed_.size();
    fixed_.resize(at + n * sizeof(T));
    if (valid_bits != nullptr && n > 0) std::memset(fixed_.data() + at, 0, n * sizeof(T));
    AppendValidityBits(valid_bits, n);
    return reinterpret_cast<T*>(fixed_.data() + at);
  }
  // REQUIRES: IsBytes(type()). Fails when the column would exceed 4 GiB of characters.
  Status AppendString(std::string_view s);
  // Bulk form of AppendString + AppendNull: appends n rows; with `valid_bits` (as for
  // AppendValues) row i is NULL when its bit is clear, and `values` holds one string per valid
  // row, in order (all n when valid_bits is nullptr). Characters and offsets grow once per
  // call. REQUIRES: IsBytes(type()). InvalidArgument, with nothing appended, when the column
  // would exceed 4 GiB of characters.
  Status AppendStrings(const std::string_view* values, size_t n, const uint8_t* valid_bits = nullptr);
  // Reserves room for `chars` more characters of string data (Reserve covers the rows).
  void ReserveChars(size_t chars) { chars_.reserve(chars_.size() + chars); }
  void AppendNull();
  // Appends a Value of this column's type (or NULL); integer/double Values are converted.
  Status AppendValue(const Value& v);
  // Appends rows [offset, offset+count) of `other` (same type).
  void AppendSlice(const Column& other, size_t offset, size_t count);
  // Appends the rows of `other` listed in `rows` (same type).
  void AppendSelected(const Column& other, const uint32_t* rows, size_t count);
  // The rows of `other` rearranged: row i of `other` becomes row to[i] of the result.
  // REQUIRES: `to` is a permutation of [0, other.length()). `other` is read in order and the
  // result written scattered, which stays cache-friendly when `to` sends rows into a few runs
  // of consecutive positions (a partition into buckets), unlike a gather of rows scattered over
  // a large column.
  static Column Scattered(const Column& other, const uint32_t* to) { return Scattered({&other}, to); }
  // The same for a column held in pieces (one or more, of one type), joined in order: row i of
  // the joined column becomes row to[i]. Joins and rearranges in one pass.
  static Column Scattered(const std::vector<const Column*>& pieces, const uint32_t* to);
  // Rearranges rows [offset, offset + count) in place: row offset + k becomes the previous row
  // from[k]. REQUIRES: from[0, count) is a permutation of [offset, offset + count). Meant for
  // ranges that fit in cache (a layout block), after Scattered has grouped the rows.
  void PermuteRange(size_t offset, size_t count, const uint32_t* from);

  bool Equals(const Column& other) const;  // same type, length, nulls and non-null values
  // Heap bytes held (for cache accounting).
  size_t MemoryBytes() const {
    return fixed_.capacity() + offsets_.capacity() * sizeof(uint32_t) + chars_.capacity() + validity_.capacity();
  }

 private:
  void MarkValid();
  void MarkValidRange(size_t n);
  // Appends the validity of n rows from an LSB-first bitmap (nullptr = all valid), advancing
  // length_ and null_count_; the bitmap is materialized only once a NULL shows up.
  void AppendValidityBits(const uint8_t* bits, size_t n);
  void EnsureValidityFor(size_t n);

  TypeId type_ = TypeId::kInt64;
  size_t length_ = 0;
  size_t null_count_ = 0;
  // Bytes added by resize() are left unset (see DefaultInitAllocator): callers fill them.
  std::vector<uint8_t, internal::DefaultInitAllocator<uint8_t>> fixed_;
  std::vector<uint32_t> offsets_;  // strings: length_ + 1 entries, the first 0; else empty
  std::string chars_;
  std::vector<uint8_t> validity_;
};

class Batch {
 public:
  Batch() = default;
  // Makes empty columns matching `schema`.
  explicit Batch(Schema schema);
  Batch(Schema schema, std::vector<Column> columns, size_t num_rows)
      : schema_(std::move(schema)), columns_(std::move(columns)), num_rows_(num_rows) {}

  const Schema& schema() const { return schema_; }
  size_t num_rows() const { return num_rows_; }
  size_t num_columns() const { return columns_.size(); }
  const Column& column(size_t i) const { return columns_[i]; }
  Column& mutable_column(size_t i) { return columns_[i]; }
  std::vector<Column>& columns() { return columns_; }
  // Column named `name`, or nullptr.
  const Column* FindColumn(std::string_view name) const;

  // After appending to every column directly: checks equal lengths and sets num_rows.
  Status Seal();
  // Appends all rows of `other`, whose schema must be equal.
  Status Append(const Batch& other);
  Batch Slice(size_t offset, size_t count) const;
  bool Equals(const Batch& other) const;

 private:
  Schema schema_;
  std::vector<Column> columns_;
  size_t num_rows_ = 0;
};

}  // namespace lakeindex
