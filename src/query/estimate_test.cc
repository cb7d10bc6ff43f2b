// Estimates with intervals from the OTree sample (query::AggregateTable with `sample` / `error`):
// the estimators' formulas on a hand-made sample, the intervals' coverage over many weight seeds
// of the same data, and `error`'s rounds reading each sampled row once.
#include <algorithm>
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "layout/otree/layout_writer.h"
#include "query/aggregate.h"
#include "query/scanner.h"
#include "table/batch_source.h"
#include "util/test_util.h"

namespace lakeindex::query {
namespace {

using lakeindex::testing::Rng;

// x, y uniform (the layout's columns); g in {0, 1, 2} with probabilities 0.5 / 0.3 / 0.2; v a
// skewed positive double (log-normal, 5% NULL).
Batch MakeRows(size_t n, uint64_t seed) {
  Schema schema = Schema::Parse("x:double,y:double,g:int64,v:double").value();
  Batch batch(schema);
  Rng rng(seed);
  for (size_t i = 0; i < n; ++i) {
    const double u = rng.Unit();
    const double normal = std::sqrt(-2 * std::log(1 - rng.Unit())) * std::cos(2 * M_PI * rng.Unit());
    EXPECT_TRUE(batch.mutable_column(0).AppendValue(Value::Double(rng.Unit())).ok());
    EXPECT_TRUE(batch.mutable_column(1).AppendValue(Value::Double(rng.Unit())).ok());
    EXPECT_TRUE(batch.mutable_column(2).AppendValue(Value::Int64(u < 0.5 ? 0 : u < 0.8 ? 1 : 2)).ok());
    EXPECT_TRUE(batch.mutable_column(3)
                    .AppendValue(rng.Chance(0.05) ? Value::Null(TypeId::kDouble) : Value::Double(10 * std::exp(normal)))
                    .ok());
  }
  EXPECT_TRUE(batch.Seal().ok());
  return batch;
}

// A table of `rows` laid out as an OTree on (x, y) with weights drawn from `seed`.
std::unique_ptr<table::Table> OTreeTable(const Batch& rows, uint64_t seed) {
  table::WriteConfig config;
  config.rows_per_file = 20000;
  auto src = table::MemorySource(rows.schema(), {rows});
  auto table = table::Table::Create(NewMemoryStore(), src.get(), config);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return nullptr;
  layout::LayoutOptions options;
  options.columns = {"x", "y"};
  options.cube_rows = 4000;
  options.slices = 4;
  options.seed = seed;
  options.write = config;
  auto report = layout::LayoutTable(table->get(), options);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return std::move(*table);
}

TEST(EstimateTest, FormulasOnAHandMadeSample) {
  Schema schema = Schema::Parse("g:int64,v:int64").value();
  Batch batch(schema);
  const int64_t values[] = {1, 2, 3, 4, 10};
  for (int64_t v : values) {
    ASSERT_TRUE(batch.mutable_column(0).AppendValue(Value::Int64(0)).ok());
    ASSERT_TRUE(batch.mutable_column(1).AppendValue(Value::Int64(v)).ok());
  }
  ASSERT_TRUE(batch.mutable_column(0).AppendValue(Value::Int64(0)).ok());
  ASSERT_TRUE(batch.mutable_column(1).AppendValue(Value::Null(TypeId::kInt64)).ok());
  ASSERT_TRUE(batch.Seal().ok());
  auto a = Aggregation::Make(schema, {}, *ParseAggregates("count(*), count(v), sum(v), avg(v), max(v)"));
  ASSERT_TRUE(a.ok());
  (*a)->TrackVariances();
  ASSERT_TRUE((*a)->Add(batch).ok());
  const double f = 0.25, z = NormalQuantile(0.95);
  EXPECT_NEAR(z, 1.959963984540054, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.99), 2.5758293035489, 1e-10);
  auto out = (*a)->FinishEstimate(f, 0.95);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->schema().ToString(), "count(*):double,count(*) ±:double,count(v):double,count(v) ±:double,"
                                      "sum(v):double,sum(v) ±:double,avg(v):double,avg(v) ±:double,max(v):int64");
  auto at = [&](size_t c) { return out->column(c).Get<double>(0); };
  EXPECT_DOUBLE_EQ(at(0), 6 / f);
  EXPECT_DOUBLE_EQ(at(1), z * std::sqrt(6 * (1 - f)) / f);
  EXPECT_DOUBLE_EQ(at(2), 5 / f);
  EXPECT_DOUBLE_EQ(at(3), z * std::sqrt(5 * (1 - f)) / f);
  EXPECT_DOUBLE_EQ(at(4), 20 / f);
  EXPECT_NEAR(at(5), z * std::sqrt((1 - f) * (1 + 4 + 9 + 16 + 100)) / f, 1e-12);
  EXPECT_DOUBLE_EQ(at(6), 4.0);
  // Σ(y - 4)² = 9 + 4 + 1 + 0 + 36 = 50
  EXPECT_NEAR(at(7), z * std::sqrt((1 - f) * 50) / 5, 1e-12);
  EXPECT_EQ(out->column(8).Get<int64_t>(0), 10);  // the sample's own max
  // The whole table as the sample: exact values, intervals 0 wide.
  auto whole = (*a)->FinishEstimate(1.0, 0.95);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->column(0).Get<double>(0), 6);
  EXPECT_EQ(whole->column(1).Get<double>(0), 0);
  EXPECT_EQ(whole->column(7).Get<double>(0), 0);
  auto precision = (*a)->EstimatePrecision(f, 0.95);
  ASSERT_TRUE(precision.ok());
  EXPECT_EQ(precision->min_sampled, 5u);
  EXPECT_NEAR(precision->max_relative_half_width, std::max({at(1) / at(0), at(3) / at(2), at(5) / at(4), at(7) / at(6)}), 1e-12);
  // Only sample values: no interval to aim at.
  auto minmax = Aggregation::Make(schema, {}, *ParseAggregates("min(v), max(v)"));
  ASSERT_TRUE(minmax.ok());
  (*minmax)->TrackVariances();
  EXPECT_TRUE((*minmax)->EstimatePrecision(f, 0.95).status().IsInvalidArgument());
  // Without TrackVariances there is nothing to estimate the spread from.
  auto untracked = Aggregation::Make(schema, {}, *ParseAggregates("avg(v)"));
  ASSERT_TRUE(untracked.ok());
  EXPECT_FALSE((*untracked)->FinishEstimate(f, 0.95).ok());
}

