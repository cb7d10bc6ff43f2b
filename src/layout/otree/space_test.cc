#include "layout/otree/space.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace lakeindex::layout::otree {
namespace {

using lakeindex::testing::HostileValues;
using lakeindex::testing::RandomValue;
using lakeindex::testing::Rng;

constexpr TypeId kAllTypes[] = {TypeId::kBool,   TypeId::kInt32,  TypeId::kInt64, TypeId::kFloat,
                                TypeId::kDouble, TypeId::kString, TypeId::kDate,  TypeId::kTimestamp};

// Random and hostile values of `type`, plus strings that share prefixes or hold \xff bytes.
std::vector<Value> TestValues(TypeId type, Rng& rng, size_t n) {
  std::vector<Value> v = HostileValues(type);
  for (size_t i = 0; i < n; ++i) v.push_back(RandomValue(type, rng));
  if (type == TypeId::kString) {
    for (const char* s : {"", "\xff", "\xff\xff\xff", "a\xff", "user_000001", "user_000002", "user_0000010",
                          "user_00000100000000000", "user_00000100000000001", "user_", "user", "\x01"}) {
      v.push_back(Value::String(s));
    }
    for (size_t i = 0; i < n / 4; ++i) v.push_back(Value::String("prefix/shared/" + std::to_string(rng.Uniform(1000))));
  }
  if (type == TypeId::kDouble || type == TypeId::kFloat) {
    for (double x : {-0.0, 0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                     std::nan(""), 1e300, -1e300}) {
      v.push_back(type == TypeId::kFloat ? Value::Float(float(x)) : Value::Double(x));
    }
  }
  return v;
}

bool IsNaN(const Value& v) {
  return (v.type() == TypeId::kFloat || v.type() == TypeId::kDouble) && std::isnan(v.double_value());
}

// Sorting by CompareValues and checking that coordinates never decrease (and tie on equal values)
// checks Coord(a) <= Coord(b) for every pair a <= b at once.
void ExpectMonotone(const Transform& t, std::vector<Value> values) {
  std::sort(values.begin(), values.end(), [](const Value& a, const Value& b) { return CompareValues(a, b) < 0; });
  for (size_t i = 1; i < values.size(); ++i) {
    uint32_t a = t.Coord(values[i - 1]), b = t.Coord(values[i]);
    ASSERT_LE(a, b) << values[i - 1].ToString() << " vs " << values[i].ToString() << " " << t.ToJson().dump();
    if (CompareValues(values[i - 1], values[i]) == 0) { ASSERT_EQ(a, b) << values[i].ToString(); }
  }
  for (const Value& v : values) {
    if (IsNaN(v)) { EXPECT_EQ(t.Coord(v), kMaxCoord); }
  }
  EXPECT_EQ(t.Coord(Value::Null(t.type)), 0u);
}

// Coords over a Column (with NULLs) equals Coord row by row.
void ExpectVectorizedMatches(const Transform& t, const std::vector<Value>& values, Rng& rng) {
  Column col(t.type);
  std::vector<Value> rows;
  for (const Value& v : values) {
    Value x = rng.Chance(0.1) ? Value::Null(t.type) : v;
    ASSERT_TRUE(col.AppendValue(x).ok());
    rows.push_back(x);
  }
  std::vector<uint32_t> out(col.length());
  t.Coords(col, out.data());
  for (size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(out[i], t.Coord(rows[i])) << rows[i].ToString();
}

void ExpectJsonRoundTrip(const Transform& t, const std::vector<Value>& values) {
  std::string text = t.ToJson().dump();
  auto back = Transform::FromJson(nlohmann::json::parse(text), t.type);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << " " << text;
  EXPECT_EQ(back->kind, t.kind);
  EXPECT_EQ(back->lo, t.lo);
  EXPECT_EQ(back->hi, t.hi);
  ASSERT_EQ(back->bounds.size(), t.bounds.size());
  for (size_t i = 0; i < t.bounds.size(); ++i) EXPECT_EQ(CompareValues(back->bounds[i], t.bounds[i]), 0);
  for (const Value& v : values) ASSERT_EQ(back->Coord(v), t.Coord(v)) << v.ToString();
}

TEST(TransformTest, MonotoneForEveryTypeAndFit) {
  Rng rng(7);
  for (TypeId type : kAllTypes) {
    SCOPED_TRACE(TypeName(type));
    for (int round = 0; round < 4; ++round) {
      std::vector<Value> values = TestValues(type, rng, 400);
      std::vector<Transform> fits;
      // Quantile over a random part of the values (so that many fall outside the bounds).
      std::vector<Value> sample(values.begin(), values.begin() + long(values.size() / 3));
      size_t max_bounds = round == 0 ? 1 : (round == 1 ? 2 : 64);
      auto q = Transform::FitQuantile(type, sample, max_bounds);
      ASSERT_TRUE(q.ok()) << q.status().ToString();
      fits.push_back(*q);
      if (type != TypeId::kString) {
        // Linear over two random finite values, and over the full range of the type.
        auto finite = [&](const Value& v) { return !IsFloating(type) || std::isfinite(v.double_value()); };
        Value a = RandomValue(type, rng), b = RandomValue(type, rng);
        while (!finite(a)) a = RandomValue(type, rng);
        while (!finite(b)) b = RandomValue(type, rng);
        if (CompareValues(b, a) < 0) std::swap(a, b);
        auto l = Transform::FitLinear(type, a, b);
        if (l.ok()) fits.push_back(*l);
        if (IsFloating(type)) {
          double big = type == TypeId::kFloat ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
          auto full = Transform::FitLinear(type, Value::Double(-big), Value::Double(big));
          ASSERT_TRUE(full.ok());
          fits.push_back(*full);
        }
        if (type == TypeId::kInt64) {
          auto full = Transform::FitLinear(type, Value::Int64(INT64_MIN), Value::Int64(INT64_MAX));
          ASSERT_TRUE(full.ok());
          fits.push_back(*full);
        }
        auto same = Transform::FitLinear(type, a, a);  // lo == hi
        ASSERT_TRUE(same.ok());
        fits.push_back(*same);
      }
      for (const Transform& t : fits) {
        ExpectMonotone(t, values);
        ExpectVectorizedMatches(t, values, rng);
        ExpectJsonRoundTrip(t, values);
      }
    }
  }
}

TEST(TransformTest, LinearMapsRangeOntoCoordinates) {
  auto t = Transform::FitLinear(TypeId::kDouble, Value::Double(0), Value::Double(1));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->Coord(Value::Double(0)), 0u);
  EXPECT_EQ(t->Coord(Value::Double(-5)), 0u);
  EXPECT_EQ(t->Coord(Value::Double(0.5)), 1u << 31);
  EXPECT_EQ(t->Coord(Value::Double(1)), kMaxCoord);
  EXPECT_EQ(t->Coord(Value::Double(7)), kMaxCoord);
  EXPECT_EQ(t->Coord(Value::Double(std::nan(""))), kMaxCoord);
  EXPECT_EQ(t->Coord(Value::Double(-0.0)), 0u);
  EXPECT_EQ(t->Coord(Value::Null(TypeId::kDouble)), 0u);
  EXPECT_TRUE(t->Covers(Value::Double(0.25)));
  EXPECT_FALSE(t->Covers(Value::Double(1.5)));
  EXPECT_FALSE(t->Covers(Value::Double(-0.5)));
  EXPECT_FALSE(Transform::FitLinear(TypeId::kString, Value::String("a"), Value::String("b")).ok());
  EXPECT_FALSE(Transform::FitLinear(TypeId::kDouble, Value::Double(0), Value::Double(INFINITY)).ok());
  EXPECT_FALSE(Transform::FitLinear(TypeId::kDouble, Value::Double(2), Value::Double(1)).ok());
  EXPECT_FALSE(Transform::FitLinear(TypeId::kInt64, Value::Null(TypeId::kInt64), Value::Int64(1)).ok());
}

TEST(TransformTest, QuantileHandlesStringsWithSharedPrefixes) {
  std::vector<Value> sample;
  for (int i = 0; i < 1000; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "customer_%08d", i * 7);
    sample.push_back(Value::String(buf));
  }
  auto t = Transform::FitQuantile(TypeId::kString, sample, 16);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->bounds.size(), 16u);
  // Values of the sample spread over the whole coordinate range, not into one cell.
  std::vector<uint32_t> coords;
  for (const Value& v : sample) coords.push_back(t->Coord(v));
  std::sort(coords.begin(), coords.end());
  EXPECT_EQ(std::unique(coords.begin(), coords.end()) - coords.begin(), long(coords.size()));
  EXPECT_TRUE(t->Covers(Value::String("customer_00000100")));
  EXPECT_FALSE(t->Covers(Value::String("zzz")));
  EXPECT_FALSE(Transform::FitQuantile(TypeId::kString, {Value::Null(TypeId::kString)}).ok());
  EXPECT_FALSE(Transform::FitQuantile(TypeId::kDouble, {Value::Double(std::nan(""))}).ok());
  EXPECT_FALSE(Transform::FitQuantile(TypeId::kInt64, {Value::String("x")}).ok());
}

