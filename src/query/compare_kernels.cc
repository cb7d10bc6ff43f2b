#include "query/compare_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "query/evaluator.h"

namespace lakeindex::query::internal {

namespace {

using i128 = __int128;
constexpr i128 kHuge = i128(1) << 100;  // beyond every int64: "+infinity" of integer bounds
constexpr double kInf = std::numeric_limits<double>::infinity();

// Values of one family compare; a string literal becomes a binary or uuid in the binder.
enum class Family { kBool, kNumeric, kTemporal, kString, kBinary, kUuid };

Family FamilyOf(TypeId t) {
  if (t == TypeId::kBool) return Family::kBool;
  if (IsNumeric(t)) return Family::kNumeric;
  if (IsTemporal(t)) return Family::kTemporal;
  if (t == TypeId::kBinary) return Family::kBinary;
  if (t == TypeId::kUuid) return Family::kUuid;
  return Family::kString;
}

Status Incomparable(TypeId a, TypeId b) {
  return Status::InvalidArgument(std::string("cannot compare ") + TypeName(a) + " with " + TypeName(b));
}

// ---------------------------------------------------------------- integer-like columns

// A literal seen from an integer-like column: x >= lit <=> x >= lower, x <= lit <=> x <= upper,
// and x == lit <=> lower <= x <= upper (one value when exact; none when lower > upper; several
// only for a decimal compared with a double, as doubles).
struct IntBounds {
  i128 lower = 0;
  i128 upper = 0;
  bool exact = false;
};

i128 FloorDiv(i128 a, i128 b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
i128 CeilDiv(i128 a, i128 b) { return -FloorDiv(-a, b); }

Result<IntBounds> IntBoundsOf(TypeId col, const Value& lit) {
  TypeId lt = lit.type();
  if (!Comparable(col, lt)) return Incomparable(col, lt);
  IntBounds b;
  if (lt == TypeId::kBool) {
    b.lower = b.upper = lit.bool_value() ? 1 : 0;
    b.exact = true;
  } else if (IsDecimal(col) && IsFloating(lt)) {
    // As DuckDB compares a decimal with a double: as doubles. x >= d <=> x >= the least value
    // whose double is >= d (the decimal's double is monotone in it), likewise for <=.
    const double d = lit.double_value();
    const int scale = DecimalScale(col);
    if (std::isnan(d)) {
      b.lower = b.upper = kHuge;
    } else {
      // Binary searches over every decimal value (|x| < 10^18), past them on either side.
      const auto least = [&](auto pred) {  // the least x with pred(x), pred monotone
        int64_t lo = -Pow10(18), hi = Pow10(18);  // pred(hi) assumed
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo) / 2;
          if (pred(mid)) hi = mid; else lo = mid + 1;
        }
        return lo;
      };
      const auto at = [&](int64_t x) { return DecimalToDouble(x, scale); };
      const i128 lower = least([&](int64_t x) { return at(x) >= d; });
      const i128 above = least([&](int64_t x) { return at(x) > d; });
      b.lower = d > at(Pow10(18) - 1) ? kHuge : lower;
      b.upper = d < at(-Pow10(18)) ? -kHuge : above - 1;
      b.exact = b.lower == b.upper;
    }
  } else if (IsFloating(lt)) {
    double d = lit.double_value();
    if (std::isnan(d)) {  // NaN is above every number: x >= NaN never, x <= NaN always
      b.lower = b.upper = kHuge;
    } else if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
      b.lower = b.upper = d > 0 ? kHuge : -kHuge;
    } else {
      b.lower = i128(static_cast<int64_t>(std::ceil(d)));
      b.upper = i128(static_cast<int64_t>(std::floor(d)));
      b.exact = b.lower == b.upper;
    }
  } else if (IsDecimal(col) || IsDecimal(lt)) {
    // Integers and decimals of other scales: the literal in the column's units, exactly.
    const i128 scaled = i128(lit.int_value()) * NumericUnitsPerOne(col);
    b.lower = CeilDiv(scaled, NumericUnitsPerOne(lt));
    b.upper = FloorDiv(scaled, NumericUnitsPerOne(lt));
    b.exact = b.lower == b.upper;
  } else if (IsTemporal(col) && col != lt) {
    // Another temporal unit: the literal in the column's units, as CompareTemporal orders them.
    constexpr i128 kInfinite = std::numeric_limits<int64_t>::max();
    const bool timestamps = IsTimestamp(col) && IsTimestamp(lt);
    const i128 v = lit.int_value();
    if (timestamps && (v == kInfinite || v == -kInfinite)) {
      b.lower = b.upper = v;
      b.exact = true;
      return b;
    }
    const i128 scaled = v * TemporalUnitsPerDay(col);
    b.lower = CeilDiv(scaled, TemporalUnitsPerDay(lt));
    b.upper = FloorDiv(scaled, TemporalUnitsPerDay(lt));
    b.exact = b.lower == b.upper;
    if (timestamps && b.lower >= kInfinite) {  // finite: below the column's infinity
      b.lower = kInfinite;
      b.upper = kInfinite - 1;
      b.exact = false;
    } else if (timestamps && b.upper <= -kInfinite) {
      b.upper = -kInfinite;
      b.lower = -kInfinite + 1;
      b.exact = false;
    }
  } else {
    b.lower = b.upper = lit.int_value();
    b.exact = true;
  }
  return b;
}

