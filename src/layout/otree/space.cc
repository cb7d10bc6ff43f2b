#include "layout/otree/space.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>

#include "table/manifest.h"

namespace lakeindex::layout::otree {

namespace {

using nlohmann::json;

constexpr double kCoordSpan = 4294967296.0;  // 2^32

// Maps t in [0, 1] (anything else clamps) to a coordinate; monotone non-decreasing in t.
uint32_t CoordOfFraction(double t) {
  if (!(t > 0)) return 0;  // also -0.0
  double c = t * kCoordSpan;
  if (c >= double(kMaxCoord)) return kMaxCoord;
  return uint32_t(c);
}

// (x - lo) / (hi - lo) for lo <= x <= hi, lo < hi, all finite. A span too wide for a double
// (-DBL_MAX..DBL_MAX) is computed on halved operands instead (exact for such large values; not
// used otherwise, since halving subnormals loses them). The formula depends on lo and hi only and
// every step is a monotone rounding of a monotone function of x, so the result is monotone in x.
double Fraction(double x, double lo, double hi) {
  double span = hi - lo;  // > 0 for lo < hi (gradual underflow)
  double t = std::isfinite(span) ? (x - lo) / span : (0.5 * x - 0.5 * lo) / (0.5 * hi - 0.5 * lo);
  return std::clamp(t, 0.0, 1.0);
}

// A non-NULL value of a numeric, temporal or bool type as a double (monotone in CompareValues).
double AsDouble(const Value& v) {
  switch (v.type()) {
    case TypeId::kBool: return v.bool_value() ? 1.0 : 0.0;
    case TypeId::kFloat:
    case TypeId::kDouble: return v.double_value();
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: return 0;  // not comparable with numbers: any constant is monotone
    default: return double(v.int_value());
  }
}

// The first 8 bytes of s from `from` on, big-endian, zero-padded: monotone in bytewise order
// among strings sharing the first `from` bytes.
uint64_t StringKey(std::string_view s, size_t from) {
  uint64_t k = 0;
  for (size_t i = 0; i < 8; ++i) {
    size_t at = from + i;
    k = (k << 8) | (at < s.size() ? uint8_t(s[at]) : 0u);
  }
  return k;
}

size_t CommonPrefix(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// The quantile map shared by numbers and strings. `bound(i)` returns the i-th of `n` sorted
// bounds as a K; `frac(x, a, b)` places a <= x < b linearly in [0, 1]. A value below the first
// bound maps to 0, at or above the last to kMaxCoord; otherwise into interval i of n - 1 equal
// coordinate intervals, where bounds[i] <= x < bounds[i+1]. Monotone because frac is monotone
// inside an interval and an interval's coordinates end where the next one's start.
template <typename K, typename BoundFn, typename FracFn>
uint32_t QuantileCoord(const K& x, size_t n, BoundFn bound, FracFn frac) {
  if (n == 0 || x < bound(0)) return 0;
  if (!(x < bound(n - 1))) return n == 1 && !(bound(0) < x) ? 0 : kMaxCoord;
  // Last i with bound(i) <= x; 0 <= i < n - 1. The answer stays in [lo, lo + count); written
  // so that the compiler can use a conditional move instead of a mispredicted branch.
  size_t lo = 0, count = n - 1;
  while (count > 1) {
    size_t half = count / 2;
    lo = x < bound(lo + half) ? lo : lo + half;
    count -= half;
  }
  double f = std::clamp(frac(x, bound(lo), bound(lo + 1)), 0.0, 1.0);
  return CoordOfFraction((double(lo) + f) / double(n - 1));
}

double NumberFrac(double x, double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b) || !(a < b)) return 0;
  return Fraction(x, a, b);
}

double StringFrac(std::string_view x, std::string_view a, std::string_view b) {
  size_t p = CommonPrefix(a, b);  // x, between a and b, shares this prefix
  uint64_t ka = StringKey(a, p), kb = StringKey(b, p), kx = StringKey(x, p);
  if (kb <= ka) return 0;
  return double(kx - ka) / double(kb - ka);
}

bool ValueMatchesType(const Value& v, TypeId type) {
  if (v.is_null()) return false;
  if (IsBytes(type) || IsBytes(v.type())) return type == v.type();
  if (type == TypeId::kBool || v.type() == TypeId::kBool) return type == v.type();
  return true;  // numbers and temporals convert among each other
}

// The bound as stored: a value of `type` (ints/dates/timestamps held as int64 of that type).
Value NormalizeBound(const Value& v, TypeId type) {
  if (IsBytes(type) || type == TypeId::kBool) return v;
  if (IsFloating(type)) return type == TypeId::kFloat ? Value::Float(float(AsDouble(v))) : Value::Double(AsDouble(v));
  if (IsFloating(v.type())) {
    double x = std::clamp(v.double_value(), -9223372036854775808.0, 9223372036854774784.0);
    return Value::Int(type, int64_t(x));
  }
  return Value::Int(type, v.int_value());
}

const char kHexDigits[] = "0123456789abcdef";

json BoundToJson(const Value& v) {
  json j = table::ValueToJson(v);
  if (!j.is_null()) return j;
  // Strings that are not valid UTF-8 (JSON cannot hold them) go as hex.
  std::string hex;
  for (unsigned char c : v.string_value()) {
    hex.push_back(kHexDigits[c >> 4]);
    hex.push_back(kHexDigits[c & 15]);
  }
  return json{{"hex", hex}};
}

Result<Value> BoundFromJson(const json& j, TypeId type) {
  if (IsBytes(type) && j.is_object()) {
    auto it = j.find("hex");
    if (it == j.end() || !it->is_string() || it->get_ref<const std::string&>().size() % 2 != 0) {
      return Status::Corruption("bad hex string bound in OTree transform");
    }
    const std::string& hex = it->get_ref<const std::string&>();
    std::string s;
    auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    for (size_t i = 0; i < hex.size(); i += 2) {
      int hi = digit(hex[i]), lo = digit(hex[i + 1]);
      if (hi < 0 || lo < 0) return Status::Corruption("bad hex digit in OTree transform bound");
      s.push_back(char(hi * 16 + lo));
    }
    return Value::Bytes(type, std::move(s));
  }
  return table::ValueFromJson(j, type);
}

}  // namespace