// Samples of distributions, by inverse CDF of Rng::Unit.
std::vector<Value> Sample(Rng& rng, size_t n, int shape) {
  std::vector<Value> out;
  for (size_t i = 0; i < n; ++i) {
    double u = rng.Unit();
    double x = 0;
    switch (shape) {
      case 0: x = u * 1000; break;                                        // uniform
      case 1: x = -std::log1p(-u) * 10; break;                             // exponential
      case 2: x = std::exp(3 * std::sqrt(-2 * std::log1p(-u)) * std::cos(6.283185307179586 * rng.Unit())); break;  // lognormal
    }
    out.push_back(Value::Double(x));
  }
  return out;
}

TEST(TransformTest, DefaultPicksQuantileForStringsAndSkew) {
  Rng rng(11);
  auto minmax = [](const std::vector<Value>& s) {
    auto [lo, hi] = std::minmax_element(s.begin(), s.end(),
                                        [](const Value& a, const Value& b) { return CompareValues(a, b) < 0; });
    return std::make_pair(*lo, *hi);
  };
  for (int shape = 0; shape < 3; ++shape) {
    std::vector<Value> s = Sample(rng, 5000, shape);
    auto [lo, hi] = minmax(s);
    auto t = Transform::FitDefault(TypeId::kDouble, lo, hi, s);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->kind, shape == 0 ? Transform::Kind::kLinear : Transform::Kind::kQuantile) << shape;
    EXPECT_TRUE(t->Covers(lo));
    EXPECT_TRUE(t->Covers(hi));
  }
  std::vector<Value> ints;
  for (int i = 0; i < 1000; ++i) ints.push_back(Value::Int64(int64_t(rng.Uniform(1000000))));
  auto ti = Transform::FitDefault(TypeId::kInt64, Value::Int64(0), Value::Int64(999999), ints);
  ASSERT_TRUE(ti.ok());
  EXPECT_EQ(ti->kind, Transform::Kind::kLinear);
  std::vector<Value> strings{Value::String("b"), Value::String("a")};
  auto ts = Transform::FitDefault(TypeId::kString, Value::String("a"), Value::String("zz"), strings);
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ(ts->kind, Transform::Kind::kQuantile);
  EXPECT_TRUE(ts->Covers(Value::String("zz")));  // the exact max is a bound even when not sampled
  // Infinite bounds: quantile; all NULL: a transform that maps NULL to 0.
  auto tinf = Transform::FitDefault(TypeId::kDouble, Value::Double(-INFINITY), Value::Double(1), {Value::Double(0.5)});
  ASSERT_TRUE(tinf.ok());
  EXPECT_EQ(tinf->kind, Transform::Kind::kQuantile);
  // The infinities are no bounds: they take the ends, and any fit covers them.
  EXPECT_EQ(tinf->bounds.front().double_value(), 0.5);
  EXPECT_EQ(tinf->Coord(Value::Double(-INFINITY)), 0u);
  EXPECT_EQ(tinf->Coord(Value::Double(INFINITY)), kMaxCoord);
  EXPECT_TRUE(tinf->Covers(Value::Double(-INFINITY)));
  EXPECT_TRUE(tinf->Covers(Value::Double(INFINITY)));
  EXPECT_FALSE(tinf->Covers(Value::Double(-1e300)));
  auto only_inf = Transform::FitQuantile(TypeId::kFloat, {Value::Float(INFINITY), Value::Float(-INFINITY)});
  ASSERT_TRUE(only_inf.ok()) << only_inf.status().ToString();
  EXPECT_LT(only_inf->Coord(Value::Float(-INFINITY)), only_inf->Coord(Value::Float(INFINITY)));
  EXPECT_TRUE(Transform::FromJson(only_inf->ToJson(), TypeId::kFloat).ok());
  auto tnull = Transform::FitDefault(TypeId::kString, Value::Null(TypeId::kString), Value::Null(TypeId::kString), {});
  ASSERT_TRUE(tnull.ok());
  EXPECT_EQ(tnull->Coord(Value::Null(TypeId::kString)), 0u);
}

