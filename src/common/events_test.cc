#include "lakeindex/events.h"

#include <algorithm>
#include <map>

#include <gtest/gtest.h>

namespace lakeindex {
namespace {

Batch Generate(uint64_t rows, uint64_t seed, size_t chunk) {
  EventsGenerator gen(rows, seed);
  Batch all(EventsGenerator::EventsSchema()), part;
  while (gen.Next(chunk, &part)) EXPECT_TRUE(all.Append(part).ok());
  return all;
}

TEST(EventsTest, IdsArePermutationAndValuesInRange) {
  for (uint64_t rows : {1ULL, 2ULL, 5ULL, 1000ULL, 4097ULL}) {
    Batch b = Generate(rows, 3, 777);
    ASSERT_EQ(b.num_rows(), rows);
    std::vector<int64_t> ids(b.column(0).data<int64_t>(), b.column(0).data<int64_t>() + rows);
    std::sort(ids.begin(), ids.end());
    for (uint64_t i = 0; i < rows; ++i) ASSERT_EQ(ids[i], int64_t(i));
    for (size_t r = 0; r < rows; ++r) {
      double x = b.column(1).Get<double>(r), z = b.column(3).Get<double>(r);
      ASSERT_TRUE(x >= 0 && x < 1000);
      ASSERT_TRUE(z >= 0 && z <= 1000);
      int64_t ts = b.column(7).Get<int64_t>(r);
      ASSERT_EQ(FormatTimestamp(ts).substr(0, 4), "2024");
      size_t len = b.column(6).GetString(r).size();
      ASSERT_TRUE(len >= 6 && len <= 12);
    }
  }
}

TEST(EventsTest, DeterministicAndChunkIndependent) {
  EXPECT_TRUE(Generate(3000, 9, 100).Equals(Generate(3000, 9, 2999)));
  EXPECT_FALSE(Generate(3000, 9, 100).Equals(Generate(3000, 10, 100)));
}

TEST(EventsTest, SkewAndNullFraction) {
  Batch b = Generate(50000, 1, 8192);
  std::map<std::string, int> counts;
  for (size_t r = 0; r < b.num_rows(); ++r) counts[std::string(b.column(5).GetString(r))]++;
  EXPECT_GT(counts["cat_000"], counts["cat_500"] * 50);  // Zipf: the head dominates
  EXPECT_GT(counts.size(), 500u);
  double null_fraction = double(b.column(8).null_count()) / double(b.num_rows());
  EXPECT_NEAR(null_fraction, 0.2, 0.01);
}

}  // namespace
}  // namespace lakeindex
