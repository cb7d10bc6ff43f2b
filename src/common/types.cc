#include "lakeindex/types.h"

#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <optional>
#include <cmath>
#include <cstdio>

namespace lakeindex {

namespace {
constexpr const char* kTypeNames[] = {"bool",   "int32",     "int64",       "float",  "double", "string",
                                      "date",   "timestamp", "timestamptz", "timestamp_ns", "binary", "uuid"};
constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kNanosPerSecond = 1000000000;
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
// every date FormatDate writes reads back; or "YYYY-MM-DD (BC)", as DuckDB writes years before 1)
// into days; sets *consumed.
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
  // DuckDB's (and PostgreSQL's) era suffix: year N BC is the astronomical year 1 - N.
  if (!negative && y >= 1 && s.substr(pos, 5) == " (BC)") {
    y = 1 - y;
    pos += 5;
  }
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, unsigned(m))) return false;
  *days = DaysFromCivil(y, unsigned(m), unsigned(d));
  *consumed = pos;
  return true;
}
// The decimals' ids follow the named types: decimal(p, s) is kFirstDecimal + (p - 1)(p + 2) / 2
// + s (precision 1 has scales 0..1, precision 2 has 0..2, ...).
constexpr int kFirstDecimal = int(std::size(kTypeNames));
constexpr int DecimalOffset(int precision) { return (precision - 1) * (precision + 2) / 2; }
constexpr int kDecimalCount = DecimalOffset(kMaxDecimalPrecision + 1);
static_assert(kFirstDecimal + kDecimalCount <= 256, "decimal ids must fit TypeId");

struct DecimalInfo {
  uint8_t precision, scale;
};
constexpr std::array<DecimalInfo, kDecimalCount> kDecimals = [] {
  std::array<DecimalInfo, kDecimalCount> a{};
  for (int p = 1; p <= kMaxDecimalPrecision; ++p) {
    for (int s = 0; s <= p; ++s) a[size_t(DecimalOffset(p) + s)] = {uint8_t(p), uint8_t(s)};
  }
  return a;
}();

const DecimalInfo& InfoOf(TypeId t) { return kDecimals[size_t(int(t) - kFirstDecimal)]; }

bool EqualsLower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != lower[i]) return false;
  }
  return true;
}

// "decimal(p,s)" / "numeric(p, s)" / "decimal(p)" / "decimal", any case; nullopt when `name` is
// not a decimal at all.
std::optional<Result<TypeId>> ParseDecimalName(std::string_view name) {
  const size_t open = name.find('(');
  std::string_view head = name.substr(0, open);
  while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  if (!EqualsLower(head, "decimal") && !EqualsLower(head, "numeric")) return std::nullopt;
  if (open == std::string_view::npos) return DecimalType(18, 3);  // DuckDB's DECIMAL
  auto bad = [&](const std::string& why) -> Result<TypeId> {
    return Status::InvalidArgument("type '" + std::string(name) + "': " + why);
  };
  if (name.back() != ')') return bad("expected decimal(precision, scale)");
  std::string_view args = name.substr(open + 1, name.size() - open - 2);
  int numbers[2] = {0, 0};
  int count = 0;
  while (count < 2) {
    while (!args.empty() && args.front() == ' ') args.remove_prefix(1);
    int v = 0;
    auto r = std::from_chars(args.data(), args.data() + args.size(), v);
    if (r.ec != std::errc() || v < 0) return bad("expected decimal(precision, scale)");
    numbers[count++] = v;
    args.remove_prefix(size_t(r.ptr - args.data()));
    while (!args.empty() && args.front() == ' ') args.remove_prefix(1);
    if (args.empty()) break;
    if (args.front() != ',' || count == 2) return bad("expected decimal(precision, scale)");
    args.remove_prefix(1);
  }
  const int precision = numbers[0], scale = numbers[1];
  if (precision < 1) return bad("precision must be at least 1");
  if (precision > kMaxDecimalPrecision) {
    return bad("precision " + std::to_string(precision) + " is above 18, the most lakeindex holds (decimals are " +
               "64-bit); use double, or decimal(18, s)");
  }
  if (scale > precision) return bad("scale " + std::to_string(scale) + " is above the precision");
  return DecimalType(precision, scale);
}
}  // namespace

