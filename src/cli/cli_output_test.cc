// What the command line writes, where and how (issue 51): the output format taken from --output's
// extension; on a real terminal (a pseudo-terminal, as a user's) a preview fitted to its width
// and bounded in rows, binary output refused, a progress bar that leaves its line clean; JSON
// without "nan"; --json of versions, stats and index list; exit codes and wording of errors.
#include <fcntl.h>
#include <pty.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>
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
using clitest::WriteFileText;
using testing::TempDir;

// The CLI run on a pseudo-terminal `columns` wide (stdin, stdout and stderr, as in a user's
// shell): what the terminal got, with the line discipline's "\r\n" back to "\n" (a lone "\r",
// as a progress bar draws, stays).
struct TerminalResult {
  int code = -1;
  std::string text;
  long peak_kb = 0;  // the process's peak resident memory
};
TerminalResult RunInTerminal(const std::vector<std::string>& args, unsigned short columns) {
  struct winsize size {};
  size.ws_col = columns;
  size.ws_row = 50;
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, &size);
  if (pid == 0) {
    ::unsetenv("COLUMNS");
    clitest::ExecCli(args);
  }
  TerminalResult r;
  if (pid < 0) return r;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n > 0) {
      r.text.append(buffer, size_t(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO once the child has closed the terminal
    }
  }
  ::close(master);
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  r.peak_kb = usage.ru_maxrss;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  for (size_t at; (at = r.text.find("\r\n")) != std::string::npos;) r.text.erase(at, 1);
  return r;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

size_t DisplayWidth(const std::string& s) {
  size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;
  return w;
}

// A table of `rows` rows: id 0.., a name, a score.
std::string MakeTable(const TempDir& dir, int rows, const std::string& name = "t") {
  std::string csv = "id,name,score\n";
  for (int i = 0; i < rows; ++i) csv += std::to_string(i) + ",n" + std::to_string(i % 7) + "," + std::to_string(i % 100) + "\n";
  WriteFileText(dir.Join(name + ".csv"), csv);
  const std::string table = dir.Join(name);
  CliResult made = RunCli(dir, {"create", table, "--from", dir.Join(name + ".csv"), "--schema", "id:int64,name:string,score:int64"});
  EXPECT_EQ(made.code, 0) << made.err;
  return table;
}

// ---- item 2: the format of --output FILE from its extension -----------------------------------

TEST(CliOutputTest, OutputTakesItsFormatFromTheExtensionAndAnExplicitFormatWins) {
  TempDir dir;
  const std::string table = MakeTable(dir, 5);
  auto query = [&](const std::string& file, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"query", table, "--output", dir.Join(file)};
    args.insert(args.end(), more.begin(), more.end());
    CliResult r = RunCli(dir, args);
    EXPECT_EQ(r.code, 0) << file << ": " << r.err;
    return ReadFileText(dir.Join(file));
  };
  const std::string parquet = query("o.parquet");
  ASSERT_GE(parquet.size(), 8u);
  EXPECT_EQ(parquet.substr(0, 4), "PAR1");
  EXPECT_EQ(parquet.substr(parquet.size() - 4), "PAR1");
  EXPECT_EQ(query("o.csv"), "id,name,score\n0,n0,0\n1,n1,1\n2,n2,2\n3,n3,3\n4,n4,4\n");
  for (const char* json : {"o.json", "o.jsonl", "o.ndjson", "O.JSON"}) {
    EXPECT_EQ(Lines(query(json)).front(), R"({"id":0,"name":"n0","score":0})") << json;
  }
  for (const char* arrow : {"o.arrow", "o.arrows", "o.ipc"}) {
    EXPECT_EQ(query(arrow).substr(0, 4), std::string("\xff\xff\xff\xff", 4)) << arrow;  // an IPC stream's first message
  }
  // The Arrow output reads back as an input file.
  CliResult back = RunCli(dir, {"create", dir.Join("back"), "--from", dir.Join("o.arrow")});
  EXPECT_EQ(back.code, 0) << back.err;
  // An explicit --format wins; an extension that names no format keeps the text table.
  EXPECT_EQ(Lines(query("o.parquet", {"--format", "csv"})).front(), "id,name,score");
  EXPECT_EQ(Lines(query("o.txt")).front().substr(0, 2), "id");
  EXPECT_NE(query("o.txt").find("(5 rows)"), std::string::npos);
}

// ---- item 3: a terminal gets a preview; pipes and files every row ------------------------------

