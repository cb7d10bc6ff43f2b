#include "lakeindex/batch.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace lakeindex {
namespace {

TEST(ColumnTest, AppendsValuesAndNulls) {
  Column c(TypeId::kInt64);
  c.Append<int64_t>(1);
  c.Append<int64_t>(2);
  EXPECT_FALSE(c.has_validity());
  c.AppendNull();
  c.Append<int64_t>(4);
  ASSERT_EQ(c.length(), 4u);
  EXPECT_EQ(c.null_count(), 1u);
  EXPECT_TRUE(c.IsValid(0));
  EXPECT_TRUE(c.IsValid(1));
  EXPECT_TRUE(c.IsNull(2));
  EXPECT_TRUE(c.IsValid(3));
  EXPECT_EQ(c.Get<int64_t>(3), 4);
  EXPECT_TRUE(c.GetValue(2).is_null());
  EXPECT_EQ(c.GetValue(1), Value::Int64(2));
}

TEST(ColumnTest, BulkAppendKeepsValidity) {
  Column c(TypeId::kInt32);
  c.AppendNull();
  int32_t* v = c.AppendValues<int32_t>(10);
  for (int i = 0; i < 10; ++i) v[i] = i * 3;
  c.Append<int32_t>(99);
  ASSERT_EQ(c.length(), 12u);
  EXPECT_TRUE(c.IsNull(0));
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(c.IsValid(size_t(i) + 1));
    EXPECT_EQ(c.Get<int32_t>(size_t(i) + 1), i * 3);
  }
  EXPECT_EQ(c.Get<int32_t>(11), 99);
  EXPECT_EQ(c.null_count(), 1u);
}

TEST(ColumnTest, StringsAndSlices) {
  Column c(TypeId::kString);
  ASSERT_TRUE(c.AppendString("ab").ok());
  c.AppendNull();
  ASSERT_TRUE(c.AppendString("").ok());
  ASSERT_TRUE(c.AppendString("\xe2\x82\xac").ok());
  EXPECT_EQ(c.GetString(0), "ab");
  EXPECT_EQ(c.GetString(1), "");
  EXPECT_EQ(c.GetString(3), "\xe2\x82\xac");
  Column s(TypeId::kString);
  s.AppendSlice(c, 1, 3);
  ASSERT_EQ(s.length(), 3u);
  EXPECT_TRUE(s.IsNull(0));
  EXPECT_EQ(s.GetString(2), "\xe2\x82\xac");
  Column t(TypeId::kString);
  ASSERT_TRUE(t.AppendString("x").ok());
  t.AppendSlice(c, 2, 2);  // no NULLs on either side: fast path
  EXPECT_EQ(t.GetString(2), "\xe2\x82\xac");
  EXPECT_FALSE(t.has_validity());
}

TEST(ColumnTest, AppendValueChecksTypesAndRanges) {
  Column i32(TypeId::kInt32);
  EXPECT_TRUE(i32.AppendValue(Value::Int64(int64_t(1) << 40)).IsInvalidArgument());
  EXPECT_TRUE(i32.AppendValue(Value::String("x")).IsInvalidArgument());
  EXPECT_TRUE(i32.AppendValue(Value::Int64(-5)).ok());
  Column d(TypeId::kDouble);
  EXPECT_TRUE(d.AppendValue(Value::Int64(3)).ok());
  EXPECT_EQ(d.Get<double>(0), 3.0);
  EXPECT_EQ(i32.length(), 1u);
}

TEST(ColumnTest, EqualsTreatsNanAsEqualButDistinguishesNegativeZero) {
  Column a(TypeId::kDouble), b(TypeId::kDouble);
  a.Append<double>(std::nan(""));
  b.Append<double>(std::nan(""));
  EXPECT_TRUE(a.Equals(b));
  a.Append<double>(0.0);
  b.Append<double>(-0.0);
  EXPECT_FALSE(a.Equals(b));
}

// Random LSB-first bitmap of n bits; bits past n are set on purpose (they must be ignored).
std::vector<uint8_t> RandomBits(std::mt19937* rng, size_t n, int null_percent) {
  std::vector<uint8_t> bits((n + 7) / 8 + 1, 0xFF);
  for (size_t i = 0; i < n; ++i) {
    if (int((*rng)() % 100) < null_percent) bits[i / 8] &= uint8_t(~(1u << (i % 8)));
  }
  return bits;
}
bool Bit(const std::vector<uint8_t>& bits, size_t i) { return (bits[i / 8] >> (i % 8)) & 1; }

