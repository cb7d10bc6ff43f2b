#include "lakeindex/batch.h"

#include <cmath>
#include <cstring>
#include <type_traits>
#include <limits>

namespace lakeindex {

namespace {

// Bitmaps are LSB first: bit i is (bits[i / 8] >> (i % 8)) & 1.

size_t CountSetBits(const uint8_t* bits, size_t n) {
  size_t count = 0, i = 0;
  for (; i + 64 <= n; i += 64) {
    uint64_t w;
    std::memcpy(&w, bits + i / 8, 8);
    count += size_t(__builtin_popcountll(w));
  }
  for (; i + 8 <= n; i += 8) count += size_t(__builtin_popcount(bits[i / 8]));
  if (i < n) count += size_t(__builtin_popcount(bits[i / 8] & ((1u << (n - i)) - 1)));
  return count;
}

// Sets bits [start, start + n).
void SetBits(uint8_t* bits, size_t start, size_t n) {
  size_t end = start + n;
  for (; start < end && (start & 7) != 0; ++start) bits[start >> 3] |= uint8_t(1u << (start & 7));
  size_t bytes = (end - start) / 8;
  std::memset(bits + start / 8, 0xFF, bytes);
  for (start += bytes * 8; start < end; ++start) bits[start >> 3] |= uint8_t(1u << (start & 7));
}

// ORs src bits [0, n) into dst bits [start, start + n). REQUIRES: those dst bits are zero and
// dst holds at least (start + n + 7) / 8 bytes.
void OrBitsAt(uint8_t* dst, size_t start, const uint8_t* src, size_t n) {
  const size_t shift = start & 7;
  uint8_t* d = dst + start / 8;
  const size_t full = n / 8, rem = n & 7;
  const uint8_t last = rem ? uint8_t(src[full] & ((1u << rem) - 1)) : 0;
  if (shift == 0) {
    for (size_t i = 0; i < full; ++i) d[i] |= src[i];
    if (rem) d[full] |= last;
    return;
  }
  for (size_t i = 0; i < full; ++i) {
    d[i] |= uint8_t(src[i] << shift);
    d[i + 1] |= uint8_t(src[i] >> (8 - shift));
  }
  if (rem) {
    d[full] |= uint8_t(last << shift);
    if (shift + rem > 8) d[full + 1] |= uint8_t(last >> (8 - shift));
  }
}

}  // namespace

void Column::Reserve(size_t n) {
  if (IsBytes(type_)) {
    offsets_.reserve(n + 1);
  } else {
    fixed_.reserve(n * size_t(FixedWidth(type_)));
  }
}

void Column::EnsureValidityFor(size_t n) {
  size_t bytes = (n + 7) / 8;
  if (validity_.size() < bytes) validity_.resize(bytes, 0);
}

void Column::MarkValid() {
  if (!validity_.empty()) {
    EnsureValidityFor(length_ + 1);
    validity_[length_ >> 3] |= uint8_t(1u << (length_ & 7));
  }
  ++length_;
}

void Column::MarkValidRange(size_t n) {
  if (!validity_.empty()) {
    EnsureValidityFor(length_ + n);
    SetBits(validity_.data(), length_, n);
  }
  length_ += n;
}

// Invariant relied on here: bits at positions >= length_ of validity_ are zero.
void Column::AppendValidityBits(const uint8_t* bits, size_t n) {
  size_t valid = bits == nullptr ? n : CountSetBits(bits, n);
  if (valid == n) {
    MarkValidRange(n);
    return;
  }
  if (validity_.empty()) {
    // First NULL: materialize the bitmap with every earlier row valid.
    validity_.assign((length_ + n + 7) / 8, 0);
    SetBits(validity_.data(), 0, length_);
  } else {
    EnsureValidityFor(length_ + n);
  }
  OrBitsAt(validity_.data(), length_, bits, n);
  null_count_ += n - valid;
  length_ += n;
}

Status Column::AppendStrings(const std::string_view* values, size_t n, const uint8_t* valid_bits) {
  if (n == 0) return Status::OK();
  const size_t k = valid_bits == nullptr ? n : CountSetBits(valid_bits, n);
  size_t total = 0;
  for (size_t j = 0; j < k; ++j) total += values[j].size();
  if (total > std::numeric_limits<uint32_t>::max() - chars_.size()) {
    return Status::InvalidArgument("string column exceeds 4 GiB in one batch");
  }
  size_t at = chars_.size();
  chars_.resize(at + total);  // one growth (geometric) instead of one check per string
  char* dst = chars_.data() + at;
  size_t base = offsets_.size();
  offsets_.resize(base + n);
  uint32_t* off = offsets_.data() + base;
  uint32_t pos = offsets_[base - 1];
  if (valid_bits == nullptr) {
    for (size_t i = 0; i < n; ++i) {
      if (!values[i].empty()) std::memcpy(dst, values[i].data(), values[i].size());
      dst += values[i].size();
      pos += uint32_t(values[i].size());
      off[i] = pos;
    }
  } else {
    size_t j = 0;
    for (size_t i = 0; i < n; ++i) {
      if ((valid_bits[i >> 3] >> (i & 7)) & 1) {
        if (!values[j].empty()) std::memcpy(dst, values[j].data(), values[j].size());
        dst += values[j].size();
        pos += uint32_t(values[j].size());
        ++j;
      }
      off[i] = pos;
    }
  }
  AppendValidityBits(valid_bits, n);
  return Status::OK();
}

void Column::AppendNull() {
  if (validity_.empty()) {
    // First NULL: materialize the bitmap with every earlier row valid.
    validity_.assign((length_ + 1 + 7) / 8, 0);
    SetBits(validity_.data(), 0, length_);
  } else {
    EnsureValidityFor(length_ + 1);
  }
  if (IsBytes(type_)) {
    offsets_.push_back(offsets_.back());
  } else {
    fixed_.resize(fixed_.size() + size_t(FixedWidth(type_)), 0);
  }
  ++null_count_;
  ++length_;
}

Status Column::AppendString(std::string_view s) {
  if (chars_.size() + s.size() > std::numeric_limits<uint32_t>::max()) {
    return Status::InvalidArgument("string column exceeds 4 GiB in one batch");
  }
  chars_.append(s);
  offsets_.push_back(uint32_t(chars_.size()));
  MarkValid();
  return Status::OK();
}

Status Column::AppendValue(const Value& v) {
  if (v.is_null()) {
    AppendNull();
    return Status::OK();
  }
  auto mismatch = [&] {
    return Status::InvalidArgument(std::string("cannot store a ") + TypeName(v.type()) + " value in a " +
                                   TypeName(type_) + " column");
  };
  if (IsDecimal(type_)) {
    if (!IsNumeric(v.type())) return mismatch();
    ASSIGN_OR_RETURN(int64_t unscaled, ToDecimal(v, type_));
    Append<int64_t>(unscaled);
    return Status::OK();
  }
  switch (type_) {
    case TypeId::kBool:
      if (v.type() != TypeId::kBool) return mismatch();
      Append<uint8_t>(v.bool_value() ? 1 : 0);
      return Status::OK();
    case TypeId::kInt32:
    case TypeId::kDate: {
      if (IsFloating(v.type()) || IsDecimal(v.type()) || IsBytes(v.type()) || v.type() == TypeId::kBool) {
        return mismatch();
      }
      int64_t x = v.int_value();
      if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max()) {
        return Status::InvalidArgument("value " + std::to_string(x) + " out of range for " + TypeName(type_));
      }
      Append<int32_t>(int32_t(x));
      return Status::OK();
    }
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
      if (IsFloating(v.type()) || IsDecimal(v.type()) || IsBytes(v.type()) || v.type() == TypeId::kBool) {
        return mismatch();
      }
      // Nanoseconds and microseconds are not interchangeable (the binder converts between them).
      if (IsTimestamp(v.type()) && (v.type() == TypeId::kTimestampNs) != (type_ == TypeId::kTimestampNs)) {
        return mismatch();
      }
      Append<int64_t>(v.int_value());
      return Status::OK();
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d;
      if (IsFloating(v.type())) {
        d = v.double_value();
      } else if (IsInteger(v.type())) {
        d = double(v.int_value());
      } else if (IsDecimal(v.type())) {
        d = DecimalToDouble(v.int_value(), DecimalScale(v.type()));
      } else {
        return mismatch();
      }
      if (type_ == TypeId::kFloat) {
        Append<float>(float(d));
      } else {
        Append<double>(d);
      }
      return Status::OK();
    }
    case TypeId::kString:
    case TypeId::kBinary:
      // Text is bytes too: a string value goes into a binary column as it is.
      if (v.type() != type_ && v.type() != TypeId::kString) return mismatch();
      return AppendString(v.string_value());
    case TypeId::kUuid:
      if (v.type() != TypeId::kUuid) return mismatch();
      if (v.string_value().size() != 16) {
        return Status::InvalidArgument("a uuid holds 16 bytes, got " + std::to_string(v.string_value().size()));
      }
      return AppendString(v.string_value());
  }
  return mismatch();
}