// An inclusive range of the physical type T, negated or not, or a constant answer.
template <typename T>
struct IntPlan {
  bool constant = false;
  bool value = false;  // the constant answer
  T lo = 0, hi = 0;
  bool negate = false;
};

template <typename T>
IntPlan<T> MakeIntPlan(i128 lo, i128 hi, bool negate) {
  const i128 tmin = std::numeric_limits<T>::min(), tmax = std::numeric_limits<T>::max();
  IntPlan<T> p;
  lo = std::max(lo, tmin);
  hi = std::min(hi, tmax);
  if (lo > hi) {
    p.constant = true;
    p.value = negate;
  } else if (lo == tmin && hi == tmax) {
    p.constant = true;
    p.value = !negate;
  } else {
    p.lo = T(lo);
    p.hi = T(hi);
    p.negate = negate;
  }
  return p;
}

template <typename T>
IntPlan<T> PlanIntCompare(CompareOp op, const IntBounds& b) {
  const i128 kMin = -kHuge, kMax = kHuge;
  switch (op) {
    case CompareOp::kEq: return MakeIntPlan<T>(b.lower, b.upper, false);
    case CompareOp::kNe: return MakeIntPlan<T>(b.lower, b.upper, true);
    case CompareOp::kLe: return MakeIntPlan<T>(kMin, b.upper, false);
    case CompareOp::kGe: return MakeIntPlan<T>(b.lower, kMax, false);
    case CompareOp::kLt: return MakeIntPlan<T>(b.lower, kMax, true);
    case CompareOp::kGt: return MakeIntPlan<T>(kMin, b.upper, true);
  }
  return MakeIntPlan<T>(1, 0, false);
}

void FillConstant(bool value, size_t n, uint8_t* out) { std::fill(out, out + n, value ? kTriTrue : kTriFalse); }

// out[i] = f(data[i]). Fixed-size blocks with restrict pointers let GCC vectorize even at -O2
// (its cheap cost model refuses loops that need an epilogue or aliasing checks).
template <typename T, typename F>
void MapRows(const T* __restrict data, size_t n, uint8_t* __restrict out, F f) {
  constexpr size_t kBlock = 64;
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    const T* __restrict d = data + i;
    uint8_t* __restrict o = out + i;
    for (size_t j = 0; j < kBlock; ++j) o[j] = f(d[j]);
  }
  for (; i < n; ++i) out[i] = f(data[i]);
}

// The hot loop: branch-free, vectorizable.
template <typename T>
void RunIntPlan(const IntPlan<T>& p, const T* data, size_t n, uint8_t* out) {
  if (p.constant) return FillConstant(p.value, n, out);
  const T lo = p.lo, hi = p.hi;
  const uint8_t neg = p.negate ? 1 : 0;
  MapRows(data, n, out, [=](T x) { return uint8_t((uint8_t((x >= lo) & (x <= hi)) ^ neg) << 1); });
}

