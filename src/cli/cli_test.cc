// Runs the lakeindex binary as a user does: exit codes, one-line messages, tables left unchanged
// by bad input, concurrent writer processes, and writers killed with SIGKILL mid-commit.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using testing::TempDir;
using clitest::CliResult;
using clitest::ReadFileText;
using clitest::RunCli;
using clitest::StartCli;
using clitest::WriteFileText;

std::string EventsCsv(int first_id, int rows) {
  std::string s = "id,name,score\n";
  for (int i = 0; i < rows; ++i) {
    s += std::to_string(first_id + i) + ",n" + std::to_string(i % 7) + "," + std::to_string((first_id + i) % 100) + "\n";
  }
  return s;
}

int CountLines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

// The newest version number, by `lakeindex versions`.
int LatestVersion(const TempDir& dir, const std::string& table) {
  CliResult r = RunCli(dir, {"versions", table});
  if (r.code != 0) return -1;
  std::istringstream lines(r.out);
  std::string line;
  int latest = -1;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    int v;
    if (fields >> v) latest = v;
  }
  return latest;
}

// A bitmap index made with --param, listed with its parameters, and answering as the scan does;
// `index create --help` lists every kind the registry has.
TEST(CliTest, ABitmapIndexTakesItsParametersAndAnswersAsTheScan) {
  TempDir dir;
  std::string table = dir.Join("t");
  WriteFileText(dir.Join("a.csv"), EventsCsv(0, 300));
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("a.csv"), "--schema", "id:int64,name:string,score:int64"}).code, 0);
  const std::vector<std::string> wheres = {"name IN ('n1', 'n7', 'n299')", "name >= 'n5'", "name IS NULL", "NOT name = 'n3'"};
  std::vector<std::string> scanned;
  for (const std::string& w : wheres) scanned.push_back(RunCli(dir, {"query", table, "--format", "csv", "--where", w}).out);
  CliResult made = RunCli(dir, {"index", "create", table, "--column", "name", "--type", "bitmap", "--param", "max_values=1000"});
  ASSERT_EQ(made.code, 0) << made.err;
  CliResult listed = RunCli(dir, {"index", "list", table});
  EXPECT_NE(listed.out.find("name_bitmap"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("{\"max_values\":1000}"), std::string::npos) << listed.out;
  for (size_t i = 0; i < wheres.size(); ++i) {
    EXPECT_EQ(RunCli(dir, {"query", table, "--format", "csv", "--where", wheres[i]}).out, scanned[i]) << wheres[i];
  }
  CliResult counted = RunCli(dir, {"explain", table, "--where", wheres[0], "--analyze"});
  EXPECT_NE(counted.out.find("index name_bitmap (bitmap) serves"), std::string::npos) << counted.out;
  CliResult help = RunCli(dir, {"index", "create", "--help"});
  for (const char* kind : {"btree:", "zonemap:", "bitmap:"}) EXPECT_NE(help.out.find(kind), std::string::npos) << help.out;
}

TEST(CliTest, BadInputGivesExitOneAndLeavesTheTable) {
  TempDir dir;
  std::string table = dir.Join("t");
  WriteFileText(dir.Join("a.csv"), EventsCsv(0, 50));
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("a.csv"), "--schema", "id:int64,name:string,score:int64"}).code, 0);
  ASSERT_EQ(LatestVersion(dir, table), 1);

  struct Case {
    std::vector<std::string> args;
    std::string file_text;
    std::string expect_in_message;
  };
  std::vector<Case> cases = {
      {{"append", table, "--from", dir.Join("bad.csv")}, "id,name,score\n1,a,2\n3,\"b,4\n", "line"},
      {{"append", table, "--from", dir.Join("bad.csv")}, "id,name,score\n1,a,2\n3,b,x7\n", "line 3"},
      {{"append", table, "--from", dir.Join("bad.csv")}, "id,name\n1,a\n", "header"},
      {{"append", table, "--from", dir.Join("missing.csv")}, "", "missing.csv"},
      {{"query", table, "--where", "nope = 1"}, "", "position 1"},
      {{"query", table, "--where", "id = 'abc'"}, "", "position"},
      {{"query", table, "--where", "id < "}, "", "position"},
      {{"query", table, "--where", "(id = 1"}, "", "position"},
      {{"query", table, "--select", "id,zzz"}, "", "zzz"},
      {{"query", table, "--limit", "-1"}, "", "--limit: expected a whole number"},
      {{"query", table, "--limit", "18446744073709551616"}, "", "got '18446744073709551616'"},
      {{"query", table, "--limit", "1e3"}, "", "--limit: expected a whole number"},
      {{"query", table, "--where", " "}, "", "--where is empty"},
      {{"delete", table, "--where", ""}, "", "--where is empty"},
      {{"gen", "--rows", "-1", "--output", dir.Join("g.parquet")}, "", "--rows: expected a whole number"},
      {{"optimize", table, "--rows-per-file", "0"}, "", "must be at least 1"},
      {{"index", "create", table, "--column", "id", "--type", "btree", "--page-rows", "0"}, "", "must be at least 1"},
      // Index kinds and their parameters, each named as the command line spells it.
      {{"index", "create", table, "--column", "id", "--type", "hash"}, "", "--type: must be btree, zonemap or bitmap, not 'hash'"},
      {{"index", "create", table, "--column", "id", "--type", "bitmap", "--page-rows", "64"}, "",
       "--page-rows: a bitmap index takes no parameter 'page_rows' (it takes max_values)"},
      {{"index", "create", table, "--column", "id", "--type", "bitmap", "--param", "max_values=0"}, "",
       "--param max_values: must be a whole number between 1 and 1048576, not 0"},
      {{"index", "create", table, "--column", "id", "--type", "bitmap", "--param", "max_values=10"}, "",
       "--column: 'id' has more than 10 distinct values"},
      {{"index", "create", table, "--column", "id", "--type", "btree", "--param", "colour=red"}, "",
       "--param colour: a btree index takes no parameter 'colour'"},
      {{"index", "create", table, "--column", "id", "--type", "btree", "--param", "page_rows"}, "",
       "--param: expected NAME=VALUE, got 'page_rows'"},
      {{"layout", table, "--otree", "id", "--row-groups", "cells"}, "", "--row-groups"},
      {{"layout", table, "--sort", "id", "--row-groups", "regions"}, "", "--row-groups: row groups by region are an OTree's"},
      {{"delete", table, "--where", "name LIKE 5"}, "", "position"},
      {{"query", dir.Join("no_table")}, "", "no_table"},
      {{"create", table, "--from", dir.Join("a.csv")}, "", "already exists"},
      {{"query", table, "--format", "xml"}, "", "--format"},
      // A vacuum that could delete the files of a write in progress needs --force.
      {{"vacuum", table, "--older-than", "0"}, "", "--force"},
      {{"vacuum", table, "--older-than", "0.5"}, "", "--force"},
      // A mistyped command is named, with the nearest one.
      {{"qeury", table}, "", "unknown command 'qeury'; did you mean 'query'?"},
      {{"frobnicate", table}, "", "unknown command 'frobnicate'"},
  };
  for (const Case& c : cases) {
    if (!c.file_text.empty()) WriteFileText(dir.Join("bad.csv"), c.file_text);
    CliResult r = RunCli(dir, c.args);
    EXPECT_EQ(r.code, 1) << c.args[0] << " " << c.args.back() << ": " << r.err;
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.expect_in_message), std::string::npos) << r.err;
    EXPECT_EQ(LatestVersion(dir, table), 1) << r.err;
  }
  // --select resolves names as --where does: the exact name, else the one equal ignoring case.
  CliResult folded = RunCli(dir, {"query", table, "--format", "csv", "--select", "ID,Name", "--where", "ID < 2"});
  EXPECT_EQ(folded.code, 0) << folded.err;
  EXPECT_EQ(folded.out, "id,name\n0,n0\n1,n1\n");
  CliResult q = RunCli(dir, {"query", table, "--format", "csv", "--select", "id"});
  EXPECT_EQ(q.code, 0);
  EXPECT_EQ(CountLines(q.out), 51);
  EXPECT_EQ(RunCli(dir, {"vacuum", table, "--older-than", "0", "--force"}).code, 0);
  EXPECT_EQ(RunCli(dir, {"vacuum", table}).code, 0);  // the default grace: a day
}

