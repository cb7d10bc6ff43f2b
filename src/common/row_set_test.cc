#include "lakeindex/row_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace lakeindex {
namespace {

// ---- RowSet basics ----

TEST(RowSetTest, RangeAndOffsetsIn) {
  RowSet s = RowSet::Range(7, 10, 15);
  EXPECT_EQ(s.Cardinality(), 5u);
  EXPECT_TRUE(s.Contains(MakeRowAddress(7, 10)));
  EXPECT_FALSE(s.Contains(MakeRowAddress(7, 15)));
  EXPECT_EQ(s.OffsetsIn(7), (std::vector<uint32_t>{10, 11, 12, 13, 14}));
  EXPECT_TRUE(s.OffsetsIn(6).empty());
  EXPECT_TRUE(s.OffsetsIn(8).empty());
  EXPECT_TRUE(RowSet::Range(1, 5, 5).IsEmpty());
  EXPECT_TRUE(RowSet::Range(1, 6, 5).IsEmpty());
}

TEST(RowSetTest, AddRangeCrossesFragmentsAndKeepsLastOffset) {
  RowSet s;
  // [ (1, 0xFFFFFFFE), (3, 2) ): two offsets of fragment 1, all of 2, two of 3.
  s.AddRange(MakeRowAddress(1, 0xFFFFFFFEu), MakeRowAddress(3, 2));
  EXPECT_EQ(s.Cardinality(), 2u + (uint64_t(1) << 32) + 2u);
  EXPECT_TRUE(s.Contains(MakeRowAddress(1, 0xFFFFFFFFu)));
  EXPECT_TRUE(s.Contains(MakeRowAddress(2, 0xFFFFFFFFu)));
  EXPECT_TRUE(s.Contains(MakeRowAddress(2, 0)));
  EXPECT_FALSE(s.Contains(MakeRowAddress(1, 0xFFFFFFFDu)));
  EXPECT_FALSE(s.Contains(MakeRowAddress(3, 2)));
  EXPECT_EQ(s.OffsetsIn(3), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(s.OffsetsIn(1), (std::vector<uint32_t>{0xFFFFFFFEu, 0xFFFFFFFFu}));
  // Range ending exactly at the end of a fragment.
  RowSet t;
  t.AddRange(MakeRowAddress(4, 0xFFFFFFF0u), MakeRowAddress(5, 0));
  EXPECT_EQ(t.Cardinality(), 16u);
  EXPECT_TRUE(t.Contains(MakeRowAddress(4, 0xFFFFFFFFu)));
}

TEST(RowSetTest, SetOperationsAndToVector) {
  RowSet a = RowSet::Of({1, 5, MakeRowAddress(2, 3), MakeRowAddress(9, 0)});
  RowSet b = RowSet::Of({5, MakeRowAddress(2, 3), MakeRowAddress(4, 4)});
  EXPECT_EQ((a & b).ToVector(), (std::vector<uint64_t>{5, MakeRowAddress(2, 3)}));
  EXPECT_EQ((a - b).ToVector(), (std::vector<uint64_t>{1, MakeRowAddress(9, 0)}));
  EXPECT_EQ((a | b).Cardinality(), 5u);
  // &= leaves an empty bucket for fragment 9 behind; OffsetsIn and == must not care.
  RowSet c = a & b;
  EXPECT_TRUE(c.OffsetsIn(9).empty());
  EXPECT_TRUE(c.OffsetsIn(3).empty());
  EXPECT_EQ(c.OffsetsIn(2), (std::vector<uint32_t>{3}));
  EXPECT_EQ(c, RowSet::Of({5, MakeRowAddress(2, 3)}));
  RowSet only_empty = RowSet::Of({MakeRowAddress(1, 1)}) & RowSet::Of({MakeRowAddress(2, 1)});
  EXPECT_TRUE(only_empty.IsEmpty());
  EXPECT_TRUE(only_empty.OffsetsIn(1).empty());
  EXPECT_EQ(only_empty, RowSet());
}

// ---- Kleene logic vs brute force ----

enum Tv { kF = 0, kN = 1, kT = 2 };  // Kleene: AND = min, OR = max, NOT = 2 - x

// Rows chosen to cross bucket boundaries and hit the extreme offsets.
const std::vector<uint64_t> kRows = {0, MakeRowAddress(0, 0xFFFFFFFFu), MakeRowAddress(1, 0),
                                     MakeRowAddress(0xFFFFFFFFu, 7)};

NullableRowSet FromCode(int code, std::vector<Tv>* values) {
  NullableRowSet s;
  values->assign(kRows.size(), kF);
  for (size_t i = 0; i < kRows.size(); ++i) {
    Tv v = Tv(code % 3);
    code /= 3;
    (*values)[i] = v;
    if (v == kT) s.true_rows.Add(kRows[i]);
    if (v == kN) s.null_rows.Add(kRows[i]);
  }
  return s;
}

void ExpectMatches(const NullableRowSet& got, const std::vector<Tv>& want, const char* what) {
  for (size_t i = 0; i < kRows.size(); ++i) {
    const bool t = got.true_rows.Contains(kRows[i]);
    const bool n = got.null_rows.Contains(kRows[i]);
    ASSERT_FALSE(t && n) << what << " row " << i << " is both TRUE and NULL";
    Tv v = t ? kT : n ? kN : kF;
    ASSERT_EQ(v, want[i]) << what << " row " << i;
  }
  // Nothing outside the universe.
  RowSet universe = RowSet::Of(kRows);
  ASSERT_TRUE((got.true_rows - universe).IsEmpty()) << what;
  ASSERT_TRUE((got.null_rows - universe).IsEmpty()) << what;
}

TEST(NullableRowSetTest, KleeneTruthTablesExhaustive) {
  const RowSet universe = RowSet::Of(kRows);
  int combos = 1;
  for (size_t i = 0; i < kRows.size(); ++i) combos *= 3;
  for (int ca = 0; ca < combos; ++ca) {
    std::vector<Tv> va;
    NullableRowSet a = FromCode(ca, &va);
    std::vector<Tv> not_a(kRows.size());
    for (size_t i = 0; i < kRows.size(); ++i) not_a[i] = Tv(2 - va[i]);
    ExpectMatches(NullableRowSet::Not(a, universe), not_a, "NOT");
    for (int cb = 0; cb < combos; ++cb) {
      std::vector<Tv> vb;
      NullableRowSet b = FromCode(cb, &vb);
      std::vector<Tv> and_ab(kRows.size()), or_ab(kRows.size());
      for (size_t i = 0; i < kRows.size(); ++i) {
        and_ab[i] = std::min(va[i], vb[i]);
        or_ab[i] = std::max(va[i], vb[i]);
      }
      ExpectMatches(NullableRowSet::And(a, b), and_ab, "AND");
      ExpectMatches(NullableRowSet::Or(a, b), or_ab, "OR");
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

// ---- Serialization ----

std::vector<RowSet> SampleSets() {
  std::vector<RowSet> sets;
  sets.push_back(RowSet());
  sets.push_back(RowSet::Of({0}));
  sets.push_back(RowSet::Range(3, 0, 100000));  // run containers
  RowSet mixed;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 3000; ++i) mixed.Add(MakeRowAddress(1, uint32_t(rng() % 200000)));  // arrays
  for (int i = 0; i < 9000; ++i) mixed.Add(MakeRowAddress(2, uint32_t(rng() % 65536)));   // bitmap
  mixed.AddRange(MakeRowAddress(2, 70000), MakeRowAddress(2, 90000));
  mixed.Add(MakeRowAddress(0xFFFFFFFFu, 0xFFFFFFFFu));
  sets.push_back(mixed);
  // Leaves empty buckets behind.
  sets.push_back(RowSet::Of({MakeRowAddress(1, 1), MakeRowAddress(5, 5)}) &
                 RowSet::Of({MakeRowAddress(5, 5)}));
  return sets;
}

TEST(RowSetSerializeTest, RoundTrip) {
  for (const RowSet& s : SampleSets()) {
    std::string bytes = s.Serialize();
    Result<RowSet> back =
        RowSet::Deserialize(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, s);
    EXPECT_EQ(back->Cardinality(), s.Cardinality());
  }
}

TEST(RowSetSerializeTest, RandomSetsRoundTrip) {
  std::mt19937_64 rng(3);
  for (int iter = 0; iter < 200; ++iter) {
    RowSet s;
    const int parts = int(rng() % 6);
    for (int p = 0; p < parts; ++p) {
      const uint32_t fragment = uint32_t(rng() % 4);
      const uint32_t begin = uint32_t(rng() % 300000);
      switch (rng() % 3) {
        case 0:
          s.AddRange(MakeRowAddress(fragment, begin),
                     MakeRowAddress(fragment, begin) + rng() % 70000);
          break;
        case 1:
          for (int k = 0; k < 5000; ++k)
            s.Add(MakeRowAddress(fragment, begin + uint32_t(rng() % 9000)));
          break;
        default: s -= RowSet::Range(fragment, begin, begin + uint32_t(rng() % 50000)); break;
      }
    }
    const std::string bytes = s.Serialize();
    Result<RowSet> back =
        RowSet::Deserialize(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ASSERT_TRUE(back.ok()) << "iteration " << iter << ": " << back.status().ToString();
    ASSERT_EQ(back->ToVector(), s.ToVector()) << "iteration " << iter;
  }
}

TEST(RowSetSerializeTest, AcceptsCRoaringOwnWriteWithoutRunOptimize) {
  RowSet s = SampleSets()[3];
  std::vector<uint64_t> buf((s.bitmap().getSizeInBytes() + 7) / 8);
  size_t n = s.bitmap().write(reinterpret_cast<char*>(buf.data()));
  Result<RowSet> back = RowSet::Deserialize(reinterpret_cast<const uint8_t*>(buf.data()), n);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, s);
}

TEST(RowSetSerializeTest, RejectsObviousGarbage) {
  const uint8_t huge[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  Result<RowSet> r = RowSet::Deserialize(huge, sizeof(huge));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_FALSE(RowSet::Deserialize(nullptr, 0).ok());
  std::string ok = RowSet::Of({1, 2, 3}).Serialize();
  ok.push_back('\0');
  r = RowSet::Deserialize(reinterpret_cast<const uint8_t*>(ok.data()), ok.size());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("trailing"), std::string::npos) << r.status().ToString();
}

// Exercises a parsed set so that a malformed internal structure would be touched.
void Touch(const RowSet& s) {
  uint64_t n = s.Cardinality();
  std::vector<uint64_t> v = s.ToVector();
  ASSERT_EQ(v.size(), n);
  for (size_t i = 1; i < v.size(); ++i) ASSERT_LT(v[i - 1], v[i]);
  std::string again = s.Serialize();
  Result<RowSet> back =
      RowSet::Deserialize(reinterpret_cast<const uint8_t*>(again.data()), again.size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(*back, s);
}

TEST(RowSetSerializeTest, TruncatedInputIsCorruption) {
  for (const RowSet& s : SampleSets()) {
    const std::string bytes = s.Serialize();
    for (size_t len = 0; len < bytes.size(); ++len) {
      // A fresh heap copy of exactly `len` bytes, so ASan sees any overread.
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);
      Result<RowSet> r = RowSet::Deserialize(cut.data(), cut.size());
      ASSERT_FALSE(r.ok()) << "length " << len << " of " << bytes.size();
      ASSERT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    }
  }
}

TEST(RowSetSerializeTest, FlippedBytesNeverCrash) {
  std::mt19937_64 rng(7);
  int accepted = 0, rejected = 0;
  for (const RowSet& s : SampleSets()) {
    const std::string bytes = s.Serialize();
    // Every position of small inputs; a sample of the large one keeps the test fast.
    const size_t trials = std::min<size_t>(bytes.size(), 2000);
    for (size_t t = 0; t < trials; ++t) {
      const size_t pos = trials == bytes.size() ? t : rng() % bytes.size();
      for (uint8_t mask : {uint8_t(0xFF), uint8_t(1u << (rng() % 8))}) {
        std::vector<uint8_t> bad(bytes.begin(), bytes.end());
        bad[pos] ^= mask;
        Result<RowSet> r = RowSet::Deserialize(bad.data(), bad.size());
        if (r.ok()) {
          ++accepted;
          Touch(*r);
        } else {
          ++rejected;
          ASSERT_TRUE(r.status().IsCorruption()) << r.status().ToString();
        }
      }
    }
  }
  // Flips inside bitmap containers of non-canonical-sensitive places are caught by checks on
  // cardinality, so most flips must be rejected; some (e.g. in array values) stay valid.
  EXPECT_GT(rejected, 0);
  EXPECT_GT(accepted, 0);
}

TEST(RowSetSerializeTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(11);
  int parsed = 0, refused = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> buf(rng() % 64);
    for (auto& b : buf) b = uint8_t(rng());
    if (iter % 3 == 0) {
      // A valid serialization with one byte changed: many such still parse (a changed value).
      RowSet valid;
      for (int k = 0; k < 1 + int(rng() % 6); ++k) valid.Add(rng() % 4 << 32 | rng() % 5000);
      const std::string bytes = valid.Serialize();
      buf.assign(bytes.begin(), bytes.end());
      buf[rng() % buf.size()] ^= uint8_t(1 + rng() % 255);
    }
    // Plausible headers make the parser go deeper than the bucket count.
    if (iter % 3 != 0 && buf.size() >= 16 && iter % 2 == 0) {
      buf[0] = uint8_t(1 + rng() % 2);
      std::memset(buf.data() + 1, 0, 7);
      const uint16_t cookie = (iter % 4 == 0) ? 12346 : 12347;
      buf[12] = uint8_t(cookie);
      buf[13] = uint8_t(cookie >> 8);
    }
    Result<RowSet> r = RowSet::Deserialize(buf.data(), buf.size());
    if (r.ok()) {
      Touch(*r);  // a set that says what it holds, and serializes back to itself
      ++parsed;
    } else {
      EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
      ++refused;
    }
  }
  // Both outcomes happen, or the test would not be testing what it says.
  EXPECT_GT(parsed, 0);
  EXPECT_GT(refused, 0);
}

// Moves hand the bitmap over (CRoaring 0.2's Roaring64Map has no move of its own, so RowSet
// swaps); the operators that take a set by value return it without another copy.
TEST(RowSetTest, MovesHandTheBitmapOver) {
  RowSet a = RowSet::Of({MakeRowAddress(0, 1), MakeRowAddress(3, 7), MakeRowAddress(3, 9)});
  const RowSet expected = a;
  RowSet b(std::move(a));
  EXPECT_EQ(b, expected);
  EXPECT_TRUE(a.IsEmpty());  // NOLINT(bugprone-use-after-move): moved-from sets are empty
  RowSet c = RowSet::Of({MakeRowAddress(9, 9)});
  c = std::move(b);
  EXPECT_EQ(c, expected);
  EXPECT_TRUE(b.IsEmpty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(c.Cardinality(), 3u);
  const RowSet more = RowSet::Of({MakeRowAddress(5, 0)});
  RowSet both = c | more;
  EXPECT_EQ(both.Cardinality(), 4u);
  EXPECT_EQ((both & more), more);
  EXPECT_EQ((both - more), expected);
  EXPECT_EQ(c, expected);  // the left operand was copied, not taken
}

}  // namespace
}  // namespace lakeindex