// ---------------------------------------------------------------- float/double columns

// x >= lit <=> x >=tot lower; x <= lit <=> x <=tot upper (total order, NaN greatest).
struct DoubleBounds {
  double lower = 0, upper = 0;
  bool exact = false;
};

Result<DoubleBounds> DoubleBoundsOf(TypeId col, const Value& lit) {
  if (!Comparable(col, lit.type())) return Incomparable(col, lit.type());
  DoubleBounds b;
  if (IsFloating(lit.type()) || IsDecimal(lit.type())) {  // a decimal as its double, as DuckDB
    b.lower = b.upper = IsDecimal(lit.type()) ? DecimalToDouble(lit.int_value(), DecimalScale(lit.type())) : lit.double_value();
    b.exact = true;
    return b;
  }
  int64_t i = lit.int_value();
  double d = static_cast<double>(i);
  int c = CompareValues(Value::Double(d), Value::Int64(i));
  if (c == 0) {
    b.lower = b.upper = d;
    b.exact = true;
  } else if (c > 0) {  // d rounded up: the integer sits just below d
    b.lower = d;
    b.upper = std::nextafter(d, -kInf);
  } else {
    b.lower = std::nextafter(d, kInf);
    b.upper = d;
  }
  return b;
}

struct DoublePlan {
  bool constant = false;
  bool value = false;
  double lo = 0, hi = 0;  // total-order inclusive bounds; NaN allowed
  bool negate = false;
};

DoublePlan MakeDoublePlan(double lo, double hi, bool negate) {
  DoublePlan p;
  p.lo = lo;
  p.hi = hi;
  p.negate = negate;
  if (lo == -kInf && std::isnan(hi)) {
    p.constant = true;
    p.value = !negate;
  }
  return p;
}

DoublePlan PlanDoubleCompare(CompareOp op, const DoubleBounds& b) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  DoublePlan never;
  never.constant = true;
  switch (op) {
    case CompareOp::kEq: return b.exact ? MakeDoublePlan(b.lower, b.lower, false) : never;
    case CompareOp::kNe:
      if (!b.exact) never.value = true;
      return b.exact ? MakeDoublePlan(b.lower, b.lower, true) : never;
    case CompareOp::kLe: return MakeDoublePlan(-kInf, b.upper, false);
    case CompareOp::kGe: return MakeDoublePlan(b.lower, nan, false);
    case CompareOp::kLt: return MakeDoublePlan(b.lower, nan, true);
    case CompareOp::kGt: return MakeDoublePlan(-kInf, b.upper, true);
  }
  return never;
}

template <typename T>
void RunDoublePlan(const DoublePlan& p, const T* data, size_t n, uint8_t* out) {
  if (p.constant) return FillConstant(p.value, n, out);
  // x >=tot lo  <=>  x >= lo || isnan(x)   (also right for lo = NaN: then only NaN)
  // x <=tot hi  <=>  x <= hi || isnan(hi)
  const double lo = p.lo, hi = p.hi;
  const uint8_t hi_nan = std::isnan(hi) ? 1 : 0;
  const uint8_t neg = p.negate ? 1 : 0;
  MapRows(data, n, out, [=](T v) {
    double x = static_cast<double>(v);
    uint8_t ge = uint8_t((x >= lo) | (x != x));
    uint8_t le = uint8_t((x <= hi) | hi_nan);
    return uint8_t(((ge & le) ^ neg) << 1);
  });
}

// ---------------------------------------------------------------- strings

template <CompareOp kOp>
void RunStringCompare(const Column& col, std::string_view lit, size_t n, uint8_t* out) {
  const uint32_t* off = col.offsets().data();
  const char* chars = col.chars().data();
  for (size_t i = 0; i < n; ++i) {
    std::string_view s(chars + off[i], off[i + 1] - off[i]);
    bool r;
    if constexpr (kOp == CompareOp::kEq) {
      r = s == lit;
    } else if constexpr (kOp == CompareOp::kNe) {
      r = s != lit;
    } else {
      r = CompareResultMatches(kOp, s.compare(lit));
    }
    out[i] = r ? kTriTrue : kTriFalse;
  }
}