// Limits and damage: a CSV of more columns than a table may have is refused (exit 1, naming the
// limit); a data file missing from a table is damage (exit 2), not a user error.
// `files` lists a version's live data files with their deleted positions: DuckDB reading the
// Parquet files itself, joined with that listing, returns exactly the version's rows — the newest
// after an append and a delete, and the first (time travel) from the same directory.
// CSV files separated by ';', TAB or '|': the delimiter is detected from the header (or named by
// --delimiter) and the rows are DuckDB's read_csv of the same file with that delimiter; a header
// with two candidates and no ',' is refused naming them.
// A newest manifest deleted behind the tool's back: every command refuses the table naming the
// lost version (exit 2) until `recover --accept-lost-version` names it; then the table goes on.
TEST(CliTest, ALostNewestVersionIsRefusedUntilRecovered) {
  TempDir dir;
  std::string table = dir.Join("t");
  WriteFileText(dir.Join("a.csv"), EventsCsv(0, 50));
  WriteFileText(dir.Join("b.csv"), EventsCsv(50, 20));
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("a.csv")}).code, 0);
  ASSERT_EQ(RunCli(dir, {"append", table, "--from", dir.Join("b.csv")}).code, 0);
  std::filesystem::remove(table + "/_versions/00000000000000000002.manifest");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"versions", table}, {"query", table, "--agg", "count(*)"}, {"append", table, "--from", dir.Join("b.csv")}}) {
    CliResult r = RunCli(dir, args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("version 2 committed but its manifest is gone"), std::string::npos) << r.err;
  }
  CliResult wrong = RunCli(dir, {"recover", table, "--accept-lost-version", "1"});
  EXPECT_EQ(wrong.code, 1) << wrong.err;
  CliResult ok = RunCli(dir, {"recover", table, "--accept-lost-version", "2"});
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.err.find("goes on from version 1"), std::string::npos) << ok.err;
  CliResult count = RunCli(dir, {"query", table, "--agg", "count(*)", "--format", "csv"});
  ASSERT_EQ(count.code, 0) << count.err;
  EXPECT_NE(count.out.find("\n50"), std::string::npos) << count.out;
  ASSERT_EQ(RunCli(dir, {"append", table, "--from", dir.Join("b.csv")}).code, 0);
  EXPECT_EQ(LatestVersion(dir, table), 2);
  EXPECT_EQ(RunCli(dir, {"verify", table}).code, 0);
}

TEST(CliTest, CsvDelimitersAreDetectedOrNamedAndReadAsDuckDBReadsThem) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  TempDir dir;
  const std::string rows = "id{d}name{d}score\n1{d}ann{d}2.5\n2{d}\"b{d}c\"{d}-1\n3{d}{d}7\n";
  for (const auto& [delimiter, option] : std::vector<std::pair<std::string, std::string>>{
           {";", ""}, {"\t", ""}, {"|", ""}, {";", ";"}, {"\t", "tab"}}) {
    std::string text = rows;
    for (size_t at; (at = text.find("{d}")) != std::string::npos;) text.replace(at, 3, delimiter);
    const std::string csv = dir.Join("d.csv"), table = dir.Join("t" + std::to_string(std::hash<std::string>{}(delimiter + option)));
    WriteFileText(csv, text);
    std::vector<std::string> args = {"create", table, "--from", csv};
    if (!option.empty()) args.insert(args.end(), {"--delimiter", option});
    CliResult created = RunCli(dir, args);
    ASSERT_EQ(created.code, 0) << created.err;
    CliResult ours = RunCli(dir, {"query", table, "--format", "csv", "--order-by", "id"});
    ASSERT_EQ(ours.code, 0) << ours.err;
    // score as DuckDB's text of a double (its COPY writes "-1.0", as our CSV does).
    auto duck = testing::RunDuckDB("SELECT id, name, score::VARCHAR AS score FROM read_csv(" + testing::SqlQuote(csv) + ", delim = " +
                                   testing::SqlQuote(delimiter) + ", header = true) ORDER BY id");
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
    std::string expected = "id,name,score\n";
    for (const auto& row : duck->rows) {
      for (size_t c = 0; c < row.size(); ++c) {
        std::string v = row[c].value_or("");
        if (v.find(',') != std::string::npos) v = "\"" + v + "\"";
        expected += (c ? "," : "") + v;
      }
      expected += "\n";
    }
    EXPECT_EQ(ours.out, expected) << "delimiter '" << delimiter << "' option '" << option << "'";
  }
  WriteFileText(dir.Join("both.csv"), "a;b\tc\n1;2\t3\n");
  CliResult ambiguous = RunCli(dir, {"create", dir.Join("amb"), "--from", dir.Join("both.csv")});
  EXPECT_EQ(ambiguous.code, 1);
  EXPECT_NE(ambiguous.err.find("cannot tell the delimiter: the header line has ';' and TAB"), std::string::npos) << ambiguous.err;
  CliResult named = RunCli(dir, {"create", dir.Join("amb"), "--from", dir.Join("both.csv"), "--delimiter", ";"});
  EXPECT_EQ(named.code, 0) << named.err;
  CliResult bad = RunCli(dir, {"create", dir.Join("amb2"), "--from", dir.Join("both.csv"), "--delimiter", "ab"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("--delimiter must be one character"), std::string::npos) << bad.err;

  // The other dialect options, on create and append, against DuckDB's read_csv with the same.
  WriteFileText(dir.Join("dialect.csv"), "7|'a|b'|N/A\n8|'it\\'s'|2.5\nN/A|''|-1\n");
  const std::vector<std::string> options = {"--delimiter", "|", "--quote", "'", "--escape", "\\", "--null", "N/A", "--no-header"};
  std::vector<std::string> create = {"create", dir.Join("dialect"), "--from", dir.Join("dialect.csv")};
  create.insert(create.end(), options.begin(), options.end());
  CliResult made = RunCli(dir, create);
  ASSERT_EQ(made.code, 0) << made.err;
  std::vector<std::string> append = {"append", dir.Join("dialect"), "--from", dir.Join("dialect.csv")};
  append.insert(append.end(), options.begin(), options.end());
  CliResult appended = RunCli(dir, append);
  ASSERT_EQ(appended.code, 0) << appended.err;
  CliResult dialect_rows = RunCli(dir, {"query", dir.Join("dialect"), "--format", "csv"});
  ASSERT_EQ(dialect_rows.code, 0) << dialect_rows.err;
  const std::string read = "read_csv(" + testing::SqlQuote(dir.Join("dialect.csv")) +
                           ", delim = '|', quote = '''', escape = '\\', nullstr = 'N/A', header = false)";
  // column2 (a double) as DuckDB's text of it ("-1.0", as its COPY and our CSV write it).
  const std::string select = "SELECT column0, column1, column2::VARCHAR FROM ";
  auto duck = testing::RunDuckDB(select + read + " UNION ALL " + select + read);
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  std::string expected = "column0,column1,column2\n";
  for (const auto& row : duck->rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      std::string v = row[c].value_or("");
      if (v.find_first_of(",\"") != std::string::npos || (row[c] && v.empty())) {
        std::string quoted = "\"";
        for (char ch : v) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        v = quoted + "\"";
      }
      expected += (c ? "," : "") + v;
    }
    expected += "\n";
  }
  EXPECT_EQ(dialect_rows.out, expected);
  CliResult both = RunCli(dir, {"create", dir.Join("d2"), "--from", dir.Join("dialect.csv"), "--header", "--no-header"});
  EXPECT_EQ(both.code, 1);
  EXPECT_NE(both.err.find("--header and --no-header do not go together"), std::string::npos) << both.err;
  CliResult parquet_quote = RunCli(dir, {"append", dir.Join("dialect"), "--from", dir.Join("none.parquet"), "--quote", "'"});
  EXPECT_EQ(parquet_quote.code, 1);
}

