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
#include <vector>

#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex {

class Column {
 public:
  Column() = default;
  explicit Column(TypeId type) : type_(type) {}

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

  // REQUIRES: type() == kString.
  std::string_view GetString(size_t i) const {
    return std::string_view(chars_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  const std::vector<uint32_t>& offsets() const { return offsets_; }
  const std::string& chars() const { return chars_; }

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
  // REQUIRES: type() == kString. Fails when the column would exceed 4 GiB of characters.
  Status AppendString(std::string_view s);
  void AppendNull();
  // Appends a Value of this column's type (or NULL); integer/double Values are converted.
  Status AppendValue(const Value& v);
  // Appends rows [offset, offset+count) of `other` (same type).
  void AppendSlice(const Column& other, size_t offset, size_t count);
  // Appends the rows of `other` listed in `rows` (same type).
  void AppendSelected(const Column& other, const uint32_t* rows, size_t count);

  bool Equals(const Column& other) const;  // same type, length, nulls and non-null values

 private:
  void MarkValid();
  void MarkValidRange(size_t n);
  void EnsureValidityFor(size_t n);

  TypeId type_ = TypeId::kInt64;
  size_t length_ = 0;
  size_t null_count_ = 0;
  std::vector<uint8_t> fixed_;
  std::vector<uint32_t> offsets_{0};
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
