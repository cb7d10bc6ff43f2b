#include "lakeindex/types.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <cmath>
#include <cstdio>

namespace lakeindex {

namespace {
constexpr const char* kTypeNames[] = {"bool",   "int32",  "int64", "float",
                                      "double", "string", "date",  "timestamp"};
constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;
// DuckDB's (and PostgreSQL's) infinite dates and timestamps: the greatest value of the type and
// its negation. They are written and read as "infinity" and "-infinity".
constexpr int32_t kDateInfinity = std::numeric_limits<int32_t>::max();
constexpr int64_t kTimestampInfinity = std::numeric_limits<int64_t>::max();

// Parses exactly `n` decimal digits at s[pos].
bool ParseDigits(std::string_view s, size_t pos, size_t n, int64_t* out) {
  if (pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// Parses "YYYY-MM-DD" (optionally with a leading '-' year sign; years of 4 to 7 digits, so that
// every date FormatDate writes reads back) into days; sets *consumed.
bool ParseDatePart(std::string_view s, int64_t* days, size_t* consumed) {
  size_t pos = 0;
  bool negative = false;
  if (!s.empty() && s[0] == '-') { negative = true; pos = 1; }
  size_t year_digits = 0;
  while (pos + year_digits < s.size() && year_digits < 7 && s[pos + year_digits] >= '0' && s[pos + year_digits] <= '9') {
    ++year_digits;
  }
  if (year_digits < 4) return false;
  int64_t y, m, d;
  if (!ParseDigits(s, pos, year_digits, &y)) return false;
  pos += year_digits;
  if (pos >= s.size() || s[pos] != '-') return false;
  if (!ParseDigits(s, pos + 1, 2, &m)) return false;
  pos += 3;
  if (pos >= s.size() || s[pos] != '-') return false;
  if (!ParseDigits(s, pos + 1, 2, &d)) return false;
  pos += 3;
  if (negative) y = -y;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, unsigned(m))) return false;
  *days = DaysFromCivil(y, unsigned(m), unsigned(d));
  *consumed = pos;
  return true;
}
}  // namespace

const char* TypeName(TypeId type) {
  auto i = static_cast<size_t>(type);
  return i < std::size(kTypeNames) ? kTypeNames[i] : "unknown";
}

Result<TypeId> ParseTypeName(std::string_view name) {
  for (size_t i = 0; i < std::size(kTypeNames); ++i) {
    if (name == kTypeNames[i]) return static_cast<TypeId>(i);
  }
  if (name == "boolean") return TypeId::kBool;
  if (name == "int" || name == "bigint") return TypeId::kInt64;
  if (name == "varchar" || name == "text") return TypeId::kString;
  return Status::InvalidArgument("unknown type '" + std::string(name) +
                                 "' (expected bool, int32, int64, float, double, string, date or timestamp)");
}

int FixedWidth(TypeId type) {
  switch (type) {
    case TypeId::kBool: return 1;
    case TypeId::kInt32:
    case TypeId::kFloat:
    case TypeId::kDate: return 4;
    case TypeId::kInt64:
    case TypeId::kDouble:
    case TypeId::kTimestamp: return 8;
    case TypeId::kString: return 0;
  }
  return 0;
}

bool IsInteger(TypeId t) { return t == TypeId::kInt32 || t == TypeId::kInt64; }
bool IsFloating(TypeId t) { return t == TypeId::kFloat || t == TypeId::kDouble; }
bool IsNumeric(TypeId t) { return IsInteger(t) || IsFloating(t); }

Result<Schema> Schema::Parse(std::string_view text) {
  Schema schema;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view entry = text.substr(pos, end - pos);
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    while (!entry.empty() && entry.back() == ' ') entry.remove_suffix(1);
    size_t colon = entry.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Status::InvalidArgument("schema at position " + std::to_string(pos + 1) + ": expected name:type, got '" +
                                     std::string(entry) + "'");
    }
    std::string_view type_name = entry.substr(colon + 1);
    bool nullable = true;
    if (!type_name.empty() && type_name.back() == '!') {
      nullable = false;
      type_name.remove_suffix(1);
    }
    auto type = ParseTypeName(type_name);
    if (!type.ok()) {
      return type.status().WithContext("schema at position " + std::to_string(pos + colon + 2));
    }
    std::string name(entry.substr(0, colon));
    if (schema.FindField(name) >= 0) {
      return Status::InvalidArgument("schema: duplicate column '" + name + "'");
    }
    schema.AddField(Field{std::move(name), *type, nullable});
    pos = end + 1;
  }
  return schema;
}