// DATE and TIMESTAMP infinities and years past 9999, as DuckDB writes them to Parquet: read, written
// as CSV exactly as DuckDB writes the same rows ("infinity", "-infinity", "20000-01-01"), read back
// from that CSV to the same rows, read by DuckDB from our CSV to its own values, and filtered alike.
TEST(CliTest, DateAndTimestampInfinitiesRoundTripWithDuckDB) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  TempDir dir;
  const std::string rows =
      "SELECT * FROM (VALUES (DATE 'infinity', TIMESTAMP '-infinity', 1), (DATE '-infinity', TIMESTAMP 'infinity', 2), "
      "(DATE '20000-01-01', TIMESTAMP '12345-06-07 08:09:10.5', 3), (DATE '2024-02-29', TIMESTAMP '2024-02-29 10:00:00', 4), "
      "(DATE '-0044-03-15', TIMESTAMP '0001-01-01 00:00:00', 5), (NULL, NULL, 6)) t(d, ts, k)";
  const std::string parquet = dir.Join("inf.parquet"), duck_csv = dir.Join("duck.csv");
  auto made = testing::RunDuckDB("COPY (" + rows + ") TO " + testing::SqlQuote(parquet) + " (FORMAT parquet); COPY (" + rows +
                                 " ORDER BY k) TO " + testing::SqlQuote(duck_csv) + " (HEADER); SELECT 1");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  ASSERT_EQ(RunCli(dir, {"create", dir.Join("t"), "--from", parquet}).code, 0);
  CliResult ours = RunCli(dir, {"query", dir.Join("t"), "--order-by", "k", "--format", "csv", "--output", dir.Join("ours.csv")});
  ASSERT_EQ(ours.code, 0) << ours.err;
  // DuckDB writes the BC year as "0045-03-15 (BC)" where we write "-0044-03-15": compare the text
  // of the rest (the values of all are compared below, DuckDB's CSV read by us).
  auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    for (const std::string& line : clitest::SortedLines(text)) {
      if (!line.empty() && line.find("(BC)") == std::string::npos && line.rfind("-0044", 0) != 0) out.push_back(line);
    }
    return out;
  };
  const std::string ours_text = ReadFileText(dir.Join("ours.csv"));
  EXPECT_EQ(lines(ours_text), lines(ReadFileText(duck_csv)));
  EXPECT_NE(ours_text.find("infinity,-infinity,1"), std::string::npos) << ours_text;
  // Our CSV read back by us: the same rows.
  ASSERT_EQ(RunCli(dir, {"create", dir.Join("back"), "--from", dir.Join("ours.csv")}).code, 0);
  CliResult back = RunCli(dir, {"query", dir.Join("back"), "--order-by", "k", "--format", "csv"});
  ASSERT_EQ(back.code, 0) << back.err;
  EXPECT_EQ(back.out, ours_text);
  // DuckDB's CSV, BC years included, read by us: our rows.
  ASSERT_EQ(RunCli(dir, {"create", dir.Join("duck_back"), "--from", duck_csv, "--schema", "d:date,ts:timestamp,k:int64"}).code, 0);
  CliResult duck_back = RunCli(dir, {"query", dir.Join("duck_back"), "--order-by", "k", "--format", "csv"});
  ASSERT_EQ(duck_back.code, 0) << duck_back.err;
  EXPECT_EQ(duck_back.out, ours_text);
  // ... and by DuckDB: its own values.
  auto same = testing::RunDuckDB("SELECT count(*) FROM ((" + rows + ") EXCEPT (SELECT * FROM read_csv(" +
                                 testing::SqlQuote(dir.Join("ours.csv")) +
                                 ", columns = {'d': 'DATE', 'ts': 'TIMESTAMP', 'k': 'BIGINT'}, header = true)))");
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(same->rows[0][0].value_or(""), "0");
  // Filters order the infinities past every other value, as DuckDB does.
  for (const std::string& where : {std::string("d > DATE '2024-01-01'"), std::string("ts < TIMESTAMP '1000-01-01 00:00:00'"),
                                   std::string("d = DATE 'infinity' OR ts = TIMESTAMP 'infinity'")}) {
    CliResult count = RunCli(dir, {"query", dir.Join("t"), "--where", where, "--agg", "count(*)", "--format", "csv"});
    ASSERT_EQ(count.code, 0) << count.err;
    auto duck = testing::RunDuckDB("SELECT count(*) FROM (" + rows + ") WHERE " + where);
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
    EXPECT_EQ(count.out, "count(*)\n" + duck->rows[0][0].value_or("") + "\n") << where;
  }
}

