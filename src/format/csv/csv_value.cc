#include "format/csv/csv_value.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
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
  for (std::string_view yes : {"true", "t", "yes", "y", "1"}) {
    if (EqualsIgnoreCase(text, yes)) {
      *out = true;
      return true;
    }
  }
  for (std::string_view no : {"false", "f", "no", "n", "0"}) {
    if (EqualsIgnoreCase(text, no)) {
      *out = false;
      return true;
    }
  }
  return false;
}

bool ParseInt64(std::string_view text, int64_t* out) { return ParseWhole(text, out); }
bool ParseInt32(std::string_view text, int32_t* out) { return ParseWhole(text, out); }
// from_chars for floating point is exact (correctly rounded) and accepts nan/inf/infinity in any
// case; it rejects hex without a 0x-aware format.
bool ParseDouble(std::string_view text, double* out) { return ParseWhole(text, out); }
bool ParseFloat(std::string_view text, float* out) { return ParseWhole(text, out); }

namespace {

// `text` without the thousands separator (into *buffer when it holds one).
std::string_view WithoutThousands(std::string_view text, char thousands, std::string* buffer) {
  if (thousands == 0 || text.find(thousands) == std::string_view::npos) return text;
  buffer->clear();
  for (char c : text) {
    if (c != thousands) buffer->push_back(c);
  }
  return *buffer;
}

bool ReadDigits(std::string_view text, size_t* pos, size_t min, size_t max, int* out) {
  size_t n = 0;
  int v = 0;
  while (n < max && *pos + n < text.size() && text[*pos + n] >= '0' && text[*pos + n] <= '9') {
    v = v * 10 + (text[*pos + n] - '0');
    ++n;
  }
  if (n < min) return false;
  *pos += n;
  *out = v;
  return true;
}

}  // namespace

bool ParseFormattedDate(std::string_view text, std::string_view format, int32_t* out) {
  text = TrimBlanks(text);
  int year = -1, month = -1, day = -1;
  size_t pos = 0;
  for (size_t f = 0; f < format.size(); ++f) {
    if (format[f] != '%' || f + 1 == format.size()) {
      if (pos >= text.size() || text[pos] != format[f]) return false;
      ++pos;
      continue;
    }
    const char spec = format[++f];
    switch (spec) {
      case 'Y':
        if (!ReadDigits(text, &pos, 4, 4, &year)) return false;
        break;
      case 'y':
        if (!ReadDigits(text, &pos, 2, 2, &year)) return false;
        year += year <= 68 ? 2000 : 1900;
        break;
      case 'm':
        if (!ReadDigits(text, &pos, 1, 2, &month)) return false;
        break;
      case 'd':
        if (!ReadDigits(text, &pos, 1, 2, &day)) return false;
        break;
      case 'b': {
        static constexpr std::string_view kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                                       "jul", "aug", "sep", "oct", "nov", "dec"};
        if (pos + 3 > text.size()) return false;
        month = -1;
        for (int m = 0; m < 12; ++m) {
          if (EqualsIgnoreCase(text.substr(pos, 3), kMonths[m])) month = m + 1;
        }
        if (month < 0) return false;
        pos += 3;
        break;
      }
      case '%':
        if (pos >= text.size() || text[pos] != '%') return false;
        ++pos;
        break;
      default:
        return false;
    }
  }
  if (pos != text.size() || year < 0 || month < 1 || month > 12 || day < 1 || day > 31) return false;
  char iso[48];
  std::snprintf(iso, sizeof(iso), "%04d-%02d-%02d", year, month, day);
  Result<int32_t> days = ParseDate(iso);  // checks the day against the month
  if (!days.ok()) return false;
  *out = *days;
  return true;
}