TEST(CliOutputTest, ATerminalGetsTheFirstAndLastRowsAndAFooterWhileAPipeGetsEveryRow) {
  TempDir dir;
  const std::string table = MakeTable(dir, 1000);
  TerminalResult shown = RunInTerminal({"query", table}, 80);
  ASSERT_EQ(shown.code, 0) << shown.text;
  std::vector<std::string> lines = Lines(shown.text);
  // header, rule, 20 rows, the dots, 20 rows, the footer
  ASSERT_EQ(lines.size(), 2u + 20 + 1 + 20 + 1) << shown.text;
  EXPECT_NE(lines[2].find(" 0  n0"), std::string::npos) << lines[2];
  EXPECT_NE(lines[21].find("19"), std::string::npos) << lines[21];
  EXPECT_NE(lines[22].find("\xc2\xb7"), std::string::npos) << lines[22];
  EXPECT_EQ(lines[22].find_first_not_of(" \xc2\xb7"), std::string::npos) << lines[22];
  EXPECT_NE(lines[23].find("980"), std::string::npos) << lines[23];
  EXPECT_NE(lines[42].find("999"), std::string::npos) << lines[42];
  EXPECT_EQ(lines.back(), "(1000 rows, 40 shown: --max-rows 0 shows every row)");

  // --max-rows: fewer, or every row (0).
  EXPECT_EQ(Lines(RunInTerminal({"query", table, "--max-rows", "6"}, 80).text).size(), 2u + 3 + 1 + 3 + 1);
  TerminalResult all = RunInTerminal({"query", table, "--max-rows", "0"}, 80);
  EXPECT_EQ(Lines(all.text).size(), 2u + 1000 + 1);
  EXPECT_EQ(Lines(all.text).back(), "(1000 rows)");
  EXPECT_EQ(Lines(RunInTerminal({"query", table, "--max-rows", "18446744073709551615"}, 80).text).back(), "(1000 rows)");
  // A result that fits is shown whole, with the footer it always had.
  EXPECT_EQ(Lines(RunInTerminal({"query", table, "--limit", "40"}, 80).text).back(), "(40 rows)");

  // A pipe gets every row, unchanged.
  CliResult piped = RunCli(dir, {"query", table});
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(Lines(piped.out).size(), 2u + 1000 + 1);
  EXPECT_EQ(Lines(piped.out).back(), "(1000 rows)");
  // --max-rows is the table's.
  CliResult csv = RunCli(dir, {"query", table, "--format", "csv", "--max-rows", "3"});
  EXPECT_EQ(csv.code, 1);
  EXPECT_NE(csv.err.find("--max-rows is for --format table"), std::string::npos) << csv.err;
}

TEST(CliOutputTest, ATerminalPreviewFitsItsWidthCuttingValuesThenLeavingColumnsOut) {
  TempDir dir;
  std::string csv, schema;
  for (int c = 0; c < 12; ++c) {
    csv += (c ? "," : "") + std::string("column_") + std::to_string(c);
    schema += (c ? "," : "") + std::string("column_") + std::to_string(c) + ":string";
  }
  csv += "\n";
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 12; ++c) csv += (c ? "," : "") + std::string("a value thirty characters long") + std::to_string(r);
    csv += "\n";
  }
  WriteFileText(dir.Join("wide.csv"), csv);
  const std::string table = dir.Join("wide");
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("wide.csv"), "--schema", schema}).code, 0);
  TerminalResult shown = RunInTerminal({"query", table}, 60);
  ASSERT_EQ(shown.code, 0) << shown.text;
  std::vector<std::string> lines = Lines(shown.text);
  ASSERT_EQ(lines.size(), 2u + 3 + 1) << shown.text;
  for (size_t i = 0; i + 1 < lines.size(); ++i) EXPECT_LE(DisplayWidth(lines[i]), 60u) << lines[i];
  EXPECT_NE(lines[2].find("\xe2\x80\xa6"), std::string::npos) << lines[2];  // values cut with "…"
  EXPECT_EQ(lines[0].substr(0, 8), "column_0");
  EXPECT_NE(lines.back().find("(3 rows; 12 columns, "), std::string::npos) << lines.back();
  EXPECT_NE(lines.back().find(" shown: --select picks the columns)"), std::string::npos) << lines.back();
  // A pipe gets every column, whole.
  CliResult piped = RunCli(dir, {"query", table});
  EXPECT_NE(Lines(piped.out)[0].find("column_11"), std::string::npos);
  EXPECT_NE(piped.out.find("a value thirty characters long2"), std::string::npos);
}