// The types DuckDB has beside ours — TIMESTAMPTZ, TIMESTAMP_NS, BLOB, UUID — end to end: read from
// DuckDB's Parquet, filtered as DuckDB filters them (full scans, btrees, a zone map, an OTree),
// and written back (Parquet and CSV) to the same values as DuckDB reads them.
// DuckDB reads `read` (a read_parquet / read_csv of what we wrote) as exactly the 3,000 rows of
// its own file `src`, both ways (EXCEPT), and gives its columns `columns` the types `types`
// (typeof, comma-separated). `setup` runs first (DuckDB settings).
void ExpectDuckDBReadsItsOwnRows(const std::string& setup, const std::string& src, const std::string& read,
                                 const std::vector<std::string>& columns, const std::string& types) {
  std::string typeofs;
  for (const std::string& c : columns) typeofs += (typeofs.empty() ? "" : " || ',' || ") + std::string("typeof(") + c + ")";
  const std::string theirs = "read_parquet(" + testing::SqlQuote(src) + ")";
  auto diff = testing::RunDuckDB(setup + "SELECT (SELECT count(*) FROM (SELECT * FROM " + read + " EXCEPT SELECT * FROM " + theirs +
                                 ")), (SELECT count(*) FROM (SELECT * FROM " + theirs + " EXCEPT SELECT * FROM " + read +
                                 ")), (SELECT count(*) FROM " + read + "), (SELECT " + typeofs + " FROM " + read + " LIMIT 1)");
  ASSERT_TRUE(diff.ok()) << read << ": " << diff.status().ToString();
  EXPECT_EQ(diff->rows[0][0].value_or(""), "0") << read;
  EXPECT_EQ(diff->rows[0][1].value_or(""), "0") << read;
  EXPECT_EQ(diff->rows[0][2].value_or(""), "3000") << read;
  EXPECT_EQ(diff->rows[0][3].value_or(""), types) << read;
}