// Over 500 weight seeds of the same rows, the 95% intervals of count(*), count(v), sum(v) and
// avg(v) — over the table and per group — hold the exact value about 95% of the time.
TEST(EstimateTest, IntervalsCoverTheExactValueAt95PercentOver500WeightSeeds) {
  constexpr size_t kRows = 40000;
  constexpr double kFraction = 0.1;  // 4,000 sampled rows; per group about 2,000 / 1,200 / 800
  constexpr int kSeeds = 500;
  const Batch rows = MakeRows(kRows, 0xe57);
  // The exact answers, by brute force: per domain (-1 = the whole table, else the group).
  struct Exact {
    double rows = 0, count = 0, sum = 0;
  };
  std::map<int64_t, Exact> exact;
  for (size_t r = 0; r < rows.num_rows(); ++r) {
    for (int64_t domain : {int64_t(-1), rows.column(2).Get<int64_t>(r)}) {
      Exact& e = exact[domain];
      ++e.rows;
      if (rows.column(3).IsNull(r)) continue;
      ++e.count;
      e.sum += rows.column(3).Get<double>(r);
    }
  }
  const char* kAggs = "count(*), count(v), sum(v), avg(v)";
  const char* kNames[] = {"count(*)", "count(v)", "sum(v)", "avg(v)"};
  // covered[domain][aggregate], and how often the domain had at least 1,000 sampled rows.
  std::map<int64_t, std::array<int, 4>> covered;
  std::map<int64_t, int> trials;
  for (int seed = 0; seed < kSeeds; ++seed) {
    auto table = OTreeTable(rows, 1000 + uint64_t(seed));
    ASSERT_TRUE(table);
    for (bool grouped : {false, true}) {
      AggregateRequest request;
      request.aggregates = kAggs;
      if (grouped) request.group_by = {"g"};
      request.sample = kFraction;
      auto result = AggregateTable(*table, request);
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      const Batch& out = result->rows;
      const size_t first = grouped ? 1 : 0;
      for (size_t r = 0; r < out.num_rows(); ++r) {
        const int64_t domain = grouped ? out.column(0).Get<int64_t>(r) : -1;
        const double sampled = out.column(first).Get<double>(r) * kFraction;
        if (sampled < 1000) continue;
        ++trials[domain];
        const Exact& e = exact[domain];
        const double truth[] = {e.rows, e.count, e.sum, e.sum / e.count};
        for (size_t k = 0; k < 4; ++k) {
          const double estimate = out.column(first + 2 * k).Get<double>(r);
          const double half = out.column(first + 2 * k + 1).Get<double>(r);
          covered[domain][k] += std::fabs(estimate - truth[k]) <= half ? 1 : 0;
        }
      }
    }
  }
  ASSERT_EQ(trials[-1], kSeeds);
  ASSERT_GE(trials[0], kSeeds - 5);
  ASSERT_GE(trials[1], kSeeds - 5);
  std::array<int, 4> pooled{};
  int pooled_trials = 0;
  for (const auto& [domain, hits] : covered) {
    pooled_trials += trials[domain];
    for (size_t k = 0; k < 4; ++k) {
      pooled[k] += hits[k];
      const double coverage = double(hits[k]) / trials[domain];
      std::printf("coverage %-8s %s: %.3f over %d seeds\n", kNames[k],
                  domain < 0 ? "table  " : ("group " + std::to_string(domain)).c_str(), coverage, trials[domain]);
      // Each series: 500 Bernoulli(0.95) trials have a standard deviation of 1%.
      EXPECT_GE(coverage, 0.92) << kNames[k] << " in domain " << domain;
      EXPECT_LE(coverage, 0.98) << kNames[k] << " in domain " << domain;
    }
  }
  for (size_t k = 0; k < 4; ++k) {
    const double coverage = double(pooled[k]) / pooled_trials;
    std::printf("coverage %-8s pooled : %.3f over %d intervals\n", kNames[k], coverage, pooled_trials);
    EXPECT_GE(coverage, 0.93) << kNames[k];
    EXPECT_LE(coverage, 0.97) << kNames[k];
  }
}

