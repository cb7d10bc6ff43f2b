// The SQL a DuckDB user writes in `lakeindex query`'s options: quoted identifiers in every option,
// aliases, count(DISTINCT c), `*`, --offset; one-line refusals of what the subset lacks that name
// the option, the position and DuckDB as the route; "did you mean" for columns, options and
// commands; `lakeindex help` and `--version`.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::RunCli;
using clitest::WriteFileText;
using testing::TempDir;

// id 1..6; "Dep Delay" with a space, as pandas writes such frames.
std::string MakeFlights(const TempDir& dir) {
  const std::string csv = dir.Join("flights.csv"), table = dir.Join("flights");
  WriteFileText(csv,
                "id,origin,dest,Dep Delay\n"
                "1,JFK,LAX,5\n"
                "2,JFK,SFO,-3\n"
                "3,EWR,LAX,40\n"
                "4,LGA,ORD,12\n"
                "5,EWR,LAX,\n"
                "6,JFK,ORD,7\n");
  EXPECT_EQ(RunCli(dir, {"create", table, "--from", csv}).code, 0);
  return table;
}

std::string Query(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "query");
  args.push_back("--format");
  args.push_back("csv");
  CliResult r = RunCli(dir, args);
  EXPECT_EQ(r.code, 0) << r.err;
  return r.out;
}

TEST(CliSqlTest, QuotedAndPlainNamesInEveryOption) {
  TempDir dir;
  const std::string t = MakeFlights(dir);
  EXPECT_EQ(Query(dir, {t, "--select", "\"Dep Delay\", dest", "--order-by", "\"Dep Delay\" desc", "--limit", "2"}),
            "Dep Delay,dest\n40,LAX\n12,ORD\n");
  EXPECT_EQ(Query(dir, {t, "--select", "id", "--order-by", "dest desc, id", "--limit", "3"}), "id\n2\n4\n6\n");
  EXPECT_EQ(Query(dir, {t, "--agg", "max(\"Dep Delay\")", "--group-by", "\"origin\"", "--order-by", "origin"}),
            "origin,max(Dep Delay)\nEWR,40\nJFK,7\nLGA,12\n");
  CliResult sorted = RunCli(dir, {"layout", t, "--sort", "\"Dep Delay\" , id"});
  EXPECT_EQ(sorted.code, 0) << sorted.err;
  EXPECT_EQ(Query(dir, {t, "--select", "id", "--limit", "3"}), "id\n5\n2\n1\n");  // by "Dep Delay": NULL, -3, 5
  EXPECT_EQ(Query(dir, {t, "--where", "\"Dep Delay\" > 6", "--select", "ID", "--order-by", "\"id\" DESC NULLS LAST"}),
            "id\n6\n4\n3\n");
  // index create --column: quoted, or the name as it is.
  CliResult quoted = RunCli(dir, {"index", "create", t, "--column", "\"Dep Delay\"", "--type", "btree"});
  EXPECT_EQ(quoted.code, 0) << quoted.err;
  CliResult plain = RunCli(dir, {"index", "create", t, "--column", "Dep Delay", "--type", "zonemap"});
  EXPECT_EQ(plain.code, 0) << plain.err;
  CliResult two = RunCli(dir, {"index", "create", t, "--column", "\"Dep Delay\", id", "--type", "btree"});
  EXPECT_EQ(two.code, 1);
  EXPECT_NE(two.err.find("--column"), std::string::npos) << two.err;
  EXPECT_EQ(Query(dir, {t, "--where", "\"Dep Delay\" = 12", "--select", "id"}), "id\n4\n");
}

TEST(CliSqlTest, AliasesDistinctStarAndOffset) {
  TempDir dir;
  const std::string t = MakeFlights(dir);
  EXPECT_EQ(Query(dir, {t, "--agg", "count(*) AS n, count(DISTINCT dest) AS \"Dests\", count(distinct origin)"}),
            "n,Dests,count(DISTINCT origin)\n6,3,3\n");
  EXPECT_EQ(Query(dir, {t, "--agg", "count(*) n", "--group-by", "dest", "--order-by", "n desc, dest", "--limit", "1",
                        "--offset", "1"}),
            "dest,n\nORD,2\n");
  EXPECT_EQ(Query(dir, {t, "--select", "*", "--limit", "1"}), "id,origin,dest,Dep Delay\n1,JFK,LAX,5\n");
  EXPECT_EQ(Query(dir, {t, "--select", "dest, *", "--limit", "1"}), "dest,id,origin,dest,Dep Delay\nLAX,1,JFK,LAX,5\n");
  EXPECT_EQ(Query(dir, {t, "--select", "id", "--offset", "4"}), "id\n5\n6\n");
  EXPECT_EQ(Query(dir, {t, "--select", "id", "--offset", "1", "--limit", "2"}), "id\n2\n3\n");
  EXPECT_EQ(Query(dir, {t, "--select", "id", "--order-by", "id desc", "--offset", "2", "--limit", "2"}), "id\n4\n3\n");
  CliResult unordered = RunCli(dir, {"query", t, "--agg", "count(*)", "--group-by", "dest", "--offset", "1"});
  EXPECT_EQ(unordered.code, 1);
  EXPECT_NE(unordered.err.find("--offset with --agg needs --order-by"), std::string::npos) << unordered.err;
}