TEST(CliTest, TimestamptzTimestampNsBinaryAndUuidRoundTripWithDuckDB) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  TempDir dir;
  const std::string src = dir.Join("types.parquet");
  const std::string rows =
      "SELECT i::BIGINT AS k,"
      " CASE WHEN i % 17 = 0 THEN NULL ELSE to_timestamp(1704067200) + to_microseconds((i * 104729 * 7919) % 31536000000000) END AS tz,"
      " CASE WHEN i % 19 = 0 THEN NULL ELSE make_timestamp_ns(1704067200000000000 + (hash(i) % 31536000000000000)::BIGINT) END AS ns,"
      " CASE WHEN i % 23 = 0 THEN NULL WHEN i % 23 = 1 THEN '\\x00\\xFF'::BLOB ELSE from_hex(md5(i::VARCHAR)[1:(i % 8) * 2]) END AS b,"
      " CASE WHEN i % 29 = 0 THEN NULL ELSE md5((i % 500)::VARCHAR)::UUID END AS u"
      " FROM range(3000) t(i)";
  // DuckDB's session time zone is UTC in every comparison (a TIMESTAMP literal next to a
  // TIMESTAMPTZ is read in it; ours are UTC always).
  const std::string utc = "SET TimeZone = 'UTC'; ";
  auto made = testing::RunDuckDB(utc + "COPY (" + rows + ") TO " + testing::SqlQuote(src) +
                                 " (FORMAT parquet); SELECT ns::VARCHAR, u::VARCHAR FROM (" + rows + ") WHERE k = 5");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  const std::string ns5 = made->rows[0][0].value_or(""), u5 = made->rows[0][1].value_or("");
  const std::string table = dir.Join("t");
  CliResult created = RunCli(dir, {"create", table, "--from", src, "--rows-per-file", "700"});
  ASSERT_EQ(created.code, 0) << created.err;
  CliResult stats = RunCli(dir, {"stats", table});
  EXPECT_NE(stats.out.find("schema: k:int64,tz:timestamptz,ns:timestamp_ns,b:binary,u:uuid"), std::string::npos) << stats.out;

  const std::vector<std::string> filters = {
      "tz >= '2024-06-01 00:00:00+02'", "tz < TIMESTAMP '2024-03-01 12:00:00'", "tz BETWEEN DATE '2024-02-01' AND DATE '2024-02-10'",
      "ns BETWEEN '2024-01-01 00:00:00.000000001' AND '2024-02-01'", "ns > TIMESTAMP '2024-05-05 12:00:00.5'",
      "ns = '" + ns5 + "'", "ns > '" + ns5 + "' AND ns < DATE '2024-12-01'",
      "u = '" + u5 + "'", "u > '80000000-0000-0000-0000-000000000000'", "u IN (UUID '" + u5 + "', '00000000-0000-0000-0000-000000000000')",
      "b = '\\x00\\xFF'", "b >= 'a'", "b < BLOB '\\x10' OR b IS NULL", "u IS NULL AND tz IS NOT NULL"};
  auto check = [&](const std::string& stage) {
    for (const std::string& where : filters) {
      CliResult ours = RunCli(dir, {"query", table, "--where", where, "--agg", "count(*), sum(k)", "--format", "csv"});
      ASSERT_EQ(ours.code, 0) << stage << ": " << where << ": " << ours.err;
      auto duck = testing::RunDuckDB(utc + "SELECT count(*), sum(k) FROM read_parquet(" + testing::SqlQuote(src) + ") WHERE " + where);
      ASSERT_TRUE(duck.ok()) << where << ": " << duck.status().ToString();
      EXPECT_EQ(ours.out, "count(*),sum(k)\n" + duck->rows[0][0].value_or("") + "," + duck->rows[0][1].value_or("") + "\n")
          << stage << ": " << where;
    }
  };
  check("full scans");
  for (const char* column : {"u", "ns", "tz", "b"}) {
    CliResult indexed = RunCli(dir, {"index", "create", table, "--column", column, "--type", "btree"});
    ASSERT_EQ(indexed.code, 0) << column << ": " << indexed.err;
  }
  ASSERT_EQ(RunCli(dir, {"index", "create", table, "--column", "tz", "--type", "zonemap"}).code, 0);
  check("btrees and a zone map");
  CliResult laid = RunCli(dir, {"layout", table, "--otree", "ns,tz,u", "--cube-rows", "200"});
  ASSERT_EQ(laid.code, 0) << laid.err;
  check("an OTree on ns, tz and u");

  // Written back: DuckDB reads our Parquet and our CSV as the rows it wrote.
  ASSERT_EQ(RunCli(dir, {"query", table, "--format", "parquet", "--output", dir.Join("ours.parquet")}).code, 0);
  ASSERT_EQ(RunCli(dir, {"query", table, "--format", "csv", "--output", dir.Join("ours.csv")}).code, 0);
  const std::string types = "{'k': 'BIGINT', 'tz': 'TIMESTAMPTZ', 'ns': 'TIMESTAMP_NS', 'b': 'BLOB', 'u': 'UUID'}";
  for (const std::string& read : {"read_parquet(" + testing::SqlQuote(dir.Join("ours.parquet")) + ")",
                                  "read_csv(" + testing::SqlQuote(dir.Join("ours.csv")) +
                                      ", header = true, allow_quoted_nulls = false, columns = " + types + ")"}) {
    ExpectDuckDBReadsItsOwnRows(utc, src, read, {"tz", "ns", "b", "u"}, "TIMESTAMP WITH TIME ZONE,TIMESTAMP_NS,BLOB,UUID");
  }
  // Our CSV read back by us (with the schema: uuids and binaries are not sniffed): the same rows.
  CliResult again = RunCli(dir, {"create", dir.Join("back"), "--from", dir.Join("ours.csv"), "--schema",
                                 "k:int64,tz:timestamptz,ns:timestamp_ns,b:binary,u:uuid"});
  ASSERT_EQ(again.code, 0) << again.err;
  CliResult a = RunCli(dir, {"query", table, "--order-by", "k", "--format", "csv"});
  CliResult b = RunCli(dir, {"query", dir.Join("back"), "--order-by", "k", "--format", "csv"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  // Text a type cannot hold is refused naming it, and nothing is cut.
  CliResult fine = RunCli(dir, {"query", table, "--where", "tz = '2024-01-01 00:00:00.0000001'"});
  EXPECT_EQ(fine.code, 1);
  EXPECT_NE(fine.err.find("at most 6 fractional digits"), std::string::npos) << fine.err;
  CliResult bad_uuid = RunCli(dir, {"query", table, "--where", "u = 'xyz'"});
  EXPECT_EQ(bad_uuid.code, 1);
  EXPECT_NE(bad_uuid.err.find("invalid uuid 'xyz'"), std::string::npos) << bad_uuid.err;
}

// Decimals as DuckDB writes them (INT32 up to 9 digits, INT64 up to 18) read, filter, index, lay
// out, aggregate and write back as DuckDB reads them: literals read exactly from their text (0.1
// is the decimal 0.1), a decimal against a double compared as doubles, as DuckDB does.
TEST(CliTest, DecimalsRoundTripAndFilterAsInDuckDB) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  TempDir dir;
  const std::string src = dir.Join("dec.parquet");
  const std::string rows =
      "SELECT i::BIGINT AS k,"
      " CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 37) % 2001 / 10 - 100)::DECIMAL(4, 1) END AS a,"
      " CASE WHEN i % 19 = 0 THEN NULL WHEN i = 1 THEN 999999999999999.999 WHEN i = 2 THEN -999999999999999.999"
      "  ELSE CAST(((hash(i) % 2000000)::BIGINT - 1000000)::VARCHAR || '.' || lpad((hash(i * 3) % 1000)::VARCHAR, 3, '0') AS DECIMAL(18, 3)) END AS b,"
      " CASE WHEN i % 23 = 0 THEN NULL ELSE (i * 0.37 - 500)::DECIMAL(10, 2) END AS c,"
      " CASE WHEN i % 29 = 0 THEN NULL ELSE (i % 97)::DECIMAL(9, 0) END AS d"
      " FROM range(3000) t(i)";
  auto made = testing::RunDuckDB("COPY (" + rows + ") TO " + testing::SqlQuote(src) + " (FORMAT parquet)");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  const std::string table = dir.Join("t");
  CliResult created = RunCli(dir, {"create", table, "--from", src, "--rows-per-file", "700"});
  ASSERT_EQ(created.code, 0) << created.err;
  CliResult stats = RunCli(dir, {"stats", table});
  EXPECT_NE(stats.out.find("schema: k:int64,a:decimal(4,1),b:decimal(18,3),c:decimal(10,2),d:decimal(9,0)"), std::string::npos)
      << stats.out;

  const std::vector<std::string> filters = {
      "a = 0.3", "a = -7.40", "a > 2.25", "a BETWEEN -1.5 AND 3", "a IN (0.3, 1, 2.55, -100.0)", "a <> 12.3 AND a < 50",
      "b < 1234.5678", "b >= -5e2", "b = 999999999999999.999", "b > -999999999999999.998", "b < 0.0001 AND b > -0.0001",
      "c = -499.63", "c > a", "c < b", "c = k", "c <= -400 OR c >= 600.5", "d = 42", "d > 41.5", "d < 1e1", "d IN (1, 2.0, 3.5)",
      "d IS NULL OR a IS NULL", "c BETWEEN a AND 100", "a < 0.1e1"};
  auto check = [&](const std::string& stage) {
    for (const std::string& where : filters) {
      CliResult ours = RunCli(dir, {"query", table, "--where", where, "--agg", "count(*), sum(k), sum(c), min(b), max(a)", "--format", "csv"});
      ASSERT_EQ(ours.code, 0) << stage << ": " << where << ": " << ours.err;
      auto duck = testing::RunDuckDB("SELECT count(*), sum(k), sum(c), min(b), max(a) FROM read_parquet(" + testing::SqlQuote(src) +
                                     ") WHERE " + where);
      ASSERT_TRUE(duck.ok()) << where << ": " << duck.status().ToString();
      std::string want = "count(*),sum(k),sum(c),min(b),max(a)\n";
      for (size_t i = 0; i < 5; ++i) want += (i ? "," : "") + duck->rows[0][i].value_or("");
      EXPECT_EQ(ours.out, want + "\n") << stage << ": " << where;
    }
  };
  check("full scans");
  for (const char* column : {"a", "b", "c"}) {
    CliResult indexed = RunCli(dir, {"index", "create", table, "--column", column, "--type", "btree"});
    ASSERT_EQ(indexed.code, 0) << column << ": " << indexed.err;
  }
  ASSERT_EQ(RunCli(dir, {"index", "create", table, "--column", "b", "--type", "zonemap"}).code, 0);
  CliResult served = RunCli(dir, {"explain", table, "--where", "c = -499.63 OR a IN (0.3, 1)"});
  ASSERT_EQ(served.code, 0) << served.err;
  EXPECT_NE(served.out.find("serves c = -499.63"), std::string::npos) << served.out;
  EXPECT_NE(served.out.find("serves a IN (0.3, 1.0)"), std::string::npos) << served.out;
  check("btrees and a zone map");
  CliResult laid = RunCli(dir, {"layout", table, "--otree", "a,c,b", "--cube-rows", "200"});
  ASSERT_EQ(laid.code, 0) << laid.err;
  check("an OTree on a, c and b");
  // Aggregates beside DuckDB's: a sum keeps the scale, an average is a double.
  CliResult agg = RunCli(dir, {"query", table, "--agg", "sum(b), avg(c), avg(a), min(c), max(d)", "--format", "csv"});
  ASSERT_EQ(agg.code, 0) << agg.err;
  auto duck_agg = testing::RunDuckDB("SELECT sum(b), avg(c), avg(a), min(c), max(d) FROM read_parquet(" + testing::SqlQuote(src) + ")");
  ASSERT_TRUE(duck_agg.ok()) << duck_agg.status().ToString();
  std::string want_agg;
  for (size_t i = 0; i < 5; ++i) want_agg += (i ? "," : "") + duck_agg->rows[0][i].value_or("");
  EXPECT_EQ(agg.out.substr(agg.out.find('\n') + 1), want_agg + "\n");

  // Written back: DuckDB reads our Parquet and our CSV as the rows it wrote, with its types.
  ASSERT_EQ(RunCli(dir, {"query", table, "--format", "parquet", "--output", dir.Join("ours.parquet")}).code, 0);
  ASSERT_EQ(RunCli(dir, {"query", table, "--format", "csv", "--output", dir.Join("ours.csv")}).code, 0);
  const std::string types = "{'k': 'BIGINT', 'a': 'DECIMAL(4,1)', 'b': 'DECIMAL(18,3)', 'c': 'DECIMAL(10,2)', 'd': 'DECIMAL(9,0)'}";
  for (const std::string& read : {"read_parquet(" + testing::SqlQuote(dir.Join("ours.parquet")) + ")",
                                  "read_csv(" + testing::SqlQuote(dir.Join("ours.csv")) + ", header = true, columns = " + types + ")"}) {
    ExpectDuckDBReadsItsOwnRows("", src, read, {"a", "b", "c", "d"}, "DECIMAL(4,1),DECIMAL(18,3),DECIMAL(10,2),DECIMAL(9,0)");
  }
  // Our CSV read back by us with the schema (decimals are not sniffed: DuckDB sniffs DOUBLE).
  CliResult again = RunCli(dir, {"create", dir.Join("back"), "--from", dir.Join("ours.csv"), "--schema",
                                 "k:int64,a:decimal(4,1),b:decimal(18,3),c:decimal(10,2),d:decimal(9,0)"});
  ASSERT_EQ(again.code, 0) << again.err;
  CliResult x = RunCli(dir, {"query", table, "--order-by", "k", "--format", "csv"});
  CliResult y = RunCli(dir, {"query", dir.Join("back"), "--order-by", "k", "--format", "csv"});
  ASSERT_EQ(x.code, 0) << x.err;
  EXPECT_EQ(x.out, y.out);
  // JSON: numbers with every digit of the scale.
  CliResult json = RunCli(dir, {"query", table, "--where", "k = 5", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  auto parsed = nlohmann::json::parse(json.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(parsed.is_discarded()) << json.out;
  EXPECT_NE(json.out.find("\"c\":-498.15"), std::string::npos) << json.out;

  // What a decimal cannot hold is refused naming it, and the table stays as it was.
  CliResult wide = RunCli(dir, {"create", dir.Join("wide"), "--from", dir.Join("ours.csv"), "--schema",
                                "k:int64,a:decimal(40,1),b:decimal(18,3),c:decimal(10,2),d:decimal(9,0)"});
  EXPECT_EQ(wide.code, 1);
  EXPECT_NE(wide.err.find("precision 40 is above 18"), std::string::npos) << wide.err;
  WriteFileText(dir.Join("over.csv"), "k,a,b,c,d\n1,1000.0,1,1,1\n");
  CliResult over = RunCli(dir, {"append", dir.Join("back"), "--from", dir.Join("over.csv")});
  EXPECT_EQ(over.code, 1);
  EXPECT_NE(over.err.find("'1000.0'"), std::string::npos) << over.err;
  EXPECT_NE(over.err.find("decimal(4,1)"), std::string::npos) << over.err;
  auto wide_src = testing::RunDuckDB("COPY (SELECT 1 AS k, 1.5::DECIMAL(38, 5) AS amount) TO " +
                                     testing::SqlQuote(dir.Join("wide.parquet")) + " (FORMAT parquet)");
  ASSERT_TRUE(wide_src.ok()) << wide_src.status().ToString();
  CliResult refused = RunCli(dir, {"append", dir.Join("back"), "--from", dir.Join("wide.parquet")});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("'amount'"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("DECIMAL(38,5)"), std::string::npos) << refused.err;
  CliResult versions = RunCli(dir, {"versions", dir.Join("back")});
  EXPECT_EQ(std::count(versions.out.begin(), versions.out.end(), '\n'), 3) << versions.out;  // header, rule, version 1
}

// A DuckDB BLOB is a binary column: the table and JSON show it as DuckDB prints it (\xHH for bytes
// outside printable ASCII), so JSON stays valid UTF-8.
TEST(CliTest, BytesThatAreNotTextPrintEscapedAndJsonStaysValid) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  TempDir dir;
  const std::string parquet = dir.Join("blob.parquet");
  auto made = testing::RunDuckDB("COPY (SELECT 1 AS k, '\\xFF\\x00ab'::BLOB AS b, 'ok é'::VARCHAR AS c) TO " +
                                 testing::SqlQuote(parquet) + " (FORMAT parquet); SELECT '\\xFF\\x00ab'::BLOB::VARCHAR");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  const std::string duck_text = made->rows[0][0].value_or("");
  ASSERT_EQ(duck_text, "\\xFF\\x00ab");
  ASSERT_EQ(RunCli(dir, {"create", dir.Join("t"), "--from", parquet}).code, 0);
  CliResult table = RunCli(dir, {"query", dir.Join("t")});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find(duck_text), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("ok é"), std::string::npos) << "text stays as it is";
  EXPECT_EQ(table.out.find('\0'), std::string::npos);
  CliResult json = RunCli(dir, {"query", dir.Join("t"), "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  auto parsed = nlohmann::json::parse(json.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(parsed.is_discarded()) << "not valid JSON: " << json.out;
  EXPECT_EQ(parsed["b"], duck_text);
  EXPECT_EQ(parsed["c"], "ok é");
}

TEST(CliTest, FilesListsTheLiveFilesAndDuckDBReadsExactlyTheLiveRows) {
  if (!lakeindex::testing::DuckDBAvailable()) GTEST_FAIL() << lakeindex::testing::DuckDBMissingMessage();
  TempDir dir;
  const std::string table = dir.Join("t");
  WriteFileText(dir.Join("a.csv"), EventsCsv(0, 300));
  WriteFileText(dir.Join("b.csv"), EventsCsv(300, 150));
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("a.csv"), "--rows-per-file", "100"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"append", table, "--from", dir.Join("b.csv"), "--rows-per-file", "100"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "score < 10 OR id BETWEEN 120 AND 180"}).code, 0);
  for (const std::string& version : {std::string(), std::string("1")}) {
    std::vector<std::string> files_args = {"files", table, "--format", "json"};
    std::vector<std::string> query_args = {"query", table, "--select", "id", "--format", "csv"};
    if (!version.empty()) {
      for (auto* args : {&files_args, &query_args}) args->insert(args->end(), {"--version", version});
    }
    CliResult files = RunCli(dir, files_args);
    ASSERT_EQ(files.code, 0) << files.err;
    const nlohmann::json listed = nlohmann::json::parse(files.out);
    uint64_t live = 0, deleted = 0;
    for (const auto& f : listed) {
      live += f["live_rows"].get<uint64_t>();
      deleted += f["deleted"].size();
      EXPECT_EQ(f["rows"].get<uint64_t>(), f["live_rows"].get<uint64_t>() + f["deleted"].size());
      EXPECT_TRUE(f["stats"].contains("id")) << f.dump();
    }
    EXPECT_EQ(listed.size(), version.empty() ? 5u : 3u);
    EXPECT_EQ(deleted > 0, version.empty());
    WriteFileText(dir.Join("files.json"), files.out);
    auto duck = lakeindex::testing::RunDuckDB(
        "SELECT r.id FROM read_parquet(" + lakeindex::testing::SqlQuote(table + "/data/*.parquet") +
        ", filename = true, file_row_number = true) r JOIN read_json(" + lakeindex::testing::SqlQuote(dir.Join("files.json")) +
        ") f ON r.filename = f.path WHERE NOT list_contains(f.deleted::BIGINT[], r.file_row_number) ORDER BY r.id");
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
    CliResult ours = RunCli(dir, query_args);
    ASSERT_EQ(ours.code, 0) << ours.err;
    std::vector<std::string> ids = clitest::SortedLines(ours.out.substr(ours.out.find('\n') + 1));
    std::sort(ids.begin(), ids.end(), [](const std::string& a, const std::string& b) { return std::stoll(a) < std::stoll(b); });
    ASSERT_EQ(duck->rows.size(), ids.size()) << "version " << version;
    EXPECT_EQ(ids.size(), live);
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(duck->rows[i][0].value_or("NULL"), ids[i]) << i;
  }
  CliResult table_format = RunCli(dir, {"files", table});
  EXPECT_EQ(table_format.code, 0);
  EXPECT_NE(table_format.out.find("live_rows"), std::string::npos);
  EXPECT_EQ(CountLines(RunCli(dir, {"files", table, "--format", "csv"}).out), 6);  // header + 5 files
  EXPECT_EQ(RunCli(dir, {"files", table, "--format", "xml"}).code, 1);
  EXPECT_EQ(RunCli(dir, {"files", table, "--version", "9"}).code, 1);
}