TEST(TransformTest, QuantileCoordinatesAreRoughlyUniform) {
  Rng rng(5);
  for (int shape = 1; shape < 3; ++shape) {
    auto t = Transform::FitQuantile(TypeId::kDouble, Sample(rng, 20000, shape));
    ASSERT_TRUE(t.ok());
    constexpr int kBuckets = 16;
    std::vector<int> count(kBuckets);
    const int n = 50000;
    for (const Value& v : Sample(rng, n, shape)) ++count[size_t(t->Coord(v) >> 28)];
    for (int c : count) EXPECT_NEAR(c, n / kBuckets, n / kBuckets * 0.1) << shape;
  }
}

TEST(TransformTest, CorruptJsonIsRefused) {
  using nlohmann::json;
  auto q = Transform::FitQuantile(TypeId::kInt64, {Value::Int64(1), Value::Int64(5), Value::Int64(9)});
  ASSERT_TRUE(q.ok());
  std::vector<json> bad = {
      json(42),
      json::object(),
      json{{"kind", "cubic"}},
      json{{"kind", "linear"}, {"lo", "a"}, {"hi", 1}},
      json{{"kind", "linear"}, {"lo", 2}, {"hi", 1}},
      json{{"kind", "quantile"}},
      json{{"kind", "quantile"}, {"bounds", json::array()}},
      json{{"kind", "quantile"}, {"bounds", {5, 1}}},
      json{{"kind", "quantile"}, {"bounds", {1, "x"}}},
      json{{"kind", "quantile"}, {"bounds", {1, nullptr}}},
  };
  for (const json& j : bad) {
    auto r = Transform::FromJson(j, TypeId::kInt64);
    EXPECT_TRUE(!r.ok() && r.status().code() == StatusCode::kCorruption) << j.dump();
  }
  auto hex = Transform::FromJson(json{{"kind", "quantile"}, {"bounds", {json{{"hex", "zz"}}}}}, TypeId::kString);
  EXPECT_FALSE(hex.ok());
  auto lin_string = Transform::FromJson(json{{"kind", "linear"}, {"lo", 0}, {"hi", 1}}, TypeId::kString);
  EXPECT_FALSE(lin_string.ok());
}

