// DictionaryBuilder<T>: assigns dense ids to distinct values in insertion order, for
// RLE_DICTIONARY pages (internal to the Parquet writer). T is int32_t, int64_t or
// std::string_view (strings are copied into the builder).
// Open addressing with linear probing, load factor <= 1/2; no per-value allocation.
// Thread safety: none.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "format/parquet/encoding.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lakeindex::parquet {

namespace dict_internal {
inline uint64_t HashInt(uint64_t v) {
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdULL;
  v ^= v >> 33;
  return v;
}
}  // namespace dict_internal

template <typename T>
class DictionaryBuilder {
 public:
  uint32_t Insert(T v) {
    if ((values_.size() + 1) * 2 > slots_.size()) Grow();
    size_t mask = slots_.size() - 1;
    size_t h = dict_internal::HashInt(uint64_t(int64_t(v))) & mask;
    while (true) {
      uint32_t s = slots_[h];
      if (s == 0) {
        values_.push_back(v);
        slots_[h] = uint32_t(values_.size());
        return uint32_t(values_.size() - 1);
      }
      if (values_[s - 1] == v) return s - 1;
      h = (h + 1) & mask;
    }
  }
  size_t size() const { return values_.size(); }
  T At(uint32_t i) const { return values_[i]; }
  size_t EncodedSize() const { return values_.size() * sizeof(T); }
  void EncodePlain(std::string* out, bool /*fixed_length*/ = false) const { PlainEncode(values_.data(), values_.size(), out); }
  void Clear() {
    values_.clear();
    slots_.clear();
  }

 private:
  void Grow() {
    size_t n = slots_.empty() ? 1024 : slots_.size() * 2;
    slots_.assign(n, 0);
    size_t mask = n - 1;
    for (size_t i = 0; i < values_.size(); ++i) {
      size_t h = dict_internal::HashInt(uint64_t(int64_t(values_[i]))) & mask;
      while (slots_[h] != 0) h = (h + 1) & mask;
      slots_[h] = uint32_t(i + 1);
    }
  }

  std::vector<T> values_;
  std::vector<uint32_t> slots_;  // 0 = empty, else index + 1
};

template <>
class DictionaryBuilder<std::string_view> {
 public:
  uint32_t Insert(std::string_view v) {
    if ((size() + 1) * 2 > slots_.size()) Grow();
    size_t mask = slots_.size() - 1;
    uint64_t hash = XXH3_64bits(v.data(), v.size());
    size_t h = hash & mask;
    while (true) {
      uint32_t s = slots_[h];
      if (s == 0) {
        hashes_.push_back(hash);
        chars_.append(v);
        offsets_.push_back(chars_.size());
        slots_[h] = uint32_t(size());
        return uint32_t(size() - 1);
      }
      if (hashes_[s - 1] == hash && At(s - 1) == v) return s - 1;
      h = (h + 1) & mask;
    }
  }
  size_t size() const { return hashes_.size(); }
  std::string_view At(uint32_t i) const {
    return std::string_view(chars_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  size_t EncodedSize() const { return chars_.size() + 4 * size(); }
  // PLAIN values; `fixed_length` for FIXED_LEN_BYTE_ARRAY (no length before each value).
  void EncodePlain(std::string* out, bool fixed_length = false) const {
    out->reserve(out->size() + EncodedSize());
    for (size_t i = 0; i < size(); ++i) {
      if (fixed_length) {
        out->append(At(uint32_t(i)));
      } else {
        PlainEncodeByteArray(At(uint32_t(i)), out);
      }
    }
  }
  void Clear() {
    hashes_.clear();
    chars_.clear();
    offsets_.assign(1, 0);
    slots_.clear();
  }

 private:
  void Grow() {
    size_t n = slots_.empty() ? 1024 : slots_.size() * 2;
    slots_.assign(n, 0);
    size_t mask = n - 1;
    for (size_t i = 0; i < size(); ++i) {
      size_t h = hashes_[i] & mask;
      while (slots_[h] != 0) h = (h + 1) & mask;
      slots_[h] = uint32_t(i + 1);
    }
  }

  std::vector<uint64_t> hashes_;
  std::string chars_;
  std::vector<size_t> offsets_{0};
  std::vector<uint32_t> slots_;
};

}  // namespace lakeindex::parquet
