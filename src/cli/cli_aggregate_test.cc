// `lakeindex query --agg [--group-by]` against DuckDB over the same rows: filters, groups,
// deletes and time travel, through the btree and on an OTree table.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::RunCli;
using testing::TempDir;

std::vector<std::string> Lines(const std::string& csv) {  // without the header, sorted
  std::vector<std::string> lines = clitest::SortedLines(csv.substr(csv.find('\n') + 1));
  std::erase(lines, "");
  return lines;
}

std::vector<std::string> DuckLines(const std::string& sql) {
  auto duck = testing::RunDuckDB(sql);
  EXPECT_TRUE(duck.ok()) << duck.status().ToString();
  std::vector<std::string> lines;
  if (!duck.ok()) return lines;
  for (const auto& row : duck->rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) line += (c ? "," : "") + row[c].value_or("");
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

TEST(CliAggregateTest, AggregatesAndGroupsEqualDuckDBsOverTheSameRows) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "20000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events, "--rows-per-file", "6000"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"index", "create", table, "--column", "score", "--type", "btree"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "id BETWEEN 1000 AND 2999 OR score < 50000"}).code, 0);
  const std::string src = "read_parquet(" + testing::SqlQuote(events) + ")";
  // Integer aggregates only, so that both sides print the same text (csv).
  const std::string ours_aggs = "count(*), count(maybe), sum(score), min(name), max(ts), count_distinct(category), min(maybe)";
  const std::string duck_aggs = "count(*), count(maybe), sum(score), min(name), epoch_us(max(ts)), count(DISTINCT category), min(maybe)";
  struct Case {
    std::string where, group_by, version;
  };
  const std::vector<Case> cases = {{"", "", ""},
                                   {"score BETWEEN 100000 AND 400000", "", ""},
                                   {"score BETWEEN 100000 AND 400000", "category", ""},
                                   {"x < 500 AND maybe IS NOT NULL", "category,maybe", ""},
                                   {"", "category", "2"},
                                   {"name LIKE 'a%'", "category", ""}};
  for (const Case& c : cases) {
    SCOPED_TRACE("where '" + c.where + "' group by '" + c.group_by + "' version '" + c.version + "'");
    std::vector<std::string> args = {"query", table, "--agg", ours_aggs, "--format", "csv"};
    if (!c.where.empty()) args.insert(args.end(), {"--where", c.where});
    if (!c.group_by.empty()) args.insert(args.end(), {"--group-by", c.group_by});
    if (!c.version.empty()) args.insert(args.end(), {"--version", c.version});
    CliResult ours = RunCli(dir, args);
    ASSERT_EQ(ours.code, 0) << ours.err;
    std::string where = c.version == "2" ? "" : "NOT (id BETWEEN 1000 AND 2999 OR score < 50000)";  // version 2 is before the delete
    if (!c.where.empty()) where += (where.empty() ? "" : " AND ") + ("(" + c.where + ")");
    const std::string sql = "SELECT " + (c.group_by.empty() ? "" : c.group_by + ", ") + duck_aggs + " FROM " + src +
                            (where.empty() ? "" : " WHERE " + where) + (c.group_by.empty() ? "" : " GROUP BY ALL");
    const std::vector<std::string> duck = DuckLines(sql);
    ASSERT_FALSE(duck.empty());
    // Timestamps: ours print as text, DuckDB's as microseconds; compare the rest exactly and the
    // row count.
    const std::vector<std::string> mine = Lines(ours.out);
    ASSERT_EQ(mine.size(), duck.size()) << ours.out;
    for (size_t r = 0; r < mine.size(); ++r) {
      auto strip_ts = [&](const std::string& line, size_t ts_col) {
        std::vector<std::string> cells;
        size_t at = 0;
        while (true) {
          size_t comma = line.find(',', at);
          cells.push_back(line.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
          if (comma == std::string::npos) break;
          at = comma + 1;
        }
        cells.erase(cells.begin() + std::ptrdiff_t(ts_col));
        return cells;
      };
      const size_t ts_col = (c.group_by.empty() ? 0 : size_t(std::count(c.group_by.begin(), c.group_by.end(), ',') + 1)) + 4;
      EXPECT_EQ(strip_ts(mine[r], ts_col), strip_ts(duck[r], ts_col)) << mine[r] << " vs " << duck[r];
    }
  }
  // ORDER BY: rows (the btree on score read in order) and groups, as DuckDB orders them.
  const std::string live = "NOT (id BETWEEN 1000 AND 2999 OR score < 50000)";
  for (const auto& [args, sql] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--order-by", "score desc", "--limit", "7", "--select", "score"},
            "SELECT score FROM " + src + " WHERE " + live + " ORDER BY score DESC LIMIT 7"},
           {{"--order-by", "maybe, score desc", "--limit", "30", "--select", "maybe,score", "--where", "x < 300"},
            "SELECT maybe, score FROM " + src + " WHERE " + live + " AND x < 300 ORDER BY maybe, score DESC LIMIT 30"},
           {{"--agg", "count(*), max(score)", "--group-by", "category", "--order-by", "count(*) desc, category", "--limit", "4"},
            "SELECT category, count(*), max(score) FROM " + src + " WHERE " + live + " GROUP BY ALL ORDER BY 2 DESC, 1 LIMIT 4"}}) {
    std::vector<std::string> full = {"query", table, "--format", "csv"};
    full.insert(full.end(), args.begin(), args.end());
    CliResult ordered = RunCli(dir, full);
    ASSERT_EQ(ordered.code, 0) << ordered.err;
    auto duck = testing::RunDuckDB(sql);
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
    std::string expected;
    for (const auto& row : duck->rows) {
      for (size_t c = 0; c < row.size(); ++c) expected += (c ? "," : "") + row[c].value_or("");
      expected += "\n";
    }
    EXPECT_EQ(ordered.out.substr(ordered.out.find('\n') + 1), expected) << args[1];
  }
  // Positions are 1-based characters, as in --where.
  CliResult bad_order = RunCli(dir, {"query", table, "--order-by", "score sideways"});
  EXPECT_EQ(bad_order.code, 1);
  EXPECT_NE(bad_order.err.find("--order-by: at position 7"), std::string::npos) << bad_order.err;
  // --limit caps the groups; errors name what is wrong.
  CliResult limited = RunCli(dir, {"query", table, "--agg", "count(*)", "--group-by", "category", "--limit", "2", "--format", "csv"});
  ASSERT_EQ(limited.code, 0) << limited.err;
  EXPECT_EQ(Lines(limited.out).size(), 2u);
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"query", table, "--agg", "sum(name)"}, "no sum or average"},
           {{"query", table, "--agg", "count(*)", "--select", "id"}, "--select and --agg"},
           {{"query", table, "--group-by", "category"}, "--group-by needs --agg"},
           {{"query", table, "--agg", "avg(nope)"}, "unknown column 'nope'"},
           {{"query", table, "--agg", "median(x)"}, "unknown aggregate 'median'"}}) {
    CliResult bad = RunCli(dir, args);
    EXPECT_EQ(bad.code, 1) << args[3];
    EXPECT_NE(bad.err.find(message), std::string::npos) << bad.err;
  }
}