Value Column::GetValue(size_t i) const {
  if (IsNull(i)) return Value::Null(type_);
  if (IsDecimal(type_)) return Value::Decimal(type_, Get<int64_t>(i));
  switch (type_) {
    case TypeId::kBool: return Value::Bool(Get<uint8_t>(i) != 0);
    case TypeId::kInt32: return Value::Int32(Get<int32_t>(i));
    case TypeId::kDate: return Value::Date(Get<int32_t>(i));
    case TypeId::kInt64: return Value::Int64(Get<int64_t>(i));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return Value::Int(type_, Get<int64_t>(i));
    case TypeId::kFloat: return Value::Float(Get<float>(i));
    case TypeId::kDouble: return Value::Double(Get<double>(i));
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: return Value::Bytes(type_, std::string(GetString(i)));
  }
  return Value::Null(type_);
}

void Column::AppendSlice(const Column& other, size_t offset, size_t count) {
  if (count == 0) return;
  // Values are copied as they lie (NULL slots hold zeros, or empty strings); validity after.
  if (IsBytes(type_)) {
    uint32_t base = other.offsets_[offset];
    uint32_t end = other.offsets_[offset + count];
    uint32_t shift = uint32_t(chars_.size());
    chars_.append(other.chars_, base, end - base);
    for (size_t i = 1; i <= count; ++i) offsets_.push_back(other.offsets_[offset + i] - base + shift);
  } else {
    size_t w = size_t(FixedWidth(type_));
    fixed_.insert(fixed_.end(), other.fixed_.begin() + offset * w, other.fixed_.begin() + (offset + count) * w);
  }
  if (!other.has_validity()) {
    MarkValidRange(count);
    return;
  }
  // The slice's validity bits, moved to start at bit 0 (on the stack for short slices: index
  // lookups append a row or a few at a time).
  uint8_t small[64];
  std::vector<uint8_t> large;
  uint8_t* bits = small;
  if (count > sizeof(small) * 8) {
    large.resize((count + 7) / 8);
    bits = large.data();
  }
  std::memset(bits, 0, (count + 7) / 8);
  for (size_t i = 0; i < count; ++i) {
    if (other.IsValid(offset + i)) bits[i >> 3] |= uint8_t(1u << (i & 7));
  }
  AppendValidityBits(bits, count);
}