// ---- CubeId ----

CubeId RandomCube(Rng& rng, int dims, int max_depth) {
  CubeId id;
  int depth = int(rng.Uniform(uint64_t(max_depth) + 1));
  for (int d = 0; d < depth; ++d) id = id.Child(int(rng.Uniform(1u << dims)), dims);
  return id;
}

TEST(CubeIdTest, ChildContainsLoHiAndTextAgree) {
  Rng rng(3);
  for (int dims = 1; dims <= kMaxDims; ++dims) {
    for (int iter = 0; iter < 300; ++iter) {
      CubeId id = RandomCube(rng, dims, kCoordBits);
      auto parsed = CubeId::Parse(id.ToString(dims), dims);
      ASSERT_TRUE(parsed.ok());
      EXPECT_EQ(*parsed, id);
      EXPECT_EQ(id.ToString(dims).size(), id.depth);
      // A point built inside [Lo, Hi] is contained; moving one coordinate outside is not.
      uint32_t p[kMaxDims];
      for (int i = 0; i < dims; ++i) {
        uint64_t span = uint64_t(id.Hi(i)) - id.Lo(i) + 1;
        EXPECT_EQ(span, uint64_t(1) << (kCoordBits - id.depth));
        p[i] = uint32_t(id.Lo(i) + rng.Uniform(span));
      }
      EXPECT_TRUE(id.Contains(p, dims));
      if (id.depth < kCoordBits) {
        int c = id.ChildNumberOf(p, dims);
        EXPECT_TRUE(id.Child(c, dims).Contains(p, dims));
        for (int other = 0; other < (1 << dims); ++other) {
          if (other != c) { EXPECT_FALSE(id.Child(other, dims).Contains(p, dims)); }
        }
      }
      if (id.depth > 0) {
        int i = int(rng.Uniform(uint64_t(dims)));
        uint32_t saved = p[i];
        p[i] = id.Lo(i) > 0 ? id.Lo(i) - 1 : id.Hi(i) + 1;
        EXPECT_FALSE(id.Contains(p, dims));
        p[i] = saved;
      }
    }
  }
  EXPECT_EQ(CubeId{}.ToString(3), "");
  EXPECT_EQ(CubeId{}.Lo(0), 0u);
  EXPECT_EQ(CubeId{}.Hi(0), kMaxCoord);
  EXPECT_EQ(CubeId{}.Child(63, 6).Child(5, 6).ToString(6), "/5");
}

