// `verify` and the commands that read a version, on a table that lost a file its version
// references: an index file or a deletion vector is damage to the table (exit 2, as a lost data
// file), named in verify's damage list, never "Not found" (exit 1, the user-error code).
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::RunCli;
using testing::TempDir;

TEST(CliVerifyTest, ALostIndexFileOrDeletionVectorIsDamageExit2) {
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "5000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"index", "create", table, "--column", "score", "--type", "btree"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "id < 100"}).code, 0);
  CliResult one = RunCli(dir, {"query", table, "--select", "score", "--where", "id = 500", "--format", "csv"});
  ASSERT_EQ(one.code, 0) << one.err;
  const std::string score = one.out.substr(one.out.find('\n') + 1, one.out.find('\n', one.out.find('\n') + 1) - one.out.find('\n') - 1);
  std::vector<std::string> files;
  for (const char* sub : {"_indices", "_deletions"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(table + "/" + sub)) {
      if (e.is_regular_file()) files.push_back(std::filesystem::relative(e.path(), table).string());
    }
  }
  ASSERT_EQ(files.size(), 3u);  // page_lookup, page_data, one deletion vector
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const std::string path = table + "/" + file;
    const std::string bytes = clitest::ReadFileText(path);
    ASSERT_TRUE(std::filesystem::remove(path));
    CliResult verified = RunCli(dir, {"verify", table});
    EXPECT_EQ(verified.code, 2) << verified.err;
    EXPECT_NE(verified.err.find("1 damage in version 3: " + file + " is missing"), std::string::npos) << verified.err;
    CliResult queried = RunCli(dir, {"query", table, "--where", "score = " + score});
    EXPECT_EQ(queried.code, 2) << queried.err;
    EXPECT_NE(queried.err.find("Corruption"), std::string::npos) << queried.err;
    EXPECT_NE(queried.err.find(file), std::string::npos) << queried.err;
    clitest::WriteFileText(path, bytes);
  }
  CliResult clean = RunCli(dir, {"verify", table});
  EXPECT_EQ(clean.code, 0) << clean.err;
}

}  // namespace
}  // namespace lakeindex