Column Column::Scattered(const std::vector<const Column*>& pieces, const uint32_t* to) {
  Column out(pieces.empty() ? TypeId::kInt64 : pieces[0]->type_);
  size_t n = 0, chars = 0;
  for (const Column* p : pieces) {
    n += p->length_;
    out.null_count_ += p->null_count_;
    if (IsBytes(p->type_)) chars += p->chars_.size();
  }
  out.length_ = n;
  if (out.null_count_ > 0) {
    out.validity_.assign((n + 7) / 8, 0);
    const uint32_t* t = to;
    for (const Column* p : pieces) {
      for (size_t i = 0; i < p->length_; ++i) {
        if (p->IsValid(i)) out.validity_[t[i] >> 3] |= uint8_t(1u << (t[i] & 7));
      }
      t += p->length_;
    }
  }
  if (IsBytes(out.type_)) {
    // Lengths to their new rows, a prefix sum, then the characters.
    out.offsets_.assign(n + 1, 0);
    const uint32_t* t = to;
    for (const Column* p : pieces) {
      for (size_t i = 0; i < p->length_; ++i) out.offsets_[size_t(t[i]) + 1] = p->offsets_[i + 1] - p->offsets_[i];
      t += p->length_;
    }
    for (size_t i = 0; i < n; ++i) out.offsets_[i + 1] += out.offsets_[i];
    out.chars_.resize(chars);
    t = to;
    for (const Column* p : pieces) {
      for (size_t i = 0; i < p->length_; ++i) {
        std::memcpy(out.chars_.data() + out.offsets_[t[i]], p->chars_.data() + p->offsets_[i],
                    p->offsets_[i + 1] - p->offsets_[i]);
      }
      t += p->length_;
    }
    return out;
  }
  const size_t w = size_t(FixedWidth(out.type_));
  out.fixed_.resize(n * w);
  auto scatter = [&](auto* dst) {
    using T = std::remove_pointer_t<decltype(dst)>;
    const uint32_t* t = to;
    for (const Column* p : pieces) {
      const T* src = p->data<T>();
      for (size_t i = 0; i < p->length_; ++i) std::memcpy(dst + t[i], src + i, sizeof(T));
      t += p->length_;
    }
  };
  switch (w) {
    case 1: scatter(out.mutable_data<uint8_t>()); break;
    case 2: scatter(out.mutable_data<uint16_t>()); break;
    case 4: scatter(out.mutable_data<uint32_t>()); break;
    default: scatter(out.mutable_data<uint64_t>()); break;
  }
  return out;
}

