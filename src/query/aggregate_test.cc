#include "query/aggregate.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "format/parquet/writer.h"
#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex::query {
namespace {

TEST(AggregateParseTest, ListsNamesAndErrors) {
  auto specs = ParseAggregates(" COUNT(*), sum( score ),avg(\"odd, name\"), count_distinct(c) ");
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  ASSERT_EQ(specs->size(), 4u);
  EXPECT_EQ((*specs)[0].kind, AggKind::kCountStar);
  EXPECT_EQ((*specs)[0].name, "count(*)");
  EXPECT_EQ((*specs)[1].column, "score");
  EXPECT_EQ((*specs)[1].name, "sum(score)");
  EXPECT_EQ((*specs)[2].column, "odd, name");
  EXPECT_EQ((*specs)[3].kind, AggKind::kCountDistinct);
  for (const char* bad : {"", "count", "count(*", "sum(*)", "median(x)", "sum()", "count(*) count(*)", "count(*),"}) {
    auto r = ParseAggregates(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--agg"), std::string::npos) << r.status().ToString();
  }
}

TEST(AggregateTest, EmptyInputTypesAndOverflow) {
  Schema schema({{"l", TypeId::kInt64, true}, {"s", TypeId::kString, true}});
  auto a = Aggregation::Make(schema, {}, *ParseAggregates("count(*), count(l), sum(l), avg(l), min(s), count_distinct(s)"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto empty = (*a)->Finish();
  ASSERT_TRUE(empty.ok());
  ASSERT_EQ(empty->num_rows(), 1u);
  EXPECT_EQ(empty->column(0).GetValue(0), Value::Int64(0));
  EXPECT_EQ(empty->column(1).GetValue(0), Value::Int64(0));
  EXPECT_TRUE(empty->column(2).IsNull(0));
  EXPECT_TRUE(empty->column(3).IsNull(0));
  EXPECT_TRUE(empty->column(4).IsNull(0));
  EXPECT_EQ(empty->column(5).GetValue(0), Value::Int64(0));
  // Grouped, no rows: no groups.
  auto g = Aggregation::Make(schema, {"S"}, *ParseAggregates("count(*)"));
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)->Finish()->num_rows(), 0u);
  EXPECT_EQ((*g)->output_schema().field(0).name, "s") << "names resolve as filters do";
  // sum past int64 is an error, not a wrapped number; avg of the same is exact.
  Batch big(schema);
  for (int i = 0; i < 3; ++i) {
    big.mutable_column(0).Append<int64_t>(INT64_MAX - 1);
    big.mutable_column(1).AppendNull();
  }
  ASSERT_TRUE(big.Seal().ok());
  auto s = Aggregation::Make(schema, {}, *ParseAggregates("sum(l)"));
  ASSERT_TRUE((*s)->Add(big).ok());
  auto overflow = (*s)->Finish();
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.status().message().find("overflows int64"), std::string::npos);
  auto avg = Aggregation::Make(schema, {}, *ParseAggregates("avg(l)"));
  ASSERT_TRUE((*avg)->Add(big).ok());
  EXPECT_EQ((*avg)->Finish()->column(0).GetValue(0), Value::Double(double(INT64_MAX - 1)));
  // Refused: unknown columns, sums of strings.
  EXPECT_FALSE(Aggregation::Make(schema, {}, *ParseAggregates("sum(s)")).ok());
  EXPECT_FALSE(Aggregation::Make(schema, {"nope"}, *ParseAggregates("count(*)")).ok());
  EXPECT_FALSE(Aggregation::Make(schema, {}, *ParseAggregates("max(nope)")).ok());
}

// Random rows of every type, with a few group columns of few values, NULLs, NaN, ±inf, -0.0.
Batch RandomRows(uint64_t seed, size_t n) {
  Schema schema({{"g", TypeId::kInt32, true},   {"h", TypeId::kString, true}, {"b", TypeId::kBool, true},
                 {"i", TypeId::kInt32, true},   {"l", TypeId::kInt64, true},  {"f", TypeId::kFloat, true},
                 {"d", TypeId::kDouble, true},  {"s", TypeId::kString, true}, {"day", TypeId::kDate, true},
                 {"ts", TypeId::kTimestamp, true}});
  testing::Rng rng(seed);
  Batch random = testing::RandomBatch(Schema({schema.field(7), schema.field(8), schema.field(9), schema.field(2)}), n, seed, 0.15);
  Batch b(schema);
  for (size_t r = 0; r < n; ++r) {
    auto maybe_null = [&](Column& c) {
      if (rng.Chance(0.12)) {
        c.AppendNull();
        return true;
      }
      return false;
    };
    if (!maybe_null(b.mutable_column(0))) b.mutable_column(0).Append<int32_t>(int32_t(rng.Uniform(4)));
    if (!maybe_null(b.mutable_column(1))) (void)b.mutable_column(1).AppendString(rng.Chance(0.5) ? "x" : "yy");
    (void)b.mutable_column(2).AppendValue(random.column(3).GetValue(r));
    if (!maybe_null(b.mutable_column(3))) b.mutable_column(3).Append<int32_t>(int32_t(rng.Range(-100000, 100000)));
    if (!maybe_null(b.mutable_column(4))) b.mutable_column(4).Append<int64_t>(rng.Range(-1'000'000'000'000, 1'000'000'000'000));
    auto floating = [&]() -> double {
      const uint64_t k = rng.Uniform(100);
      if (k < 2) return std::nan("");
      if (k < 3) return rng.Chance(0.5) ? INFINITY : -INFINITY;
      if (k < 5) return -0.0;
      if (k < 7) return 0.0;
      return double(rng.Range(-1'000'000, 1'000'000)) / 64.0;
    };
    if (!maybe_null(b.mutable_column(5))) b.mutable_column(5).Append<float>(float(floating()));
    if (!maybe_null(b.mutable_column(6))) b.mutable_column(6).Append<double>(floating() * 1.1);
    for (size_t c = 7; c <= 9; ++c) (void)b.mutable_column(c).AppendValue(random.column(c - 7).GetValue(r));
  }
  EXPECT_TRUE(b.Seal().ok());
  return b;
}

bool Floating(const std::string& name) {
  return name.rfind("avg(", 0) == 0 || name == "sum(f)" || name == "sum(d)";
}

// Equal as DuckDB renders them; floating results of sums and averages to a relative 1e-9
// (compensated summation here, plain summation there).
bool CellsMatch(const std::string& name, const std::optional<std::string>& ours, const std::optional<std::string>& duck) {
  if (ours == duck) return true;
  if (!ours || !duck || !Floating(name)) return false;
  double a = 0, b = 0;
  if (!testing::ParseDuckDouble(*ours, &a) || !testing::ParseDuckDouble(*duck, &b)) return false;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return (std::isnan(a) && std::isnan(b)) || a == b;
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

TEST(AggregateDifferentialTest, RandomRowsGroupingsAndAggregatesMatchDuckDB) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  testing::TempDir dir;
  const std::string aggs =
      "count(*), count(b), count(s), min(b), max(b), min(i), max(i), sum(i), avg(i), avg(l), min(l), max(l), "
      "min(f), max(f), sum(f), avg(f), min(d), max(d), sum(d), avg(d), count_distinct(d), count_distinct(f), "
      "min(s), max(s), count_distinct(s), min(day), max(day), count_distinct(day), min(ts), max(ts), sum(l)";
  const std::string duck_aggs =
      "count(*), count(b), count(s), min(b), max(b), min(i), max(i), sum(i), avg(i), avg(l), min(l), max(l), "
      "min(f), max(f), sum(f), avg(f), min(d), max(d), sum(d), avg(d), count(DISTINCT d), count(DISTINCT f), "
      "min(s), max(s), count(DISTINCT s), min(day), max(day), count(DISTINCT day), min(ts), max(ts), sum(l)";
  const std::vector<std::vector<std::string>> groupings = {{}, {"g"}, {"g", "h"}, {"b"}, {"day"}};
  int compared = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Batch rows = RandomRows(seed, 400 + 150 * seed);
    auto w = parquet::ParquetWriter::Make(rows.schema());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Write(rows).ok());
    const std::string path = dir.Join("r" + std::to_string(seed) + ".parquet");
    {
      std::ofstream(path, std::ios::binary) << *(*w)->Finish();
    }
    for (const auto& group_by : groupings) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(group_by.size()) + " group columns");
      auto a = Aggregation::Make(rows.schema(), group_by, *ParseAggregates(aggs));
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      // Fed in uneven batches, as a scan gives them.
      for (size_t at = 0; at < rows.num_rows(); at += 97) {
        ASSERT_TRUE((*a)->Add(rows.Slice(at, std::min<size_t>(97, rows.num_rows() - at))).ok());
      }
      auto ours = (*a)->Finish();
      ASSERT_TRUE(ours.ok()) << ours.status().ToString();
      std::string keys;
      for (const std::string& g : group_by) keys += g + ", ";
      auto duck = testing::RunDuckDB("SELECT " + keys + duck_aggs + " FROM read_parquet(" + testing::SqlQuote(path) + ")" +
                                     (group_by.empty() ? "" : " GROUP BY ALL"));
      ASSERT_TRUE(duck.ok()) << duck.status().ToString();
      std::vector<testing::DuckRow> mine = testing::RenderBatchLikeDuckDB(*ours);
      std::vector<testing::DuckRow> theirs = duck->rows;
      auto by_key = [&](const testing::DuckRow& x, const testing::DuckRow& y) {
        for (size_t c = 0; c < group_by.size(); ++c) {
          if (x[c] != y[c]) return x[c] < y[c];
        }
        return false;
      };
      std::sort(mine.begin(), mine.end(), by_key);
      std::sort(theirs.begin(), theirs.end(), by_key);
      ASSERT_EQ(mine.size(), theirs.size());
      for (size_t r = 0; r < mine.size(); ++r) {
        for (size_t c = 0; c < mine[r].size(); ++c) {
          const std::string& name = ours->schema().field(c).name;
          EXPECT_TRUE(CellsMatch(name, mine[r][c], theirs[r][c]))
              << name << " row " << r << ": ours " << mine[r][c].value_or("NULL") << ", DuckDB " << theirs[r][c].value_or("NULL");
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

}  // namespace
}  // namespace lakeindex::query
