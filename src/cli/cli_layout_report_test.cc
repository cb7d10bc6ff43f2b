// What `layout`, `stats` and `plot` tell of a layout: timestamp axes in timestamps (not
// microseconds since 1970), and a layout that makes the files much larger says so and why.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::RunCli;
using testing::TempDir;

// 30,000 rows a minute apart from 2013-01-01 (timestamptz), in time order, with two random
// doubles: a time-ordered table, as flights or events are.
std::string TimeOrderedCsv(const TempDir& dir) {
  const std::string path = dir.Join("ts.csv");
  std::string text = "id,at,v,w\n";
  uint64_t state = 12345;
  auto random = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) / double(1ull << 53);
  };
  char line[128];
  for (int i = 0; i < 30000; ++i) {
    const int s = i * 60, d = s / 86400;
    std::snprintf(line, sizeof(line), "%d,2013-%02d-%02d %02d:%02d:00+00,%.6f,%.6f\n", i, 1 + d / 28, 1 + d % 28,
                  (s % 86400) / 3600, (s % 3600) / 60, random(), random());
    text += line;
  }
  clitest::WriteFileText(path, text);
  return path;
}

TEST(CliLayoutReportTest, TimestampAxesAreShownAsTimestampsInStatsAndPlot) {
  TempDir dir;
  const std::string table = dir.Join("t"), svg = dir.Join("p.svg");
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", TimeOrderedCsv(dir), "--schema", "id:int64,at:timestamptz,v:double,w:double"}).code, 0);
  CliResult laid = RunCli(dir, {"layout", table, "--otree", "at,v", "--cube-rows", "3000", "--transform", "linear"});
  ASSERT_EQ(laid.code, 0) << laid.err;
  CliResult stats = RunCli(dir, {"stats", table});
  ASSERT_EQ(stats.code, 0) << stats.err;
  EXPECT_NE(stats.out.find("  at: linear [2013-01-01 00:00:00+00, 2013-"), std::string::npos) << stats.out;
  CliResult plot = RunCli(dir, {"plot", table, "--output", svg});
  ASSERT_EQ(plot.code, 0) << plot.err;
  const std::string drawn = clitest::ReadFileText(svg);
  EXPECT_NE(drawn.find("class=\"tick-x\" font-size=\"12\" text-anchor=\"middle\">2013-01-01 00:00:00+00<"), std::string::npos)
      << drawn.substr(0, 3000);
  EXPECT_EQ(drawn.find("e+15<"), std::string::npos) << "raw microseconds on an axis";
}

TEST(CliLayoutReportTest, ALayoutThatGrowsTheFilesSaysSoAndWhy) {
  TempDir dir;
  const std::string table = dir.Join("t");
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", TimeOrderedCsv(dir), "--schema", "id:int64,at:timestamptz,v:double,w:double"}).code, 0);
  CliResult laid = RunCli(dir, {"layout", table, "--otree", "v,w", "--cube-rows", "3000"});
  ASSERT_EQ(laid.code, 0) << laid.err;
  const size_t note = laid.err.find("note: the data files grew from 0.");
  ASSERT_NE(note, std::string::npos) << laid.err;
  EXPECT_GT(note, laid.err.find(": version 2\n")) << "said after the commit";
  EXPECT_NE(laid.err.find("x): the rows left their old order (time order, say) for the layout's, so the columns that "
                          "followed it compress worse\n", note), std::string::npos) << laid.err;
  // A layout that keeps the files' size says nothing.
  CliResult again = RunCli(dir, {"layout", table, "--otree", "v,w", "--cube-rows", "3000"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.err.find("note:"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace lakeindex