void Column::PermuteRange(size_t offset, size_t count, const uint32_t* from) {
  if (count == 0) return;
  if (null_count_ > 0) {
    std::vector<uint8_t> valid(count);
    for (size_t k = 0; k < count; ++k) valid[k] = IsValid(from[k]);
    for (size_t k = 0; k < count; ++k) {
      const size_t i = offset + k;
      validity_[i >> 3] = uint8_t((validity_[i >> 3] & ~(1u << (i & 7))) | (unsigned(valid[k]) << (i & 7)));
    }
  }
  if (IsBytes(type_)) {
    const uint32_t base = offsets_[offset];
    const std::string chars(chars_.data() + base, offsets_[offset + count] - base);
    const std::vector<uint32_t> old(offsets_.begin() + std::ptrdiff_t(offset),
                                    offsets_.begin() + std::ptrdiff_t(offset + count + 1));
    uint32_t at = base;
    for (size_t k = 0; k < count; ++k) {
      const size_t r = from[k] - offset;
      const uint32_t len = old[r + 1] - old[r];
      std::memcpy(chars_.data() + at, chars.data() + (old[r] - base), len);
      offsets_[offset + k] = at;
      at += len;
    }
    return;
  }
  auto permute = [&](auto* values) {
    using T = std::remove_pointer_t<decltype(values)>;
    const std::vector<T> old(values + offset, values + offset + count);
    for (size_t k = 0; k < count; ++k) values[offset + k] = old[from[k] - offset];
  };
  switch (FixedWidth(type_)) {
    case 1: permute(mutable_data<uint8_t>()); break;
    case 2: permute(mutable_data<uint16_t>()); break;
    case 4: permute(mutable_data<uint32_t>()); break;
    default: permute(mutable_data<uint64_t>()); break;
  }
}