Result<Transform> Transform::FitLinear(TypeId type, const Value& min, const Value& max) {
  if (IsBytes(type)) return Status::InvalidArgument("linear transform of a string column: use quantile");
  if (!ValueMatchesType(min, type) || !ValueMatchesType(max, type)) {
    return Status::InvalidArgument(std::string("linear transform needs non-NULL ") + TypeName(type) + " bounds");
  }
  Transform t;
  t.kind = Kind::kLinear;
  t.type = type;
  t.lo = AsDouble(min);
  t.hi = AsDouble(max);
  if (!std::isfinite(t.lo) || !std::isfinite(t.hi)) {
    return Status::InvalidArgument("linear transform needs finite bounds, got " + min.ToString() + ".." + max.ToString());
  }
  if (t.hi < t.lo) return Status::InvalidArgument("linear transform: min " + min.ToString() + " > max " + max.ToString());
  return t;
}

Result<Transform> Transform::FitQuantile(TypeId type, std::vector<Value> sample, size_t max_bounds) {
  if (max_bounds == 0) return Status::InvalidArgument("quantile transform needs max_bounds >= 1");
  std::vector<Value> values;
  values.reserve(sample.size());
  bool infinite = false;
  for (auto& v : sample) {
    if (!ValueMatchesType(v, type)) {
      if (v.is_null()) continue;
      return Status::InvalidArgument(std::string("quantile sample value ") + v.ToString() + " is not of type " +
                                     TypeName(type));
    }
    // NaN and the infinities take the ends of every transform's range: no bound is needed for them.
    if (!IsBytes(v.type()) && v.type() != TypeId::kBool && !std::isfinite(AsDouble(v))) {
      infinite |= !std::isnan(AsDouble(v));
      continue;
    }
    values.push_back(NormalizeBound(v, type));
  }
  if (values.empty() && infinite) {  // only infinities: -inf at 0, +inf at the top
    const Value zero = type == TypeId::kFloat ? Value::Float(0) : Value::Double(0);
    return FitLinear(type, zero, zero);
  }
  if (values.empty()) return Status::InvalidArgument("quantile transform: the sample has no non-NULL, non-NaN value");
  std::sort(values.begin(), values.end(), [](const Value& a, const Value& b) { return CompareValues(a, b) < 0; });
  // Bounds at evenly spaced ranks of the sorted sample (duplicates included, so that a heavy value
  // takes its share of the space), then deduplicated; the extremes are always kept.
  size_t n = values.size(), m = std::min(max_bounds, n);
  Transform t;
  t.kind = Kind::kQuantile;
  t.type = type;
  for (size_t j = 0; j < m; ++j) {
    size_t rank = m == 1 ? 0 : size_t(uint64_t(n - 1) * j / (m - 1));  // no overflow: m <= max_bounds
    const Value& v = values[rank];
    if (t.bounds.empty() || CompareValues(t.bounds.back(), v) < 0) t.bounds.push_back(v);
  }
  return t;
}