// The preview keeps the rows it shows, not the result: its peak memory stays near the same
// query's with --limit, far under the whole result's in a pipe.
TEST(CliOutputTest, ATerminalPreviewOfAManyRowResultKeepsOnlyTheRowsItShows) {
  TempDir dir;
  std::string csv = "id,text\n";
  const std::string pad(200, 'x');
  for (int i = 0; i < 200000; ++i) csv += std::to_string(i) + "," + pad + "\n";
  WriteFileText(dir.Join("big.csv"), csv);
  const std::string table = dir.Join("big");
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("big.csv"), "--schema", "id:int64,text:string"}).code, 0);
  TerminalResult shown = RunInTerminal({"query", table}, 80);
  ASSERT_EQ(shown.code, 0);
  EXPECT_NE(shown.text.find("(200000 rows, 40 shown"), std::string::npos);
  const long preview = shown.peak_kb;
  // The same query into a pipe (to /dev/null).
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(LAKEINDEX_CLI_PATH, LAKEINDEX_CLI_PATH, "query", table.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const long piped = usage.ru_maxrss;
  // The whole result is 200,000 × 200 bytes = 40 MB held as cells by the pipe's table.
  EXPECT_GT(piped, preview + 30000) << "preview " << preview << " KB, pipe " << piped << " KB";
}

TEST(CliOutputTest, BinaryFormatsAreRefusedOnATerminalWithTheRouteThatWorks) {
  TempDir dir;
  const std::string table = MakeTable(dir, 5);
  TerminalResult arrow = RunInTerminal({"query", table, "--format", "arrow"}, 80);
  EXPECT_EQ(arrow.code, 1) << arrow.text;
  EXPECT_EQ(Lines(arrow.text).size(), 1u) << arrow.text;
  EXPECT_NE(arrow.text.find("--format arrow writes binary, not for a terminal: give --output FILE or pipe it"),
            std::string::npos) << arrow.text;
  TerminalResult parquet = RunInTerminal({"query", table, "--format", "parquet"}, 80);
  EXPECT_EQ(parquet.code, 1) << parquet.text;
  EXPECT_NE(parquet.text.find("--format parquet needs --output FILE"), std::string::npos) << parquet.text;
  // Piped, the stream is written.
  CliResult piped = RunCli(dir, {"query", table, "--format", "arrow"});
  EXPECT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(piped.out.substr(0, 4), std::string("\xff\xff\xff\xff", 4));
}

// The bar's line is cleared before the command's report, which so starts a line of its own
// (it was "100% 50,000/50,000created btree index ...").
TEST(CliOutputTest, TheProgressBarLeavesItsLineCleanForTheNextMessage) {
  TempDir dir;
  const std::string table = MakeTable(dir, 5000);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"index", "create", table, "--column", "score", "--type", "btree"},
        std::vector<std::string>{"append", table, "--from", dir.Join("t.csv")},
        std::vector<std::string>{"optimize", table},
        std::vector<std::string>{"create", dir.Join("t2"), "--from", dir.Join("t.csv")}}) {
    TerminalResult r = RunInTerminal(args, 100);
    ASSERT_EQ(r.code, 0) << r.text;
    ASSERT_NE(r.text.find('%'), std::string::npos) << args[0] << ": no bar was drawn: " << r.text;
    // After the bar's last "\r" comes the clearing escape, then the report's lines, no bar.
    const size_t cr = r.text.rfind('\r');
    ASSERT_NE(cr, std::string::npos) << r.text;
    EXPECT_EQ(r.text.substr(cr, 4), "\r\033[K") << args[0] << ": " << r.text;
    const std::string report = r.text.substr(cr + 4);
    EXPECT_EQ(report.find('%'), std::string::npos) << report;
    EXPECT_NE(report.find(": version "), std::string::npos) << report;
  }
}

// ---- item 8: JSON, --json, -0, wording and exit codes ----------------------------------------

TEST(CliOutputTest, JsonWritesNanAndInfinitiesAsNull) {
  TempDir dir;
  WriteFileText(dir.Join("f.csv"), "id,x\n1,nan\n2,inf\n3,-inf\n4,1.5\n");
  const std::string table = dir.Join("f");
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("f.csv"), "--schema", "id:int64,x:double"}).code, 0);
  CliResult r = RunCli(dir, {"query", table, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"id\":1,\"x\":null}\n{\"id\":2,\"x\":null}\n{\"id\":3,\"x\":null}\n{\"id\":4,\"x\":1.5}\n");
  for (const std::string& line : Lines(r.out)) EXPECT_TRUE(nlohmann::json::accept(line)) << line;
}

