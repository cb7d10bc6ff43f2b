// `lakeindex demo` on a small table: it runs to the end, and the answers and estimates it prints
// are those of the same queries run separately with `lakeindex query`.
#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::ReadFileText;
using clitest::RunCli;
using testing::TempDir;

// Data rows of a `--format csv` answer (the header line not counted).
int CsvRows(const CliResult& r) {
  EXPECT_EQ(r.code, 0) << r.err;
  return std::max(0, int(std::count(r.out.begin(), r.out.end(), '\n')) - 1);
}

// "12,345" -> 12345.
long Ungroup(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  return std::stol(s);
}

TEST(CliDemoTest, PrintsTheAnswersOfTheQueriesItShows) {
  TempDir dir;
  const std::string demo_dir = dir.Join("demo"), table = demo_dir + "/events";
  CliResult demo = RunCli(dir, {"demo", "--rows", "30000", "--dir", demo_dir});
  ASSERT_EQ(demo.code, 0) << demo.err << demo.out;
  const std::string& out = demo.out;
  EXPECT_NE(out.find("[6/6]"), std::string::npos) << out;
  size_t same = 0;
  for (size_t at = out.find("same answer both ways"); at != std::string::npos; at = out.find("same answer both ways", at + 1)) {
    ++same;
  }
  EXPECT_EQ(same, 4u) << out;

  // Every query of the tour: the row count the demo printed under it = that of `lakeindex query`,
  // on the newest version and on the plain version 1.
  std::vector<std::string> lines;
  for (size_t at = 0; at < out.size();) {
    size_t end = out.find('\n', at);
    if (end == std::string::npos) end = out.size();
    lines.push_back(out.substr(at, end - at));
    at = end + 1;
  }
  const std::regex command(R"re(   \$ lakeindex query \S+ --where "([^"]+)" --select (\S+))re");
  const std::regex count(R"(   \(([\d,]+) rows?.*)");
  int stops = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch cmd, rows;
    if (!std::regex_match(lines[i], cmd, command)) continue;
    size_t j = i + 1;
    while (j < lines.size() && !std::regex_match(lines[j], rows, count)) ++j;
    ASSERT_LT(j, lines.size()) << "no row count under " << lines[i];
    const std::string where = cmd[1], select = cmd[2];
    const long printed = Ungroup(rows[1]);
    EXPECT_EQ(CsvRows(RunCli(dir, {"query", table, "--where", where, "--select", select, "--format", "csv"})), printed)
        << where;
    EXPECT_EQ(CsvRows(RunCli(dir, {"query", table, "--version", "1", "--where", where, "--select", select, "--format",
                                   "csv"})),
              printed)
        << where;
    if (where.rfind("score = ", 0) == 0) {
      EXPECT_GE(printed, 1) << "the point lookup looks up a score that exists";
    }
    ++stops;
  }
  EXPECT_EQ(stops, 4) << out;

  // The sample: its size and the estimates printed from it.
  const int sampled = CsvRows(RunCli(dir, {"query", table, "--sample", "0.01", "--select", "score", "--format", "csv"}));
  std::smatch m;
  const std::regex sample_size(R"(   ([\d,]+) sampled rows)"), estimate(R"( +rows \(sampled rows / f\) +([\d,]+) +([\d,]+) .*)");
  bool size_seen = false, estimate_seen = false;
  for (const std::string& line : lines) {
    if (std::regex_match(line, m, sample_size)) {
      size_seen = true;
      EXPECT_EQ(Ungroup(m[1]), sampled);
    } else if (std::regex_match(line, m, estimate)) {
      estimate_seen = true;
      EXPECT_EQ(Ungroup(m[1]), sampled * 100L);
      EXPECT_EQ(Ungroup(m[2]), 30000);
    }
  }
  EXPECT_TRUE(size_seen && estimate_seen) << out;

  EXPECT_EQ(ReadFileText(demo_dir + "/cubes.svg").rfind("<svg", 0), 0u);
  // A second run replaces the demo's table.
  CliResult again = RunCli(dir, {"demo", "--rows", "1000", "--dir", demo_dir});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("1,000 rows in"), std::string::npos) << again.out;
}

TEST(CliDemoTest, LeavesADirectoryThatIsNotItsTableAlone) {
  TempDir dir;
  const std::string demo_dir = dir.Join("demo");
  std::filesystem::create_directories(demo_dir + "/events");
  clitest::WriteFileText(demo_dir + "/events/mine.txt", "keep me");
  CliResult demo = RunCli(dir, {"demo", "--rows", "1000", "--dir", demo_dir});
  EXPECT_EQ(demo.code, 1);
  EXPECT_NE(demo.err.find("not a lakeindex table"), std::string::npos) << demo.err;
  EXPECT_EQ(ReadFileText(demo_dir + "/events/mine.txt"), "keep me");
}

}  // namespace
}  // namespace lakeindex