TEST(ColumnTest, BulkAppendWithValidityBitsMatchesRowByRow) {
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    Column bulk(TypeId::kInt64), reference(TypeId::kInt64);
    int64_t next = 0;
    for (int step = 0; step < 6; ++step) {
      size_t n = rng() % 40;  // odd sizes put later calls at every bit offset
      int null_percent = std::vector<int>{0, 0, 10, 50, 100}[rng() % 5];
      if (rng() % 4 == 0) {  // a per-row append in between
        if (rng() % 2) {
          bulk.AppendNull();
          reference.AppendNull();
        } else {
          bulk.Append<int64_t>(next);
          reference.Append<int64_t>(next++);
        }
      }
      std::vector<uint8_t> bits = RandomBits(&rng, n, null_percent);
      bool pass_null = null_percent == 0 && rng() % 2;
      int64_t* v = bulk.AppendValues<int64_t>(n, pass_null ? nullptr : bits.data());
      for (size_t i = 0; i < n; ++i) {
        if (!pass_null) {
          EXPECT_EQ(v[i], 0);  // with a bitmap, slots start zeroed
        }
        if (pass_null || Bit(bits, i)) {
          v[i] = next;
          reference.Append<int64_t>(next++);
        } else {
          reference.AppendNull();
        }
      }
    }
    ASSERT_TRUE(bulk.Equals(reference)) << "round " << round;
    EXPECT_EQ(bulk.null_count(), reference.null_count());
    EXPECT_EQ(bulk.has_validity(), reference.null_count() > 0);
  }
}

TEST(ColumnTest, BulkAppendWithAllBitsSetKeepsNoBitmap) {
  Column c(TypeId::kDouble);
  std::vector<uint8_t> all(3, 0xFF);
  double* v = c.AppendValues<double>(20, all.data());
  v[19] = 1.5;
  EXPECT_FALSE(c.has_validity());
  EXPECT_EQ(c.length(), 20u);
  EXPECT_EQ(c.Get<double>(19), 1.5);
}

TEST(ColumnTest, BulkAppendStringsMatchesRowByRow) {
  std::mt19937 rng(9);
  std::vector<std::string> pool = {"", "a", "bc", "def", std::string(100, 'x'), "\xe2\x82\xac"};
  for (int round = 0; round < 200; ++round) {
    Column bulk(TypeId::kString), reference(TypeId::kString);
    for (int step = 0; step < 5; ++step) {
      if (rng() % 3 == 0) {
        ASSERT_TRUE(bulk.AppendString("pre").ok());
        ASSERT_TRUE(reference.AppendString("pre").ok());
      }
      if (rng() % 5 == 0) {
        bulk.AppendNull();
        reference.AppendNull();
      }
      size_t n = rng() % 30;
      int null_percent = std::vector<int>{0, 0, 20, 100}[rng() % 4];
      std::vector<uint8_t> bits = RandomBits(&rng, n, null_percent);
      bool pass_null = null_percent == 0 && rng() % 2;
      std::vector<std::string_view> values;
      for (size_t i = 0; i < n; ++i) {
        if (pass_null || Bit(bits, i)) {
          values.push_back(pool[rng() % pool.size()]);
          ASSERT_TRUE(reference.AppendString(values.back()).ok());
        } else {
          reference.AppendNull();
        }
      }
      ASSERT_TRUE(bulk.AppendStrings(values.data(), n, pass_null ? nullptr : bits.data()).ok());
    }
    ASSERT_TRUE(bulk.Equals(reference)) << "round " << round;
    EXPECT_EQ(bulk.offsets(), reference.offsets());
    EXPECT_EQ(bulk.chars(), reference.chars());
    EXPECT_EQ(bulk.has_validity(), reference.null_count() > 0);
  }
}

TEST(BatchTest, RandomSlicesAndSelectionsMatchRowByRow) {
  std::mt19937_64 rng(7);
  Schema schema({{"i", TypeId::kInt32, true}, {"s", TypeId::kString, true}, {"b", TypeId::kBool, true}});
  Batch batch(schema);
  for (int r = 0; r < 1000; ++r) {
    bool null = rng() % 5 == 0;
    if (null) {
      batch.mutable_column(0).AppendNull();
      batch.mutable_column(1).AppendNull();
      batch.mutable_column(2).AppendNull();
    } else {
      batch.mutable_column(0).Append<int32_t>(int32_t(rng()));
      ASSERT_TRUE(batch.mutable_column(1).AppendString(std::string(rng() % 5, char('a' + r % 26))).ok());
      batch.mutable_column(2).Append<uint8_t>(rng() & 1);
    }
  }
  ASSERT_TRUE(batch.Seal().ok());
  ASSERT_EQ(batch.num_rows(), 1000u);
  for (int trial = 0; trial < 50; ++trial) {
    size_t off = rng() % 1000, n = rng() % (1000 - off);
    Batch s = batch.Slice(off, n);
    ASSERT_EQ(s.num_rows(), n);
    for (size_t c = 0; c < 3; ++c) {
      for (size_t r = 0; r < n; ++r) ASSERT_EQ(s.column(c).GetValue(r), batch.column(c).GetValue(off + r));
    }
  }
  Batch twice = batch.Slice(0, 10);
  ASSERT_TRUE(twice.Append(batch.Slice(10, 990)).ok());
  EXPECT_TRUE(twice.Equals(batch));
  Batch other(Schema({{"i", TypeId::kInt64, true}}));
  EXPECT_TRUE(twice.Append(other).IsInvalidArgument());
}

