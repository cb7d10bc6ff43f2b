#include "index/index_key.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "util/test_util.h"

namespace lakeindex::index {
namespace {

int Sign(int x) { return x < 0 ? -1 : (x > 0 ? 1 : 0); }

TEST(BTreeKey, ByteOrderIsCompareValuesOrder) {
  for (TypeId type : {TypeId::kBool, TypeId::kInt32, TypeId::kInt64, TypeId::kFloat, TypeId::kDouble, TypeId::kString,
                      TypeId::kDate, TypeId::kTimestamp}) {
    lakeindex::testing::Rng rng(uint64_t(type) + 1);
    std::vector<Value> vals = lakeindex::testing::HostileValues(type);
    for (int i = 0; i < 200; ++i) vals.push_back(lakeindex::testing::RandomValue(type, rng));
    Column col(type);
    for (const Value& v : vals) ASSERT_TRUE(col.AppendValue(v).ok());
    std::vector<std::string> keys(vals.size());
    for (size_t i = 0; i < vals.size(); ++i) {
      AppendKey(col, i, &keys[i]);
      auto q = EncodeQueryKey(type, col.GetValue(i));
      ASSERT_TRUE(q.ok());
      EXPECT_EQ(*q, keys[i]);
      auto back = DecodeKey(type, keys[i]);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(CompareValues(*back, col.GetValue(i)), 0) << col.GetValue(i).ToString();
    }
    for (size_t i = 0; i < vals.size(); ++i) {
      for (size_t j = 0; j < vals.size(); j += 7) {
        EXPECT_EQ(Sign(keys[i].compare(keys[j])), Sign(CompareValues(col.GetValue(i), col.GetValue(j))))
            << TypeName(type) << " " << col.GetValue(i).ToString() << " vs " << col.GetValue(j).ToString();
      }
    }
  }
}

TEST(BTreeKey, NegativeZeroAndNaNAreCanonical) {
  auto a = EncodeQueryKey(TypeId::kDouble, Value::Double(-0.0));
  auto b = EncodeQueryKey(TypeId::kDouble, Value::Double(0.0));
  auto n1 = EncodeQueryKey(TypeId::kDouble, Value::Double(std::nan("1")));
  auto n2 = EncodeQueryKey(TypeId::kDouble, Value::Double(-std::nan("")));
  auto inf = EncodeQueryKey(TypeId::kDouble, Value::Double(INFINITY));
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(*n1, *n2);
  EXPECT_GT(*n1, *inf);
  EXPECT_TRUE(std::isnan(DecodeKey(TypeId::kDouble, *n1)->double_value()));
}

TEST(BTreeKey, QueryLiteralTypes) {
  EXPECT_TRUE(EncodeQueryKey(TypeId::kDouble, Value::Int64(3)).ok());
  EXPECT_EQ(*EncodeQueryKey(TypeId::kDouble, Value::Int64(3)), *EncodeQueryKey(TypeId::kDouble, Value::Double(3)));
  EXPECT_TRUE(EncodeQueryKey(TypeId::kInt64, Value::Double(3)).status().IsInvalidArgument());
  EXPECT_TRUE(EncodeQueryKey(TypeId::kString, Value::Int64(3)).status().IsInvalidArgument());
  EXPECT_TRUE(EncodeQueryKey(TypeId::kInt64, Value::Null(TypeId::kInt64)).status().IsInvalidArgument());
  EXPECT_TRUE(DecodeKey(TypeId::kInt64, "abc").status().IsCorruption());
}

TEST(BTreeKey, PrefixSuccessor) {
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor("a\xff\xff"), "b");
  EXPECT_EQ(PrefixSuccessor(""), std::nullopt);
  EXPECT_EQ(PrefixSuccessor("\xff"), std::nullopt);
}

TEST(BTreeKey, KeyArrayLowerBound) {
  KeyArray keys;
  for (const char* k : {"a", "b", "b", "c"}) keys.Append(k);
  EXPECT_EQ(keys.size(), 4u);
  EXPECT_EQ(keys.LowerBound("b", false, 0, 4), 1u);
  EXPECT_EQ(keys.LowerBound("b", true, 0, 4), 3u);
  EXPECT_EQ(keys.LowerBound("z", false, 0, 4), 4u);
}

// Fixed-width keys are searched as integers: the same positions as comparing their bytes, over
// negative and positive int64 and double keys with repeats, strict and not, in sub-ranges.
TEST(BTreeKey, FixedWidthLowerBoundIsTheByteOrderOne) {
  for (TypeId type : {TypeId::kInt64, TypeId::kDouble}) {
    lakeindex::testing::Rng rng(uint64_t(type) + 40);
    std::vector<std::string> sorted;
    for (Value v : lakeindex::testing::HostileValues(type)) {
      if (v.is_null()) continue;
      Column col(type);
      ASSERT_TRUE(col.AppendValue(v).ok());
      std::string key;
      AppendKey(col, 0, &key);
      sorted.push_back(key);
    }
    for (int i = 0; i < 300; ++i) {
      Column col(type);
      ASSERT_TRUE(col.AppendValue(lakeindex::testing::RandomValue(type, rng)).ok());
      if (col.IsNull(0)) continue;
      std::string key;
      AppendKey(col, 0, &key);
      sorted.push_back(key);
      if (i % 3 == 0) sorted.push_back(key);  // repeats
    }
    std::sort(sorted.begin(), sorted.end());
    KeyArray keys(kFixedKeyWidth);
    for (const std::string& k : sorted) keys.Append(k);
    std::vector<std::string> probes = sorted;
    for (int i = 0; i < 100; ++i) {
      std::string p(kFixedKeyWidth, '\0');
      StoreFixedKey(rng.Next(), p.data());
      probes.push_back(p);
    }
    const size_t n = sorted.size();
    for (const std::string& p : probes) {
      for (bool strict : {false, true}) {
        for (auto [lo, hi] : {std::pair<size_t, size_t>{0, n}, {n / 3, n - n / 4}}) {
          auto first = sorted.begin() + std::ptrdiff_t(lo), last = sorted.begin() + std::ptrdiff_t(hi);
          const size_t want = size_t((strict ? std::upper_bound(first, last, p) : std::lower_bound(first, last, p)) - sorted.begin());
          EXPECT_EQ(keys.LowerBound(p, strict, lo, hi), want) << TypeName(type) << (strict ? " strict" : "");
        }
      }
    }
  }
}

}  // namespace
}  // namespace lakeindex::index
