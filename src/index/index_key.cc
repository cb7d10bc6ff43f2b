#include "index/index_key.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace lakeindex::index {
namespace {

constexpr uint64_t kSignBit = kKeySignBit;

void PutBigEndian(uint64_t x, std::string* out) {
  char buf[kFixedKeyWidth];
  StoreFixedKey(x, buf);
  out->append(buf, kFixedKeyWidth);
}

void PutInt(int64_t x, std::string* out) { PutBigEndian(IntKey(x), out); }

void PutDouble(double x, std::string* out) { PutBigEndian(DoubleKey(x), out); }

double GetDouble(std::string_view key) {
  uint64_t e = LoadFixedKey(key);
  uint64_t bits = (e & kSignBit) ? (e & ~kSignBit) : ~e;
  double x;
  std::memcpy(&x, &bits, 8);
  return x;
}

}  // namespace

uint64_t DoubleKey(double x) {
  if (std::isnan(x)) return ~uint64_t(0);
  if (x == 0) x = 0.0;  // -0.0 == 0.0
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  return (bits & kSignBit) ? ~bits : (bits | kSignBit);
}

uint64_t KeyPrefix(std::string_view key) {
  char buf[kFixedKeyWidth] = {};
  std::copy_n(key.data(), std::min(key.size(), kFixedKeyWidth), buf);
  return LoadFixedKey(std::string_view(buf, kFixedKeyWidth));
}

uint64_t LoadFixedKey(std::string_view key) {
  uint64_t x;
  std::memcpy(&x, key.data(), kFixedKeyWidth);
  if constexpr (std::endian::native == std::endian::little) x = __builtin_bswap64(x);
  return x;
}

void StoreFixedKey(uint64_t key, char* out) {
  if constexpr (std::endian::native == std::endian::little) key = __builtin_bswap64(key);
  std::memcpy(out, &key, kFixedKeyWidth);
}

void AppendKey(const Column& column, size_t row, std::string* out) {
  if (IsDecimal(column.type())) return PutInt(column.Get<int64_t>(row), out);
  switch (column.type()) {
    case TypeId::kBool: PutInt(column.Get<uint8_t>(row) != 0, out); return;
    case TypeId::kInt32:
    case TypeId::kDate: PutInt(column.Get<int32_t>(row), out); return;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: PutInt(column.Get<int64_t>(row), out); return;
    case TypeId::kFloat: PutDouble(double(column.Get<float>(row)), out); return;
    case TypeId::kDouble: PutDouble(column.Get<double>(row), out); return;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: out->append(column.GetString(row)); return;
  }
}

Result<std::string> EncodeQueryKey(TypeId column_type, const Value& value) {
  if (value.is_null()) return Status::InvalidArgument("index query: NULL literal");
  std::string out;
  const TypeId vt = value.type();
  auto mismatch = [&] {
    return Status::InvalidArgument(std::string("index query: literal of type ") + TypeName(vt) +
                                   " for a column of type " + TypeName(column_type));
  };
  if (IsDecimal(column_type)) {  // a value of the column's own type only (scales differ)
    if (vt != column_type) return mismatch();
    PutInt(value.int_value(), &out);
    return out;
  }
  switch (column_type) {
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
      if (vt != column_type) return mismatch();
      return value.string_value();
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (IsFloating(vt)) {
        PutDouble(value.double_value(), &out);
      } else if (IsInteger(vt)) {
        const int64_t x = value.int_value();
        if (x > (int64_t(1) << 53) || x < -(int64_t(1) << 53)) return mismatch();
        PutDouble(double(x), &out);
      } else {
        return mismatch();
      }
      return out;
    case TypeId::kBool:
      if (vt != TypeId::kBool) return mismatch();
      PutInt(value.bool_value() ? 1 : 0, &out);
      return out;
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
      // Integers as they are; a temporal value only of the column's own type (units differ).
      if (IsBytes(vt) || vt == TypeId::kBool || IsFloating(vt) || IsDecimal(vt) || (IsTemporal(vt) && vt != column_type)) {
        return mismatch();
      }
      PutInt(value.int_value(), &out);
      return out;
  }
  return mismatch();
}

Status AppendDecodedKey(std::string_view key, Column* out) {
  const TypeId type = out->type();
  if (IsBytes(type)) return out->AppendString(key);
  if (key.size() != kFixedKeyWidth) {
    return Status::Corruption("btree key of " + std::to_string(key.size()) + " bytes for type " +
                              TypeName(type));
  }
  const int64_t i = int64_t(LoadFixedKey(key) ^ kSignBit);
  if (IsDecimal(type)) {
    if (!FitsDecimal(i, type)) {
      return Status::Corruption("btree key: value beyond the precision of " + std::string(TypeName(type)));
    }
    out->Append<int64_t>(i);
    return Status::OK();
  }
  switch (type) {
    case TypeId::kBool:
      if (i != 0 && i != 1) return Status::Corruption("btree key: bool out of range");
      out->Append<uint8_t>(uint8_t(i));
      return Status::OK();
    case TypeId::kInt32:
    case TypeId::kDate:
      if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
        return Status::Corruption("btree key: value out of int32 range");
      }
      out->Append<int32_t>(int32_t(i));
      return Status::OK();
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: out->Append<int64_t>(i); return Status::OK();
    case TypeId::kFloat: out->Append<float>(float(GetDouble(key))); return Status::OK();
    case TypeId::kDouble: out->Append<double>(GetDouble(key)); return Status::OK();
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: break;
  }
  return Status::OK();
}