TypeId DecimalType(int precision, int scale) {
  return static_cast<TypeId>(kFirstDecimal + DecimalOffset(precision) + scale);
}
bool IsDecimal(TypeId t) { return int(t) >= kFirstDecimal && int(t) < kFirstDecimal + kDecimalCount; }
int DecimalPrecision(TypeId t) { return InfoOf(t).precision; }
int DecimalScale(TypeId t) { return InfoOf(t).scale; }

int64_t Pow10(int n) {
  static constexpr std::array<int64_t, 19> kPowers = [] {
    std::array<int64_t, 19> a{};
    a[0] = 1;
    for (size_t i = 1; i < a.size(); ++i) a[i] = a[i - 1] * 10;
    return a;
  }();
  return kPowers[size_t(n)];
}

const char* TypeName(TypeId type) {
  auto i = static_cast<size_t>(type);
  if (i < std::size(kTypeNames)) return kTypeNames[i];
  if (!IsDecimal(type)) return "unknown";
  static const std::array<std::string, kDecimalCount> kNames = [] {
    std::array<std::string, kDecimalCount> a;
    for (size_t k = 0; k < a.size(); ++k) {
      a[k] = "decimal(" + std::to_string(kDecimals[k].precision) + "," + std::to_string(kDecimals[k].scale) + ")";
    }
    return a;
  }();
  return kNames[i - size_t(kFirstDecimal)].c_str();
}