void StringCompare(const Column& col, CompareOp op, std::string_view lit, size_t n, uint8_t* out) {
  switch (op) {
    case CompareOp::kEq: return RunStringCompare<CompareOp::kEq>(col, lit, n, out);
    case CompareOp::kNe: return RunStringCompare<CompareOp::kNe>(col, lit, n, out);
    case CompareOp::kLt: return RunStringCompare<CompareOp::kLt>(col, lit, n, out);
    case CompareOp::kLe: return RunStringCompare<CompareOp::kLe>(col, lit, n, out);
    case CompareOp::kGt: return RunStringCompare<CompareOp::kGt>(col, lit, n, out);
    case CompareOp::kGe: return RunStringCompare<CompareOp::kGe>(col, lit, n, out);
  }
}

// ---------------------------------------------------------------- dispatch helpers

template <typename T>
Status IntCompare(const Column& col, CompareOp op, const Value& lit, size_t n, uint8_t* out) {
  ASSIGN_OR_RETURN(IntBounds b, IntBoundsOf(col.type(), lit));
  RunIntPlan(PlanIntCompare<T>(op, b), col.data<T>(), n, out);
  return Status::OK();
}

template <typename T>
Status IntBetween(const Column& col, const Value& low, const Value& high, bool negated, size_t n, uint8_t* out) {
  ASSIGN_OR_RETURN(IntBounds lb, IntBoundsOf(col.type(), low));
  ASSIGN_OR_RETURN(IntBounds hb, IntBoundsOf(col.type(), high));
  RunIntPlan(MakeIntPlan<T>(lb.lower, hb.upper, negated), col.data<T>(), n, out);
  return Status::OK();
}

template <typename T>
Status DoubleCompare(const Column& col, CompareOp op, const Value& lit, size_t n, uint8_t* out) {
  ASSIGN_OR_RETURN(DoubleBounds b, DoubleBoundsOf(col.type(), lit));
  RunDoublePlan(PlanDoubleCompare(op, b), col.data<T>(), n, out);
  return Status::OK();
}

template <typename T>
Status DoubleBetween(const Column& col, const Value& low, const Value& high, bool negated, size_t n,
                     uint8_t* out) {
  ASSIGN_OR_RETURN(DoubleBounds lb, DoubleBoundsOf(col.type(), low));
  ASSIGN_OR_RETURN(DoubleBounds hb, DoubleBoundsOf(col.type(), high));
  RunDoublePlan(MakeDoublePlan(lb.lower, hb.upper, negated), col.data<T>(), n, out);
  return Status::OK();
}

// Exact three-way comparison of an integer with a double (NaN greatest).
int CompareIntDouble(int64_t i, double d) {
  if (std::isnan(d) || d >= 9223372036854775808.0) return -1;
  if (d < -9223372036854775808.0) return 1;
  double t = std::trunc(d);
  auto ti = static_cast<int64_t>(t);
  if (ti != i) return i < ti ? -1 : 1;
  return t < d ? -1 : (t > d ? 1 : 0);
}

int CompareDoubles(double x, double y) {
  bool xn = x != x, yn = y != y;
  if (xn || yn) return int(xn) - int(yn);
  return x < y ? -1 : (x > y ? 1 : 0);
}

// Column values widened to one representation per family.
// The first n values of an integer-like column as i128, times `scale`; with `infinities`, a
// timestamp's infinite values become +-kHuge (past every scaled value).
void WidenInts(const Column& c, size_t n, std::vector<i128>* out, i128 scale = 1, bool infinities = false) {
  out->resize(n);
  switch (c.type()) {
    case TypeId::kBool:
      for (size_t i = 0; i < n; ++i) (*out)[i] = c.data<uint8_t>()[i];
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
      for (size_t i = 0; i < n; ++i) (*out)[i] = i128(c.data<int32_t>()[i]) * scale;
      break;
    default:
      for (size_t i = 0; i < n; ++i) {
        const int64_t v = c.data<int64_t>()[i];
        constexpr int64_t kInfinite = std::numeric_limits<int64_t>::max();
        (*out)[i] = infinities && (v == kInfinite || v == -kInfinite) ? (v > 0 ? kHuge : -kHuge) : i128(v) * scale;
      }
      break;
  }
}

