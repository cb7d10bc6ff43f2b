// `lakeindex create --from x.csv` on the CSV files users bring: pandas' to_csv, SQL type names,
// and columns that inference leaves as strings (a note on stderr, never silently).
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::RunCli;
using testing::TempDir;

TEST(CliCsvTest, PandasToCsvWithSqlTypeNamesAndLookalikeNotes) {
  TempDir dir;
  std::ofstream(dir.Join("pandas.csv")) << ",carrier,when,fare,on_time\n0,AA,12/31/2024,\"1,234.50\",yes\n"
                                           "1,UA,01/02/2024,99.5,no\n";
  CliResult made = RunCli(dir, {"create", dir.Join("inferred"), "--from", dir.Join("pandas.csv")});
  ASSERT_EQ(made.code, 0) << made.err;
  EXPECT_NE(made.err.find("note: pandas.csv: column 'when' is read as string: its values look like dates such as '12/31/2024' (a "
                          "CSV date is YYYY-MM-DD); --dateformat '%m/%d/%Y' reads them as dates (or declare the "
                          "column's type with --schema)\n"),
            std::string::npos)
      << made.err;
  EXPECT_NE(made.err.find("column 'fare' is read as string: its values look like numbers such as '1,234.50' (a CSV "
                          "number has no thousands separators); --thousands ',' reads them as numbers"),
            std::string::npos)
      << made.err;
  CliResult inferred = RunCli(dir, {"query", dir.Join("inferred"), "--format", "csv", "--where", "column0 = 1"});
  EXPECT_EQ(inferred.out, "column0,carrier,when,fare,on_time\n1,UA,01/02/2024,99.5,false\n") << inferred.err;

  CliResult typed = RunCli(dir, {"create", dir.Join("typed"), "--from", dir.Join("pandas.csv"), "--schema",
                                 "idx:INTEGER,carrier:VARCHAR,when:TEXT,fare:TEXT,on_time:BOOLEAN"});
  ASSERT_EQ(typed.code, 0) << typed.err;
  EXPECT_EQ(typed.err.find("note:"), std::string::npos) << typed.err;
  CliResult rows = RunCli(dir, {"query", dir.Join("typed"), "--format", "csv", "--where", "on_time = true"});
  ASSERT_EQ(rows.code, 0) << rows.err;
  EXPECT_EQ(rows.out, "idx,carrier,when,fare,on_time\n0,AA,12/31/2024,\"1,234.50\",true\n");

  // The options the notes name read them.
  CliResult read = RunCli(dir, {"create", dir.Join("read"), "--from", dir.Join("pandas.csv"), "--dateformat", "%m/%d/%Y",
                                "--thousands", ","});
  ASSERT_EQ(read.code, 0) << read.err;
  EXPECT_EQ(read.err.find("note:"), std::string::npos) << read.err;
  rows = RunCli(dir, {"query", dir.Join("read"), "--format", "csv", "--where", "when > '2024-12-30' AND fare > 1000"});
  EXPECT_EQ(rows.out, "column0,carrier,when,fare,on_time\n0,AA,2024-12-31,1234.5,true\n") << rows.err;

  CliResult refused = RunCli(dir, {"create", dir.Join("dates"), "--from", dir.Join("pandas.csv"), "--schema",
                                   "idx:int,carrier:string,when:date,fare:string,on_time:bool"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("line 2, column 'when': cannot parse '12/31/2024' as date"), std::string::npos)
      << refused.err;
}

}  // namespace
}  // namespace lakeindex