TEST(ColumnTest, ScatteredPutsRowIAtTo_i) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Schema schema = testing::RandomSchema(seed, 9);
    const size_t rows = size_t(seed * 37 % 500);
    Batch batch = testing::RandomBatch(schema, rows, seed, seed % 3 == 0 ? 0.0 : 0.2);
    // A partition into a few buckets (as the layout writer does) or a random permutation.
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> to(rows);
    for (size_t i = 0; i < rows; ++i) to[i] = uint32_t(i);
    std::shuffle(to.begin(), to.end(), rng);
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      const Column& in = batch.column(c);
      Column out = Column::Scattered(in, to.data());
      ASSERT_EQ(out.length(), rows);
      ASSERT_EQ(out.null_count(), in.null_count());
      // Row j of the result is row back[j] of the input: the same as gathering those rows.
      std::vector<uint32_t> back(rows);
      for (size_t i = 0; i < rows; ++i) back[to[i]] = uint32_t(i);
      Column gathered(in.type());
      gathered.AppendSelected(in, back.data(), rows);
      EXPECT_TRUE(out.Equals(gathered)) << "seed " << seed << " column " << c;
      // Scattering back with the inverse permutation gives the column again.
      EXPECT_TRUE(Column::Scattered(out, back.data()).Equals(in)) << "seed " << seed << " column " << c;
      // The column cut into pieces (some empty) scatters the same as whole.
      std::vector<Column> pieces;
      for (size_t at = 0; at < rows || pieces.empty();) {
        const size_t take = std::min<size_t>(rows - at, size_t(rng() % 120));
        pieces.emplace_back(in.type());
        pieces.back().AppendSlice(in, at, take);
        at += take;
      }
      std::vector<const Column*> parts;
      for (const Column& p : pieces) parts.push_back(&p);
      EXPECT_TRUE(Column::Scattered(parts, to.data()).Equals(out)) << "seed " << seed << " column " << c << " in "
                                                                   << pieces.size() << " pieces";
    }
  }
}

// PermuteRange reorders rows inside consecutive ranges (unaligned to validity bytes) and leaves
// the rest alone: the result equals gathering the rows in the new order.
TEST(ColumnTest, PermuteRangeReordersEachRangeInPlace) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const size_t rows = size_t(seed * 41 % 600);
    const Batch batch = testing::RandomBatch(testing::RandomSchema(seed, 9), rows, seed, seed % 3 == 0 ? 0.0 : 0.3);
    // Ranges of random lengths, each shuffled; the last few rows stay where they are.
    std::vector<uint32_t> from(rows);
    std::iota(from.begin(), from.end(), 0u);
    std::mt19937_64 rng(seed);
    std::vector<std::pair<size_t, size_t>> ranges;
    for (size_t at = 0; at + 3 < rows;) {
      const size_t count = std::min<size_t>(rows - 3 - at, 1 + rng() % 37);
      std::shuffle(from.begin() + std::ptrdiff_t(at), from.begin() + std::ptrdiff_t(at + count), rng);
      ranges.emplace_back(at, count);
      at += count;
    }
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      const Column& in = batch.column(c);
      Column want(in.type());
      want.AppendSelected(in, from.data(), rows);
      Column got = in;
      for (const auto& [at, count] : ranges) got.PermuteRange(at, count, from.data() + at);
      EXPECT_TRUE(got.Equals(want)) << "seed " << seed << " column " << c;
      EXPECT_EQ(got.null_count(), in.null_count());
    }
  }
}

TEST(BatchTest, SealDetectsRaggedColumns) {
  Batch b(Schema({{"a", TypeId::kInt64, true}, {"b", TypeId::kInt64, true}}));
  b.mutable_column(0).Append<int64_t>(1);
  EXPECT_FALSE(b.Seal().ok());
}

}  // namespace
}  // namespace lakeindex
