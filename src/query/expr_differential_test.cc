// Differential test: our parser + binder + evaluator against DuckDB on random batches and
// thousands of random expressions. Value domains are small so that equalities hit often, and
// hostile (NaN, +-inf, -0.0, int extremes, multibyte and LIKE-wildcard strings, NULLs).
//
// Known, deliberate differences are kept out of the generator and tested elsewhere:
//   * int64 vs double: we compare exactly, DuckDB rounds the int64 to double (values near 2^53+).
//   * string literal vs number: DuckDB casts the string, we reject it (binder_test.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "query/binder.h"
#include "query/evaluator.h"
#include "query/parser.h"
#include "query/random_expr_for_test.h"
#include "util/duckdb_ref.h"

namespace lakeindex::query {
namespace {

using lakeindex::testing::Rng;
using testgen::ExprGen;
using testgen::kSchema;

using testgen::CreateTableSql;
using testgen::RunOnDuckDB;

TEST(ExprDifferentialTest, MatchesDuckDB) {
  if (!lakeindex::testing::DuckDBAvailable()) GTEST_FAIL() << lakeindex::testing::DuckDBMissingMessage();
  Schema schema = Schema::Parse(kSchema).value();
  constexpr int kBatches = 3;
  constexpr size_t kExprsPerBatch = 800;
  size_t compared = 0;
  for (int b = 0; b < kBatches; ++b) {
    Rng rng(0x5eed0000 + uint64_t(b));
    Batch batch = testgen::RandomBatch(schema, 300, rng);
    ExprGen gen(schema, rng);
    std::vector<std::string> exprs;
    std::vector<std::vector<uint32_t>> ours;
    for (size_t i = 0; i < kExprsPerBatch; ++i) {
      std::string text = gen.Gen(3);
      auto parsed = ParseExpression(text);
      ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
      auto bound = Bind(**parsed, schema);
      ASSERT_TRUE(bound.ok()) << text << ": " << bound.status().ToString();
      std::vector<uint32_t> rows;
      Status st = Filter(**bound, batch, &rows);
      ASSERT_TRUE(st.ok()) << text << ": " << st.ToString();
      // Our printed form must mean the same as the input.
      auto reparsed = ParseExpression((*bound)->ToString());
      ASSERT_TRUE(reparsed.ok()) << (*bound)->ToString();
      std::vector<uint32_t> rows2;
      ASSERT_TRUE(Filter(*Bind(**reparsed, schema).value(), batch, &rows2).ok());
      ASSERT_EQ(rows, rows2) << text << " vs " << (*bound)->ToString();
      exprs.push_back(text);
      ours.push_back(std::move(rows));
    }
    std::string create = CreateTableSql(batch);
    std::map<size_t, std::vector<uint32_t>> answers;
    std::vector<std::string> rejected;
    constexpr size_t kChunk = 400;
    for (size_t start = 0; start < exprs.size(); start += kChunk) {
      std::vector<size_t> ids;
      for (size_t i = start; i < std::min(exprs.size(), start + kChunk); ++i) ids.push_back(i);
      RunOnDuckDB(create, exprs, ids, &answers, &rejected);
    }
    for (const auto& r : rejected) ADD_FAILURE() << "DuckDB rejects what we accept: " << r;
    for (const auto& [id, rows] : answers) {
      EXPECT_EQ(ours[id], rows) << "batch " << b << " expression: " << exprs[id];
      ++compared;
    }
  }
  EXPECT_GE(compared, 2000u);
}

}  // namespace
}  // namespace lakeindex::query
