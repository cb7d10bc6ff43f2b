// `layout`, `query --sample`, `plot` and the layout part of `stats`, run as a user runs them.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::ReadFileText;
using clitest::RunCli;
using testing::TempDir;

// Sorted CSV lines of a query (header dropped), to compare answers independent of order.
std::vector<std::string> SortedRows(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "csv"});
  CliResult r = RunCli(dir, args);
  EXPECT_EQ(r.code, 0) << r.err;
  const size_t header_end = r.out.find('\n');
  return clitest::SortedLines(header_end == std::string::npos ? std::string() : r.out.substr(header_end + 1));
}

TEST(CliLayoutTest, LayoutSampleAppendOptimizePlot) {
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet"), more = dir.Join("more.csv");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "20000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "3000", "--seed", "9", "--output", more}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events, "--rows-per-file", "7000"}).code, 0);
  const std::string box = "x BETWEEN 100 AND 250 AND y BETWEEN 600 AND 700";
  std::vector<std::string> before = SortedRows(dir, {"query", table, "--where", box});
  ASSERT_FALSE(before.empty());

  CliResult laid = RunCli(dir, {"layout", table, "--otree", "x,y", "--cube-rows", "1000"});
  ASSERT_EQ(laid.code, 0) << laid.err;
  EXPECT_NE(laid.err.find("cubes"), std::string::npos) << laid.err;
  EXPECT_EQ(SortedRows(dir, {"query", table, "--where", box}), before);
  CliResult stats = RunCli(dir, {"stats", table});
  ASSERT_EQ(stats.code, 0) << stats.err;
  EXPECT_NE(stats.out.find("layout: otree on (x, y)"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("rows per cube"), std::string::npos) << stats.out;

  // The plot's axes are in the columns' own values: the first and last ticks are the columns'
  // least and greatest values (the transformations' ends); a legend tells the cubes apart.
  CliResult bounds = RunCli(dir, {"query", table, "--agg", "min(x), max(x), min(y), max(y)", "--format", "csv"});
  ASSERT_EQ(bounds.code, 0) << bounds.err;
  std::vector<std::string> ends;
  {
    std::string line = bounds.out.substr(bounds.out.find('\n') + 1);
    for (size_t at = 0; at <= line.size();) {
      size_t next = line.find_first_of(",\n", at);
      if (next == std::string::npos) next = line.size();
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.4g", std::stod(line.substr(at, next - at)));
      ends.push_back(buf);
      if (ends.size() == 4) break;
      at = next + 1;
    }
  }
  ASSERT_EQ(ends.size(), 4u) << bounds.out;
  CliResult axes = RunCli(dir, {"plot", table, "--output", dir.Join("axes.svg")});
  ASSERT_EQ(axes.code, 0) << axes.err;
  const std::string axes_svg = ReadFileText(dir.Join("axes.svg"));
  auto ticks = [&](const std::string& cls) {
    std::vector<std::string> out;
    const std::string open = "class=\"" + cls + "\"";
    for (size_t at = axes_svg.find(open); at != std::string::npos; at = axes_svg.find(open, at + 1)) {
      const size_t start = axes_svg.find('>', at) + 1;
      out.push_back(axes_svg.substr(start, axes_svg.find('<', start) - start));
    }
    return out;
  };
  const std::vector<std::string> xs = ticks("tick-x"), ys = ticks("tick-y");
  ASSERT_EQ(xs.size(), 5u) << axes_svg;
  ASSERT_EQ(ys.size(), 5u) << axes_svg;
  EXPECT_EQ(xs.front(), ends[0]);
  EXPECT_EQ(xs.back(), ends[1]);
  EXPECT_EQ(ys.front(), ends[2]);
  EXPECT_EQ(ys.back(), ends[3]);
  for (size_t i = 1; i < xs.size(); ++i) EXPECT_LT(std::stod(xs[i - 1]), std::stod(xs[i])) << "x ticks ascend";
  EXPECT_NE(axes_svg.find("class=\"legend\""), std::string::npos);

  // The box reads a fraction of the blocks; a 10% sample about a tenth of the rows.
  CliResult ex = RunCli(dir, {"explain", table, "--where", box, "--analyze", "--json"});
  ASSERT_EQ(ex.code, 0) << ex.err;
  auto j = nlohmann::json::parse(ex.out);
  EXPECT_LT(j["blocks_read"].get<uint64_t>() * 4, j["blocks_total"].get<uint64_t>()) << ex.out;
  std::vector<std::string> sample = SortedRows(dir, {"query", table, "--sample", "0.1"});
  EXPECT_GT(sample.size(), 1500u);
  EXPECT_LT(sample.size(), 2500u);
  EXPECT_EQ(SortedRows(dir, {"query", table, "--sample", "0.1"}), sample) << "samples are deterministic";
  CliResult ex_sample = RunCli(dir, {"explain", table, "--sample", "0.1", "--analyze", "--json"});
  ASSERT_EQ(ex_sample.code, 0) << ex_sample.err;
  auto js = nlohmann::json::parse(ex_sample.out);
  // The root and first-level cubes (5 of 21, ~5,000 rows) hold every weight below 0.1 here.
  EXPECT_LT(js["rows_read"].get<uint64_t>(), 20000u * 3 / 10) << ex_sample.out;

  // Append places rows as new blocks, optimize rolls them up; answers stay those of a scan.
  CliResult app = RunCli(dir, {"append", table, "--from", more});
  ASSERT_EQ(app.code, 0) << app.err;
  std::vector<std::string> after_append = SortedRows(dir, {"query", table, "--where", box});
  EXPECT_GE(after_append.size(), before.size());
  ASSERT_EQ(RunCli(dir, {"optimize", table}).code, 0);
  EXPECT_EQ(SortedRows(dir, {"query", table, "--where", box}), after_append);
  EXPECT_EQ(RunCli(dir, {"verify", table}).code, 0);

  const std::string svg = dir.Join("cubes.svg");
  CliResult plot = RunCli(dir, {"plot", table, "--output", svg, "--where", box});
  ASSERT_EQ(plot.code, 0) << plot.err;
  std::string text = ReadFileText(svg);
  EXPECT_EQ(text.rfind("<svg", 0), 0u);
  EXPECT_NE(text.find("#f59e0b"), std::string::npos) << "the cubes read are highlighted";
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
  };
  const size_t cubes_read = count("class=\"cube-read\""), cubes_skipped = count("class=\"cube-skipped\"");
  EXPECT_GT(cubes_read, 0u);
  EXPECT_GT(cubes_skipped, cubes_read) << "a small box skips most cubes";
  EXPECT_NE(plot.err.find(std::to_string(cubes_read) + " of them read by the filter"), std::string::npos) << plot.err;
  EXPECT_EQ(count("class=\"query-box\""), 1u);
  EXPECT_EQ(count("class=\"legend\""), 3u);
  EXPECT_NE(text.find("cube skipped (" + std::to_string(cubes_skipped) + ")"), std::string::npos);
  EXPECT_NE(text.find("</svg>"), std::string::npos);
}