Result<Transform> Transform::FitDefault(TypeId type, const Value& min, const Value& max, std::vector<Value> sample) {
  if (min.is_null() || max.is_null()) {
    // No non-NULL value known: every row is NULL (coordinate 0) as far as the fit can tell.
    std::vector<Value> rest;
    for (auto& v : sample) {
      if (!v.is_null()) rest.push_back(std::move(v));
    }
    if (rest.empty()) {
      Transform t;
      t.type = type;
      if (IsBytes(type)) {
        t.kind = Kind::kQuantile;
        t.bounds.push_back(Value::Bytes(type, ""));
      }
      return t;
    }
    return FitQuantile(type, std::move(rest));
  }
  bool finite = !IsBytes(type) && std::isfinite(AsDouble(min)) && std::isfinite(AsDouble(max));
  if (!finite) {
    // Strings, and ranges ending in an infinity or NaN, have no useful linear map (FitQuantile
    // leaves the infinities and NaN to the ends).
    sample.push_back(min);
    sample.push_back(max);
    return FitQuantile(type, std::move(sample));
  }
  double lo = AsDouble(min), hi = AsDouble(max);
  if (lo < hi && sample.size() >= 64 && type != TypeId::kBool) {
    // Skew test: fill equal-width buckets of the linear range with the sample; when the total
    // variation distance from equal filling is large, equal-width cubes would be badly unbalanced.
    constexpr int kBuckets = 16;
    std::array<size_t, kBuckets> count{};
    size_t n = 0;
    for (const Value& v : sample) {
      if (!ValueMatchesType(v, type)) continue;
      double x = AsDouble(v);
      if (std::isnan(x)) continue;
      int b = int(Fraction(std::clamp(x, lo, hi), lo, hi) * kBuckets);
      ++count[size_t(std::min(b, kBuckets - 1))];
      ++n;
    }
    if (n >= 64) {
      double tv = 0;
      for (size_t c : count) tv += std::fabs(double(c) - double(n) / kBuckets);
      tv /= 2.0 * double(n);
      if (tv > 0.25) {
        sample.push_back(min);
        sample.push_back(max);
        return FitQuantile(type, std::move(sample));
      }
    }
  }
  return FitLinear(type, min, max);
}

uint32_t Transform::Coord(const Value& v) const {
  if (v.is_null()) return 0;
  if (IsBytes(v.type())) {
    if (kind != Kind::kQuantile || !IsBytes(type)) return 0;
    return QuantileCoord(
        std::string_view(v.string_value()), bounds.size(),
        [&](size_t i) { return std::string_view(bounds[i].string_value()); }, StringFrac);
  }
  double x = AsDouble(v);
  if (std::isnan(x)) return kMaxCoord;
  if (kind == Kind::kLinear) {
    if (x <= lo) return 0;
    if (x > hi) return kMaxCoord;
    return CoordOfFraction(Fraction(x, lo, hi));
  }
  if (IsBytes(type)) return 0;
  return QuantileCoord(x, bounds.size(), [&](size_t i) { return AsDouble(bounds[i]); }, NumberFrac);
}