TEST(CliTest, TooManyColumnsAndMissingDataFiles) {
  TempDir dir;
  std::string header, row;
  for (int c = 0; c <= 10000; ++c) {
    header += (c ? "," : "") + std::string("c") + std::to_string(c);
    row += (c ? "," : "") + std::to_string(c);
  }
  WriteFileText(dir.Join("wide.csv"), header + "\n" + row + "\n");
  CliResult wide = RunCli(dir, {"create", dir.Join("w"), "--from", dir.Join("wide.csv")});
  EXPECT_EQ(wide.code, 1) << wide.err;
  EXPECT_NE(wide.err.find("at most 10000"), std::string::npos) << wide.err;
  EXPECT_EQ(LatestVersion(dir, dir.Join("w")), -1);

  const std::string table = dir.Join("t");
  WriteFileText(dir.Join("a.csv"), EventsCsv(0, 50));
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("a.csv")}).code, 0);
  for (const auto& entry : std::filesystem::directory_iterator(table + "/data")) std::filesystem::remove(entry.path());
  CliResult q = RunCli(dir, {"query", table});
  EXPECT_EQ(q.code, 2) << q.err;
  EXPECT_NE(q.err.find("is missing"), std::string::npos) << q.err;
  CliResult v = RunCli(dir, {"verify", table});
  EXPECT_EQ(v.code, 2) << v.err;
}