std::string Schema::ToString() const {
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i) out += ',';
    out += fields_[i].name + ':' + TypeName(fields_[i].type);
    if (!fields_[i].nullable) out += '!';
  }
  return out;
}

int Schema::FindField(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return int(i);
  }
  return -1;
}

std::string FormatDouble(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

std::string Value::ToString() const {
  if (is_null()) return "NULL";
  switch (type_) {
    case TypeId::kBool: return bool_value() ? "true" : "false";
    case TypeId::kInt32:
    case TypeId::kInt64: return std::to_string(int_value());
    case TypeId::kFloat: {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof(buf), float(double_value()));
      double d = double_value();
      if (std::isnan(d) || std::isinf(d)) return FormatDouble(d);
      return std::string(buf, r.ptr);
    }
    case TypeId::kDouble: return FormatDouble(double_value());
    case TypeId::kString: return string_value();
    case TypeId::kDate: return FormatDate(int32_t(int_value()));
    case TypeId::kTimestamp: return FormatTimestamp(int_value());
  }
  return "?";
}

int CompareValues(const Value& a, const Value& b) {
  if (a.type() == TypeId::kString || b.type() == TypeId::kString) {
    int c = a.string_value().compare(b.string_value());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.type() == TypeId::kBool) return int(a.bool_value()) - int(b.bool_value());
  bool a_float = IsFloating(a.type()), b_float = IsFloating(b.type());
  if (!a_float && !b_float) {
    int64_t x = a.int_value(), y = b.int_value();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a_float && b_float) {
    double x = a.double_value(), y = b.double_value();
    bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn || yn) return int(xn) - int(yn);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  // Mixed int/double: compare exactly, without rounding the integer through double.
  bool flip = !a_float;
  double d = a_float ? a.double_value() : b.double_value();
  int64_t i = a_float ? b.int_value() : a.int_value();
  int c;
  if (std::isnan(d)) {
    c = 1;
  } else if (d >= 9223372036854775808.0) {
    c = 1;
  } else if (d < -9223372036854775808.0) {
    c = -1;
  } else {
    double t = std::trunc(d);
    auto ti = static_cast<int64_t>(t);
    if (ti != i) {
      c = ti < i ? -1 : 1;
    } else {
      c = d > t ? 1 : (d < t ? -1 : 0);
    }
  }
  return flip ? -c : c;
}

// Howard Hinnant's days_from_civil algorithm (public domain description).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

namespace {

// +1 for "infinity" / "+infinity", -1 for "-infinity" (any case), else 0: PostgreSQL's and
// DuckDB's words for the dates and timestamps past every other.
int Infinity(std::string_view text) {
  auto equals = [&](std::string_view word) {
    if (text.size() != word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(text[i])) != word[i]) return false;
    }
    return true;
  };
  if (equals("infinity") || equals("+infinity")) return 1;
  if (equals("-infinity")) return -1;
  return 0;
}

}  // namespace

Result<int32_t> ParseDate(std::string_view text) {
  if (const int inf = Infinity(text)) return inf > 0 ? kDateInfinity : -kDateInfinity;
  int64_t days;
  size_t consumed;
  if (!ParseDatePart(text, &days, &consumed) || consumed != text.size()) {
    return Status::InvalidArgument("invalid date '" + std::string(text) + "' (expected YYYY-MM-DD or [-]infinity)");
  }
  if (days > std::numeric_limits<int32_t>::max() || days < std::numeric_limits<int32_t>::min()) {
    return Status::InvalidArgument("date '" + std::string(text) + "' is out of range");
  }
  return int32_t(days);
}