TEST(CubeIdTest, ParseRefusesBadText) {
  EXPECT_FALSE(CubeId::Parse("4", 2).ok());    // child 4 needs 3 dims
  EXPECT_FALSE(CubeId::Parse("0-1", 2).ok());  // bad character
  EXPECT_FALSE(CubeId::Parse(std::string(33, '0'), 2).ok());
  EXPECT_TRUE(CubeId::Parse(std::string(32, '3'), 2).ok());
  EXPECT_FALSE(CubeId::Parse("", 0).ok());
  EXPECT_FALSE(CubeId::Parse("", 7).ok());
}

TEST(CubeIdTest, IntersectsMatchesBruteForceOnSmallRanges) {
  Rng rng(9);
  for (int dims = 1; dims <= 3; ++dims) {
    for (int iter = 0; iter < 2000; ++iter) {
      // A deep cube (side 1..16 coordinates) near a random base, and a box in a 64-wide window.
      uint32_t base = rng.Chance(0.3) ? (rng.Chance(0.5) ? 0u : kMaxCoord - 63) : uint32_t(rng.Next()) & ~63u;
      CubeId id;
      uint32_t p[kMaxDims];
      for (int i = 0; i < dims; ++i) p[i] = base + uint32_t(rng.Uniform(64));
      int depth = 28 + int(rng.Uniform(5));
      for (int d = 0; d < depth; ++d) id = id.Child(id.ChildNumberOf(p, dims), dims);
      Box box;
      for (int i = 0; i < dims; ++i) {
        box.lo[size_t(i)] = base + uint32_t(rng.Uniform(64));
        box.hi[size_t(i)] = base + uint32_t(rng.Uniform(64));  // sometimes lo > hi: empty
      }
      // Brute force: is any point of the cube inside the box?
      bool any = false;
      std::array<uint32_t, kMaxDims> q{};
      std::function<void(int)> walk = [&](int i) {
        if (any) return;
        if (i == dims) {
          bool in = true;
          for (int k = 0; k < dims; ++k) in = in && q[size_t(k)] >= box.lo[size_t(k)] && q[size_t(k)] <= box.hi[size_t(k)];
          any = in;
          return;
        }
        for (uint64_t x = id.Lo(i); x <= id.Hi(i); ++x) {
          q[size_t(i)] = uint32_t(x);
          walk(i + 1);
        }
      };
      walk(0);
      ASSERT_EQ(id.Intersects(box, dims), any) << id.ToString(dims);
    }
  }
  EXPECT_TRUE(CubeId{}.Intersects(Box::Everything(), 6));
}

}  // namespace
}  // namespace lakeindex::layout::otree