void WidenDoubles(const Column& c, size_t n, std::vector<double>* out) {
  out->resize(n);
  if (c.type() == TypeId::kFloat) {
    for (size_t i = 0; i < n; ++i) (*out)[i] = c.data<float>()[i];
  } else {
    for (size_t i = 0; i < n; ++i) (*out)[i] = c.data<double>()[i];
  }
}

void ApplyOp(CompareOp op, const std::vector<int8_t>& cmp, uint8_t* out) {
  for (size_t i = 0; i < cmp.size(); ++i) out[i] = CompareResultMatches(op, cmp[i]) ? kTriTrue : kTriFalse;
}

}  // namespace

bool Comparable(TypeId a, TypeId b) { return FamilyOf(a) == FamilyOf(b); }

Status CompareColumnLiteral(const Column& col, CompareOp op, const Value& lit, size_t n, uint8_t* out) {
  if (IsDecimal(col.type())) return IntCompare<int64_t>(col, op, lit, n, out);
  switch (col.type()) {
    case TypeId::kBool: return IntCompare<uint8_t>(col, op, lit, n, out);
    case TypeId::kInt32:
    case TypeId::kDate: return IntCompare<int32_t>(col, op, lit, n, out);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return IntCompare<int64_t>(col, op, lit, n, out);
    case TypeId::kFloat: return DoubleCompare<float>(col, op, lit, n, out);
    case TypeId::kDouble: return DoubleCompare<double>(col, op, lit, n, out);
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
      if (!Comparable(col.type(), lit.type())) return Incomparable(col.type(), lit.type());
      StringCompare(col, op, lit.string_value(), n, out);
      return Status::OK();
  }
  return Incomparable(col.type(), lit.type());
}

Status BetweenColumnLiterals(const Column& col, const Value& low, const Value& high, bool negated, size_t n,
                             uint8_t* out) {
  if (IsDecimal(col.type())) return IntBetween<int64_t>(col, low, high, negated, n, out);
  switch (col.type()) {
    case TypeId::kBool: return IntBetween<uint8_t>(col, low, high, negated, n, out);
    case TypeId::kInt32:
    case TypeId::kDate: return IntBetween<int32_t>(col, low, high, negated, n, out);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return IntBetween<int64_t>(col, low, high, negated, n, out);
    case TypeId::kFloat: return DoubleBetween<float>(col, low, high, negated, n, out);
    case TypeId::kDouble: return DoubleBetween<double>(col, low, high, negated, n, out);
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: {
      if (!Comparable(col.type(), low.type())) return Incomparable(col.type(), low.type());
      if (!Comparable(col.type(), high.type())) return Incomparable(col.type(), high.type());
      std::string_view lo = low.string_value(), hi = high.string_value();
      for (size_t i = 0; i < n; ++i) {
        std::string_view s = col.GetString(i);
        bool in = s.compare(lo) >= 0 && s.compare(hi) <= 0;
        out[i] = in != negated ? kTriTrue : kTriFalse;
      }
      return Status::OK();
    }
  }
  return Incomparable(col.type(), low.type());
}