TEST(CliOutputTest, VersionsStatsAndIndexListTakeJson) {
  TempDir dir;
  const std::string table = MakeTable(dir, 50);
  ASSERT_EQ(RunCli(dir, {"append", table, "--from", dir.Join("t.csv")}).code, 0);
  ASSERT_EQ(RunCli(dir, {"index", "create", table, "--column", "name", "--type", "bitmap", "--param", "max_values=100"}).code, 0);

  CliResult versions = RunCli(dir, {"versions", table, "--json"});
  ASSERT_EQ(versions.code, 0) << versions.err;
  std::vector<std::string> lines = Lines(versions.out);
  ASSERT_EQ(lines.size(), 3u) << versions.out;
  nlohmann::json v1 = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(v1["version"], 1);
  EXPECT_EQ(v1["operation"], "create");
  EXPECT_EQ(v1["rows"], 50);
  EXPECT_EQ(v1["fragments"], 1);
  EXPECT_TRUE(v1["time_utc"].is_string());
  EXPECT_EQ(nlohmann::json::parse(lines[2])["rows"], 100);

  CliResult stats = RunCli(dir, {"stats", table, "--json"});
  ASSERT_EQ(stats.code, 0) << stats.err;
  nlohmann::json s = nlohmann::json::parse(stats.out);
  EXPECT_EQ(s["version"], 3);
  EXPECT_EQ(s["rows"], 100);
  EXPECT_EQ(s["deleted_rows"], 0);
  EXPECT_EQ(s["fragments"], 2);
  EXPECT_GT(s["data_bytes"].get<uint64_t>(), 0u);
  ASSERT_EQ(s["columns"].size(), 3u);
  EXPECT_EQ(s["columns"][0], (nlohmann::json{{"column", "id"}, {"type", "int64"}, {"min", 0}, {"max", 49}, {"nulls", 0}, {"nans", 0}}));
  EXPECT_EQ(s["columns"][1]["min"], "n0");
  EXPECT_TRUE(s["layout"].is_null());

  CliResult listed = RunCli(dir, {"index", "list", table, "--json"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  ASSERT_EQ(Lines(listed.out).size(), 1u) << listed.out;
  nlohmann::json index = nlohmann::json::parse(listed.out);
  EXPECT_EQ(index["name"], "name_bitmap");
  EXPECT_EQ(index["column"], "name");
  EXPECT_EQ(index["type"], "bitmap");
  EXPECT_EQ(index["covered_fragments"], 2);
  EXPECT_EQ(index["uncovered_fragments"], 0);
  EXPECT_EQ(index["params"]["max_values"], 100);
}

// The statistics keep a bound of 0 as -0.0 (both zeros inside it); people are shown 0.
TEST(CliOutputTest, StatisticsAndAggregatesNeverPrintMinusZero) {
  TempDir dir;
  WriteFileText(dir.Join("z.csv"), "x,y\n0,1\n2,-1\n0.0,0\n");
  const std::string table = dir.Join("z");
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("z.csv"), "--schema", "x:double,y:double"}).code, 0);
  CliResult stats = RunCli(dir, {"stats", table});
  ASSERT_EQ(stats.code, 0) << stats.err;
  EXPECT_EQ(stats.out.find("-0"), std::string::npos) << stats.out;
  CliResult json = RunCli(dir, {"stats", table, "--json"});
  EXPECT_EQ(nlohmann::json::parse(json.out)["columns"][0]["min"].dump(), "0.0") << json.out;
  for (const char* format : {"csv", "table", "json"}) {
    CliResult agg = RunCli(dir, {"query", table, "--agg", "min(x), max(y), sum(y), min(y)", "--where", "y >= 0", "--format", format});
    ASSERT_EQ(agg.code, 0) << agg.err;
    EXPECT_EQ(agg.out.find("-0"), std::string::npos) << format << ": " << agg.out;
  }
  CliResult from_statistics = RunCli(dir, {"query", table, "--agg", "min(x)", "--format", "csv"});
  EXPECT_EQ(from_statistics.out, "min(x)\n0.0\n");  // a double's whole value keeps ".0" in CSV
}

// .feather names Arrow's IPC file format, which lakeindex does not write: refused with the stream's
// extension, never written as a text table or as a stream .feather readers cannot open.
TEST(CliOutputTest, FeatherOutputIsRefusedNamingTheStream) {
  TempDir dir;
  const std::string table = MakeTable(dir, 5);
  CliResult r = RunCli(dir, {"query", table, "--output", dir.Join("o.feather")});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(".arrows writes an Arrow IPC stream"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.Join("o.feather")));
}

