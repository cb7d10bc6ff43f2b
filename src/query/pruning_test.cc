#include "query/pruning.h"

#include <gtest/gtest.h>

#include <limits>

#include "query/binder.h"
#include "query/evaluator.h"
#include "query/parser.h"
#include "query/random_expr_for_test.h"

namespace lakeindex::query {
namespace {

ExprPtr BindText(const std::string& text, const Schema& schema) {
  auto parsed = ParseExpression(text);
  EXPECT_TRUE(parsed.ok()) << text;
  auto bound = Bind(**parsed, schema);
  EXPECT_TRUE(bound.ok()) << text << ": " << bound.status().ToString();
  return *bound;
}

ColumnStats Stats(std::optional<Value> min, std::optional<Value> max, uint64_t nulls, uint64_t rows,
                  uint64_t nans = 0) {
  ColumnStats s;
  s.min = std::move(min);
  s.max = std::move(max);
  s.null_count = nulls;
  s.row_count = rows;
  s.nan_count = nans;
  return s;
}

TEST(PruningTest, RangesAndNulls) {
  Schema schema = Schema::Parse("x:int64,s:string,d:double").value();
  std::vector<ColumnStats> stats = {Stats(Value::Int64(10), Value::Int64(20), 0, 100),
                                    Stats(Value::String("apple"), Value::String("apricot"), 5, 100),
                                    Stats(Value::Double(1.0), Value::Double(2.0), 0, 100, 0)};
  VectorStatsProvider p(&stats);
  auto may = [&](const std::string& text) { return MayMatch(*BindText(text, schema), p); };
  EXPECT_TRUE(may("x = 10"));
  EXPECT_FALSE(may("x = 21"));
  EXPECT_FALSE(may("x < 10"));
  EXPECT_TRUE(may("x <= 10"));
  EXPECT_FALSE(may("x > 20.5"));
  EXPECT_TRUE(may("x BETWEEN 0 AND 10"));
  EXPECT_FALSE(may("x BETWEEN 21 AND 30"));
  EXPECT_FALSE(may("x BETWEEN 15 AND 12"));
  EXPECT_TRUE(may("x NOT BETWEEN 12 AND 15"));
  EXPECT_FALSE(may("x NOT BETWEEN 0 AND 30"));
  EXPECT_FALSE(may("x IN (1, 2, NULL)"));
  EXPECT_TRUE(may("x IN (1, 15)"));
  EXPECT_FALSE(may("x IS NULL"));
  EXPECT_TRUE(may("s IS NULL"));
  EXPECT_FALSE(may("NOT (x >= 10)"));
  EXPECT_FALSE(may("x = 5 AND s = 'apple'"));
  EXPECT_TRUE(may("x = 5 OR s = 'apple'"));
  EXPECT_TRUE(may("s LIKE 'ap%'"));
  EXPECT_TRUE(may("s LIKE 'apr%'"));
  EXPECT_FALSE(may("s LIKE 'b%'"));
  EXPECT_FALSE(may("s NOT LIKE 'ap%'"));
  EXPECT_FALSE(may("s LIKE 'banana'"));
  EXPECT_FALSE(may("d > 2"));  // no NaN counted
  EXPECT_FALSE(may("FALSE"));
  EXPECT_FALSE(may("x = NULL"));
  EXPECT_FALSE(may("NOT (x = NULL)"));
  // The same double predicate with NaN unknown (Parquet): NaN > 2 may hold.
  VectorStatsProvider parquet(&stats, /*nan_count_known=*/false);
  EXPECT_TRUE(MayMatch(*BindText("d > 2", schema), parquet));
  EXPECT_FALSE(MayMatch(*BindText("d < 1", schema), parquet));
}

TEST(PruningTest, MissingStatsAreUnknown) {
  Schema schema = Schema::Parse("x:int64").value();
  std::vector<ColumnStats> none;
  VectorStatsProvider p(&none);
  EXPECT_TRUE(MayMatch(*BindText("x = 1 AND x = 2", schema), p));  // no cross-predicate reasoning
  std::vector<ColumnStats> no_minmax = {Stats(std::nullopt, std::nullopt, 3, 10)};
  VectorStatsProvider q(&no_minmax);
  EXPECT_TRUE(MayMatch(*BindText("x = 1", schema), q));  // values exist but their range is unknown
  std::vector<ColumnStats> all_null = {Stats(std::nullopt, std::nullopt, 10, 10)};
  VectorStatsProvider r(&all_null);
  EXPECT_FALSE(MayMatch(*BindText("x = 1", schema), r));
  EXPECT_TRUE(MayMatch(*BindText("x IS NULL", schema), r));
  EXPECT_FALSE(MayMatch(*BindText("NOT (x IN (1, NULL))", schema), r));
}

TEST(PruningTest, SplitConjuncts) {
  Schema schema = Schema::Parse("a:bool,b:bool,c:bool").value();
  ExprPtr e = BindText("a AND (b AND c)", schema);
  auto parts = SplitConjuncts(*e);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0]->ToString(), "a");
  EXPECT_EQ(parts[2]->ToString(), "c");
  EXPECT_EQ(parts[1].get(), e->children[1]->children[0].get());  // shared, not copied
  EXPECT_EQ(SplitConjuncts(*BindText("a OR b", schema)).size(), 1u);
}

// Never "cannot match" when some row matches: random slices, random expressions, brute force.
TEST(PruningTest, NeverPrunesAMatchingSliceAgainstBruteForce) {
  Schema schema = Schema::Parse(testgen::kSchema).value();
  lakeindex::testing::Rng rng(777);
  size_t pruned = 0, checked = 0;
  for (int round = 0; round < 40; ++round) {
    Batch batch = testgen::RandomBatch(schema, 64, rng);
    testgen::ExprGen gen(schema, rng);
    for (int e = 0; e < 100; ++e) {
      std::string text = gen.Gen(3);
      ExprPtr bound = BindText(text, schema);
      size_t len = 1 + rng.Uniform(6);
      size_t off = rng.Uniform(batch.num_rows() - len);
      Batch slice = batch.Slice(off, len);
      std::vector<ColumnStats> stats;
      for (size_t c = 0; c < slice.num_columns(); ++c) stats.push_back(ComputeColumnStats(slice.column(c)));
      std::vector<uint32_t> rows;
      ASSERT_TRUE(Filter(*bound, slice, &rows).ok());
      for (bool nan_known : {true, false}) {
        VectorStatsProvider p(&stats, nan_known);
        bool may = MayMatch(*bound, p);
        if (!rows.empty()) {
          ASSERT_TRUE(may) << text << " matches " << rows.size() << " rows of slice [" << off << ", +" << len << ")";
        }
        pruned += !may;
        ++checked;
      }
    }
  }
  EXPECT_GT(pruned, checked / 10) << "pruning decides almost nothing";
}

}  // namespace
}  // namespace lakeindex::query
