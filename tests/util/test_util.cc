#include "util/test_util.h"

#include <stdlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

namespace lakeindex::testing {
namespace {

constexpr int64_t kMicrosPerDay = int64_t{86'400'000'000};
constexpr int64_t kTwo53Plus1 = (int64_t{1} << 53) + 1;

// Strings that break naive CSV, SQL, LIKE and UTF-8 handling.
constexpr const char* kHostileStrings[] = {
    "",           "'",          "''",        "\"",          ",",           "\n",
    "\r\n",       "\t",         "\\",        "%",           "_",           "a,b\n\"c\"",
    "it's",       " leading",   "trailing ", "NULL",        "\xC3\xBC",    // ü
    "\xE6\x97\xA5\xE6\x9C\xAC",                                            // 日本
    "\xF0\x9F\x98\x80",                                                    // 😀 (4 bytes)
    "a\xF0\x9D\x84\x9E" "z",                                               // a𝄞z
    "\xC3\xA9t\xC3\xA9 \xE2\x82\xAC 100",                                  // été € 100
};

// Characters random strings are drawn from, each one valid UTF-8 on its own.
constexpr const char* kChars[] = {
    "a", "b", "c", "x", "y", "z", "A", "Z", "0", "9", " ", "'", "\"", ",", ";", "\\",
    "%", "_", "\n", "\t", "\xC3\xA9", "\xC3\x9F", "\xC3\xBC", "\xE2\x82\xAC", "\xE6\x97\xA5",
    "\xF0\x9F\x98\x80", "\xF0\x9D\x84\x9E",
};

int64_t Days(int64_t y, unsigned m, unsigned d) { return DaysFromCivil(y, m, d); }

std::string RandomString(Rng& rng) {
  std::string s;
  size_t length = rng.Uniform(17);
  for (size_t i = 0; i < length; ++i) {
    // Mostly plain ASCII letters so that values sort and compress like real text.
    if (rng.Chance(0.7)) {
      s.push_back(static_cast<char>('a' + rng.Uniform(26)));
    } else {
      s += kChars[rng.Uniform(std::size(kChars))];
    }
  }
  return s;
}

template <typename F>
F RandomFloating(Rng& rng) {
  using Bits = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;
  if (rng.Chance(0.5)) {
    // Decimal-looking values with duplicates, like real measurements.
    return static_cast<F>(rng.Range(-100'000, 100'000)) / F(100);
  }
  for (;;) {  // any finite bit pattern: all exponents, subnormals included
    F f = std::bit_cast<F>(static_cast<Bits>(rng.Next()));
    if (std::isfinite(f)) return f;
  }
}

template <typename F>
void AddHostileFloating(std::vector<Value>& out, Value (*make)(F)) {
  using L = std::numeric_limits<F>;
  for (F f : {L::quiet_NaN(), L::infinity(), -L::infinity(), F(-0.0), F(0.0), L::min(),
              L::denorm_min(), L::max(), L::lowest(), F(0.1), F(1) / F(3)}) {
    out.push_back(make(f));
  }
}

}  // namespace

TempDir::TempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                      "/lakeindex-test-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    std::fprintf(stderr, "TempDir: mkdtemp(%s) failed: %s\n", templ.c_str(), std::strerror(errno));
    std::abort();
  }
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);  // best effort: a leftover scratch dir fails nothing
}

std::string TempDir::Join(std::string_view name) const {
  return path_ + "/" + std::string(name);
}

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t Rng::Uniform(uint64_t n) {
  // Rejection sampling keeps small ranges exactly uniform.
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  for (;;) {
    uint64_t x = Next();
    if (x < limit) return x % n;
  }
}

int64_t Rng::Range(int64_t lo, int64_t hi) {
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  uint64_t offset = span == std::numeric_limits<uint64_t>::max() ? Next() : Uniform(span + 1);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + offset);
}

double Rng::Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

std::vector<Value> HostileValues(TypeId type) {
  std::vector<Value> out;
  if (IsDecimal(type)) {  // the ends of the precision, zero, one unit, one whole
    const int64_t most = Pow10(DecimalPrecision(type)) - 1;
    for (int64_t x : {most, -most, int64_t{0}, int64_t{1}, int64_t{-1}, Pow10(DecimalScale(type)) % (most + 1)}) {
      out.push_back(Value::Decimal(type, x));
    }
    return out;
  }
  switch (type) {
    case TypeId::kBool:
      out = {Value::Bool(false), Value::Bool(true)};
      break;
    case TypeId::kInt32:
      for (int32_t x : {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
                        0, -1, 1}) {
        out.push_back(Value::Int32(x));
      }
      break;
    case TypeId::kInt64:
      for (int64_t x : {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                        int64_t{0}, int64_t{-1}, int64_t{1}, kTwo53Plus1, -kTwo53Plus1}) {
        out.push_back(Value::Int64(x));
      }
      break;
    case TypeId::kFloat:
      AddHostileFloating<float>(out, &Value::Float);
      break;
    case TypeId::kDouble:
      AddHostileFloating<double>(out, &Value::Double);
      break;
    case TypeId::kString:
      for (const char* s : kHostileStrings) out.push_back(Value::String(s));
      break;
    case TypeId::kDate:
      for (int64_t d : {Days(1, 1, 1), Days(9999, 12, 31), int64_t{-1}, int64_t{0},
                        Days(2000, 2, 29), Days(0, 1, 1), Days(-44, 3, 15)}) {
        out.push_back(Value::Date(static_cast<int32_t>(d)));
      }
      break;
    case TypeId::kTimestamp:
      for (int64_t t : {int64_t{-1}, int64_t{0}, int64_t{1}, Days(1, 1, 1) * kMicrosPerDay,
                        Days(10000, 1, 1) * kMicrosPerDay - 1,
                        Days(-44, 3, 15) * kMicrosPerDay + 43'200'000'000,
                        Days(1969, 12, 31) * kMicrosPerDay + 123'456}) {
        out.push_back(Value::Timestamp(t));
      }
      break;
    case TypeId::kTimestampTz:
      for (const Value& v : HostileValues(TypeId::kTimestamp)) out.push_back(Value::TimestampTz(v.int_value()));
      break;
    case TypeId::kTimestampNs:  // the ends of its range (1677..2262), sub-microsecond digits
      for (int64_t t : {int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1'000}, int64_t{-1'001},
                        // DuckDB's least TIMESTAMP_NS is 1677-09-22 (below it, its text and
                        // statistics conversions fail, on its own files too).
                        std::numeric_limits<int64_t>::max() - 1, int64_t{-9'223'286'400'000'000'000},
                        int64_t{1'700'000'000'123'456'789}}) {
        out.push_back(Value::TimestampNs(t));
      }
      break;
    case TypeId::kBinary:
      for (const char* s : kHostileStrings) out.push_back(Value::Binary(s));
      out.push_back(Value::Binary(std::string("\0\\x\xff\x80\x7f", 6)));
      out.push_back(Value::Binary(std::string(3, '\0')));
      break;
    case TypeId::kUuid:
      for (char fill : {'\0', '\xff', '\x7f', '\x80'}) out.push_back(Value::Bytes(TypeId::kUuid, std::string(16, fill)));
      break;
  }
  return out;
}