Result<TypeId> ParseTypeName(std::string_view name) {
  // Any case, spaces around and between words as one: "DOUBLE  PRECISION" is "double precision".
  std::string lower;
  for (char c : name) {
    if (c == ' ' || c == '\t') {
      if (!lower.empty() && lower.back() != ' ') lower.push_back(' ');
    } else {
      lower.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (!lower.empty() && lower.back() == ' ') lower.pop_back();
  for (size_t i = 0; i < std::size(kTypeNames); ++i) {
    if (lower == kTypeNames[i]) return static_cast<TypeId>(i);
  }
  if (auto decimal = ParseDecimalName(lower)) return std::move(*decimal);
  // DuckDB's names and aliases (PostgreSQL's mostly), as DuckDB maps them; its narrower integers
  // become int32, which holds every value of theirs.
  static constexpr std::pair<const char*, TypeId> kAliases[] = {
      {"boolean", TypeId::kBool},         {"logical", TypeId::kBool},
      {"integer", TypeId::kInt32},        {"int", TypeId::kInt32},
      {"int4", TypeId::kInt32},           {"signed", TypeId::kInt32},
      {"smallint", TypeId::kInt32},       {"int2", TypeId::kInt32},
      {"short", TypeId::kInt32},          {"tinyint", TypeId::kInt32},
      {"int1", TypeId::kInt32},           {"bigint", TypeId::kInt64},
      {"int8", TypeId::kInt64},           {"long", TypeId::kInt64},
      {"real", TypeId::kFloat},           {"float4", TypeId::kFloat},
      {"double precision", TypeId::kDouble}, {"float8", TypeId::kDouble},
      {"varchar", TypeId::kString},       {"text", TypeId::kString},
      {"char", TypeId::kString},          {"bpchar", TypeId::kString},
      {"character varying", TypeId::kString}, {"character", TypeId::kString},
      {"datetime", TypeId::kTimestamp},   {"timestamp without time zone", TypeId::kTimestamp},
      {"timestamp_us", TypeId::kTimestamp}, {"timestamp with time zone", TypeId::kTimestampTz},
      {"blob", TypeId::kBinary},          {"bytea", TypeId::kBinary},
      {"varbinary", TypeId::kBinary},     {"binary", TypeId::kBinary}};
  std::string_view base = lower;
  // VARCHAR(n) and CHAR(n): DuckDB ignores the length, and so do we.
  if (const size_t open = base.find('('); open != std::string_view::npos && base.back() == ')') {
    std::string_view head = base.substr(0, open), length = base.substr(open + 1, base.size() - open - 2);
    while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
    const bool digits = !length.empty() && length.find_first_not_of("0123456789") == std::string_view::npos;
    if (digits && (head == "varchar" || head == "char" || head == "character varying" || head == "character")) {
      return TypeId::kString;
    }
  }
  for (const auto& [alias, type] : kAliases) {
    if (base == alias) return type;
  }
  return Status::InvalidArgument("unknown type '" + std::string(name) +
                                 "' (expected bool, int32, int64, float, double, string, date, timestamp, "
                                 "timestamptz, timestamp_ns, binary, uuid or decimal(p,s), or one of DuckDB's "
                                 "names for them: boolean, integer, bigint, real, double precision, varchar, "
                                 "blob, ...)");
}

int FixedWidth(TypeId type) {
  if (IsDecimal(type)) return 8;
  switch (type) {
    case TypeId::kBool: return 1;
    case TypeId::kInt32:
    case TypeId::kFloat:
    case TypeId::kDate: return 4;
    case TypeId::kInt64:
    case TypeId::kDouble:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return 8;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: return 0;
  }
  return 0;
}

bool IsInteger(TypeId t) { return t == TypeId::kInt32 || t == TypeId::kInt64; }
bool IsFloating(TypeId t) { return t == TypeId::kFloat || t == TypeId::kDouble; }
bool IsNumeric(TypeId t) { return IsInteger(t) || IsFloating(t) || IsDecimal(t); }
bool IsBytes(TypeId t) { return t == TypeId::kString || t == TypeId::kBinary || t == TypeId::kUuid; }
bool IsTimestamp(TypeId t) {
  return t == TypeId::kTimestamp || t == TypeId::kTimestampTz || t == TypeId::kTimestampNs;
}
bool IsTemporal(TypeId t) { return t == TypeId::kDate || IsTimestamp(t); }

int64_t TemporalUnitsPerDay(TypeId t) {
  if (t == TypeId::kDate) return 1;
  return t == TypeId::kTimestampNs ? 86400 * kNanosPerSecond : 86400 * kMicrosPerSecond;
}

int CompareTemporal(TypeId a_type, int64_t a, TypeId b_type, int64_t b) {
  if (a_type == b_type) return a < b ? -1 : (a > b ? 1 : 0);
  // An infinite timestamp is past every value of every unit.
  auto rank = [](TypeId t, int64_t v) {
    if (!IsTimestamp(t)) return 0;
    return v == kTimestampInfinity ? 1 : (v == -kTimestampInfinity ? -1 : 0);
  };
  const int ra = rank(a_type, a), rb = rank(b_type, b);
  if (ra != 0 || rb != 0) return ra < rb ? -1 : (ra > rb ? 1 : 0);
  // a / ua vs b / ub, exactly: |a * ub| < 2^63 * 2^47.
  const __int128 x = __int128(a) * TemporalUnitsPerDay(b_type), y = __int128(b) * TemporalUnitsPerDay(a_type);
  return x < y ? -1 : (x > y ? 1 : 0);
}

Result<Schema> Schema::Parse(std::string_view text) {
  Schema schema;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = pos;  // the next comma outside parentheses ("decimal(10,2)" holds one)
    for (int depth = 0; end < text.size() && (text[end] != ',' || depth > 0); ++end) {
      depth += text[end] == '(' ? 1 : (text[end] == ')' ? -1 : 0);
    }
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

Result<int64_t> ParseDecimal(std::string_view text, TypeId type) {
  const int precision = DecimalPrecision(type), scale = DecimalScale(type);
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("cannot read '" + std::string(text) + "' as a " + TypeName(type) + ": " + why);
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  // The digits, and where the point is among them (after int_digits of them).
  std::string digits;
  int64_t int_digits = 0;
  bool point = false;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9') {
      if (digits.size() < 4096) digits.push_back(s[i]);  // beyond: rounding past any scale
      int_digits += point ? 0 : 1;
    } else if (s[i] == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (digits.empty()) return bad("not a number");
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    int64_t exponent = 0;
    bool exponent_negative = false;
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) exponent_negative = s[j++] == '-';
    if (j >= s.size()) return bad("not a number");
    for (; j < s.size() && s[j] >= '0' && s[j] <= '9'; ++j) {
      if (exponent < 100000) exponent = exponent * 10 + (s[j] - '0');
    }
    int_digits += exponent_negative ? -exponent : exponent;
    i = j;
  }
  if (i != s.size()) return bad("not a number");
  // The value is 0.d1d2d3... * 10^int_digits; scaled, the digits before the point number
  // int_digits + scale.
  const int64_t kept = int_digits + scale;
  __int128 unscaled = 0;
  const __int128 limit = Pow10(precision);
  for (int64_t k = 0; k < kept; ++k) {
    unscaled = unscaled * 10 + (size_t(k) < digits.size() && k >= 0 ? digits[size_t(k)] - '0' : 0);
    if (unscaled >= limit) return bad("out of range for its precision");
  }
  if (kept >= 0 && size_t(kept) < digits.size() && digits[size_t(kept)] >= '5') ++unscaled;  // half away from zero
  if (unscaled >= limit) return bad("out of range for its precision");
  return int64_t(negative ? -unscaled : unscaled);
}

std::string FormatDecimal(int64_t unscaled, int scale) {
  const bool negative = unscaled < 0;
  // The magnitude's digits, at least scale + 1 of them.
  std::string digits = std::to_string(negative ? uint64_t(0) - uint64_t(unscaled) : uint64_t(unscaled));
  if (digits.size() < size_t(scale) + 1) digits.insert(0, size_t(scale) + 1 - digits.size(), '0');
  if (scale > 0) digits.insert(digits.size() - size_t(scale), 1, '.');
  return negative ? "-" + digits : digits;
}

// A decimal's value as the nearest double (the division of two exact doubles rounds once; past
// 2^53 the text is read instead).
double DecimalToDouble(int64_t unscaled, int scale) {
  if (unscaled < (int64_t(1) << 53) && unscaled > -(int64_t(1) << 53)) return double(unscaled) / double(Pow10(scale));
  const std::string text = FormatDecimal(unscaled, scale);
  double d = 0;
  std::from_chars(text.data(), text.data() + text.size(), d);
  return d;
}

Result<int64_t> ToDecimal(const Value& v, TypeId type) {
  if (IsFloating(v.type())) {
    const double d = v.double_value();
    if (!std::isfinite(d)) return Status::InvalidArgument("cannot store " + FormatDouble(d) + " in a " + TypeName(type));
    return ParseDecimal(FormatDouble(d), type);  // the shortest text: 0.1 is 0.1
  }
  const int from = IsDecimal(v.type()) ? DecimalScale(v.type()) : 0, to = DecimalScale(type);
  __int128 x = v.int_value();
  if (to >= from) {
    x *= Pow10(to - from);
  } else {
    const int64_t div = Pow10(from - to);
    const __int128 q = x / div, r = x % div;
    x = q + (2 * (r < 0 ? -r : r) >= div ? (x < 0 ? -1 : 1) : 0);
  }
  if (!FitsDecimal(x, type)) return Status::InvalidArgument("value " + v.ToString() + " out of range for " + TypeName(type));
  return int64_t(x);
}

std::string Value::ToString() const {
  if (is_null()) return "NULL";
  if (IsDecimal(type_)) return FormatDecimal(int_value(), DecimalScale(type_));
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
    case TypeId::kBinary: return FormatBinary(string_value());
    case TypeId::kUuid: return FormatUuid(string_value());
    case TypeId::kDate: return FormatDate(int32_t(int_value()));
    case TypeId::kTimestamp: return FormatTimestamp(int_value());
    case TypeId::kTimestampTz: {
      std::string text = FormatTimestamp(int_value());
      const bool infinite = int_value() == kTimestampInfinity || int_value() == -kTimestampInfinity;
      return infinite ? text : text + "+00";
    }
    case TypeId::kTimestampNs: return FormatTimestampNs(int_value());
  }
  return "?";
}