// Each refusal is one line: the option, the position, what is not supported and the route.
TEST(CliSqlTest, SqlBeyondTheSubsetIsRefusedNamingWhereAndTheRoute) {
  TempDir dir;
  const std::string t = MakeFlights(dir);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--select", "id, lower(dest)"}, "--select: at position 5: the function call lower(...) is not supported"},
      {{"--select", "id + 1"}, "--select: at position 4: arithmetic ('+') is not supported"},
      {{"--group-by", "dest HAVING count(*) > 1", "--agg", "count(*)"}, "--group-by: at position 6: HAVING is not supported"},
      {{"--agg", "sum(id) / count(*)"}, "--agg: at position 9: arithmetic ('/') is not supported"},
      {{"--agg", "sum(id + 1)"}, "--agg: at position 8: arithmetic ('+') is not supported"},
      {{"--agg", "median(id)"}, "--agg: at position 1: unknown aggregate 'median'"},
      {{"--agg", "count(*)", "--group-by", "upper(dest)"}, "--group-by: at position 1: the function call upper(...)"},
      {{"--order-by", "lower(dest)"}, "--order-by: at position 1: the function call lower(...) is not supported"},
      {{"--where", "id * 2 > 4"}, "--where: at position 4: arithmetic ('*') is not supported"},
      {{"--where", "lower(dest) = 'lax'"}, "--where: at position 1: the function call lower(...) is not supported"},
      {{"--where", "id IN (SELECT id FROM other)"}, "--where: at position 8: a subquery (SELECT) is not supported"},
      {{"--select", "f.id"}, "--select: at position 2: a qualified name ('.'; one table, no joins) is not supported"},
      {{"--group-by", "dep-delay", "--agg", "count(*)"},
       "--group-by: at position 4: arithmetic ('-') is not supported; a column named so is written quoted: \"dep-delay\""},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"query", t};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CliResult r = RunCli(dir, args);
    EXPECT_EQ(r.code, 1) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("duckdb -c"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
  }
  CliResult having = RunCli(dir, {"query", t, "--agg", "count(*)", "--having", "count(*) > 1"});
  EXPECT_EQ(having.code, 1);
  EXPECT_NE(having.err.find("unknown option --having for query; SQL beyond"), std::string::npos) << having.err;
  EXPECT_NE(having.err.find("duckdb -c"), std::string::npos) << having.err;
  // Parse errors point at the option and the token.
  CliResult open = RunCli(dir, {"query", t, "--order-by", "id sideways"});
  EXPECT_NE(open.err.find("--order-by: at position 4: expected ',' between order keys"), std::string::npos) << open.err;
  CliResult after = RunCli(dir, {"query", t, "--where", "id > 1 ORDER BY id"});
  EXPECT_NE(after.err.find("--where: at position 8: unexpected 'ORDER'"), std::string::npos) << after.err;
}

TEST(CliSqlTest, UnknownNamesGetTheNearestOnes) {
  TempDir dir;
  const std::string t = MakeFlights(dir);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"query", t, "--select", "id, destt"}, "--select: at position 5: unknown column 'destt'; did you mean 'dest'?"},
      {{"query", t, "--where", "destt = 'LAX'"}, "--where: at position 1: unknown column 'destt'; did you mean 'dest'?"},
      {{"query", t, "--agg", "count(destt)"}, "unknown column 'destt'; did you mean 'dest'?"},
      {{"query", t, "--agg", "count(*)", "--group-by", "destt"}, "--group-by: unknown column 'destt'; did you mean 'dest'?"},
      {{"query", t, "--order-by", "destt"}, "--order-by: unknown column 'destt'; did you mean 'dest'?"},
      {{"index", "create", t, "--column", "Dest", "--type", "btree"}, "--column: unknown column 'Dest'; did you mean 'dest'?"},
      {{"layout", t, "--otree", "idd, dest"}, "layout column 'idd' is not a column of the table; did you mean 'id'?"},
      {{"layout", t, "--sort", "id, lower(dest)"}, "--sort: at position 5: the function call lower(...) is not supported"},
      {{"query", t, "--selct", "id"}, "unknown option --selct for query; did you mean --select?"},
      {{"query", t, "--limt=3"}, "unknown option --limt for query; did you mean --limit?"},
      {{"index", "crate", t, "--column", "id"}, "unknown command 'index crate'; did you mean 'index create'?"},
      {{"qeury", t}, "unknown command 'qeury'; did you mean 'query'?"},
      {{"help", "qeury"}, "unknown command 'qeury'; did you mean 'query'?"},
  };
  for (const Case& c : cases) {
    CliResult r = RunCli(dir, c.args);
    EXPECT_EQ(r.code, 1) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
}

TEST(CliSqlTest, HelpAndVersion) {
  TempDir dir;
  CliResult top = RunCli(dir, {"help"});
  EXPECT_EQ(top.code, 0) << top.err;
  EXPECT_NE(top.out.find("query"), std::string::npos) << top.out;
  EXPECT_EQ(top.out, RunCli(dir, {"--help"}).out);
  CliResult query = RunCli(dir, {"help", "query"});
  EXPECT_EQ(query.code, 0) << query.err;
  EXPECT_EQ(query.out, RunCli(dir, {"query", "--help"}).out);
  EXPECT_NE(query.out.find("--offset"), std::string::npos) << query.out;
  CliResult nested = RunCli(dir, {"help", "index", "create"});
  EXPECT_EQ(nested.code, 0) << nested.err;
  EXPECT_NE(nested.out.find("--column"), std::string::npos) << nested.out;
  CliResult version = RunCli(dir, {"--version"});
  EXPECT_EQ(version.code, 0) << version.err;
  EXPECT_EQ(version.out.rfind("lakeindex ", 0), 0u) << version.out;
  // query --version N stays time travel.
  const std::string t = MakeFlights(dir);
  EXPECT_EQ(Query(dir, {t, "--version", "1", "--select", "id", "--limit", "1"}), "id\n1\n");
}

}  // namespace
}  // namespace lakeindex
