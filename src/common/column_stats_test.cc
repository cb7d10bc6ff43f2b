#include "lakeindex/column_stats.h"

#include <cmath>

#include <gtest/gtest.h>

namespace lakeindex {
namespace {

TEST(ColumnStatsTest, DoublesSkipNullAndNanAndWidenZeros) {
  Column c(TypeId::kDouble);
  c.Append<double>(std::nan(""));
  c.AppendNull();
  c.Append<double>(0.0);
  c.Append<double>(-2.5);
  c.Append<double>(std::nan(""));
  ColumnStats s = ComputeColumnStats(c);
  EXPECT_EQ(s.null_count, 1u);
  EXPECT_EQ(s.nan_count, 2u);
  EXPECT_EQ(s.row_count, 5u);
  EXPECT_EQ(s.min->double_value(), -2.5);
  EXPECT_EQ(s.max->double_value(), 0.0);
  EXPECT_FALSE(std::signbit(s.max->double_value()));  // +0.0 covers -0.0 too
  ColumnStats only_nan = ComputeColumnStats(c, 0, 2);
  EXPECT_FALSE(only_nan.min.has_value());
  EXPECT_EQ(only_nan.nan_count, 1u);
}

TEST(ColumnStatsTest, StringsBytewiseAndRangesMerge) {
  Column c(TypeId::kString);
  for (const char* v : {"b", "\xc3\xa9", "", "a"}) ASSERT_TRUE(c.AppendString(v).ok());
  ColumnStats all = ComputeColumnStats(c);
  EXPECT_EQ(all.min->string_value(), "");
  EXPECT_EQ(all.max->string_value(), "\xc3\xa9");
  ColumnStats left = ComputeColumnStats(c, 0, 2), right = ComputeColumnStats(c, 2, 2);
  left.Merge(right);
  EXPECT_EQ(left, all);
}

TEST(ColumnStatsTest, IntegersAndAllNull) {
  Column c(TypeId::kInt64);
  c.AppendNull();
  c.AppendNull();
  ColumnStats none = ComputeColumnStats(c);
  EXPECT_FALSE(none.min.has_value());
  EXPECT_EQ(none.null_count, 2u);
  c.Append<int64_t>(INT64_MIN);
  c.Append<int64_t>(7);
  ColumnStats s = ComputeColumnStats(c);
  EXPECT_EQ(s.min->int_value(), INT64_MIN);
  EXPECT_EQ(s.max->int_value(), 7);
}

}  // namespace
}  // namespace lakeindex