TEST(EstimateTest, ErrorReadsGrowingNestedSamplesEachRowOnce) {
  const Batch rows = MakeRows(200000, 0xe58);
  auto table = OTreeTable(rows, 7);
  ASSERT_TRUE(table);
  AggregateRequest request;
  request.aggregates = "count(*), avg(v)";
  request.where = "x < 0.7";
  request.error = 0.02;
  auto result = AggregateTable(*table, request);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result->estimated);
  ASSERT_GE(result->rounds.size(), 2u);  // from ~1,000 sampled rows, ±2% on a log-normal mean needs more
  EXPECT_TRUE(std::is_sorted(result->rounds.begin(), result->rounds.end()));
  EXPECT_EQ(result->rounds.back(), result->fraction);
  EXPECT_LE(result->max_relative_half_width, 0.02);
  // The fraction before the last did not reach the target; the last did.
  AggregateRequest at = request;
  at.error.reset();
  at.sample = result->rounds[result->rounds.size() - 2];
  auto before = AggregateTable(*table, at);
  ASSERT_TRUE(before.ok());
  EXPECT_GT(before->max_relative_half_width, 0.02);
  at.sample = result->fraction;
  auto once = AggregateTable(*table, at);
  ASSERT_TRUE(once.ok());
  // The rounds aggregated exactly the rows of that one sample — none twice, none missed — and
  // so give its estimates.
  EXPECT_EQ(result->rows_aggregated, once->rows_aggregated);
  auto sampled = CountWhere(*table, "x < 0.7 AND _lakeindex_weight < " + FormatDouble(result->fraction));
  ASSERT_TRUE(sampled.ok()) << sampled.status().ToString();
  EXPECT_EQ(result->rows_aggregated, *sampled);
  for (size_t c = 0; c < once->rows.num_columns(); ++c) {
    EXPECT_NEAR(result->rows.column(c).Get<double>(0), once->rows.column(c).Get<double>(0),
                1e-9 * std::fabs(once->rows.column(c).Get<double>(0)))
        << once->rows.schema().field(c).name;
  }
  // Each round decodes the blocks of its weight range: the blocks straddling a round's start are
  // decoded twice, nothing else.
  EXPECT_LE(result->rows_read, once->rows_read + result->rounds.size() * 4000)
      << "rounds read " << result->rows_read << " rows, one scan of the last fraction " << once->rows_read;
}

TEST(EstimateTest, ErrorsAndTheWholeTable) {
  const Batch rows = MakeRows(5000, 0xe59);
  auto table = OTreeTable(rows, 3);
  ASSERT_TRUE(table);
  AggregateRequest request;
  request.aggregates = "count(*), sum(v), min(v)";
  request.sample = 1.0;  // every row: the exact values, intervals 0 wide
  auto whole = AggregateTable(*table, request);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  AggregateRequest exact_request;
  exact_request.aggregates = request.aggregates;
  auto exact = AggregateTable(*table, exact_request);
  ASSERT_TRUE(exact.ok());
  EXPECT_FALSE(exact->estimated);
  EXPECT_EQ(whole->rows.column(0).Get<double>(0), double(exact->rows.column(0).Get<int64_t>(0)));
  EXPECT_EQ(whole->rows.column(1).Get<double>(0), 0);
  EXPECT_NEAR(whole->rows.column(2).Get<double>(0), exact->rows.column(1).Get<double>(0), 1e-9 * exact->rows.column(1).Get<double>(0));
  EXPECT_EQ(whole->rows.column(4).Get<double>(0), exact->rows.column(2).Get<double>(0));

  auto fails = [&](AggregateRequest r, const std::string& needle) {
    auto out = AggregateTable(*table, r);
    ASSERT_FALSE(out.ok()) << needle;
    EXPECT_TRUE(out.status().IsInvalidArgument()) << out.status().ToString();
    EXPECT_NE(out.status().ToString().find(needle), std::string::npos) << out.status().ToString();
  };
  AggregateRequest r = request;
  r.sample = 0.0;
  fails(r, "sample: must be a fraction");
  r = request;
  r.confidence = 1.0;
  fails(r, "confidence: must be in (0, 1)");
  r = request;
  r.sample.reset();
  r.error = 0.0;
  fails(r, "error: must be");
  r.error = 0.05;
  r.aggregates = "min(v), max(v)";
  fails(r, "error: needs an aggregate with an interval");

  // A table without an OTree has no sample.
  auto src = table::MemorySource(rows.schema(), {rows});
  auto plain = table::Table::Create(NewMemoryStore(), src.get(), {});
  ASSERT_TRUE(plain.ok());
  auto refused = AggregateTable(**plain, request);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("needs an OTree layout"), std::string::npos) << refused.status().ToString();
}

}  // namespace
}  // namespace lakeindex::query