int CompareValues(const Value& a, const Value& b) {
  if (IsBytes(a.type()) || IsBytes(b.type())) {
    int c = a.string_value().compare(b.string_value());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.type() == TypeId::kBool) return int(a.bool_value()) - int(b.bool_value());
  if (IsTemporal(a.type()) && IsTemporal(b.type())) return CompareTemporal(a.type(), a.int_value(), b.type(), b.int_value());
  bool a_float = IsFloating(a.type()), b_float = IsFloating(b.type());
  if (!a_float && !b_float) {
    if (IsDecimal(a.type()) || IsDecimal(b.type())) {  // exactly, in the finer unit
      const __int128 x = __int128(a.int_value()) * NumericUnitsPerOne(b.type());
      const __int128 y = __int128(b.int_value()) * NumericUnitsPerOne(a.type());
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    int64_t x = a.int_value(), y = b.int_value();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if ((a_float && IsDecimal(b.type())) || (b_float && IsDecimal(a.type()))) {  // as doubles, as DuckDB
    const double x = a_float ? a.double_value() : DecimalToDouble(a.int_value(), DecimalScale(a.type()));
    const double y = b_float ? b.double_value() : DecimalToDouble(b.int_value(), DecimalScale(b.type()));
    return CompareValues(Value::Double(x), Value::Double(y));
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

namespace {

// Parses a timestamp's text with up to `max_digits` fractional digits into days and the
// nanoseconds past that day's midnight, an offset from UTC applied (so they may fall outside
// [0, one day)). False for text that is not a timestamp; *too_fine when only the number of
// fractional digits is wrong.
bool ParseTimestampParts(std::string_view text, int max_digits, int64_t* days, int64_t* nanos, bool* too_fine) {
  size_t pos;
  *too_fine = false;
  if (!ParseDatePart(text, days, &pos)) return false;
  *nanos = 0;
  if (pos == text.size()) return true;
  if (text[pos] != ' ' && text[pos] != 'T') return false;
  int64_t h, mi, s = 0;
  if (!ParseDigits(text, pos + 1, 2, &h) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
      !ParseDigits(text, pos + 4, 2, &mi)) {
    return false;
  }
  pos += 6;
  if (pos < text.size() && text[pos] == ':') {
    if (!ParseDigits(text, pos + 1, 2, &s)) return false;
    pos += 3;
  }
  if (h > 23 || mi > 59 || s > 59) return false;
  *nanos = ((h * 60 + mi) * 60 + s) * kNanosPerSecond;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int64_t frac = 0;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits == max_digits) {  // finer precision would be silently lost
        *too_fine = true;
        return false;
      }
      frac = frac * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return false;
    for (int i = digits; i < 9; ++i) frac *= 10;
    *nanos += frac;
  }
  // ISO 8601's UTC designator or offset from UTC: the value is kept in UTC.
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int64_t sign = text[pos] == '+' ? 1 : -1;
    int64_t oh = 0, om = 0;
    if (!ParseDigits(text, pos + 1, 2, &oh)) return false;
    pos += 3;
    if (pos < text.size() && text[pos] == ':') ++pos;
    if (pos < text.size()) {
      if (!ParseDigits(text, pos, 2, &om)) return false;
      pos += 2;
    }
    if (oh > 18 || om > 59) return false;
    *nanos -= sign * (oh * 60 + om) * 60 * kNanosPerSecond;
  }
  return pos == text.size();
}

// A timestamp's text in `units` per second (10^6 or 10^9), [-]infinity as the type's extremes.
Result<int64_t> ParseTimestampIn(std::string_view text, int64_t units) {
  if (const int inf = Infinity(text)) return inf > 0 ? kTimestampInfinity : -kTimestampInfinity;
  const bool nanos = units == kNanosPerSecond;
  int64_t days, ns;
  bool too_fine;
  if (!ParseTimestampParts(text, nanos ? 9 : 6, &days, &ns, &too_fine)) {
    return Status::InvalidArgument(
        "invalid " + std::string(nanos ? "timestamp_ns" : "timestamp") + " '" + std::string(text) + "' (expected " +
        (too_fine ? std::string("at most ") + (nanos ? "9" : "6") + " fractional digits: finer ones would be lost)"
                  : std::string("YYYY-MM-DD HH:MM:SS[.") + (nanos ? "fffffffff" : "ffffff") + "][Z|+HH:MM])"));
  }
  // Days past int64's range cannot come from ParseDatePart (7-digit years), so the sum fits i128.
  const __int128 total = __int128(days) * 86400 * units + (nanos ? ns : ns / 1000);
  if (total > std::numeric_limits<int64_t>::max() || total < std::numeric_limits<int64_t>::min()) {
    return Status::InvalidArgument(std::string(nanos ? "timestamp_ns" : "timestamp") + " '" + std::string(text) +
                                   "' is out of range" + (nanos ? " (1677-09-21 to 2262-04-11)" : ""));
  }
  return int64_t(total);
}

// "YYYY-MM-DD HH:MM:SS" and a fraction of `digits` digits with its trailing zeros dropped.
std::string FormatTimestampIn(int64_t value, int64_t units, int digits) {
  if (value == kTimestampInfinity) return "infinity";
  if (value == -kTimestampInfinity) return "-infinity";
  const int64_t per_day = 86400 * units;
  int64_t days = value / per_day;
  int64_t rem = value % per_day;
  if (rem < 0) {
    rem += per_day;
    --days;
  }
  int64_t secs = rem / units, frac = rem % units;
  char buf[48];
  std::snprintf(buf, sizeof(buf), " %02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  std::string out = FormatDate(int32_t(days)) + buf;
  if (frac != 0) {
    std::snprintf(buf, sizeof(buf), ".%0*lld", digits, static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<int64_t> ParseTimestamp(std::string_view text) { return ParseTimestampIn(text, kMicrosPerSecond); }
Result<int64_t> ParseTimestampNs(std::string_view text) { return ParseTimestampIn(text, kNanosPerSecond); }

Result<int64_t> MicrosToNanos(int64_t micros) {
  if (micros == kTimestampInfinity || micros == -kTimestampInfinity) return micros;
  int64_t nanos;
  if (__builtin_mul_overflow(micros, int64_t(1000), &nanos) || nanos == kTimestampInfinity ||
      nanos == -kTimestampInfinity) {
    return Status::InvalidArgument("timestamp " + FormatTimestamp(micros) +
                                   " is out of timestamp_ns's range (1677-09-21 to 2262-04-11)");
  }
  return nanos;
}

Result<std::string> ParseUuid(std::string_view text) {
  std::string_view t = text;
  if (t.size() >= 2 && t.front() == '{' && t.back() == '}') t = t.substr(1, t.size() - 2);
  std::string bytes;
  int high = -1;
  for (size_t i = 0; i < t.size(); ++i) {
    // Hyphens only between groups of 4 hex digits, as DuckDB reads them.
    if (t[i] == '-' && high < 0 && i > 0 && bytes.size() % 2 == 0 && bytes.size() < 16 && t[i - 1] != '-') continue;
    const int d = HexDigit(t[i]);
    if (d < 0 || bytes.size() == 16) {
      return Status::InvalidArgument("invalid uuid '" + std::string(text) +
                                     "' (expected 32 hex digits, as a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11)");
    }
    if (high < 0) {
      high = d;
    } else {
      bytes.push_back(char(high << 4 | d));
      high = -1;
    }
  }
  if (bytes.size() != 16 || high >= 0) {
    return Status::InvalidArgument("invalid uuid '" + std::string(text) +
                                   "' (expected 32 hex digits, as a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11)");
  }
  return bytes;
}

std::string FormatUuid(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    const auto b = static_cast<unsigned char>(bytes[i]);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

Result<std::string> ParseBinary(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    int hi = -1, lo = -1;
    if (i + 3 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
      hi = HexDigit(text[i + 2]);
      lo = HexDigit(text[i + 3]);
    }
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument("invalid binary '" + std::string(text) + "' at byte " + std::to_string(i + 1) +
                                     ": a backslash starts a \\xHH escape (write \\x5C for a backslash)");
    }
    out.push_back(char(hi << 4 | lo));
    i += 3;
  }
  return out;
}

std::string FormatBinary(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size());
  for (char ch : bytes) {
    const auto b = static_cast<unsigned char>(ch);
    if (b >= 0x20 && b < 0x7F && b != '\\') {
      out.push_back(ch);
    } else {
      out += "\\x";
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 15]);
    }
  }
  return out;
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

std::string FormatTimestamp(int64_t micros) { return FormatTimestampIn(micros, kMicrosPerSecond, 6); }
std::string FormatTimestampNs(int64_t nanos) { return FormatTimestampIn(nanos, kNanosPerSecond, 9); }

}  // namespace lakeindex