bool AppendParsed(std::string_view text, Column* column, const ValueSyntax& syntax) {
  std::string buffer;
  if (IsNumeric(column->type())) text = WithoutThousands(text, syntax.thousands, &buffer);
  if (column->type() == TypeId::kDate && !syntax.date_format.empty()) {
    int32_t days;
    if (!ParseFormattedDate(text, syntax.date_format, &days)) return false;
    column->Append<int32_t>(days);
    return true;
  }
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

// The booleans DuckDB's sniffer infers a BOOLEAN column from (its cast takes more: ParseBool).
bool InferableBool(std::string_view text) {
  text = TrimBlanks(text);
  for (std::string_view word : {"true", "false", "t", "f", "yes", "no"}) {
    if (EqualsIgnoreCase(text, word)) return true;
  }
  return false;
}

bool Digits(std::string_view s, size_t min, size_t max) {
  if (s.size() < min || s.size() > max) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "12/31/2024", "31.12.2024", "1-2-2024": day, month and a 4-digit year in some order, not ISO's.
bool LooksLikeOtherDate(std::string_view text) {
  text = TrimBlanks(text);
  const size_t a = text.find_first_of("/.-");
  if (a == std::string_view::npos) return false;
  const size_t b = text.find(text[a], a + 1);
  if (b == std::string_view::npos) return false;
  const std::string_view first = text.substr(0, a), second = text.substr(a + 1, b - a - 1), third = text.substr(b + 1);
  return Digits(first, 1, 2) && Digits(second, 1, 2) && Digits(third, 4, 4);
}

// "1,234.50", "-12,345": digits grouped by ',' in threes, then an optional fraction.
bool HasThousands(std::string_view text) {
  text = TrimBlanks(text);
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  const size_t point = text.find('.');
  if (point != std::string_view::npos && !Digits(text.substr(point + 1), 0, text.size())) return false;
  std::string_view whole = text.substr(0, point);
  const size_t comma = whole.find(',');
  if (comma == std::string_view::npos || !Digits(whole.substr(0, comma), 1, 3)) return false;
  for (whole.remove_prefix(comma); !whole.empty(); whole.remove_prefix(4)) {
    if (whole[0] != ',' || !Digits(whole.substr(1, 3), 3, 3)) return false;
  }
  return true;
}

}  // namespace

void TypeInference::Observe(std::string_view text) {
  seen_ = true;
  if (candidates_ & kBoolBit) {
    if (!InferableBool(text)) candidates_ &= uint8_t(~kBoolBit);
  }
  if (all_dates_ || all_numbers_) {
    const bool date = LooksLikeOtherDate(text), thousands = HasThousands(text);
    int first = 0;
    size_t at = 0;
    const std::string_view trimmed = TrimBlanks(text);
    if (date && ReadDigits(trimmed, &at, 1, 2, &first) && first > 12) day_first_ = true;
    double d;
    all_dates_ = all_dates_ && date;
    all_numbers_ = all_numbers_ && (thousands || ParseDouble(text, &d));
    some_thousands_ = some_thousands_ || thousands;
    if (example_.empty() && (date || thousands)) example_ = std::string(TrimBlanks(text));
  }
  std::string buffer;
  const std::string_view number = WithoutThousands(text, syntax_ ? syntax_->thousands : 0, &buffer);
  if (candidates_ & kInt64Bit) {
    int64_t i;
    if (!ParseInt64(number, &i)) candidates_ &= uint8_t(~kInt64Bit);
  }
  if (candidates_ & kDoubleBit) {
    double d;
    if (!ParseDouble(number, &d)) candidates_ &= uint8_t(~kDoubleBit);
  }
  if (candidates_ & kDateBit) {
    int32_t days;
    const bool date = syntax_ && !syntax_->date_format.empty() ? ParseFormattedDate(text, syntax_->date_format, &days)
                                                                : ParseDate(TrimBlanks(text)).ok();
    if (!date) candidates_ &= uint8_t(~kDateBit);
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

ValueSyntax TypeInference::LookalikeSyntax() const {
  ValueSyntax out;
  if (Lookalike().empty()) return out;
  if (!all_dates_) {
    out.thousands = ',';
    return out;
  }
  const char separator = example_[example_.find_first_of("/.-")];
  out.date_format = std::string(day_first_ ? "%d" : "%m") + separator + (day_first_ ? "%m" : "%d") + separator + "%Y";
  return out;
}

std::string TypeInference::Lookalike() const {
  if (Type() != TypeId::kString || example_.empty()) return "";  // a column of no values looks like nothing
  if (all_dates_) return "dates such as '" + example_ + "' (a CSV date is YYYY-MM-DD)";
  if (all_numbers_ && some_thousands_) {
    return "numbers such as '" + example_ + "' (a CSV number has no thousands separators)";
  }
  return "";
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
  if constexpr (std::is_floating_point_v<T>) {
    // A whole number keeps its ".0" (2004.0, as DuckDB's COPY and pandas write it), so the file
    // reads back as a double column, not an integer one.
    if (std::all_of(buf, r.ptr, [](char c) { return c == '-' || (c >= '0' && c <= '9'); })) out->append(".0");
  }
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