// Estimates on an OTree table: "value ± half-width" in a table, the fields apart in json, what
// they rest on below; `--error` picks the fraction; the interval holds DuckDB's exact value at
// these fixed seeds (a check of the wiring; the coverage itself is EstimateTest's).
TEST(CliAggregateTest, EstimatesFromTheOTreeSampleWithIntervals) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "60000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events}).code, 0);
  CliResult refused = RunCli(dir, {"query", table, "--agg", "avg(score)", "--sample", "0.1"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("needs an OTree layout"), std::string::npos) << refused.err;
  ASSERT_EQ(RunCli(dir, {"index", "create", table, "--column", "score", "--type", "btree"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"layout", table, "--otree", "x,y", "--cube-rows", "5000"}).code, 0);

  // explain --agg says how each was answered.
  CliResult by_stats = RunCli(dir, {"explain", table, "--agg", "min(score), max(score), count(*)"});
  ASSERT_EQ(by_stats.code, 0) << by_stats.err;
  EXPECT_NE(by_stats.out.find("answered from the manifest's per-file statistics: no data file read"), std::string::npos) << by_stats.out;
  CliResult by_directory = RunCli(dir, {"explain", table, "--agg", "count(*)", "--where", "score BETWEEN 1000 AND 50000"});
  ASSERT_EQ(by_directory.code, 0) << by_directory.err;
  EXPECT_NE(by_directory.out.find("from index score_btree's directory: "), std::string::npos) << by_directory.out;
  CliResult rounds = RunCli(dir, {"explain", table, "--agg", "avg(score)", "--error", "0.05", "--json"});
  ASSERT_EQ(rounds.code, 0) << rounds.err;
  auto explained = nlohmann::json::parse(rounds.out);
  EXPECT_GE(explained["rounds"].size(), 1u) << rounds.out;
  EXPECT_LE(explained["max_relative_half_width"].get<double>(), 0.05) << rounds.out;
  EXPECT_NE(explained["plan"][0].get<std::string>().find("for weights in [0, "), std::string::npos) << rounds.out;

  CliResult shown = RunCli(dir, {"query", table, "--agg", "count(*), avg(score), max(score)", "--sample", "0.1"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find(" ± "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("estimated from the 0.1 sample (1 round)"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("intervals at 95% confidence"), std::string::npos) << shown.out;

  const std::string src = "read_parquet(" + testing::SqlQuote(events) + ")";
  // The large categories only: a group of a few sampled rows has no interval worth the name.
  const std::vector<std::string> duck =
      DuckLines("SELECT category, avg(score), sum(score) FROM " + src + " GROUP BY ALL HAVING count(*) >= 4000");
  ASSERT_GE(duck.size(), 2u);
  std::string large;
  for (const std::string& d : duck) large += (large.empty() ? "'" : ", '") + d.substr(0, d.find(',')) + "'";
  CliResult json = RunCli(dir, {"query", table, "--agg", "avg(score), sum(score)", "--group-by", "category", "--where",
                                "category IN (" + large + ")", "--sample", "0.2", "--confidence", "0.999", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_NE(json.err.find("intervals at 99.9% confidence"), std::string::npos) << json.err;
  size_t groups = 0;
  for (const std::string& line : clitest::SortedLines(json.out)) {
    if (line.empty()) continue;
    auto row = nlohmann::json::parse(line);
    const std::string category = row["category"].get<std::string>();
    for (const std::string& d : duck) {
      if (d.rfind(category + ",", 0) != 0) continue;
      ++groups;
      const double exact_avg = std::stod(d.substr(category.size() + 1));
      const double exact_sum = std::stod(d.substr(d.rfind(',') + 1));
      EXPECT_LE(std::fabs(row["avg(score)"].get<double>() - exact_avg), row["avg(score) ±"].get<double>()) << line;
      EXPECT_LE(std::fabs(row["sum(score)"].get<double>() - exact_sum), row["sum(score) ±"].get<double>()) << line;
      EXPECT_GT(row["avg(score) ±"].get<double>(), 0) << line;
    }
  }
  EXPECT_EQ(groups, duck.size()) << json.out;

  CliResult aimed = RunCli(dir, {"query", table, "--agg", "avg(score)", "--error", "0.01", "--format", "csv"});
  ASSERT_EQ(aimed.code, 0) << aimed.err;
  EXPECT_NE(aimed.out.find("avg(score),avg(score) ±"), std::string::npos) << aimed.out;
  EXPECT_NE(aimed.err.find("widest ±"), std::string::npos) << aimed.err;
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"query", table, "--agg", "avg(score)", "--error", "2"}, "--error: must be"},
           {{"query", table, "--agg", "max(score)", "--error", "0.1"}, "needs an aggregate with an interval"},
           {{"query", table, "--agg", "avg(score)", "--sample", "0.1", "--confidence", "95"}, "--confidence: must be"},
           {{"query", table, "--agg", "avg(score)", "--sample", "0.1", "--format", "parquet", "--output", dir.Join("o.parquet")},
            "does not take estimates"}}) {
    CliResult bad = RunCli(dir, args);
    EXPECT_EQ(bad.code, 1) << args[4];
    EXPECT_NE(bad.err.find(message), std::string::npos) << bad.err;
  }
}

}  // namespace
}  // namespace lakeindex