// vacuum --keep-versions expires old versions and removes the files only they referenced; the
// versions kept read and verify as before.
TEST(CliTest, VacuumExpiresOldVersions) {
  TempDir dir;
  const std::string table = dir.Join("t");
  WriteFileText(dir.Join("a.csv"), EventsCsv(0, 300));
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("a.csv"), "--rows-per-file", "100"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "id < 10"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"optimize", table, "--rows-per-file", "1000"}).code, 0);  // version 3: one new file
  auto files = [&] {
    size_t n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(table)) n += e.is_regular_file() ? 1 : 0;
    return n;
  };
  const size_t before = files();
  // Versions younger than the grace period stay whatever --keep-versions says.
  CliResult young = RunCli(dir, {"vacuum", table, "--keep-versions", "1"});
  EXPECT_EQ(young.code, 0) << young.err;
  EXPECT_EQ(RunCli(dir, {"query", table, "--version", "1", "--select", "id"}).code, 0);
  EXPECT_EQ(RunCli(dir, {"vacuum", table, "--keep-versions", "0", "--older-than", "0", "--force"}).code, 1);
  CliResult expire = RunCli(dir, {"vacuum", table, "--keep-versions", "1", "--older-than", "0", "--force"});
  ASSERT_EQ(expire.code, 0) << expire.err;
  EXPECT_NE(expire.err.find("expired 3 versions (1 to 3): version 4"), std::string::npos) << expire.err;
  EXPECT_LT(files(), before);
  CliResult old = RunCli(dir, {"query", table, "--version", "1", "--select", "id"});
  EXPECT_EQ(old.code, 1) << old.err;
  CliResult now = RunCli(dir, {"query", table, "--select", "id", "--format", "csv"});
  ASSERT_EQ(now.code, 0) << now.err;
  EXPECT_EQ(CountLines(now.out), 1 + 290);
  EXPECT_EQ(RunCli(dir, {"verify", table}).code, 0);
  EXPECT_EQ(LatestVersion(dir, table), 4);  // the expiry's own commit, with the rows of version 3
  CliResult listed = RunCli(dir, {"versions", table});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_EQ(CountLines(listed.out), 3) << listed.out;  // the header's two lines and version 4
}

TEST(CliTest, QueryFormatsAndTimeTravel) {
  TempDir dir;
  std::string table = dir.Join("t");
  WriteFileText(dir.Join("a.csv"), "id,name,x\n1,\"a,b\",1.5\n2,,\n3,\"\",-0.25\n");
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("a.csv")}).code, 0);
  CliResult csv = RunCli(dir, {"query", table, "--format", "csv"});
  EXPECT_EQ(csv.out, "id,name,x\n1,\"a,b\",1.5\n2,,\n3,\"\",-0.25\n");
  CliResult json = RunCli(dir, {"query", table, "--format", "json", "--where", "id >= 2"});
  EXPECT_EQ(json.out, "{\"id\":2,\"name\":null,\"x\":null}\n{\"id\":3,\"name\":\"\",\"x\":-0.25}\n");
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "x IS NULL"}).code, 0);
  EXPECT_EQ(CountLines(RunCli(dir, {"query", table, "--format", "csv"}).out), 3);
  EXPECT_EQ(CountLines(RunCli(dir, {"query", table, "--format", "csv", "--version", "1"}).out), 4);
  CliResult pq = RunCli(dir, {"query", table, "--format", "parquet", "--output", dir.Join("out.parquet")});
  EXPECT_EQ(pq.code, 0) << pq.err;
  ASSERT_EQ(RunCli(dir, {"create", dir.Join("t2"), "--from", dir.Join("out.parquet")}).code, 0);
  EXPECT_EQ(RunCli(dir, {"query", dir.Join("t2"), "--format", "csv"}).out, "id,name,x\n1,\"a,b\",1.5\n3,\"\",-0.25\n");
  // --output writes in place: a FIFO or device keeps being one (never replaced by a new file).
  std::string fifo = dir.Join("out.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  std::string from_fifo;
  std::thread reader([&] { from_fifo = ReadFileText(fifo); });
  EXPECT_EQ(RunCli(dir, {"query", table, "--format", "csv", "--output", fifo}).code, 0);
  reader.join();
  EXPECT_EQ(from_fifo, "id,name,x\n1,\"a,b\",1.5\n3,\"\",-0.25\n");
  struct stat st;
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  CliResult explain = RunCli(dir, {"explain", table, "--where", "id = 3", "--analyze", "--json"});
  EXPECT_EQ(explain.code, 0);
  for (const char* key : {"fragments_total", "fragments_scanned", "blocks_total", "blocks_read", "index_pages_read",
                          "rows_read", "rows_returned", "bytes_read", "io_requests", "elapsed_ms"}) {
    EXPECT_NE(explain.out.find(std::string("\"") + key + "\""), std::string::npos) << key;
  }
}

