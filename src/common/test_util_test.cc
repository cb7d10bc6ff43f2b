// The shared test helpers (tests/util/test_util.h): scratch dirs and seeded random data.
#include "util/test_util.h"

#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

namespace lakeindex::testing {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// Strict UTF-8 check: shortest forms only, no surrogates, nothing above U+10FFFF.
bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

TEST(TempDirTest, IsCreatedAndRemovedWithItsContents) {
  std::string path;
  {
    TempDir dir;
    path = dir.path();
    ASSERT_TRUE(Exists(path));
    ASSERT_EQ(::mkdir(dir.Join("sub").c_str(), 0755), 0);
    std::ofstream(dir.Join("sub/file")) << "x";
    ASSERT_TRUE(Exists(dir.Join("sub/file")));
  }
  EXPECT_FALSE(Exists(path));
}

TEST(RandomDataTest, SameSeedSameBatchOtherSeedOtherBatch) {
  Schema schema = RandomSchema(3, 12);
  Batch a = RandomBatch(schema, 500, 11, 0.2);
  EXPECT_TRUE(a.Equals(RandomBatch(schema, 500, 11, 0.2)));
  EXPECT_FALSE(a.Equals(RandomBatch(schema, 500, 12, 0.2)));
  EXPECT_EQ(RandomSchema(3, 12), schema);
}

// Fourteen: the twelve named types and two decimals.
TEST(RandomDataTest, SchemaOfFourteenColumnsHasEveryType) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Schema schema = RandomSchema(seed, 20);
    ASSERT_GE(schema.num_fields(), 1u);
    ASSERT_LE(schema.num_fields(), 20u);
    std::set<TypeId> types;
    for (const Field& f : schema.fields()) types.insert(f.type);
    if (schema.num_fields() >= 14) {
      EXPECT_EQ(types.size(), 14u) << schema.ToString();
    }
  }
}

TEST(RandomDataTest, NullsFollowTheFractionAndNeverHitNotNullFields) {
  Schema schema({{"a", TypeId::kInt64, true}, {"b", TypeId::kString, false}});
  Batch batch = RandomBatch(schema, 4000, 5, 0.25);
  ASSERT_EQ(batch.num_rows(), 4000u);
  EXPECT_NEAR(double(batch.column(0).null_count()) / 4000, 0.25, 0.04);
  EXPECT_EQ(batch.column(1).null_count(), 0u);
}

TEST(RandomDataTest, HostileValuesShowUpAndStringsAreValidUtf8) {
  Schema schema({{"i", TypeId::kInt64, false}, {"d", TypeId::kDouble, false},
                 {"f", TypeId::kFloat, false}, {"s", TypeId::kString, false}});
  Batch batch = RandomBatch(schema, 3000, 9, 0.0);
  bool int_min = false, nan = false, neg_zero = false, four_byte = false, newline = false;
  bool empty = false;
  for (size_t r = 0; r < batch.num_rows(); ++r) {
    int_min |= batch.column(0).Get<int64_t>(r) == std::numeric_limits<int64_t>::min();
    double d = batch.column(1).Get<double>(r);
    nan |= std::isnan(d);
    neg_zero |= d == 0 && std::signbit(d);
    std::string_view s = batch.column(3).GetString(r);
    ASSERT_TRUE(IsValidUtf8(s)) << "row " << r;
    ASSERT_EQ(s.find('\0'), std::string_view::npos);
    four_byte |= s.find("\xF0\x9F\x98\x80") != std::string_view::npos;
    newline |= s.find('\n') != std::string_view::npos;
    empty |= s.empty();
  }
  EXPECT_TRUE(int_min && nan && neg_zero && four_byte && newline && empty);
}

TEST(RandomDataTest, DatesAndTimestampsReachFarFromTheEpoch) {
  Schema schema({{"d", TypeId::kDate, false}, {"t", TypeId::kTimestamp, false}});
  Batch batch = RandomBatch(schema, 2000, 1, 0.0);
  int32_t min_day = 0, max_day = 0;
  int64_t min_ts = 0;
  for (size_t r = 0; r < batch.num_rows(); ++r) {
    min_day = std::min(min_day, batch.column(0).Get<int32_t>(r));
    max_day = std::max(max_day, batch.column(0).Get<int32_t>(r));
    min_ts = std::min(min_ts, batch.column(1).Get<int64_t>(r));
  }
  EXPECT_LT(min_day, DaysFromCivil(1000, 1, 1));
  EXPECT_GT(max_day, DaysFromCivil(5000, 1, 1));
  EXPECT_LT(min_ts, DaysFromCivil(1000, 1, 1) * 86'400'000'000);
}

}  // namespace
}  // namespace lakeindex::testing