Result<Value> DecodeKey(TypeId type, std::string_view key) {
  Column c(type);
  RETURN_IF_ERROR(AppendDecodedKey(key, &c));
  return c.GetValue(0);
}

std::optional<std::string> PrefixSuccessor(std::string_view prefix) {
  std::string s(prefix);
  while (!s.empty() && uint8_t(s.back()) == 0xFF) s.pop_back();
  if (s.empty()) return std::nullopt;
  s.back() = char(uint8_t(s.back()) + 1);
  return s;
}

void KeyArray::Append(std::string_view key) {
  bytes_.append(key);
  if (width_ == 0) offsets_.push_back(bytes_.size());
}

void KeyArray::Reserve(size_t keys, size_t bytes) {
  if (width_ != 0) {
    bytes_.reserve(keys * width_);
  } else {
    bytes_.reserve(bytes);
    offsets_.reserve(keys + 1);
  }
}

void KeyArray::ShrinkToFit() {
  bytes_.shrink_to_fit();
  offsets_.shrink_to_fit();
}

void KeyArray::Clear() {
  bytes_.clear();
  offsets_.assign(1, 0);
}

size_t KeyArray::LowerBound(std::string_view key, bool strict, size_t lo, size_t hi) const {
  if (width_ == kFixedKeyWidth && key.size() == kFixedKeyWidth) {
    // As integers (key order): a search of a leaf page is a dozen steps, each a cache miss and
    // otherwise a compare call.
    const uint64_t k = LoadFixedKey(key);
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      const uint64_t m = LoadFixedKey(std::string_view(bytes_.data() + mid * kFixedKeyWidth, kFixedKeyWidth));
      if (m < k || (strict && m == k)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const int c = (*this)[mid].compare(key);
    if (c < 0 || (strict && c == 0)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

bool KeyInterval::AboveLower(std::string_view key) const {
  if (!lower) return true;
  const int c = key.compare(*lower);
  return c > 0 || (c == 0 && lower_inclusive);
}

bool KeyInterval::BelowUpper(std::string_view key) const {
  if (!upper) return true;
  const int c = key.compare(*upper);
  return c < 0 || (c == 0 && upper_inclusive);
}

namespace {

bool IsEmpty(const KeyInterval& iv) {
  if (!iv.lower || !iv.upper) return false;
  const int c = iv.lower->compare(*iv.upper);
  return c > 0 || (c == 0 && !(iv.lower_inclusive && iv.upper_inclusive));
}

KeyInterval Point(std::string key) {
  KeyInterval iv;
  iv.lower = key;
  iv.upper = std::move(key);
  return iv;
}

}  // namespace

Result<std::vector<KeyInterval>> QueryIntervals(TypeId type, const ScalarQuery& query) {
  std::vector<KeyInterval> out;
  switch (query.kind) {
    case ScalarQuery::Kind::kIsNull: return out;
    case ScalarQuery::Kind::kEquals: {
      if (query.values.empty()) return Status::InvalidArgument("index query: = without a value");
      ASSIGN_OR_RETURN(std::string key, EncodeQueryKey(type, query.values[0]));
      out.push_back(Point(std::move(key)));
      return out;
    }
    case ScalarQuery::Kind::kIn: {
      std::vector<std::string> keys;
      keys.reserve(query.values.size());
      for (const Value& v : query.values) {
        ASSIGN_OR_RETURN(std::string key, EncodeQueryKey(type, v));
        keys.push_back(std::move(key));
      }
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      out.reserve(keys.size());
      for (std::string& k : keys) out.push_back(Point(std::move(k)));
      return out;
    }
    case ScalarQuery::Kind::kPrefix: {
      if (type != TypeId::kString) {
        return Status::InvalidArgument(std::string("index query: prefix match on a column of type ") + TypeName(type));
      }
      KeyInterval iv;
      iv.lower = query.prefix;
      iv.upper = PrefixSuccessor(query.prefix);
      iv.upper_inclusive = false;
      if (query.prefix.empty()) iv.lower.reset();
      out.push_back(std::move(iv));
      return out;
    }
    case ScalarQuery::Kind::kRange: {
      KeyInterval iv;
      if (query.lower) {
        ASSIGN_OR_RETURN(std::string key, EncodeQueryKey(type, *query.lower));
        iv.lower = std::move(key);
      }
      if (query.upper) {
        ASSIGN_OR_RETURN(std::string key, EncodeQueryKey(type, *query.upper));
        iv.upper = std::move(key);
      }
      iv.lower_inclusive = query.lower_inclusive;
      iv.upper_inclusive = query.upper_inclusive;
      if (!IsEmpty(iv)) out.push_back(std::move(iv));
      return out;
    }
  }
  return Status::InvalidArgument("index query: unknown kind");
}

std::pair<size_t, size_t> KeysInInterval(const KeyArray& keys, const KeyInterval& iv) {
  const size_t n = keys.size();
  const size_t begin = iv.lower ? keys.LowerBound(*iv.lower, !iv.lower_inclusive, 0, n) : 0;
  const size_t end = iv.upper ? keys.LowerBound(*iv.upper, iv.upper_inclusive, begin, n) : n;
  return {begin, end};
}

}  // namespace lakeindex::index
