#include "format/csv/csv_value.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <cmath>
#include <limits>
#include <type_traits>

namespace lakeindex::csv {

namespace {

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

// std::from_chars takes no '+' sign; accept one, but not "+-1" or "++1".
std::string_view StripPlus(std::string_view s) {
  if (s.size() >= 2 && s[0] == '+' && s[1] != '+' && s[1] != '-') s.remove_prefix(1);
  return s;
}

// A floating decimal past the type's range is ±infinity, one below its smallest magnitude ±0 or
// the nearest subnormal (as strtod rounds it, and as DuckDB and the filter language read them).
template <typename T>
bool ParseWhole(std::string_view text, T* out) {
  text = StripPlus(TrimBlanks(text));
  if (text.empty()) return false;
  T v;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ptr != text.data() + text.size()) return false;
  if constexpr (std::is_floating_point_v<T>) {
    if (r.ec == std::errc::result_out_of_range) {
      const std::string copy(text);  // strtod needs a terminated string; a rare path
      char* end = nullptr;
      v = std::is_same_v<T, float> ? T(std::strtof(copy.c_str(), &end)) : T(std::strtod(copy.c_str(), &end));
      if (end != copy.c_str() + copy.size()) return false;
      r.ec = std::errc();
    }
  }
  if (r.ec != std::errc()) return false;
  *out = v;
  return true;
}

}  // namespace

bool ParseBool(std::string_view text, bool* out) {
  text = TrimBlanks(text);
  if (EqualsIgnoreCase(text, "true")) {
    *out = true;
    return true;
  }
  if (EqualsIgnoreCase(text, "false")) {
    *out = false;
    return true;
  }
  return false;
}

bool ParseInt64(std::string_view text, int64_t* out) { return ParseWhole(text, out); }
bool ParseInt32(std::string_view text, int32_t* out) { return ParseWhole(text, out); }
// from_chars for floating point is exact (correctly rounded) and accepts nan/inf/infinity in any
// case; it rejects hex without a 0x-aware format.
bool ParseDouble(std::string_view text, double* out) { return ParseWhole(text, out); }
bool ParseFloat(std::string_view text, float* out) { return ParseWhole(text, out); }

bool AppendParsed(std::string_view text, Column* column) {
  if (IsDecimal(column->type())) {
    auto v = ParseDecimal(text, column->type());
    if (!v.ok()) return false;
    column->Append<int64_t>(*v);
    return true;
  }
  switch (column->type()) {
    case TypeId::kBool: {
      bool v;
      if (!ParseBool(text, &v)) return false;
      column->Append<uint8_t>(v ? 1 : 0);
      return true;
    }
    case TypeId::kInt32: {
      int32_t v;
      if (!ParseInt32(text, &v)) return false;
      column->Append<int32_t>(v);
      return true;
    }
    case TypeId::kInt64: {
      int64_t v;
      if (!ParseInt64(text, &v)) return false;
      column->Append<int64_t>(v);
      return true;
    }
    case TypeId::kFloat: {
      float v;
      if (!ParseFloat(text, &v)) return false;
      column->Append<float>(v);
      return true;
    }
    case TypeId::kDouble: {
      double v;
      if (!ParseDouble(text, &v)) return false;
      column->Append<double>(v);
      return true;
    }
    case TypeId::kDate: {
      Result<int32_t> v = ParseDate(TrimBlanks(text));
      if (!v.ok()) return false;
      column->Append<int32_t>(*v);
      return true;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: {
      Result<int64_t> v = column->type() == TypeId::kTimestampNs ? ParseTimestampNs(TrimBlanks(text))
                                                                 : ParseTimestamp(TrimBlanks(text));
      if (!v.ok()) return false;
      column->Append<int64_t>(*v);
      return true;
    }
    case TypeId::kBinary: {
      Result<std::string> v = ParseBinary(text);
      return v.ok() && column->AppendString(*v).ok();
    }
    case TypeId::kUuid: {
      Result<std::string> v = ParseUuid(TrimBlanks(text));
      return v.ok() && column->AppendString(*v).ok();
    }
    case TypeId::kString:
      break;
  }
  return false;
}

namespace {

// Whether a timestamp's text names its offset from UTC ("Z", "+02", "-05:30" after the time).
bool HasZone(std::string_view text) {
  const size_t time = text.find(':');
  return time != std::string_view::npos && text.find_first_of("Zz+-", time) != std::string_view::npos;
}

}  // namespace

void TypeInference::Observe(std::string_view text) {
  seen_ = true;
  if (candidates_ & kBoolBit) {
    bool b;
    if (!ParseBool(text, &b)) candidates_ &= uint8_t(~kBoolBit);
  }
  if (candidates_ & kInt64Bit) {
    int64_t i;
    if (!ParseInt64(text, &i)) candidates_ &= uint8_t(~kInt64Bit);
  }
  if (candidates_ & kDoubleBit) {
    double d;
    if (!ParseDouble(text, &d)) candidates_ &= uint8_t(~kDoubleBit);
  }
  if ((candidates_ & kDateBit) && !ParseDate(TrimBlanks(text)).ok()) {
    candidates_ &= uint8_t(~kDateBit);
  }
  if ((candidates_ & kTimestampBit) && !ParseTimestamp(TrimBlanks(text)).ok()) {
    candidates_ &= uint8_t(~kTimestampBit);
  }
  if ((candidates_ & kTimestampBit) && HasZone(text)) zoned_ = true;
}

TypeId TypeInference::Type() const {
  if (!seen_) return TypeId::kString;
  if (candidates_ & kBoolBit) return TypeId::kBool;
  if (candidates_ & kInt64Bit) return TypeId::kInt64;
  if (candidates_ & kDoubleBit) return TypeId::kDouble;
  if (candidates_ & kDateBit) return TypeId::kDate;
  if (candidates_ & kTimestampBit) return zoned_ ? TypeId::kTimestampTz : TypeId::kTimestamp;
  return TypeId::kString;
}

namespace {

template <typename T>
void AppendNumber(T v, std::string* out) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) {  // to_chars would print "-nan" for a negative NaN
      out->append("nan");
      return;
    }
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);  // shortest round-trip form; "inf", "-inf"
  out->append(buf, r.ptr);
}

}  // namespace

void AppendFormatted(const Column& column, size_t row, std::string* out) {
  if (IsDecimal(column.type())) {
    out->append(FormatDecimal(column.Get<int64_t>(row), DecimalScale(column.type())));
    return;
  }
  switch (column.type()) {
    case TypeId::kBool:
      out->append(column.Get<uint8_t>(row) ? "true" : "false");
      return;
    case TypeId::kInt32:
      AppendNumber(column.Get<int32_t>(row), out);
      return;
    case TypeId::kInt64:
      AppendNumber(column.Get<int64_t>(row), out);
      return;
    case TypeId::kFloat:
      AppendNumber(column.Get<float>(row), out);
      return;
    case TypeId::kDouble:
      AppendNumber(column.Get<double>(row), out);
      return;
    case TypeId::kDate:
      out->append(FormatDate(column.Get<int32_t>(row)));
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kBinary:
    case TypeId::kUuid:
      out->append(column.GetValue(row).ToString());
      return;
    case TypeId::kString:
      out->append(column.GetString(row));
      return;
  }
}

}  // namespace lakeindex::csv