void Transform::Coords(const Column& column, uint32_t* out) const {
  size_t n = column.length();
  if (IsBytes(column.type())) {
    std::vector<std::string_view> bs;
    if (kind == Kind::kQuantile && IsBytes(type)) {
      for (const Value& b : bounds) bs.emplace_back(b.string_value());
    }
    for (size_t i = 0; i < n; ++i) {
      if (column.IsNull(i) || bs.empty()) {
        out[i] = 0;
        continue;
      }
      out[i] = QuantileCoord(column.GetString(i), bs.size(), [&](size_t k) { return bs[k]; }, StringFrac);
    }
    return;
  }
  std::vector<double> bd;
  if (kind == Kind::kQuantile && !IsBytes(type)) {
    bd.reserve(bounds.size());
    for (const Value& b : bounds) bd.push_back(AsDouble(b));
  }
  auto map = [&](double x) -> uint32_t {
    if (std::isnan(x)) return kMaxCoord;
    if (kind == Kind::kLinear) {
      if (x <= lo) return 0;
      if (x > hi) return kMaxCoord;
      return CoordOfFraction(Fraction(x, lo, hi));
    }
    if (IsBytes(type)) return 0;
    return QuantileCoord(x, bd.size(), [&](size_t k) { return bd[k]; }, NumberFrac);
  };
  auto run = [&](auto typed) {
    using T = decltype(typed);
    const T* data = column.data<T>();
    for (size_t i = 0; i < n; ++i) out[i] = column.IsNull(i) ? 0 : map(double(data[i]));
  };
  if (IsDecimal(column.type())) return run(int64_t{});  // unscaled, like AsDouble
  switch (column.type()) {
    case TypeId::kBool: run(uint8_t{}); break;
    case TypeId::kInt32:
    case TypeId::kDate: run(int32_t{}); break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: run(int64_t{}); break;
    case TypeId::kFloat: run(float{}); break;
    case TypeId::kDouble: run(double{}); break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: break;  // handled above
  }
}

bool Transform::Covers(const Value& v) const {
  if (v.is_null()) return true;
  // NaN and ±infinity map to the ends whatever the fit (finite bounds: -inf at or below them,
  // +inf above).
  if (!IsBytes(v.type()) && v.type() != TypeId::kBool && !std::isfinite(AsDouble(v))) return true;
  if (kind == Kind::kLinear) {
    if (IsBytes(v.type())) return false;
    double x = AsDouble(v);
    return x >= lo && x <= hi;
  }
  if (bounds.empty() || !ValueMatchesType(v, type)) return false;
  return CompareValues(bounds.front(), v) <= 0 && CompareValues(v, bounds.back()) <= 0;
}

nlohmann::json Transform::ToJson() const {
  json j;
  if (kind == Kind::kLinear) {
    j["kind"] = "linear";
    j["lo"] = lo;
    j["hi"] = hi;
  } else {
    j["kind"] = "quantile";
    json b = json::array();
    for (const Value& v : bounds) b.push_back(BoundToJson(v));
    j["bounds"] = std::move(b);
  }
  return j;
}