void Column::AppendSelected(const Column& other, const uint32_t* rows, size_t count) {
  if (count == 0) return;
  // One validity bitmap for the selected rows, then the values in one gather (this is the hot
  // loop of layout rewrites and takes: no per-row growth).
  std::vector<uint8_t> bits;
  const uint8_t* valid_bits = nullptr;
  if (other.null_count_ > 0) {
    bits.assign((count + 7) / 8, 0);
    for (size_t k = 0; k < count; ++k) {
      if (other.IsValid(rows[k])) bits[k >> 3] |= uint8_t(1u << (k & 7));
    }
    valid_bits = bits.data();
  }
  if (IsBytes(type_)) {
    std::vector<std::string_view> values;
    values.reserve(count);
    constexpr size_t kAhead = 16;
    const uint32_t* offsets = other.offsets_.data();
    for (size_t k = 0; k < count; ++k) {
      if (k + kAhead < count) __builtin_prefetch(offsets + rows[k + kAhead]);
      if (k + kAhead / 2 < count) __builtin_prefetch(other.chars_.data() + offsets[rows[k + kAhead / 2]]);
      if (other.IsValid(rows[k])) values.push_back(other.GetString(rows[k]));
    }
    (void)AppendStrings(values.data(), count, valid_bits);
    return;
  }
  auto gather = [&](auto* dst) {
    using T = std::remove_pointer_t<decltype(dst)>;
    const T* src = other.data<T>();
    // Selected rows are often scattered over a large column (layout rewrites): fetch ahead.
    constexpr size_t kAhead = 16;
    for (size_t k = 0; k < count; ++k) {
      if (k + kAhead < count) __builtin_prefetch(src + rows[k + kAhead]);
      std::memcpy(dst + k, src + rows[k], sizeof(T));
    }
  };
  switch (FixedWidth(type_)) {
    case 1: gather(AppendValues<uint8_t>(count, valid_bits)); break;
    case 2: gather(AppendValues<uint16_t>(count, valid_bits)); break;
    case 4: gather(AppendValues<uint32_t>(count, valid_bits)); break;
    default: gather(AppendValues<uint64_t>(count, valid_bits)); break;
  }
}

bool Column::Equals(const Column& other) const {
  if (type_ != other.type_ || length_ != other.length_ || null_count_ != other.null_count_) return false;
  for (size_t i = 0; i < length_; ++i) {
    if (IsNull(i) != other.IsNull(i)) return false;
    if (IsNull(i)) continue;
    if (IsBytes(type_)) {
      if (GetString(i) != other.GetString(i)) return false;
      continue;
    }
    switch (type_) {
      case TypeId::kFloat: {
        float a = Get<float>(i), b = other.Get<float>(i);
        if (std::memcmp(&a, &b, 4) != 0 && !(std::isnan(a) && std::isnan(b))) return false;
        break;
      }
      case TypeId::kDouble: {
        double a = Get<double>(i), b = other.Get<double>(i);
        if (std::memcmp(&a, &b, 8) != 0 && !(std::isnan(a) && std::isnan(b))) return false;
        break;
      }
      default: {
        size_t w = size_t(FixedWidth(type_));
        if (std::memcmp(fixed_.data() + i * w, other.fixed_.data() + i * w, w) != 0) return false;
      }
    }
  }
  return true;
}

Batch::Batch(Schema schema) : schema_(std::move(schema)) {
  columns_.reserve(schema_.num_fields());
  for (const Field& f : schema_.fields()) columns_.emplace_back(f.type);
}

const Column* Batch::FindColumn(std::string_view name) const {
  int i = schema_.FindField(name);
  return i < 0 ? nullptr : &columns_[size_t(i)];
}

Status Batch::Seal() {
  if (columns_.size() != schema_.num_fields()) {
    return Status::Internal("batch has " + std::to_string(columns_.size()) + " columns for a schema of " +
                            std::to_string(schema_.num_fields()));
  }
  size_t n = columns_.empty() ? num_rows_ : columns_[0].length();
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i].length() != n) {
      return Status::Internal("column '" + schema_.field(i).name + "' has " + std::to_string(columns_[i].length()) +
                              " rows, expected " + std::to_string(n));
    }
  }
  num_rows_ = n;
  return Status::OK();
}

Status Batch::Append(const Batch& other) {
  if (!(schema_ == other.schema_)) {
    return Status::InvalidArgument("schema mismatch: " + schema_.ToString() + " vs " + other.schema_.ToString());
  }
  for (size_t i = 0; i < columns_.size(); ++i) columns_[i].AppendSlice(other.columns_[i], 0, other.num_rows_);
  num_rows_ += other.num_rows_;
  return Status::OK();
}

Batch Batch::Slice(size_t offset, size_t count) const {
  Batch out(schema_);
  for (size_t i = 0; i < columns_.size(); ++i) out.columns_[i].AppendSlice(columns_[i], offset, count);
  out.num_rows_ = count;
  return out;
}

bool Batch::Equals(const Batch& other) const {
  if (!(schema_ == other.schema_) || num_rows_ != other.num_rows_) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i].Equals(other.columns_[i])) return false;
  }
  return true;
}

}  // namespace lakeindex