Value RandomValue(TypeId type, Rng& rng) {
  if (rng.Chance(0.125)) {
    std::vector<Value> hostile = HostileValues(type);
    return hostile[rng.Uniform(hostile.size())];
  }
  if (IsDecimal(type)) {
    const int64_t most = Pow10(DecimalPrecision(type)) - 1;
    return Value::Decimal(type, rng.Chance(0.5) ? rng.Range(-std::min<int64_t>(most, 100000), std::min<int64_t>(most, 100000))
                                                : rng.Range(-most, most));
  }
  switch (type) {
    case TypeId::kBool:
      return Value::Bool(rng.Chance(0.5));
    case TypeId::kInt32:
      return Value::Int32(rng.Chance(0.5) ? static_cast<int32_t>(rng.Range(-1000, 1000))
                                          : static_cast<int32_t>(rng.Next()));
    case TypeId::kInt64:
      return Value::Int64(rng.Chance(0.5) ? rng.Range(-1'000'000, 1'000'000)
                                          : static_cast<int64_t>(rng.Next()));
    case TypeId::kFloat:
      return Value::Float(RandomFloating<float>(rng));
    case TypeId::kDouble:
      return Value::Double(RandomFloating<double>(rng));
    case TypeId::kString:
      return Value::String(RandomString(rng));
    case TypeId::kDate:
      return Value::Date(static_cast<int32_t>(rng.Range(Days(1, 1, 1), Days(9999, 12, 31))));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return Value::Int(type, rng.Range(Days(1, 1, 1) * kMicrosPerDay, Days(10000, 1, 1) * kMicrosPerDay - 1));
    case TypeId::kTimestampNs:  // about 1824..2116
      return Value::TimestampNs(static_cast<int64_t>(rng.Next()) / 2);
    case TypeId::kBinary: {
      std::string bytes(rng.Uniform(12), '\0');
      for (char& c : bytes) c = static_cast<char>(rng.Next());
      return Value::Binary(std::move(bytes));
    }
    case TypeId::kUuid: {
      std::string bytes(16, '\0');
      for (char& c : bytes) c = static_cast<char>(rng.Next());
      return Value::Bytes(TypeId::kUuid, std::move(bytes));
    }
  }
  return Value::Null(type);
}

Schema RandomSchema(uint64_t seed, int max_columns) {
  Rng rng(seed);
  std::vector<TypeId> order;
  for (int t = 0; t <= static_cast<int>(TypeId::kUuid); ++t) order.push_back(TypeId(t));
  order.push_back(DecimalType(18, 3));  // DuckDB's default DECIMAL; INT64 in Parquet
  order.push_back(DecimalType(7, 2));   // DuckDB writes it as INT32
  for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng.Uniform(i + 1)]);
  int n = 1 + static_cast<int>(rng.Uniform(static_cast<uint64_t>(std::max(max_columns, 1))));
  Schema schema;
  for (int i = 0; i < n; ++i) {
    TypeId type = order[static_cast<size_t>(i) % order.size()];
    std::string name = "c" + std::to_string(i) + "_" + TypeName(type);
    std::replace_if(name.begin(), name.end(), [](char c) { return c == '(' || c == ')' || c == ','; }, '_');  // decimal(7,2)
    schema.AddField(Field{std::move(name), type,
                          /*nullable=*/!rng.Chance(0.25)});
  }
  return schema;
}

Batch RandomBatch(const Schema& schema, size_t rows, uint64_t seed, double null_fraction) {
  Rng rng(seed);
  std::vector<Column> columns;
  for (const Field& field : schema.fields()) {
    Column column(field.type);
    column.Reserve(rows);
    for (size_t r = 0; r < rows; ++r) {
      if (field.nullable && rng.Chance(null_fraction)) {
        column.AppendNull();
        continue;
      }
      Status st = column.AppendValue(RandomValue(field.type, rng));
      if (!st.ok()) {
        std::fprintf(stderr, "RandomBatch: %s\n", st.ToString().c_str());
        std::abort();
      }
    }
    columns.push_back(std::move(column));
  }
  return Batch(schema, std::move(columns), rows);
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

}  // namespace lakeindex::testing