TEST(CliLayoutTest, ComparisonLayoutsAndErrors) {
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "5000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events}).code, 0);
  const std::string filter = "x < 300 AND z > 600 OR category = 'cat_001'";
  std::vector<std::string> before = SortedRows(dir, {"query", table, "--where", filter});

  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> errors = {
      {{"query", table, "--sample", "0.5"}, "OTree layout"},
      {{"plot", table, "--output", dir.Join("p.svg")}, "OTree layout"},
      {{"layout", table}, "exactly one of"},
      {{"layout", table, "--otree", "x", "--zorder", "y"}, "exactly one of"},
      {{"layout", table, "--otree", "nope"}, "nope"},
      {{"layout", table, "--otree", "x,y,z,score,ts,id,maybe"}, "1 to 6"},
      {{"layout", table, "--otree", "name", "--transform", "linear"}, "linear"},
      {{"layout", table, "--otree", "x", "--memory-limit", "lots"}, "expected a size"},
      {{"layout", table, "--otree", "x", "--memory-limit", "0"}, "expected a size"},
      {{"layout", table, "--otree", "x", "--memory-limit", "2X"}, "expected a size"},
  };
  for (const Case& c : errors) {
    CliResult r = RunCli(dir, c.args);
    EXPECT_EQ(r.code, 1) << c.args[0] << " " << c.args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
  for (const char* kind : {"--sort", "--zorder", "--hilbert", "--otree"}) {
    CliResult r = RunCli(dir, {"layout", table, kind, "x,z", "--cube-rows", "500"});
    ASSERT_EQ(r.code, 0) << kind << ": " << r.err;
    EXPECT_EQ(SortedRows(dir, {"query", table, "--where", filter}), before) << kind;
  }
  // Over a tiny limit the OTree is built in parts, and a Z-order sorted externally: the same rows.
  for (const char* kind : {"--otree", "--zorder"}) {
    CliResult parts = RunCli(dir, {"layout", table, kind, "x,z", "--cube-rows", "500", "--memory-limit", "0.1MiB"});
    ASSERT_EQ(parts.code, 0) << kind << ": " << parts.err;
    EXPECT_EQ(SortedRows(dir, {"query", table, "--where", filter}), before) << kind;
  }
  CliResult bad_sample = RunCli(dir, {"query", table, "--sample", "1.5"});
  EXPECT_EQ(bad_sample.code, 1);
  EXPECT_NE(bad_sample.err.find("(0, 1]"), std::string::npos) << bad_sample.err;
}

// Issue 17, item 7: user columns that start with `_` are the user's on every layout; only the
// reserved `_lakeindex_` prefix is lakeindex's, and a table cannot be made from input using it.
TEST(CliLayoutTest, UserColumnsStartingWithUnderscoreAreTheUsers) {
  TempDir dir;
  const std::string table = dir.Join("t"), csv = dir.Join("u.csv"), more = dir.Join("more.csv");
  std::string text = "_x,_weight,v\n", more_text = text;
  for (int i = 0; i < 300; ++i) {
    text += std::to_string(i) + "," + std::to_string(i % 7) + "," + std::to_string(i * 3 % 101) + "\n";
  }
  for (int i = 300; i < 340; ++i) more_text += std::to_string(i) + ",5," + std::to_string(i % 13) + "\n";
  clitest::WriteFileText(csv, text);
  clitest::WriteFileText(more, more_text);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", csv}).code, 0);
  const std::vector<std::string> all = SortedRows(dir, {"query", table});
  ASSERT_EQ(all.size(), 300u);
  EXPECT_EQ(all.front().substr(0, 5), "0,0,0");  // `_x` and `_weight` are returned by default

  CliResult laid = RunCli(dir, {"layout", table, "--otree", "_x,v", "--cube-rows", "50"});
  ASSERT_EQ(laid.code, 0) << laid.err;
  EXPECT_EQ(SortedRows(dir, {"query", table}), all);  // the OTree's weights stay hidden
  EXPECT_EQ(SortedRows(dir, {"query", table, "--sample", "1"}).size(), 300u);  // not the user's `_weight`
  EXPECT_EQ(SortedRows(dir, {"query", table, "--where", "_weight = 3", "--select", "_x"}).size(), 43u);
  CliResult appended = RunCli(dir, {"append", table, "--from", more});
  ASSERT_EQ(appended.code, 0) << appended.err;
  EXPECT_EQ(SortedRows(dir, {"query", table, "--where", "_x >= 300"}).size(), 40u);
  EXPECT_EQ(SortedRows(dir, {"query", table, "--sample", "1"}).size(), 340u);
  CliResult verified = RunCli(dir, {"verify", table});
  EXPECT_EQ(verified.code, 0) << verified.err;

  // A comparison layout drops the OTree's weights and keeps the user's columns.
  ASSERT_EQ(RunCli(dir, {"layout", table, "--sort", "_weight"}).code, 0);
  CliResult sel = RunCli(dir, {"query", table, "--select", "_lakeindex_weight"});
  EXPECT_EQ(sel.code, 1);
  EXPECT_NE(sel.err.find("unknown column"), std::string::npos) << sel.err;
  ASSERT_EQ(RunCli(dir, {"append", table, "--from", more}).code, 0);
  EXPECT_EQ(SortedRows(dir, {"query", table, "--where", "_weight = 5"}).size(), 43u + 80u);

  // The reserved prefix is refused at create, naming the column, and nothing is made.
  const std::string reserved = dir.Join("r.csv");
  clitest::WriteFileText(reserved, "a,_lakeindex_weight\n1,0.5\n");
  CliResult refused = RunCli(dir, {"create", dir.Join("r"), "--from", reserved});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("'_lakeindex_weight'"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("reserved"), std::string::npos) << refused.err;
  EXPECT_EQ(RunCli(dir, {"versions", dir.Join("r")}).code, 1);
}

}  // namespace
}  // namespace lakeindex