Result<int64_t> ParseTimestamp(std::string_view text) {
  if (const int inf = Infinity(text)) return inf > 0 ? kTimestampInfinity : -kTimestampInfinity;
  auto bad = [&] {
    return Status::InvalidArgument("invalid timestamp '" + std::string(text) +
                                   "' (expected YYYY-MM-DD HH:MM:SS[.ffffff][Z|+HH:MM])");
  };
  int64_t days;
  size_t pos;
  if (!ParseDatePart(text, &days, &pos)) return bad();
  auto out_of_range = [&] { return Status::InvalidArgument("timestamp '" + std::string(text) + "' is out of range"); };
  if (days > kTimestampInfinity / kMicrosPerDay || days < -(kTimestampInfinity / kMicrosPerDay) - 1) return out_of_range();
  int64_t micros = 0;
  if (pos < text.size()) {
    if (text[pos] != ' ' && text[pos] != 'T') return bad();
    int64_t h, mi, s;
    if (!ParseDigits(text, pos + 1, 2, &h) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !ParseDigits(text, pos + 4, 2, &mi)) {
      return bad();
    }
    pos += 6;
    s = 0;
    if (pos < text.size() && text[pos] == ':') {
      if (!ParseDigits(text, pos + 1, 2, &s)) return bad();
      pos += 3;
    }
    if (h > 23 || mi > 59 || s > 59) return bad();
    micros = ((h * 60 + mi) * 60 + s) * kMicrosPerSecond;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      int64_t frac = 0;
      int digits = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (digits == 6) return bad();  // sub-microsecond precision would be silently lost
        frac = frac * 10 + (text[pos] - '0');
        ++digits;
        ++pos;
      }
      if (digits == 0) return bad();
      for (int i = digits; i < 6; ++i) frac *= 10;
      micros += frac;
    }
    // ISO 8601's UTC designator or offset from UTC: the value is kept in UTC.
    if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
      ++pos;
    } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
      const int64_t sign = text[pos] == '+' ? 1 : -1;
      int64_t oh = 0, om = 0;
      if (!ParseDigits(text, pos + 1, 2, &oh)) return bad();
      pos += 3;
      if (pos < text.size() && text[pos] == ':') ++pos;
      if (pos < text.size()) {
        if (!ParseDigits(text, pos, 2, &om)) return bad();
        pos += 2;
      }
      if (oh > 18 || om > 59) return bad();
      micros -= sign * (oh * 60 + om) * 60 * kMicrosPerSecond;
    }
    if (pos != text.size()) return bad();
  }
  const __int128 total = __int128(days) * kMicrosPerDay + micros;
  if (total > std::numeric_limits<int64_t>::max() || total < std::numeric_limits<int64_t>::min()) return out_of_range();
  return int64_t(total);
}

std::string FormatDate(int32_t days) {
  if (days == kDateInfinity) return "infinity";
  if (days == -kDateInfinity) return "-infinity";
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[32];
  if (y < 0) {
    std::snprintf(buf, sizeof(buf), "-%04lld-%02u-%02u", static_cast<long long>(-y), m, d);
  } else {
    std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  }
  return buf;
}

std::string FormatTimestamp(int64_t micros) {
  if (micros == kTimestampInfinity) return "infinity";
  if (micros == -kTimestampInfinity) return "-infinity";
  int64_t days = micros / kMicrosPerDay;
  int64_t rem = micros % kMicrosPerDay;
  if (rem < 0) {
    rem += kMicrosPerDay;
    --days;
  }
  int64_t secs = rem / kMicrosPerSecond, frac = rem % kMicrosPerSecond;
  char buf[48];
  std::snprintf(buf, sizeof(buf), " %02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  std::string out = FormatDate(int32_t(days)) + buf;
  if (frac != 0) {
    std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out;
}

}  // namespace lakeindex