TEST(CliOutputTest, ErrorOnAPlainTableIsBlamedOnError) {
  TempDir dir;
  const std::string table = MakeTable(dir, 50);
  CliResult r = RunCli(dir, {"query", table, "--agg", "avg(score)", "--error", "0.05"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("lakeindex: Invalid argument: --error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("needs an OTree layout"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--sample"), std::string::npos) << r.err;
}

TEST(CliOutputTest, ReadingAnExpiredVersionSaysItExpired) {
  TempDir dir;
  const std::string table = MakeTable(dir, 10);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(RunCli(dir, {"append", table, "--from", dir.Join("t.csv")}).code, 0);
  CliResult vacuumed = RunCli(dir, {"vacuum", table, "--keep-versions", "1", "--older-than", "0", "--force"});
  ASSERT_EQ(vacuumed.code, 0) << vacuumed.err;
  CliResult r = RunCli(dir, {"query", table, "--version", "1"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no version 1: it expired (vacuum --keep-versions)"), std::string::npos) << r.err;
}

TEST(CliOutputTest, ACreateThatFailsLeavesNoDirectoryButOneThatWasThere) {
  TempDir dir;
  // Row 3 is no int64: the load fails after the table directory was made.
  WriteFileText(dir.Join("bad.csv"), "id,name\n1,a\n2,b\nthree,c\n");
  CliResult r = RunCli(dir, {"create", dir.Join("t"), "--from", dir.Join("bad.csv"), "--schema", "id:int64,name:string"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.Join("t"))) << r.err;
  // A directory that was there (empty) stays.
  std::filesystem::create_directory(dir.Join("kept"));
  r = RunCli(dir, {"create", dir.Join("kept"), "--from", dir.Join("bad.csv"), "--schema", "id:int64,name:string"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(std::filesystem::is_directory(dir.Join("kept")));
  // A missing parent is named, and nothing is made.
  WriteFileText(dir.Join("good.csv"), "id,name\n1,a\n");
  r = RunCli(dir, {"create", dir.Join("no/such/t"), "--from", dir.Join("good.csv")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("its parent directory '" + dir.Join("no/such") + "' does not exist"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.Join("no")));
}

TEST(CliOutputTest, ATruncatedInputFileIsAUserErrorNamingIt) {
  TempDir dir;
  const std::string table = MakeTable(dir, 100);
  ASSERT_EQ(RunCli(dir, {"query", table, "--output", dir.Join("whole.parquet")}).code, 0);
  const std::string whole = ReadFileText(dir.Join("whole.parquet"));
  WriteFileText(dir.Join("cut.parquet"), whole.substr(0, whole.size() / 2));
  for (const std::vector<std::string>& args : {std::vector<std::string>{"create", dir.Join("c"), "--from", dir.Join("cut.parquet")},
                                               std::vector<std::string>{"append", table, "--from", dir.Join("cut.parquet")}}) {
    CliResult r = RunCli(dir, args);
    EXPECT_EQ(r.code, 1) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("cut.parquet"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.Join("c")));
}

// Permission errors are the user's to fix (exit 1), naming the file. Run as another user when
// the tests run as root (root may write anywhere).
TEST(CliOutputTest, APermissionErrorIsAUserError) {
  TempDir dir;
  const std::string table = MakeTable(dir, 10);
  WriteFileText(dir.Join("more.csv"), "id,name,score\n1,a,2\n");
  auto run = [&](const std::vector<std::string>& args) {
    const std::string out = dir.Join("perm.out"), err = dir.Join("perm.err");
    const pid_t pid = fork();
    if (pid == 0) {
      if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(126);
      const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666), e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
      dup2(o, 1);
      dup2(e, 2);
      clitest::ExecCli(args);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFileText(err));
  };
  // Everything readable (and the output files writable) by the other user; the table not writable.
  ::chmod(dir.path().c_str(), 0777);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(table)) {
    ::chmod(entry.path().c_str(), entry.is_directory() ? 0555 : 0444);
  }
  ::chmod(table.c_str(), 0555);
  ::chmod(dir.Join("more.csv").c_str(), 0444);
  auto [code, err] = run({"append", table, "--from", dir.Join("more.csv")});
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("Permission denied"), std::string::npos) << err;
  EXPECT_NE(err.find(table), std::string::npos) << err;
  // An input file the user may not read.
  ::chmod(dir.Join("more.csv").c_str(), 0000);
  std::tie(code, err) = run({"create", dir.Join("t2"), "--from", dir.Join("more.csv")});
  EXPECT_EQ(code, 1) << err;
  EXPECT_NE(err.find("more.csv"), std::string::npos) << err;
  ::chmod(table.c_str(), 0755);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(table)) {
    ::chmod(entry.path().c_str(), entry.is_directory() ? 0755 : 0644);
  }
}

}  // namespace
}  // namespace lakeindex