Result<Transform> Transform::FromJson(const nlohmann::json& j, TypeId type) {
  if (!j.is_object()) return Status::Corruption("OTree transform is not a JSON object");
  auto kind_it = j.find("kind");
  if (kind_it == j.end() || !kind_it->is_string()) return Status::Corruption("OTree transform without a kind");
  const std::string& kind_name = kind_it->get_ref<const std::string&>();
  Transform t;
  t.type = type;
  if (kind_name == "linear") {
    auto lo_it = j.find("lo"), hi_it = j.find("hi");
    if (lo_it == j.end() || hi_it == j.end() || !lo_it->is_number() || !hi_it->is_number()) {
      return Status::Corruption("linear OTree transform without numeric lo/hi");
    }
    t.kind = Kind::kLinear;
    t.lo = lo_it->get<double>();
    t.hi = hi_it->get<double>();
    if (!std::isfinite(t.lo) || !std::isfinite(t.hi) || t.hi < t.lo || IsBytes(type)) {
      return Status::Corruption("linear OTree transform with bad range or type");
    }
    return t;
  }
  if (kind_name != "quantile") return Status::Corruption("unknown OTree transform kind '" + kind_name + "'");
  auto b_it = j.find("bounds");
  if (b_it == j.end() || !b_it->is_array() || b_it->empty()) {
    return Status::Corruption("quantile OTree transform without bounds");
  }
  t.kind = Kind::kQuantile;
  for (const json& b : *b_it) {
    auto v = BoundFromJson(b, type);
    if (!v.ok()) return Status::Corruption("quantile OTree transform bound " + std::to_string(t.bounds.size()) + ": " +
                                           v.status().message());
    Value value = std::move(v).value();
    if (value.is_null() || (!IsBytes(type) && type != TypeId::kBool && std::isnan(AsDouble(value)))) {
      return Status::Corruption("quantile OTree transform bound is NULL or NaN");
    }
    if (!t.bounds.empty() && CompareValues(t.bounds.back(), value) >= 0) {
      return Status::Corruption("quantile OTree transform bounds are not increasing");
    }
    t.bounds.push_back(std::move(value));
  }
  return t;
}

// ---- CubeId ----

namespace {
const char kCubeDigits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/";

int CubeDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  if (c >= 'a' && c <= 'z') return c - 'a' + 36;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

CubeId CubeId::Child(int child, int dims) const {
  CubeId c;
  c.depth = uint8_t(depth + 1);
  for (int i = 0; i < dims; ++i) c.prefix[size_t(i)] = (prefix[size_t(i)] << 1) | ((uint32_t(child) >> i) & 1u);
  return c;
}

int CubeId::ChildNumberOf(const uint32_t* coords, int dims) const {
  int shift = kCoordBits - 1 - depth, c = 0;
  for (int i = 0; i < dims; ++i) c |= int((coords[i] >> shift) & 1u) << i;
  return c;
}

bool CubeId::Contains(const uint32_t* coords, int dims) const {
  if (depth == 0) return true;
  int shift = kCoordBits - depth;
  for (int i = 0; i < dims; ++i) {
    if (uint32_t(uint64_t(coords[i]) >> shift) != prefix[size_t(i)]) return false;
  }
  return true;
}

bool CubeId::Intersects(const Box& box, int dims) const {
  for (int i = 0; i < dims; ++i) {
    size_t d = size_t(i);
    if (box.lo[d] > box.hi[d] || Lo(i) > box.hi[d] || box.lo[d] > Hi(i)) return false;
  }
  return true;
}

uint32_t CubeId::Lo(int dim) const {
  return uint32_t(uint64_t(prefix[size_t(dim)]) << (kCoordBits - depth));
}

uint32_t CubeId::Hi(int dim) const {
  return Lo(dim) | uint32_t((uint64_t(1) << (kCoordBits - depth)) - 1);
}

std::string CubeId::ToString(int dims) const {
  std::string s(depth, '0');
  for (int level = 0; level < depth; ++level) {
    int shift = depth - 1 - level, c = 0;
    for (int i = 0; i < dims; ++i) c |= int((prefix[size_t(i)] >> shift) & 1u) << i;
    s[size_t(level)] = kCubeDigits[c];
  }
  return s;
}

Result<CubeId> CubeId::Parse(std::string_view text, int dims) {
  if (dims < 1 || dims > kMaxDims) return Status::InvalidArgument("cube id with " + std::to_string(dims) + " dims");
  if (text.size() > size_t(kCoordBits)) {
    return Status::Corruption("cube id '" + std::string(text.substr(0, 40)) + "...' deeper than 32 levels");
  }
  CubeId id;
  for (char ch : text) {
    int c = CubeDigitValue(ch);
    if (c < 0 || c >= (1 << dims)) {
      return Status::Corruption("bad character in cube id '" + std::string(text) + "' for " + std::to_string(dims) +
                                " dims");
    }
    id = id.Child(c, dims);
  }
  return id;
}

}  // namespace lakeindex::layout::otree
