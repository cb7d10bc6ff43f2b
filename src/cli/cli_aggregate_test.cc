// `lakeindex query --agg [--group-by]` against DuckDB over the same rows: filters, groups,
// deletes and time travel, through the btree and on an OTree table.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace lakeindex