// Output files are streamed into a temporary file beside them and renamed at the end: a query
// that fails part-way leaves the previous file whole and no temporary behind; one that succeeds
// replaces it. `gen` writes the same way (a 2,000-row Parquet file equal to DuckDB's count).
TEST(CliTest, OutputFilesAreReplacedWholeOrLeftAsTheyWere) {
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet");
  WriteFileText(events, "not yet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "2000", "--output", events}).code, 0);
  auto count = testing::RunDuckDB("SELECT count(*) FROM read_parquet(" + testing::SqlQuote(events) + ")");
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count->rows[0][0], "2000");
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events, "--rows-per-file", "500"}).code, 0);
  auto temporaries = [&] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) n += e.path().filename().string().find(".tmp-") != std::string::npos;
    return n;
  };
  for (const char* format : {"csv", "json", "parquet"}) {
    SCOPED_TRACE(format);
    const std::string out = dir.Join(std::string("out.") + format);
    ASSERT_EQ(RunCli(dir, {"query", table, "--format", format, "--output", out}).code, 0);
    const std::string whole = ReadFileText(out);
    EXPECT_GT(whole.size(), 1000u);
    WriteFileText(out, "previous");
    // A data file damaged: the query fails when the scan reaches it, rows already written.
    std::string last;
    for (const auto& e : std::filesystem::directory_iterator(table + "/data")) last = std::max(last, e.path().string());
    const std::string saved = ReadFileText(last);
    WriteFileText(last, saved.substr(0, saved.size() / 2));
    CliResult failed = RunCli(dir, {"query", table, "--format", format, "--output", out});
    EXPECT_NE(failed.code, 0);
    EXPECT_EQ(ReadFileText(out), "previous");
    EXPECT_EQ(temporaries(), 0u);
    WriteFileText(last, saved);
    ASSERT_EQ(RunCli(dir, {"query", table, "--format", format, "--output", out}).code, 0);
    EXPECT_EQ(ReadFileText(out), whole);
  }
  EXPECT_EQ(temporaries(), 0u);
}

// 4 processes append 25 times each while a reader keeps counting rows: no commit is lost and
// every count the reader sees is that of a whole version.
TEST(CliTest, ConcurrentAppendingProcesses) {
  TempDir dir;
  std::string table = dir.Join("t");
  constexpr int kRowsPerAppend = 10, kWriters = 4, kAppends = 25;
  WriteFileText(dir.Join("base.csv"), EventsCsv(0, kRowsPerAppend));
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("base.csv"), "--schema", "id:int64,name:string,score:int64"}).code, 0);
  for (int w = 0; w < kWriters; ++w) {
    for (int k = 0; k < kAppends; ++k) {
      WriteFileText(dir.Join("w" + std::to_string(w) + "_" + std::to_string(k) + ".csv"),
                    EventsCsv(1000 * (w * kAppends + k + 1), kRowsPerAppend));
    }
  }
  std::vector<pid_t> writers;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    if (pid == 0) {
      for (int k = 0; k < kAppends; ++k) {
        CliResult r = RunCli(dir, {"append", table, "--from", dir.Join("w" + std::to_string(w) + "_" + std::to_string(k) + ".csv")});
        if (r.code != 0) {
          std::fprintf(stderr, "append failed: %s\n", r.err.c_str());
          _exit(1);
        }
      }
      _exit(0);
    }
    writers.push_back(pid);
  }
  std::vector<int> seen;
  for (int i = 0; i < 30; ++i) {
    CliResult r = RunCli(dir, {"query", table, "--format", "csv", "--select", "id"});
    ASSERT_EQ(r.code, 0) << r.err;
    seen.push_back(CountLines(r.out) - 1);
  }
  for (pid_t pid : writers) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (int rows : seen) EXPECT_EQ(rows % kRowsPerAppend, 0) << "a reader saw a partial version";
  EXPECT_EQ(LatestVersion(dir, table), 1 + kWriters * kAppends);
  CliResult all = RunCli(dir, {"query", table, "--format", "csv", "--select", "id"});
  EXPECT_EQ(CountLines(all.out) - 1, kRowsPerAppend * (1 + kWriters * kAppends));
}

// kill -9 of an appending writer at random moments: the table always opens at its last
// committed version with all of that version's rows and nothing of the killed append.
TEST(CliTest, KilledWritersNeverLeaveAPartialVersion) {
  TempDir dir;
  std::string table = dir.Join("t");
  constexpr int kRows = 20000;
  const int kills = std::getenv("LAKEINDEX_SOAK") ? 300 : 12;
  WriteFileText(dir.Join("base.csv"), EventsCsv(0, 100));
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("base.csv"), "--schema", "id:int64,name:string,score:int64"}).code, 0);
  WriteFileText(dir.Join("big.csv"), EventsCsv(1000000, kRows));
  // Time one whole append (it commits), then kill later ones anywhere in that span.
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(RunCli(dir, {"append", table, "--from", dir.Join("big.csv"), "--rows-per-file", "3000"}).code, 0);
  auto span_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
  std::mt19937 rng(42);
  int committed = 1;
  for (int i = 0; i < kills; ++i) {
    pid_t pid = StartCli({"append", table, "--from", dir.Join("big.csv"), "--rows-per-file", "3000"}, dir.Join("k.out"),
                         dir.Join("k.err"));
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % uint64_t(span_us * 5 / 4 + 1)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    int version = LatestVersion(dir, table);
    ASSERT_GE(version, 1);
    committed = version - 1;  // a kill may land after the commit but before exit
    CliResult r = RunCli(dir, {"query", table, "--format", "csv", "--select", "id"});
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_EQ(CountLines(r.out) - 1, 100 + committed * kRows) << "after kill " << i;
  }
  std::printf("%d kills, %d appends committed\n", kills, committed);
}

// The tool starts itself a second time for a heap on huge pages only when it builds (create,
// layout, ...): a read, a cold lookup most of all, pays ~6 ms for the second start and gains
// nothing. glibc's loader says "initialize program" at each start (LD_DEBUG=files).
TEST(CliTest, OnlyCommandsThatBuildStartTwiceForHugePages) {
  TempDir dir;
  ::unsetenv("LAKEINDEX_NO_REEXEC");
  ::unsetenv("GLIBC_TUNABLES");
  WriteFileText(dir.Join("a.csv"), "id,name\n1,a\n2,b\n");
  auto starts = [&](const std::vector<std::string>& args) {
    ::setenv("LD_DEBUG", "files", 1);
    CliResult r = RunCli(dir, args);
    ::unsetenv("LD_DEBUG");
    EXPECT_EQ(r.code, 0) << r.err;
    size_t n = 0;
    for (size_t at = r.err.find("initialize program"); at != std::string::npos;
         at = r.err.find("initialize program", at + 1)) {
      ++n;
    }
    return n;
  };
  EXPECT_EQ(starts({"create", dir.Join("t"), "--from", dir.Join("a.csv")}), 2u);
  EXPECT_EQ(starts({"index", "create", dir.Join("t"), "--column", "id", "--type", "btree"}), 2u);
  EXPECT_EQ(starts({"query", dir.Join("t"), "--where", "id = 2"}), 1u);
  EXPECT_EQ(starts({"explain", dir.Join("t"), "--where", "id = 2"}), 1u);
  EXPECT_EQ(starts({"stats", dir.Join("t")}), 1u);
  EXPECT_EQ(starts({"--version"}), 1u);
}

}  // namespace
}  // namespace lakeindex
