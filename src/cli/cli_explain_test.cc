// What `explain --analyze` tells where a user checks that an index or a layout helped: why a row
// group holding the index's candidates was read otherwise, what a whole read read (never "pages
// read: 0 of 0"), and one line for an OTree layout that cannot help the filter.
#include <string>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::RunCli;
using testing::TempDir;

TEST(CliExplainTest, AnIndexAnswerReadWholeSaysWhyAndWhatWasRead) {
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "60000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"index", "create", table, "--column", "category", "--type", "bitmap"}).code, 0);
  // The commonest category: its rows are on every page, so taking them would read everything.
  CliResult r = RunCli(dir, {"explain", table, "--where", "category = 'cat_000'", "--analyze"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("candidate rows (exact)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("row group 0: read whole (60000 rows), not the index's "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" candidate rows on "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-byte scan: scanning; "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("pages read: 0 of 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("row groups read: 1 of 1 (1 of them whole: column chunks at once"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bytes read: "), std::string::npos) << r.out;
  CliResult j = RunCli(dir, {"explain", table, "--where", "category = 'cat_000'", "--analyze", "--json"});
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_NE(j.out.find("\"blocks_read_whole\": 1"), std::string::npos) << j.out;
}

TEST(CliExplainTest, AnOTreeThatCannotHelpTheFilterIsOneLineSayingSo) {
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "20000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"layout", table, "--otree", "x,y", "--cube-rows", "2000"}).code, 0);
  for (const std::string where : {"category = 'cat_000'", "x < 100 OR id = 4"}) {
    SCOPED_TRACE(where);
    CliResult r = RunCli(dir, {"explain", table, "--where", where});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("OTree layout on (x, y): no help to this filter (rows anywhere in (x, y) may match it), "
                          "so every block is read\n", 0), 0u) << r.out;
    EXPECT_EQ(r.out.find("OTree revision"), std::string::npos) << r.out;
  }
  CliResult helped = RunCli(dir, {"explain", table, "--where", "x < 100"});
  ASSERT_EQ(helped.code, 0) << helped.err;
  EXPECT_NE(helped.out.find("OTree revision 1: "), std::string::npos) << helped.out;
  EXPECT_EQ(helped.out.find("no help"), std::string::npos) << helped.out;
}

}  // namespace
}  // namespace lakeindex