Status CompareColumns(const Column& a, CompareOp op, const Column& b, size_t n, uint8_t* out) {
  TypeId ta = a.type(), tb = b.type();
  if (!Comparable(ta, tb)) return Incomparable(ta, tb);
  std::vector<int8_t> cmp(n);
  if (IsBytes(ta)) {
    for (size_t i = 0; i < n; ++i) {
      int c = a.GetString(i).compare(b.GetString(i));
      cmp[i] = int8_t(c < 0 ? -1 : (c > 0 ? 1 : 0));
    }
  } else if (IsFloating(ta) && IsFloating(tb)) {
    std::vector<double> x, y;
    WidenDoubles(a, n, &x);
    WidenDoubles(b, n, &y);
    for (size_t i = 0; i < n; ++i) cmp[i] = int8_t(CompareDoubles(x[i], y[i]));
  } else if (IsFloating(ta) || IsFloating(tb)) {
    const Column& ic = IsFloating(ta) ? b : a;
    const Column& dc = IsFloating(ta) ? a : b;
    std::vector<i128> x;
    std::vector<double> y;
    WidenInts(ic, n, &x);
    WidenDoubles(dc, n, &y);
    int sign = IsFloating(ta) ? -1 : 1;
    if (IsDecimal(ic.type())) {  // as doubles, as DuckDB
      const int scale = DecimalScale(ic.type());
      for (size_t i = 0; i < n; ++i) cmp[i] = int8_t(sign * CompareDoubles(DecimalToDouble(int64_t(x[i]), scale), y[i]));
    } else {
      for (size_t i = 0; i < n; ++i) cmp[i] = int8_t(sign * CompareIntDouble(int64_t(x[i]), y[i]));
    }
  } else {
    // Integer-like on both sides; temporal values of two units count in the finer one (as
    // CompareTemporal orders them).
    // Integers and decimals count in the finer scale.
    const bool mixed = ta != tb && FamilyOf(ta) == Family::kTemporal;
    const bool timestamps = mixed && IsTimestamp(ta) && IsTimestamp(tb);
    const bool decimals = IsDecimal(ta) || IsDecimal(tb);
    const i128 scale_a = mixed ? TemporalUnitsPerDay(tb) : decimals ? NumericUnitsPerOne(tb) : 1;
    const i128 scale_b = mixed ? TemporalUnitsPerDay(ta) : decimals ? NumericUnitsPerOne(ta) : 1;
    std::vector<i128> x, y;
    WidenInts(a, n, &x, scale_a, timestamps);
    WidenInts(b, n, &y, scale_b, timestamps);
    for (size_t i = 0; i < n; ++i) cmp[i] = int8_t(x[i] < y[i] ? -1 : (x[i] > y[i] ? 1 : 0));
  }
  ApplyOp(op, cmp, out);
  return Status::OK();
}

Status InColumnLiterals(const Column& col, const std::vector<const Value*>& items, size_t n, uint8_t* out) {
  TypeId t = col.type();
  for (const Value* v : items) {
    if (!Comparable(t, v->type())) return Incomparable(t, v->type());
  }
  if (IsBytes(t)) {
    std::vector<std::string_view> set;
    for (const Value* v : items) set.push_back(v->string_value());
    std::sort(set.begin(), set.end());
    for (size_t i = 0; i < n; ++i) {
      out[i] = std::binary_search(set.begin(), set.end(), col.GetString(i)) ? kTriTrue : kTriFalse;
    }
    return Status::OK();
  }
  if (IsFloating(t)) {
    std::vector<double> set;
    bool has_nan = false;
    for (const Value* v : items) {
      ASSIGN_OR_RETURN(DoubleBounds b, DoubleBoundsOf(t, *v));
      if (!b.exact) continue;  // an integer no double equals
      if (std::isnan(b.lower)) has_nan = true; else set.push_back(b.lower == 0 ? 0.0 : b.lower);
    }
    std::sort(set.begin(), set.end());
    std::vector<double> x;
    WidenDoubles(col, n, &x);
    for (size_t i = 0; i < n; ++i) {
      bool found = std::isnan(x[i]) ? has_nan : std::binary_search(set.begin(), set.end(), x[i]);
      out[i] = found ? kTriTrue : kTriFalse;
    }
    return Status::OK();
  }
  std::vector<i128> set;
  for (const Value* v : items) {
    ASSIGN_OR_RETURN(IntBounds b, IntBoundsOf(t, *v));
    for (i128 x = b.lower; x <= b.upper && x - b.lower < 64; ++x) set.push_back(x);
  }
  std::sort(set.begin(), set.end());
  std::vector<i128> x;
  WidenInts(col, n, &x);
  for (size_t i = 0; i < n; ++i) {
    out[i] = std::binary_search(set.begin(), set.end(), x[i]) ? kTriTrue : kTriFalse;
  }
  return Status::OK();
}

}  // namespace lakeindex::query::internal
